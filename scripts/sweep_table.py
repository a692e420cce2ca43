#!/usr/bin/env python3
"""The per-resolution table of docs/performance.md from a vif-sweep report (sweep.md): the
pipelined frame time and the kernels' median sum of the chosen kernels per size and bit depth,
sizes as columns. Checks that every size and depth asked for is there (PASS/FAIL on the last
line, exit status 1 when one is missing).
Usage: sweep_table.py SWEEP_MD [--sizes 576x324,...] [--bitdepths 8,10]"""
import argparse
import re
import sys

DEFAULT_SIZES = "576x324,1280x720,1920x1080,2560x1440,3840x2160,7680x4320"


def read_rows(path):
    """{(size, bpc): (kernels us, pipelined us)} of the 'Per frame' table's chosen rows."""
    rows, device, in_table = {}, "", False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("# vif-sweep: "):
                device = line[len("# vif-sweep: "):].split(" (")[0].strip()
            if line.startswith("## "):
                in_table = line.startswith("## Per frame")
                continue
            if not in_table or not line.startswith("| "):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 6 or cells[2] != "chosen":
                continue
            us = [re.match(r"([\d.]+) us", c) for c in (cells[3], cells[5])]
            if not all(us):
                continue
            rows[(cells[0], int(cells[1]))] = (float(us[0].group(1)), float(us[1].group(1)))
    return device, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sweep_md")
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    ap.add_argument("--bitdepths", default="8,10")
    a = ap.parse_args()
    sizes = [s for s in a.sizes.split(",") if s]
    depths = [int(d) for d in a.bitdepths.split(",") if d]
    try:
        device, rows = read_rows(a.sweep_md)
    except OSError as e:
        print(f"sweep_table: FAIL: cannot read {a.sweep_md}: {e.strerror}")
        return 1
    print(f"Per-resolution sweep, {device or 'unknown GPU'} (`vif-sweep --runs 300`):\n")
    print("| size | " + " | ".join(sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    missing = []
    for d in depths:
        for col, what in ((1, "pipelined"), (0, "kernels (median sum)")):
            cells = []
            for s in sizes:
                r = rows.get((s, d))
                if r is None:
                    cells.append("-")
                    if col == 1:
                        missing.append(f"{s} {d}-bit")
                else:
                    cells.append(f"{r[col]:.1f} us")
            print(f"| {what}, {d}-bit | " + " | ".join(cells) + " |")
    print()
    if missing:
        print("sweep_table: FAIL: no chosen-kernel row for " + ", ".join(missing))
        return 1
    print(f"sweep_table: PASS: {len(sizes)} sizes x {len(depths)} depths")
    return 0


if __name__ == "__main__":
    sys.exit(main())

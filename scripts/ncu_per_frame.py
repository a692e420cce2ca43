#!/usr/bin/env python3
"""Per-frame kernel time from an Nsight Compute log of vif-sweep (gpu__time_duration.sum per
launch): groups the launches by kernel and grid z (= frames in the launch), prints the median per
launch and per frame, and the sum over a frame's kernels per frame. Usage: ncu_per_frame.py LOG"""
import re
import statistics
import sys

UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}


def main(path):
    head = re.compile(r"^\s*(?:void\s+)?(\w+).*?\s\((\d+),\s*(\d+),\s*(\d+)\)x\((\d+),")
    metric = re.compile(r"gpu__time_duration\.sum\s+(\S+)\s+([\d.,]+)")
    rows, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = head.match(line)
            if m:
                cur = (m.group(1), int(m.group(2)) * int(m.group(3)), int(m.group(4)))
                continue
            m = metric.search(line)
            if m and cur:
                us = float(m.group(2).replace(",", "")) * UNITS.get(m.group(1), 1.0)
                rows.setdefault(cur, []).append(us)
                cur = None
    if not rows:
        print("ncu_per_frame: no gpu__time_duration rows in", path)
        return 1
    per_frame = {}
    print("| kernel | blocks/frame | frames (grid z) | launches | median us/launch | us/frame |")
    print("|---|---|---|---|---|---|")
    for (name, blocks, z), v in sorted(rows.items()):
        med = statistics.median(v)
        per_frame[z] = per_frame.get(z, 0.0) + med / z
        print(f"| {name} | {blocks} | {z} | {len(v)} | {med:.2f} | {med / z:.2f} |")
    for z, t in sorted(per_frame.items()):
        print(f"sum of kernel medians per frame, {z} frame(s) per launch: {t:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

#!/usr/bin/env python3
"""Nsight Compute logs of vif-sweep (--kernel-name-base mangled, gpu__time_duration.sum,
smsp__inst_executed.sum, smsp__thread_inst_executed.sum) to one table: per kernel instance (the
integer tile's template arguments, the statistic's flags) and grid, the median over its launches.
Usage: ncu_stat_table.py LOG..."""
import re
import statistics
import sys

UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
STAT = {0: "-", 1: "c", 2: "d", 3: "cd", 7: "cdl", 11: "cdp"}


def label(mangled):
    # int_scale_kernel<S, BPC, IntTile<...>, batched> or int_scale23_kernel<IntTile, IntTile, b>
    tiles = re.findall(r"IntTileIL(.*?)EEE?", mangled)
    out = []
    for t in re.findall(r"IntTileI((?:L[ibj]\d+E)+)E", mangled):
        a = re.findall(r"L[ibj](\d+)E", t)
        a = [int(x) for x in a]
        tw, th, nt = a[0], a[1], a[2]
        mma = "mma" if len(a) > 7 and a[7] else ""
        stat = STAT.get(a[9], str(a[9])) if len(a) > 9 else "-"
        out.append(f"{tw}x{th}{'/' + mma if mma else ''}/stat {stat}")
    kind = "s23" if "int_scale23" in mangled else "s" + (re.search(r"int_scale_kernelILi(\d)ELi(\d+)", mangled).group(1) + "_" + re.search(r"int_scale_kernelILi(\d)ELi(\d+)", mangled).group(2) + "b" if "int_scale_kernelILi" in mangled else "?")
    return kind + " " + (out[0] if out else mangled[:40])


def main(paths):
    head = re.compile(r"^\s*(?:void\s+)?(_Z\w+).*?\s\((\d+),\s*(\d+),\s*(\d+)\)x\((\d+),")
    metric = re.compile(r"(gpu__time_duration\.sum|smsp__inst_executed\.sum|smsp__thread_inst_executed\.sum)\s+(\S+)\s+([\d.,]+)")
    rows = {}
    order = []
    for path in paths:
        cur = None
        with open(path, errors="replace") as f:
            for line in f:
                m = head.match(line)
                if m:
                    cur = (label(m.group(1)), int(m.group(2)) * int(m.group(3)))
                    if cur not in rows:
                        rows[cur] = {}
                        order.append(cur)
                    continue
                m = metric.search(line)
                if m and cur:
                    v = float(m.group(3).replace(",", ""))
                    if m.group(1).startswith("gpu__time"):
                        v *= UNITS.get(m.group(2), 1.0)
                    rows[cur].setdefault(m.group(1), []).append(v)
    print("| kernel (tile / statistic flags) | blocks | launches | median us | warp inst (M) | thread inst (M) |")
    print("|---|---|---|---|---|---|")
    for key in order:
        r = rows[key]
        t = r.get("gpu__time_duration.sum", [])
        if not t:
            continue
        wi = statistics.median(r.get("smsp__inst_executed.sum", [0])) / 1e6
        ti = statistics.median(r.get("smsp__thread_inst_executed.sum", [0])) / 1e6
        print(f"| {key[0]} | {key[1]} | {len(t)} | {statistics.median(t):.2f} | {wi:.3f} | {ti:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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


def label(name):
    """Short key of a demangled kernel name: scale, depth, the first tile's shape and flags."""
    kind = "s23" if "int_scale23" in name else "?"
    m = re.search(r"int_scale_kernel<(\d+), (\d+),", name)
    if m:
        kind = f"s{m.group(1)}_{m.group(2)}b"
    t = re.search(r"IntTile<([^>]*)>", name)
    if not t:
        return kind
    a = [int(x) for x in t.group(1).split(",")]
    mma = "/mma" if len(a) > 7 and a[7] else ""
    stat = STAT.get(a[9], str(a[9])) if len(a) > 9 else "-"
    return f"{kind} {a[0]}x{a[1]}{mma} stat {stat}"


def main(paths):
    head = re.compile(r"^\s*void\s+(int_scale\w*<.*>)\(.*?\)\s\((\d+),\s*(\d+),\s*(\d+)\)x\((\d+),")
    metric = re.compile(r"(gpu__time_duration\.sum|smsp__inst_executed\.sum|smsp__thread_inst_executed\.sum)\s+(\S+)\s+([\d.,]+)")
    rows = {}
    order = []
    for path in paths:
        cur = None
        run = re.sub(r".*/", "", path)
        with open(path, errors="replace") as f:
            for line in f:
                m = head.match(line)
                if m:
                    cur = (run, label(m.group(1)), int(m.group(2)) * int(m.group(3)))
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
    print("| log | kernel (tile / statistic flags) | blocks | launches | median us | warp inst (M) | thread inst (M) |")
    print("|---|---|---|---|---|---|---|")
    for key in order:
        r = rows[key]
        t = r.get("gpu__time_duration.sum", [])
        if not t:
            continue
        wi = statistics.median(r.get("smsp__inst_executed.sum", [0])) / 1e6
        ti = statistics.median(r.get("smsp__thread_inst_executed.sum", [0])) / 1e6
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(t)} | {statistics.median(t):.2f} | {wi:.3f} | {ti:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

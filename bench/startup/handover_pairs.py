#!/usr/bin/env python3
"""The library's `auto` hand-over against waiting for the GPU, in runs paired round by round.

A `libvif.Scorer` fed numpy 1080p frames 8 at a time (a stream whose length the library cannot
know), whole process less making the frames (startup_bench.py's LIB_PROBE), under four settings:
VIF_AUTO=handover, VIF_AUTO=wait (the GPU started in vif_create and waited for), backend cpu and
backend cuda. Each round runs every setting once, in an order reversed every other round, so a
slow patch of the machine falls on all of them; the table gives min, median and max per setting,
the median of the paired differences hand-over minus wait, and whether every setting gave the
same scores. Noise between identical settings on the H200 machine is several percent, so the
paired median, not a best-of, decides "no slower".

    PY_NEW=build-gpu/python python3 bench/startup/handover_pairs.py [frames:rounds ...]

(default 48:7 300:7 1200:11). On the GPU machine: `bash bench/startup/gpu_run.sh build`, then
`PY_NEW=$PWD/build-gpu/python /opt/torch/.venv/bin/python bench/startup/handover_pairs.py`.
Exit status 1 when a run fails or the scores differ.
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OUT", "/tmp/handover-pairs")
import startup_bench  # noqa: E402  (its LIB_PROBE: the Scorer stream)

SETTINGS = {"handover": ("auto", {"VIF_AUTO": "handover"}), "wait": ("auto", {"VIF_AUTO": "wait"}),
            "cpu": ("cpu", {}), "cuda": ("cuda", {})}


def main():
    env = dict(os.environ, PYTHONPATH=os.environ["PY_NEW"])
    for k in ("VIF_AUTO", "VIF_TEST_AUTO"):
        env.pop(k, None)
    plan = [tuple(int(x) for x in a.split(":")) for a in sys.argv[1:]] or [(48, 7), (300, 7),
                                                                             (1200, 11)]
    bad = False

    def one(backend, n, extra):
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", startup_bench.LIB_PROBE, "scorer", backend, str(n)],
                           env=dict(env, **extra), capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            print(f"FAIL {backend} {n} {extra}: rc {p.returncode}: {p.stderr.strip()[-300:]}")
            return None, None
        prep, _, _, frames, digest = p.stdout.split()
        if int(frames) != n:
            print(f"FAIL {backend} {n} {extra}: {frames} frames scored")
            return None, None
        return wall - float(prep), digest

    one("cpu", 8, {})  # warm-up: the package, numpy and the libraries into the page cache
    print("| Scorer frames | setting | min s | median s | max s | runs |")
    print("|---|---|---|---|---|---|")
    for n, rounds in plan:
        times = {k: [] for k in SETTINGS}
        digests = set()
        for r in range(rounds):
            for k in (list(SETTINGS) if r % 2 == 0 else list(reversed(SETTINGS))):
                t, d = one(SETTINGS[k][0], n, SETTINGS[k][1])
                if t is None:
                    bad = True
                    continue
                times[k].append(t)
                digests.add(d)
        for k, v in times.items():
            if v:
                print(f"| {n} | {k} | {min(v):.3f} | {statistics.median(v):.3f} | {max(v):.3f} "
                      f"| {len(v)} |")
        h, w = times["handover"], times["wait"]
        if h and w and len(h) == len(w):
            d = statistics.median([a - b for a, b in zip(h, w)])
            print(f"| {n} | hand-over - wait, paired | median {d * 1000:+.1f} ms | medians' ratio "
                  f"{statistics.median(h) / statistics.median(w):.3f} | | |")
        same = len(digests) == 1
        bad |= not same
        print(f"| {n} | every setting's scores equal | {'PASS' if same else 'FAIL'} | | | |")
        sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Frames per second of libvif's Python package at 1080p: frames already on the GPU (PyTorch
tensors, scored in place on the CUDA backend) against the same frames as numpy arrays (through
the CUDA backend, which uploads them, and on the CPU backend).

    PYTHONPATH=<build>/python python3 bench/python/bench_tensors.py [--frames N] [--repeat R]
        [--ref ref_luma.npy --dist dist_luma.npy]

Without --ref/--dist the frames are the luma planes of the 1080p golden case
(../shared/testdata/cases/quad_1920x1080_*.yuv, 5 frames, or under $VIF_SHARED_TESTDATA)
repeated to N; with neither, random
frames (VIF's work does not depend on the content). Each figure is the best of R timed runs
after one warm-up; "score()" includes creating the context, "Scorer" reuses one.
Prints a Markdown table and checks that every path gave the same bits.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import libvif

W, H = 1920, 1080
ROOT = Path(__file__).resolve().parents[2]


def load_frames(args):
    if args.ref and args.dist:
        return np.load(args.ref), np.load(args.dist), "given .npy files"
    case = Path(os.environ.get("VIF_SHARED_TESTDATA") or ROOT / ".." / "shared" / "testdata") / "cases"
    ref_yuv = case / "quad_1920x1080_yuv420p_ref.yuv"
    dist_yuv = case / "quad_1920x1080_yuv420p_crf35.yuv"
    if ref_yuv.exists() and dist_yuv.exists():
        fb = W * H * 3 // 2
        def luma(p):
            raw = np.fromfile(p, np.uint8)
            n = raw.size // fb
            return np.stack([raw[i * fb:i * fb + W * H].reshape(H, W) for i in range(n)])
        return luma(ref_yuv), luma(dist_yuv), "quad_1920x1080 golden case"
    rng = np.random.default_rng(1)
    ref = rng.integers(0, 256, (5, H, W), dtype=np.uint8)
    dist = np.clip(ref.astype(np.int16) + rng.integers(-20, 21, ref.shape), 0, 255).astype(np.uint8)
    return ref, dist, "random frames"


def best_of(repeat, fn):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu-frames", type=int, default=120,
                    help="frames for the (slower) CPU backend row")
    ap.add_argument("--ref")
    ap.add_argument("--dist")
    args = ap.parse_args()

    ref5, dist5, source = load_frames(args)
    reps = -(-args.frames // ref5.shape[0])
    ref = np.ascontiguousarray(np.tile(ref5, (reps, 1, 1))[: args.frames])
    dist = np.ascontiguousarray(np.tile(dist5, (reps, 1, 1))[: args.frames])
    n = ref.shape[0]
    rows = []

    def row(name, frames, seconds):
        rows.append((name, frames, seconds))

    import torch
    ref_t, dist_t = torch.from_numpy(ref).cuda(), torch.from_numpy(dist).cuda()
    torch.cuda.synchronize()

    t, gpu = best_of(args.repeat, lambda: libvif.score(ref_t, dist_t))
    row("torch CUDA tensors, score() on the (frames, h, w) stack", n, t)

    def stream_frames():
        with libvif.Scorer() as s:
            for i in range(n):
                s.submit(ref_t[i], dist_t[i])
            return s.result()
    t, streamed = best_of(args.repeat, stream_frames)
    row("torch CUDA tensors, Scorer.submit() one frame at a time", n, t)

    t, host_cuda = best_of(args.repeat, lambda: libvif.score(ref, dist, backend="cuda"))
    row("numpy arrays, score(backend='cuda') (uploads each frame)", n, t)

    m = min(args.cpu_frames, n)
    t, host_cpu = best_of(1, lambda: libvif.score(ref[:m], dist[:m], backend="cpu"))
    row(f"numpy arrays, score(backend='cpu'), {os.cpu_count()} threads", m, t)

    same = ([dict(f) for f in gpu.frames] == [dict(f) for f in streamed.frames]
            == [dict(f) for f in host_cuda.frames])
    same = same and [dict(f) for f in host_cpu.frames] == [dict(f) for f in gpu.frames[:m]]
    print(f"libvif {libvif.__version__}, {torch.cuda.get_device_name()}, torch {torch.__version__}"
          f"; 1080p 8-bit luma ({source}), {n} frames; best of {args.repeat}")
    print()
    print("| path | frames | seconds | frames/s |")
    print("|---|---:|---:|---:|")
    for name, frames, seconds in rows:
        print(f"| {name} | {frames} | {seconds:.3f} | {frames / seconds:,.0f} |")
    print()
    print(f"same bits on every path: {same}")
    if not same:
        raise SystemExit("MISMATCH between paths")


if __name__ == "__main__":
    main()

"""Which backend ``backend="auto"`` takes for host arrays when the whole run is known.

``libvif.score()`` on numpy frames knows how many frames it scores. The library's ``auto``
picks CUDA whenever a GPU is present, and CUDA's start-up in a process (the driver, a context:
about 0.25 s) is more than a short run takes on the CPU threads: 48 frames of 1080p took 0.227 s
with ``auto`` against 0.173 s with ``backend="cpu"`` (NVIDIA H200 machine, 16 cores, issue 26).
So a run whose CPU time is below CUDA's start-up plus its GPU time goes to the CPU, and CUDA
is never started for it. Rates (luma pixels of one frame pair a second):
- the CPU backend: about 6e7 a worker thread (raw 1080p, 1,200 frames: 461 frames a second on
  the H200 machine's 16 threads, whole process; frames are scored in parallel, one a thread);
- CUDA for host frames, copies included: about 4e9 (raw 1080p scored at 1,800-2,100 frames a
  second there, whole process).
A machine whose threads together outpace CUDA on host frames keeps every such run on the CPU.
"""

from __future__ import annotations

import os

CUDA_START_S = 0.25
CPU_PIXELS_PER_S_PER_THREAD = 6.0e7
CUDA_PIXELS_PER_S = 4.0e9


def host_run_backend(frames: int, height: int, width: int, threads: int = 0) -> str:
    """"cpu" when the run is done on the CPU sooner than CUDA could start and score it, else
    "auto" (the library's choice: CUDA when a GPU is present). threads: the CPU workers (0:
    one a hardware thread, as the library does)."""
    workers = threads or os.cpu_count() or 1
    pixels = float(frames) * height * width
    cpu_s = pixels / (CPU_PIXELS_PER_S_PER_THREAD * workers)
    cuda_s = CUDA_START_S + pixels / CUDA_PIXELS_PER_S
    return "cpu" if cpu_s <= cuda_s else "auto"

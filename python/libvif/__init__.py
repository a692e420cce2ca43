"""libvif: Visual Information Fidelity (VIF) exactly as libvmaf computes it, on the CPU and on
NVIDIA GPUs, for numpy arrays, GPU tensors (PyTorch, CuPy, JAX; read in place) and video files.

    >>> import numpy as np, libvif
    >>> ref = np.random.default_rng(0).integers(0, 256, (2, 64, 64), dtype=np.uint8)
    >>> r = libvif.score(ref, ref // 2 + 60)
    >>> sorted(r.pooled["integer_vif"])
    ['harmonic_mean', 'max', 'mean', 'min']

Entry points: score() for arrays you have, Scorer for frames that arrive one at a time,
score_files() for files. docs/python.md has the details.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from ._errors import (DeviceError, InputError, InvalidArgumentError, NoDeviceError,
                      UnsupportedError, VifError)
from ._files import score_files
from ._result import POOL_METHODS, FrameScores, Result, pool
from ._scorer import Scorer

__all__ = [
    "score", "score_files", "Scorer", "Result", "FrameScores", "pool", "POOL_METHODS",
    "VifError", "InvalidArgumentError", "UnsupportedError", "NoDeviceError", "DeviceError",
    "InputError", "cuda_available", "library_version", "__version__", "HAVE_CUDA",
    "HAVE_FFMPEG",
]

__version__: str = _core.version()
#: Whether this build has the CUDA backend (GPU tensors need it).
HAVE_CUDA: bool = bool(_core.HAVE_CUDA)
#: Whether score_files() reads any FFmpeg input (else raw YUV and Y4M only).
HAVE_FFMPEG: bool = bool(_core.HAVE_FFMPEG)


def library_version() -> str:
    """The libvif library's version, "MAJOR.MINOR.PATCH"."""
    return _core.version()


def cuda_available() -> bool:
    """Whether this build has the CUDA backend and a usable GPU is present."""
    return bool(_core.cuda_available())


def score(ref: Any, dist: Any, variant: str = "integer", backend: str = "auto",
          bitdepth: Optional[int] = None, *, stream: Any = None, **options: Any) -> Result:
    """Scores distorted frames against reference frames.

    ref, dist: 2-D (height, width) arrays for one frame or 3-D (frames, height, width) stacks,
    of the same shape: numpy arrays (uint8, or uint16 with ``bitdepth`` 10, 12 or 16) or GPU
    tensors (PyTorch, CuPy, JAX), which go to the CUDA backend where they are, with no copy, on
    ``stream`` (default: the framework's current stream). Host arrays are read in place when
    each row's samples are contiguous; other views (a column step, flipped rows) are copied.

    variant: "integer" (libvmaf's ``vif``, VMAF's default; bit-exact) or "float"
    (``float_vif``). backend: "auto" (CUDA when built with it and a GPU is present, except for
    host arrays the CPU threads score sooner than CUDA could start: a short run never starts
    CUDA), "cpu" or "cuda". options: see Scorer (``enhn_gain_limit``, ``kernelscale``, ``threads``, ...).

    Returns a Result: ``result.frames`` (a FrameScores dict per frame, libvmaf's key names),
    ``result.pooled`` (mean, harmonic_mean, min, max per key), ``result["integer_vif"]`` (one
    key over the frames as a numpy array). With ``maps=True`` ``result.maps[i]`` holds frame
    i's local VIF map of each scale as float32 arrays (docs/algorithm.md §12.3): numpy arrays,
    or for PyTorch / CuPy GPU tensors, tensors of that framework on their device. The GIL is
    released while frames are scored.
    Raises TypeError/ValueError for arrays libvif cannot take, VifError (InvalidArgumentError
    is also a ValueError) with the library's message for anything the library refuses.
    """
    with Scorer(variant, backend, bitdepth=bitdepth, **options) as scorer:
        scorer._whole_run = True  # the whole run: "auto" may weigh its length (_auto.py)
        scorer.submit(ref, dist, stream=stream)
        return scorer.result()

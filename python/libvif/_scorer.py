"""Scorer: the streaming context (frames submitted one at a time or in stacks)."""

from __future__ import annotations

import atexit
import sys
import threading
import weakref
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from ._errors import VifError
from ._frames import (DeviceFrames, HostFrames, check_sample_range, device_frames, host_frames,
                      is_device_tensor, resolve_bitdepth, stream_handle)
from ._result import FrameScores, Result

_VARIANTS = {"integer": 0, "float": 1}
_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}


def check_count(name: str, value: Any, most: int = 2**31 - 1) -> int:
    """value as a whole number 0..most, else a ValueError/TypeError naming the argument (rather
    than the extension's signature dump)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    if not 0 <= int(value) <= most:
        raise ValueError(f"{name} must be between 0 and {most}, got {value}")
    return int(value)


def _choice(what: str, value: str, table: dict) -> int:
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {what} {value!r}; use one of "
                         f"{', '.join(repr(k) for k in table)}") from None


class Scorer:
    """A libvif context for frames that arrive one at a time (an encoder loop, a data loader).

    ``submit(ref, dist)`` queues a frame pair (2-D arrays) or a stack of them (3-D: frames,
    height, width) and returns at once with the first frame's index; ``receive()`` returns the
    oldest scores not yet received (a FrameScores), in submission order; iterating over the
    scorer receives everything submitted so far. Use it as a context manager, or call close().

    Arrays are numpy (uint8, or uint16 with ``bitdepth``) or GPU tensors (PyTorch, CuPy, JAX:
    ``__cuda_array_interface__`` or DLPack), which go to the CUDA backend without a copy, on the
    caller's current stream unless ``stream`` says otherwise.

    Options (libvmaf's names without the ``vif_`` prefix): ``enhn_gain_limit`` (1..100, default
    100), ``kernelscale`` (float variant; default 1.0). Others: ``threads`` (CPU workers, 0 =
    one per core), ``queue_depth`` (frames in flight, 0 = automatic), ``cuda_device``,
    ``msb_aligned`` (16-bit words hold the sample in their top bits, as P010), ``width``/``height``
    (the largest frame; default: the first frame's size), ``maps`` (True: each frame also
    carries its local VIF maps, see ``FrameScores.maps``: numpy arrays, or for PyTorch / CuPy GPU
    tensors, tensors of that framework on the same device). Samples above the bit depth's range are
    always refused (here for host arrays, with the largest value; by the library for every
    input, with the sample's place).
    """

    def __init__(self, variant: str = "integer", backend: str = "auto", *,
                 bitdepth: Optional[int] = None, width: Optional[int] = None,
                 height: Optional[int] = None, enhn_gain_limit: float = 100.0,
                 kernelscale: float = 1.0, threads: int = 0, queue_depth: int = 0,
                 cuda_device: Optional[int] = None, msb_aligned: bool = False,
                 maps: bool = False) -> None:
        self.variant = variant
        self._variant = _choice("variant", variant, _VARIANTS)
        self._backend_req = _choice("backend", backend, _BACKENDS)
        self.requested_backend = backend
        self._bitdepth = bitdepth
        # The library's largest frame is 32768 x 32768; 0 / None: the first frame's size.
        self._size = (None if width is None else check_count("width", width, 32768),
                      None if height is None else check_count("height", height, 32768))
        self._options = dict(enhn_gain_limit=float(enhn_gain_limit),
                             kernelscale=float(kernelscale),
                             threads=check_count("threads", threads),
                             queue_depth=check_count("queue_depth", queue_depth))
        self._cuda_device = None if cuda_device is None else check_count("cuda_device",
                                                                          cuda_device)
        self._maps = bool(maps)
        # Maps of GPU frames go back to the caller's framework and device: (framework, device).
        self._map_device: Optional[Tuple[str, int]] = None
        self._flags = 1 if msb_aligned else 0  # VIF_PICTURE_MSB_ALIGNED
        self._check_range = not msb_aligned  # the library checks MSB-aligned words itself
        self._ctx: Any = None
        self._names: List[str] = []
        self._closed = False
        # Set by libvif.score(): the first submit is the whole run, so `auto` may weigh its
        # length against CUDA's start-up (_auto.py).
        self._whole_run = False
        # Threads making their first submit at once must share one context: it is made under
        # this lock (the context's own calls are serialised by the extension's mutex).
        self._start_lock = threading.Lock()

    # ---- context -------------------------------------------------------------------------

    def _context(self, frames: Any, bitdepth: int) -> Any:
        if self._closed:
            raise VifError("the scorer is closed", -6)  # VIF_ERROR_INVALID_STATE
        if self._ctx is not None:
            return self._ctx
        with self._start_lock:
            if self._closed:
                raise VifError("the scorer is closed", -6)
            if self._ctx is not None:
                return self._ctx  # another thread made it meanwhile
            from . import _core
            backend = self._backend_req
            device = self._cuda_device
            if isinstance(frames, DeviceFrames):
                if backend == _BACKENDS["cpu"]:
                    raise ValueError("GPU tensors need the CUDA backend, but backend='cpu' was "
                                     "asked for (move them to the host to score on the CPU)")
                backend = _BACKENDS["cuda"]
                if device is None:
                    device = frames.device_id
            elif backend == _BACKENDS["auto"] and self._whole_run:
                from ._auto import host_run_backend
                n, fh, fw = frames.shape
                backend = _BACKENDS[host_run_backend(n, fh, fw, self._options["threads"])]
            _, h, w = frames.shape
            width = self._size[0] or w
            height = self._size[1] or h
            ctx = _core.Context(width, height, bitdepth, self._variant, backend,
                                cuda_device=device or 0, maps=self._maps, **self._options)
            self._names = ctx.metric_names()
            self._ctx = ctx  # published last: a thread that sees it sees the names too
            _open_scorers.add(self)
        return self._ctx

    @property
    def started(self) -> bool:
        """Whether the context exists (it is made at the first submit)."""
        return self._ctx is not None

    @property
    def backend(self) -> str:
        """"cpu", "cuda" or, after `auto` handed over to the GPU, "cpu+cuda" (known after the
        first submit)."""
        if self._ctx is None:
            raise RuntimeError("the backend is chosen at the first submit()")
        return self._ctx.backend

    @property
    def names(self) -> List[str]:
        """libvmaf's key names of the scores, in order (known after the first submit)."""
        return list(self._names)

    @property
    def pending(self) -> int:
        """Frames submitted whose scores have not been received."""
        return 0 if self._ctx is None or self._closed else self._ctx.pending()

    # ---- frames --------------------------------------------------------------------------

    def submit(self, ref: Any, dist: Any, *, stream: Any = None) -> int:
        """Queues a frame pair (2-D) or a stack of pairs (3-D); returns the first frame's index.

        Host arrays are copied by the library before this returns (so they may be reused at
        once). GPU tensors are read on ``stream`` (default: the framework's current stream):
        work queued on it afterwards may overwrite them. Raises ValueError/TypeError for arrays
        libvif cannot take, VifError for library failures.
        """
        ref_dev, dist_dev = is_device_tensor(ref), is_device_tensor(dist)
        if ref_dev != dist_dev:
            raise ValueError("reference and distorted must both be host arrays or both GPU "
                             "tensors")
        s = stream_handle(stream)
        if ref_dev:
            r: Any = device_frames(ref, "reference", s)
            d: Any = device_frames(dist, "distorted", s if s is not None else r.stream)
        else:
            r, d = host_frames(ref, "reference"), host_frames(dist, "distorted")
        if r.shape != d.shape or (isinstance(r, HostFrames) and r.array.ndim != d.array.ndim):
            raise ValueError(f"reference and distorted shapes differ: "
                             f"{_shape(r)} vs {_shape(d)}")
        if _itemsize(r) != _itemsize(d):
            raise TypeError("reference and distorted have different sample types (uint8 vs "
                            "uint16)")
        hint = self._bitdepth
        if hint is None and self._ctx is not None:
            hint = self._ctx.bitdepth  # later frames: the context's
        bitdepth = resolve_bitdepth("reference", _itemsize(r), hint)
        if isinstance(r, HostFrames) and self._check_range:
            check_sample_range("reference", r.array, bitdepth)
            check_sample_range("distorted", d.array, bitdepth)
        ctx = self._context(r, bitdepth)
        if isinstance(r, HostFrames):
            return ctx.submit_host(r.array, d.array, self._flags)
        if self._maps and self._map_device is None:
            self._map_device = (type(ref).__module__.split(".")[0], r.device_id or 0)
        _, h, w = r.shape
        return ctx.submit_device(r.data, r.frame_stride, r.pitch, d.data, d.frame_stride,
                                 d.pitch, r.frames, w, h, self._flags, r.stream)

    def receive(self, block: bool = True) -> Optional[FrameScores]:
        """The oldest scores not yet received, or None: nothing pending, or (block=False)
        nothing ready yet."""
        if self._ctx is None:
            return None
        got = self._ctx.receive(block)
        if got is None:
            return None
        index, values = got
        frame = FrameScores(index, self._names, values)
        if self._maps:
            frame.maps = self._on_device(self._ctx.take_maps(index))
        return frame

    def __iter__(self) -> Iterator[FrameScores]:
        """Receives (waiting as needed) every frame submitted so far, in order."""
        while True:
            s = self.receive(block=True)
            if s is None:
                return
            yield s

    def result(self) -> Result:
        """Waits for every pending frame and returns their scores with pooled values."""
        if self._ctx is None:
            return Result([], [], np.zeros((0, 0)), "none")
        indices, values = self._ctx.drain()
        maps = [self._on_device(self._ctx.take_maps(i)) for i in indices] if self._maps else None
        return Result(self._names, indices, values, self._ctx.backend, maps=maps)

    def _on_device(self, maps: Optional[List[np.ndarray]]) -> Any:
        """A frame's local maps as tensors on the device its GPU frames came from (PyTorch or
        CuPy; numpy arrays for host frames and other frameworks)."""
        if maps is None or self._map_device is None:
            return maps
        framework, device = self._map_device
        if framework == "torch" and "torch" in sys.modules:
            torch = sys.modules["torch"]
            return [torch.as_tensor(m, device=f"cuda:{device}") for m in maps]
        if framework == "cupy" and "cupy" in sys.modules:
            cupy = sys.modules["cupy"]
            with cupy.cuda.Device(device):
                return [cupy.asarray(m) for m in maps]
        return maps

    def close(self) -> None:
        """Waits for work in flight and frees the context (scores not received are dropped)."""
        with self._start_lock:
            self._closed = True
            ctx = self._ctx
        if ctx is not None:
            ctx.close()

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else (self._ctx.backend if self._ctx else "not started")
        return f"<libvif.Scorer variant={self.variant} {state}>"


# Scorers whose context exists and may not have been closed.
_open_scorers: "weakref.WeakSet[Scorer]" = weakref.WeakSet()


def _close_open_scorers() -> None:
    """At interpreter exit, before the modules are torn down: close every scorer still open, so
    that its context ends, and an `auto` context's GPU start-up still under way is waited for,
    while the interpreter and the library are whole (docs/python.md). A scorer the interpreter
    would otherwise free late, or never (a reference cycle, a global), is closed here."""
    for scorer in list(_open_scorers):
        try:
            scorer.close()
        except Exception:  # noqa: BLE001 -- at exit: nothing to report to
            pass


atexit.register(_close_open_scorers)


def _itemsize(f: Any) -> int:
    return f.array.dtype.itemsize if isinstance(f, HostFrames) else f.itemsize


def _shape(f: Any) -> tuple:
    return tuple(f.array.shape) if isinstance(f, HostFrames) else f.shape

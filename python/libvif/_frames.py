"""Turning what the caller passes into frames libvif can score, without copying where it can.

Host arrays (numpy, or anything ``numpy.asarray`` takes) keep their strides when each row's
samples are contiguous (column stride == item size) and the row stride is positive; otherwise
they are copied once (``numpy.ascontiguousarray``). Frames (axis 0) may be any distance apart.

GPU tensors are read where they are: through ``__cuda_array_interface__`` (PyTorch, CuPy,
Numba) or, failing that, DLPack (``__dlpack__`` on a CUDA device: PyTorch, CuPy, JAX). Their
rows must hold contiguous samples too; a GPU tensor is never copied here (make it contiguous
with ``.contiguous()`` / ``cupy.ascontiguousarray`` if it is not).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

import numpy as np

_BITDEPTHS = (8, 10, 12, 16)
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13  # DLPack device types whose memory CUDA kernels can read


@dataclass
class HostFrames:
    """A 2-D or 3-D numpy array whose rows hold contiguous samples."""

    array: np.ndarray
    copied: bool  # True when the caller's array had to be copied

    @property
    def shape(self) -> Tuple[int, int, int]:
        a = self.array
        return (a.shape[0], a.shape[1], a.shape[2]) if a.ndim == 3 else (1, a.shape[0], a.shape[1])


@dataclass
class DeviceFrames:
    """Frames in GPU memory: frame f starts at data + f * frame_stride (bytes)."""

    data: int
    frames: int
    height: int
    width: int
    itemsize: int
    frame_stride: int
    pitch: int
    device_id: Optional[int]
    stream: int
    keepalive: Any  # the tensor, or the DLPack import, kept until the frames are submitted

    @property
    def shape(self) -> Tuple[int, int, int]:
        return (self.frames, self.height, self.width)


Frames = Union[HostFrames, DeviceFrames]


def is_device_tensor(obj: Any) -> bool:
    """Whether obj lives in GPU memory (and so goes to the CUDA backend without a copy)."""
    if isinstance(obj, np.ndarray):
        return False
    if _has_cuda_array_interface(obj):
        return True
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None and hasattr(obj, "__dlpack__"):
        try:
            return int(dev()[0]) in (_DL_CUDA, _DL_CUDA_MANAGED)
        except Exception:
            return False
    return False


def _has_cuda_array_interface(obj: Any) -> bool:
    try:  # PyTorch raises for CPU tensors, so hasattr() alone is not enough
        return getattr(obj, "__cuda_array_interface__", None) is not None
    except Exception:
        return False


def stream_handle(stream: Any) -> Optional[int]:
    """A cudaStream_t value from an int, a torch.cuda.Stream, a cupy Stream, or None."""
    if stream is None:
        return None
    for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    if isinstance(stream, (int, np.integer)):
        return int(stream)
    raise TypeError(f"stream must be an int (a cudaStream_t), a torch.cuda.Stream or a "
                    f"cupy.cuda.Stream, not {type(stream).__name__}")


def _framework_stream(obj: Any, device_id: Optional[int]) -> Optional[int]:
    """The caller's current stream in the framework that made obj (PyTorch or CuPy), if any."""
    root = type(obj).__module__.split(".")[0]
    try:
        if root == "torch" and "torch" in sys.modules:
            torch = sys.modules["torch"]
            return int(torch.cuda.current_stream(device_id).cuda_stream)
        if root == "cupy" and "cupy" in sys.modules:
            return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
    except Exception:
        return None
    return None


def _device_index(obj: Any) -> Optional[int]:
    dev = getattr(obj, "device", None)
    for attr in ("index", "id"):  # torch.device.index, cupy.cuda.Device.id
        v = getattr(dev, attr, None)
        if isinstance(v, int):
            return v
    return None


def _check_dtype(name: str, kind: str, itemsize: int, dtype: str) -> None:
    if kind != "u" or itemsize not in (1, 2):
        raise TypeError(f"{name}: expected uint8 or uint16 samples, got {dtype}")


def _check_dims(name: str, shape: Tuple[int, ...]) -> None:
    if len(shape) not in (2, 3):
        raise ValueError(f"{name}: expected a 2-D (height, width) frame or a 3-D (frames, "
                         f"height, width) stack, got {len(shape)} dimensions {tuple(shape)}")


def host_frames(obj: Any, name: str) -> HostFrames:
    """obj as a numpy array that libvif can read in place (copied only when it must be)."""
    arr = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
    _check_dims(name, arr.shape)
    if not isinstance(obj, np.ndarray) and arr.dtype.kind in "iu" and arr.dtype.itemsize > 2:
        raise TypeError(f"{name}: a {type(obj).__name__} of Python ints becomes {arr.dtype} "
                        f"samples; pass numpy.asarray(x, dtype=numpy.uint8) (or numpy.uint16)")
    _check_dtype(name, arr.dtype.kind, arr.dtype.itemsize, str(arr.dtype))
    if arr.shape[0] == 0 or arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError(f"{name}: the array holds no frame (shape {tuple(arr.shape)})")
    copied = False
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
        arr = arr.astype("<u2")  # libvif reads little-endian 16-bit words
        copied = True
    item = arr.dtype.itemsize
    if arr.strides[-1] != item or arr.strides[-2] < arr.shape[-1] * item:
        arr = np.ascontiguousarray(arr)  # a column stride or flipped rows: libvif cannot
        copied = True
    return HostFrames(arr, copied)


def device_frames(obj: Any, name: str, stream: Optional[int]) -> DeviceFrames:
    """Describes a GPU tensor's memory; stream: the caller's choice (None: see resolve)."""
    if _has_cuda_array_interface(obj):
        return _from_cuda_array_interface(obj, name, stream)
    return _from_dlpack(obj, name, stream)


def _from_cuda_array_interface(obj: Any, name: str, stream: Optional[int]) -> DeviceFrames:
    cai = obj.__cuda_array_interface__
    shape = tuple(int(v) for v in cai["shape"])
    _check_dims(name, shape)
    dt = np.dtype(cai["typestr"])
    _check_dtype(name, dt.kind, dt.itemsize, str(dt))
    if dt.itemsize == 2 and dt.byteorder == ">":
        raise TypeError(f"{name}: big-endian 16-bit samples are not supported")
    if cai.get("mask") is not None:
        raise ValueError(f"{name}: masked arrays are not supported")
    item = dt.itemsize
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides = [item] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
    device_id = _device_index(obj)
    if stream is None:
        stream = _framework_stream(obj, device_id)
    if stream is None:
        s = cai.get("stream")  # version 3: the stream the producer's work is on
        stream = int(s) if s is not None else 0
    return _describe(name, int(cai["data"][0]), shape, tuple(int(s) for s in strides), item,
                     device_id, stream, obj)


def _from_dlpack(obj: Any, name: str, stream: Optional[int]) -> DeviceFrames:
    from . import _core

    device_type, device_id = (int(v) for v in obj.__dlpack_device__())
    if stream is None:
        stream = _framework_stream(obj, device_id)
    if stream is None:
        stream = 0
    # DLPack's stream argument: the producer orders its work before the consumer's stream;
    # 1 is how it spells the legacy default stream (0 is not allowed for CUDA).
    tensor = _core.DLPackTensor(obj.__dlpack__(stream=stream if stream != 0 else 1))
    shape = tuple(tensor.shape)
    _check_dims(name, shape)
    dt = tensor.dtype
    if dt not in ("uint8", "uint16"):
        raise TypeError(f"{name}: expected uint8 or uint16 samples, got {dt}")
    item = 1 if dt == "uint8" else 2
    strides = tuple(int(s) * item for s in tensor.strides)
    return _describe(name, tensor.data, shape, strides, item,
                     device_id if device_type in (_DL_CUDA, _DL_CUDA_MANAGED) else None, stream,
                     tensor)


def _describe(name: str, data: int, shape: Tuple[int, ...], strides: Tuple[int, ...],
              item: int, device_id: Optional[int], stream: int, keepalive: Any) -> DeviceFrames:
    if len(shape) == 2:
        shape, strides = (1,) + shape, (0,) + strides
    frames, height, width = shape
    if strides[2] != item or strides[1] < width * item:
        raise ValueError(f"{name}: the GPU tensor's rows must hold contiguous samples with a "
                         f"positive row stride (strides {strides} bytes); libvif reads GPU "
                         f"tensors in place and never copies them: pass tensor.contiguous()")
    return DeviceFrames(data, frames, height, width, item, strides[0], strides[1], device_id,
                        stream, keepalive)


def resolve_bitdepth(name: str, itemsize: int, bitdepth: Optional[int]) -> int:
    """The bit depth for samples of this size: uint8 is 8-bit, uint16 needs bitdepth."""
    if bitdepth is not None and bitdepth not in _BITDEPTHS:
        raise ValueError(f"bitdepth {bitdepth} is out of range: libvif scores 8, 10, 12 or "
                         f"16-bit video")
    if itemsize == 1:
        if bitdepth not in (None, 8):
            raise ValueError(f"{name}: uint8 samples are 8-bit, but bitdepth={bitdepth} "
                             f"(10 to 16-bit video needs uint16 arrays)")
        return 8
    if bitdepth is None:
        raise ValueError(f"{name}: uint16 samples need bitdepth=10, 12 or 16")
    if bitdepth == 8:
        raise ValueError(f"{name}: bitdepth=8 needs uint8 samples, got uint16")
    return bitdepth


def check_sample_range(name: str, arr: np.ndarray, bitdepth: int) -> None:
    """Refuses host samples above the bit depth's range (they would give a meaningless score)."""
    if bitdepth in (8, 16) or arr.size == 0:
        return
    top = int(arr.max())
    if top >= 1 << bitdepth:
        raise ValueError(f"{name}: sample value {top} is out of the {bitdepth}-bit range "
                         f"(0..{(1 << bitdepth) - 1}); check bitdepth")

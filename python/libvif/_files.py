"""score_files: two video files scored with the vif CLI's readers."""

from __future__ import annotations

import os
import warnings
from typing import Optional, Union

from ._result import Result
from ._scorer import _BACKENDS, _VARIANTS, _choice, check_count

PathLike = Union[str, "os.PathLike[str]"]


def score_files(ref: PathLike, dist: PathLike, variant: str = "integer", backend: str = "auto",
                *, width: Optional[int] = None, height: Optional[int] = None,
                bitdepth: Optional[int] = None, pixel_format: Optional[str] = None,
                frames: Optional[int] = None, mmap: bool = True,
                enhn_gain_limit: float = 100.0, kernelscale: float = 1.0, threads: int = 0,
                queue_depth: int = 0, cuda_device: int = 0) -> Result:
    """Scores a distorted video file against its reference, as the ``vif`` CLI reads them.

    Inputs: Y4M (sizes from the header), raw planar YUV (``.yuv``/``.raw``: give ``width``,
    ``height``, ``bitdepth`` and ``pixel_format`` "420", "422", "444" or "400"), and, in
    builds with FFmpeg, anything FFmpeg decodes (the luma plane at its native bit depth).
    Only the luma planes are read. ``frames`` limits how many are scored. When the inputs'
    lengths differ the common frames are scored and a RuntimeWarning says so (as the CLI does).
    The work runs without the GIL. Raises InputError for a missing or malformed input.
    """
    from . import _core

    if not _core.HAVE_FILES:
        from ._errors import UnsupportedError
        raise UnsupportedError("this libvif module was built without the file readers "
                               "(fmt was missing at build time)", -2)
    if pixel_format is not None:
        pixel_format = str(pixel_format)
        if pixel_format.startswith("yuv"):  # accept "yuv420p" as well as "420"
            pixel_format = pixel_format[3:6]
    if frames is not None and frames <= 0:
        raise ValueError(f"frames must be > 0 (or None for all), got {frames}")
    paths = []
    for name, p in (("ref", ref), ("dist", dist)):
        text = os.fspath(p)
        if not isinstance(text, str):
            text = os.fsdecode(text)
        if "\0" in text:  # the C library would read the path only up to it
            raise ValueError(f"{name}: the path contains a NUL character: {text!r}")
        paths.append(text)
    out = _core.score_files(
        paths[0], paths[1], check_count("width", width or 0, 32768),
        check_count("height", height or 0, 32768), check_count("bitdepth", bitdepth or 0, 16),
        pixel_format or "", bool(mmap), check_count("frames", frames or 0, 2**62),
        _choice("variant", variant, _VARIANTS), _choice("backend", backend, _BACKENDS),
        float(enhn_gain_limit), float(kernelscale), check_count("threads", threads),
        check_count("queue_depth", queue_depth), check_count("cuda_device", cuda_device))
    if out["length_note"]:
        warnings.warn(f"libvif.score_files: {out['length_note']}", RuntimeWarning, stacklevel=2)
    values = out["values"]
    info = {"reference": out["reference"], "distorted": out["distorted"],
            "length_note": out["length_note"]}
    return Result(out["names"], range(len(values)), values, out["backend"], info)

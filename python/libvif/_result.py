"""Scores as libvif returns them: per frame under libvmaf's key names, and pooled."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence

import numpy as np

#: Pooling methods reported in Result.pooled, as libvmaf's JSON names them.
POOL_METHODS = ("mean", "harmonic_mean", "min", "max")
_POOL_CODES = {"mean": 0, "harmonic_mean": 1, "min": 2, "max": 3, "percentile": 4}
#: Position of the combined score ("integer_vif" / "vif") in Result.names (VIF_METRIC_COMBINED).
VIF_COMBINED_INDEX = 4


class FrameScores(Dict[str, float]):
    """One frame's scores: a dict from libvmaf's key names ("integer_vif_scale0", ...,
    "integer_vif", "integer_vif_num", ...) to values; ``index`` is the frame's number.
    ``maps`` (scored with ``maps=True``, else None): the frame's local VIF map of each scale
    (docs/algorithm.md §12.3), four float32 arrays of shape (height >> s, width >> s): about 1
    where the detail was kept, towards 0 where it was lost."""

    index: int
    maps: Optional[List[np.ndarray]] = None

    def __init__(self, index: int, names: Sequence[str], values: Sequence[float]) -> None:
        super().__init__(zip(names, (float(v) for v in values)))
        self.index = int(index)

    def __repr__(self) -> str:
        return f"FrameScores(index={self.index}, {dict.__repr__(self)})"


def pool(values: Sequence[float], method: str = "mean", param: float = 0.0) -> float:
    """Pools per-frame values as libvmaf does (vif_pool): "mean", "harmonic_mean"
    (n / sum(1 / (x + 1)) - 1), "min", "max" or "percentile" (param in [0, 100])."""
    from . import _core

    if method not in _POOL_CODES:
        raise ValueError(f"unknown pooling method {method!r}; use one of "
                         f"{', '.join(_POOL_CODES)}")
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 0:
        raise ValueError("cannot pool an empty list of values")
    return _core.pool(np.ascontiguousarray(arr.ravel()), _POOL_CODES[method], float(param))


class Result:
    """Scores of a run of frames.

    - ``frames``: a list of FrameScores, one per frame, in order.
    - ``pooled``: ``{name: {"mean": ..., "harmonic_mean": ..., "min": ..., "max": ...}}``.
    - ``result[name]``: one metric over the frames as a numpy array.
    - ``backend``: "cpu" or "cuda"; ``names``: the metric keys in libvif's order.
    - ``maps`` (scored with ``maps=True``, else None): per frame, its local VIF maps (a list of
      four float32 arrays, scale 0 to 3; also ``frames[i].maps``).
    """

    def __init__(self, names: Sequence[str], indices: Sequence[int], values: np.ndarray,
                 backend: str, info: Optional[dict] = None,
                 maps: Optional[List[Optional[List[np.ndarray]]]] = None) -> None:
        self.names: List[str] = list(names)
        self.backend: str = backend
        self.info: dict = dict(info or {})
        self._values = np.asarray(values, dtype=np.float64).reshape(len(indices), len(self.names))
        self.frames: List[FrameScores] = [FrameScores(i, self.names, row)
                                          for i, row in zip(indices, self._values)]
        self.maps = maps
        if maps is not None:
            for frame, m in zip(self.frames, maps):
                frame.maps = m
        self.pooled: Dict[str, Dict[str, float]] = {}
        if len(self.frames):
            for k, name in enumerate(self.names):
                column = np.ascontiguousarray(self._values[:, k])
                self.pooled[name] = {m: pool(column, m) for m in POOL_METHODS}

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            k = self.names.index(name)
        except ValueError:
            raise KeyError(f"{name!r} is not one of this result's metrics: "
                           f"{', '.join(self.names)}") from None
        return self._values[:, k].copy()

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[FrameScores]:
        return iter(self.frames)

    def pool(self, name: str, method: str = "mean", param: float = 0.0) -> float:
        """Pools one metric over the frames (see libvif.pool)."""
        return pool(self[name], method, param)

    def to_dict(self) -> dict:
        """The layout of libvmaf's JSON output: {"frames": [{"frameNum", "metrics"}],
        "pooled_metrics": {...}}."""
        return {
            "frames": [{"frameNum": f.index, "metrics": dict(f)} for f in self.frames],
            "pooled_metrics": {k: dict(v) for k, v in self.pooled.items()},
        }

    def __repr__(self) -> str:
        main = self.names[VIF_COMBINED_INDEX] if self.names else "?"
        mean = self.pooled.get(main, {}).get("mean")
        return (f"<libvif.Result {len(self.frames)} frames, backend={self.backend}, "
                f"{main} mean={mean}>")

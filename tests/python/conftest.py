"""Shared helpers for the libvif Python tests: the golden test data (libvmaf's values) and the
vif CLI. Expected values come from testdata/expected/*.csv (libvmaf 3.2.0's output at full
precision) and, for pooling, ../shared/testdata/libvmaf-json (libvmaf's own JSON)."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"
# The full golden set beside the checkout; VIF_SHARED_TESTDATA points elsewhere (the GPU machine
# gets a copy of part of it).
SHARED = Path(os.environ.get("VIF_SHARED_TESTDATA") or
              (REPO / ".." / "shared" / "testdata")).resolve()


@dataclass
class Case:
    name: str
    root: Path          # the testdata folder it comes from
    ref: Path
    dist: Path
    width: int
    height: int
    pix_fmt: str        # "420", "422", "444", "400" (the manifest's vmaf_p)
    bitdepth: int
    frames: int

    @property
    def itemsize(self) -> int:
        return 1 if self.bitdepth == 8 else 2

    def frame_bytes(self) -> int:
        w, h = self.width, self.height
        cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h),
                  "444": (w, h), "400": (0, 0)}[self.pix_fmt]
        return (w * h + 2 * cw * ch) * self.itemsize

    def luma(self, which: str, frames: Optional[int] = None) -> np.ndarray:
        """The luma planes as a (frames, height, width) view into the whole file's bytes: the
        frames are frame_bytes() apart (the chroma planes in between are skipped by stride)."""
        n = self.frames if frames is None else frames
        path = self.ref if which == "ref" else self.dist
        raw = np.fromfile(path, dtype=np.uint8 if self.itemsize == 1 else "<u2")
        per_frame = self.frame_bytes() // self.itemsize
        assert raw.size >= n * per_frame, f"{path} is shorter than {n} frames"
        return np.lib.stride_tricks.as_strided(
            raw, shape=(n, self.height, self.width),
            strides=(self.frame_bytes(), self.width * self.itemsize, self.itemsize))

    def expected(self) -> List[Dict[str, float]]:
        """libvmaf's per-frame values, full precision (testdata/expected/<case>.csv)."""
        with open(self.root / "expected" / f"{self.name}.csv", newline="") as f:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
        return rows[: self.frames]


def load_cases(root: Path) -> List[Case]:
    manifest = root / "MANIFEST.csv"
    if not manifest.exists():
        return []
    cases = []
    with open(manifest, newline="") as f:
        for r in csv.DictReader(f):
            if not (root / r["ref_file"]).exists() or not (root / r["dist_file"]).exists():
                continue
            cases.append(Case(r["case"], root, root / r["ref_file"], root / r["dist_file"],
                              int(r["width"]), int(r["height"]), r["vmaf_p"], int(r["bitdepth"]),
                              int(r["frames"])))
    return cases


#: The repository's trimmed copy (always present).
REPO_CASES = load_cases(TESTDATA)
#: The full set beside the checkout, when present (CI and developers have it).
SHARED_CASES = load_cases(SHARED)


def vif_cli() -> Optional[str]:
    """The vif CLI built with this module (ctest passes VIF_CLI), or None."""
    path = os.environ.get("VIF_CLI", "")
    return path if path and os.access(path, os.X_OK) else None


@pytest.fixture
def cli() -> str:
    path = vif_cli()
    if not path:
        pytest.skip("the vif CLI is not built (VIF_CLI unset): CLI comparisons skipped")
    return path

"""libvif.score() on the golden test data equals libvmaf's values: the integer variant bit for
bit (every key, per frame), the float variant within 1e-4 (as the library documents), on the
CPU backend; pooled values equal libvmaf's JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

import libvif
from conftest import REPO_CASES, SHARED_CASES

CASES = [pytest.param(c, id=f"repo-{c.name}") for c in REPO_CASES] + \
        [pytest.param(c, id=f"shared-{c.name}") for c in SHARED_CASES]


def _bitdepth(case):
    return None if case.bitdepth == 8 else case.bitdepth


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("egl", [100.0, 1.0], ids=["default", "egl1"])
def test_integer_equals_libvmaf_bit_for_bit(case, egl):
    result = libvif.score(case.luma("ref"), case.luma("dist"), "integer", "cpu",
                          _bitdepth(case), enhn_gain_limit=egl)
    expected = case.expected()
    assert len(result.frames) == len(expected) == case.frames
    suffix = "_egl_1" if egl == 1.0 else ""
    assert result.names[0] == "integer_vif_scale0" + suffix
    for got, want in zip(result.frames, expected):
        for key, value in got.items():
            assert value == want[key], f"frame {got.index} {key}: {value!r} != {want[key]!r}"


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in REPO_CASES])
def test_float_within_documented_tolerance(case):
    result = libvif.score(case.luma("ref"), case.luma("dist"), "float", "cpu", _bitdepth(case))
    for got, want in zip(result.frames, case.expected()):
        for key in ["vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3", "vif"]:
            assert got[key] == pytest.approx(want[key], abs=1e-4), key


@pytest.mark.parametrize("case", [c for c in CASES if c.values[0].frames > 1])
def test_pooled_equal_libvmaf_json(case):
    """Against libvmaf's own JSON output (libvmaf-json/, printed with 6 decimals), where the
    case holds all the frames libvmaf scored."""
    path = case.root / "libvmaf-json" / f"{case.name}.json"
    if not path.exists():
        pytest.skip(f"no libvmaf JSON for {case.name}")
    doc = json.loads(path.read_text())
    if len(doc["frames"]) != case.frames:
        pytest.skip(f"{case.name}: this copy keeps {case.frames} of {len(doc['frames'])} frames")
    pooled = doc["pooled_metrics"]
    result = libvif.score(case.luma("ref"), case.luma("dist"), backend="cpu",
                          bitdepth=_bitdepth(case))
    for key in ["integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                "integer_vif_scale3"]:
        for method in libvif.POOL_METHODS:
            assert result.pooled[key][method] == pytest.approx(pooled[key][method], abs=5.1e-7), \
                f"{key} {method}"


def test_pooling_formulas():
    values = np.array([0.25, 0.5, 1.0])
    assert libvif.pool(values, "mean") == pytest.approx(np.mean(values), rel=1e-15)
    assert libvif.pool(values, "harmonic_mean") == pytest.approx(
        3 / np.sum(1 / (values + 1)) - 1, rel=1e-15)
    assert libvif.pool(values, "min") == 0.25
    assert libvif.pool(values, "max") == 1.0
    assert libvif.pool(values, "percentile", 50) == 0.5
    with pytest.raises(ValueError, match="unknown pooling method"):
        libvif.pool(values, "median")
    with pytest.raises(ValueError, match="empty"):
        libvif.pool([], "mean")


def test_result_accessors():
    case = next(c for c in SHARED_CASES + REPO_CASES if c.frames >= 2)
    result = libvif.score(case.luma("ref"), case.luma("dist"), backend="cpu",
                          bitdepth=_bitdepth(case))
    column = result["integer_vif"]
    assert column.tolist() == [f["integer_vif"] for f in result.frames]
    assert [f.index for f in result.frames] == list(range(len(result)))
    assert result.pool("integer_vif", "min") == min(column)
    as_json = result.to_dict()
    assert as_json["frames"][1]["frameNum"] == 1
    assert as_json["pooled_metrics"]["integer_vif"] == result.pooled["integer_vif"]
    with pytest.raises(KeyError, match="not one of"):
        result["vmaf"]

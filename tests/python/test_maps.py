"""libvif.score(..., maps=True): each frame's local VIF maps as numpy arrays (CPU backend). The
values are checked against the vif CLI's --map npy files (the same library function reached
through the other front end), the scores against a run without maps, and the picture against a
hand-made pair with one blurred quadrant."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import libvif
from conftest import REPO_CASES


def _case(name):
    return next(c for c in REPO_CASES if c.name == name)


@pytest.fixture(scope="module")
def src01():
    case = _case("src01_160x90_8b_vmafrepo")
    return case, np.ascontiguousarray(case.luma("ref")), np.ascontiguousarray(case.luma("dist"))


@pytest.mark.parametrize("variant", ["integer", "float"])
def test_maps_are_the_clis_map_files_and_leave_the_scores_alone(src01, tmp_path, cli, variant):
    case, ref, dist = src01
    with_maps = libvif.score(ref, dist, variant, backend="cpu", maps=True)
    plain = libvif.score(ref, dist, variant, backend="cpu")
    assert [dict(f) for f in with_maps.frames] == [dict(f) for f in plain.frames]
    assert plain.maps is None and plain.frames[0].maps is None
    assert len(with_maps.maps) == case.frames
    folder = tmp_path / "maps"
    subprocess.run([cli, "-r", str(case.ref), "-d", str(case.dist), "-w", str(case.width), "-h",
                    str(case.height), "-p", case.pix_fmt, "-b", str(case.bitdepth), "--variant",
                    variant, "--frames", str(case.frames), "-q", "--json", "-o",
                    str(tmp_path / "s.json"), "--map", str(folder), "--map-format", "npy"],
                   check=True, capture_output=True, timeout=300)
    for f, frame in enumerate(with_maps.frames):
        assert frame.maps is with_maps.maps[f]
        assert len(frame.maps) == 4
        for s, m in enumerate(frame.maps):
            assert m.dtype == np.float32
            assert m.shape == (case.height >> s, case.width >> s)
            expected = np.load(folder / f"frame{f:06d}_scale{s}.npy")
            assert np.array_equal(m, expected), (f, s)
        assert frame.maps[0].min() < 1.0  # this encode lost detail somewhere


def test_a_blurred_quadrant_is_where_the_map_is_low():
    rng = np.random.default_rng(7)
    ref = rng.integers(32, 224, size=(256, 256), dtype=np.uint8)
    dist = ref.copy()
    q = dist[:128, :128].astype(np.float64)
    for _ in range(3):  # a 9x9 box mean, three times, inside the quadrant only
        padded = np.pad(q, 4, mode="edge")
        q = sum(padded[i:i + 128, j:j + 128] for i in range(9) for j in range(9)) / 81.0
    dist[:128, :128] = np.rint(q).astype(np.uint8)
    m = libvif.score(ref, dist, backend="cpu", maps=True).maps[0][0]
    margin = 24
    assert m[:128 - margin, :128 - margin].mean() < 0.5
    far = np.ones(m.shape, bool)
    far[:128 + margin, :128 + margin] = False
    assert m[far].min() > 0.99


def test_the_streaming_scorer_hands_each_frame_its_maps(src01):
    _, ref, dist = src01
    with libvif.Scorer(backend="cpu", maps=True) as scorer:
        scorer.submit(ref[0], dist[0])
        got = scorer.receive()
    assert got is not None and got.index == 0
    assert [m.shape for m in got.maps] == [(90, 160), (45, 80), (22, 40), (11, 20)]


def test_maps_on_the_cuda_backend_are_refused(src01):
    _, ref, dist = src01
    with pytest.raises(libvif.UnsupportedError):
        libvif.score(ref[:1], dist[:1], backend="cuda", maps=True)

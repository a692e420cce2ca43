"""libvif.score(..., maps=True): each frame's local VIF maps as numpy arrays (CPU backend). The
values are checked against the vif CLI's --map npy files (the same library function reached
through the other front end), the scores against a run without maps, and the picture against a
hand-made pair with one blurred quadrant. On a GPU: the CUDA backend's maps equal the CPU's bit
for bit, host arrays giving numpy arrays and PyTorch / CuPy GPU tensors tensors of their own
framework on their device (skipped, with the reason, without a GPU)."""

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


def _gpu():
    if not libvif.cuda_available():
        pytest.skip("GPU maps skipped: " + ("no usable GPU" if libvif.HAVE_CUDA
                                            else "this libvif module was built without CUDA"))


@pytest.mark.parametrize("variant", ["integer", "float"])
def test_cuda_maps_of_host_arrays_equal_the_cpu_maps(src01, variant):
    _gpu()
    _, ref, dist = src01
    cpu = libvif.score(ref, dist, variant, backend="cpu", maps=True)
    gpu = libvif.score(ref, dist, variant, backend="cuda", maps=True)
    assert gpu.backend == "cuda"
    assert [dict(f) for f in gpu.frames] == [dict(f) for f in cpu.frames]
    for f, (a, b) in enumerate(zip(cpu.maps, gpu.maps)):
        for s in range(4):
            assert isinstance(b[s], np.ndarray)
            assert np.array_equal(a[s], b[s]), (f, s)


@pytest.mark.parametrize("variant", ["integer", "float"])
def test_maps_of_torch_cuda_tensors_are_tensors_on_their_device(src01, variant):
    _gpu()
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    _, ref, dist = src01
    cpu = libvif.score(ref, dist, variant, backend="cpu", maps=True)
    got = libvif.score(torch.from_numpy(ref).cuda(), torch.from_numpy(dist).cuda(), variant,
                       maps=True)
    assert got.backend == "cuda"
    assert [dict(f) for f in got.frames] == [dict(f) for f in cpu.frames]
    for f, (a, b) in enumerate(zip(cpu.maps, got.maps)):
        for s in range(4):
            assert isinstance(b[s], torch.Tensor) and b[s].is_cuda, (f, s)
            assert b[s].device == torch.device("cuda", 0)
            assert b[s].dtype == torch.float32
            assert np.array_equal(a[s], b[s].cpu().numpy()), (f, s)


def test_maps_of_cupy_arrays_are_cupy_arrays(src01):
    _gpu()
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    _, ref, dist = src01
    cpu = libvif.score(ref[:2], dist[:2], backend="cpu", maps=True)
    got = libvif.score(cupy.asarray(ref[:2]), cupy.asarray(dist[:2]), maps=True)
    for a, b in zip(cpu.maps, got.maps):
        for s in range(4):
            assert isinstance(b[s], cupy.ndarray)
            assert np.array_equal(a[s], cupy.asnumpy(b[s])), s

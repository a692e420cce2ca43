"""GPU tensors (PyTorch, CuPy; __cuda_array_interface__ and DLPack) scored in place on the CUDA
backend give the same bits as numpy arrays on the CPU backend (and libvmaf's values). Skipped,
with the reason, where there is no CUDA build, GPU, PyTorch or CuPy."""

from __future__ import annotations

import numpy as np
import pytest

import libvif
from conftest import REPO_CASES, SHARED_CASES

pytestmark = pytest.mark.skipif(
    not libvif.cuda_available(),
    reason="GPU tests skipped: " + ("no usable GPU" if libvif.HAVE_CUDA
                                    else "this libvif module was built without CUDA"))

# Every bit depth and an odd size; the 1080p case when the shared test data is there.
NAMES = ["foreman_176x144_8b_crf45", "bsds100007pan_481x271_8b_crf35",
         "cosmospan_576x324_10b_crf35", "cosmospan_576x324_12b_x265crf35",
         "checker_352x288_16b_shift1", "quad_1920x1080_8b_crf35"]


def _cases():
    by_name = {c.name: c for c in REPO_CASES}
    by_name.update({c.name: c for c in SHARED_CASES})
    return [pytest.param(by_name[n], id=n) for n in NAMES if n in by_name]


def _bd(case):
    return None if case.bitdepth == 8 else case.bitdepth


def _host(case):
    return np.ascontiguousarray(case.luma("ref")), np.ascontiguousarray(case.luma("dist"))


def _frames(result):
    return [dict(f) for f in result.frames]


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


def _cupy():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def _to_torch(torch, a):
    if a.dtype == np.uint16:
        if not hasattr(torch, "uint16"):
            pytest.skip("this PyTorch has no uint16 tensors")
        return torch.from_numpy(a.view(np.int16)).cuda().view(torch.uint16)
    return torch.from_numpy(a).cuda()


@pytest.mark.parametrize("variant", ["integer", "float"])
@pytest.mark.parametrize("case", _cases())
def test_torch_tensors_equal_numpy_on_cpu(case, variant):
    torch = _torch()
    ref, dist = _host(case)
    cpu = libvif.score(ref, dist, variant, "cpu", _bd(case))
    gpu = libvif.score(_to_torch(torch, ref), _to_torch(torch, dist), variant, bitdepth=_bd(case))
    assert gpu.backend == "cuda"
    assert _frames(gpu) == _frames(cpu)
    if variant == "integer":  # and libvmaf's values
        for got, want in zip(gpu.frames, case.expected()):
            assert all(v == want[k] for k, v in got.items()), got.index


@pytest.mark.parametrize("case", _cases())
def test_cupy_arrays_equal_numpy_on_cpu(case):
    cp = _cupy()
    ref, dist = _host(case)
    cpu = libvif.score(ref, dist, backend="cpu", bitdepth=_bd(case))
    gpu = libvif.score(cp.asarray(ref), cp.asarray(dist), bitdepth=_bd(case))
    assert gpu.backend == "cuda" and _frames(gpu) == _frames(cpu)


class DLPackOnly:
    """Exposes a tensor through DLPack alone (as JAX arrays do)."""

    def __init__(self, tensor):
        self._t = tensor

    def __dlpack__(self, stream=None):
        return self._t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def test_dlpack_only_objects():
    torch = _torch()
    case = next(c.values[0] for c in _cases())
    ref, dist = _host(case)
    cpu = libvif.score(ref, dist, backend="cpu")
    gpu = libvif.score(DLPackOnly(torch.from_numpy(ref).cuda()),
                       DLPackOnly(torch.from_numpy(dist).cuda()))
    assert gpu.backend == "cuda" and _frames(gpu) == _frames(cpu)


def test_row_strided_views_are_read_in_place_and_column_strides_refused():
    torch = _torch()
    case = next(c.values[0] for c in _cases())
    ref, dist = _host(case)
    n, h, w = ref.shape
    big = torch.zeros((n, h + 6, w + 40), dtype=torch.uint8, device="cuda")
    big[:, 3:-3, 8:-32] = torch.from_numpy(ref).cuda()
    crop = big[:, 3:-3, 8:-32]
    assert not crop.is_contiguous()
    want = _frames(libvif.score(ref, dist, backend="cpu"))
    assert _frames(libvif.score(crop, torch.from_numpy(dist).cuda())) == want
    wide = torch.from_numpy(np.repeat(ref, 2, axis=2)).cuda()[:, :, ::2]
    with pytest.raises(ValueError, match="contiguous"):
        libvif.score(wide, torch.from_numpy(dist).cuda())


def test_streams_and_buffer_reuse_in_a_scorer():
    """Frames copied into one pair of GPU buffers on a side stream, each submitted and then
    overwritten by the next on the same stream: libvif's read is ordered before the overwrite,
    so every frame scores as on the CPU."""
    torch = _torch()
    case = next(c.values[0] for c in _cases())
    ref, dist = _host(case)
    want = _frames(libvif.score(ref, dist, backend="cpu"))
    ref_d, dist_d = torch.from_numpy(ref).cuda(), torch.from_numpy(dist).cuda()
    torch.cuda.synchronize()  # the uploads are done before other streams read them
    side = torch.cuda.Stream()
    got = []
    with torch.cuda.stream(side):
        buf_r = torch.empty_like(ref_d[0])
        buf_d = torch.empty_like(dist_d[0])
        with libvif.Scorer() as scorer:
            for i in range(ref.shape[0]):
                buf_r.copy_(ref_d[i], non_blocking=True)
                buf_d.copy_(dist_d[i], non_blocking=True)
                scorer.submit(buf_r, buf_d)  # on `side`: the current stream
            got = [dict(s) for s in scorer]
    assert got == want
    # An explicit stream argument.
    s = torch.cuda.Stream()
    assert _frames(libvif.score(ref_d, dist_d, stream=s)) == want


def test_mixed_host_and_device_frames_are_refused():
    torch = _torch()
    a = np.zeros((32, 32), np.uint8)
    with pytest.raises(ValueError, match="both be host arrays or both GPU"):
        libvif.score(a, torch.from_numpy(a).cuda())
    with pytest.raises(ValueError, match="backend='cpu'"):
        libvif.score(torch.from_numpy(a).cuda(), torch.from_numpy(a).cuda(), backend="cpu")
    with pytest.raises(TypeError, match="uint8 or uint16"):
        t = torch.zeros((32, 32), dtype=torch.float32, device="cuda")
        libvif.score(t, t)

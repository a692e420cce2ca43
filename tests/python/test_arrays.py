"""Arrays libvif.score() and Scorer take (views read in place, copies only where the library
cannot read the layout) and the clear errors for those it cannot take."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import libvif
from libvif._frames import host_frames
from conftest import REPO_CASES, SHARED_CASES


def _case(name):
    return next(c for c in SHARED_CASES + REPO_CASES if c.name == name)


@pytest.fixture(scope="module")
def foreman():
    case = _case("foreman_176x144_8b_crf45")
    return case, np.ascontiguousarray(case.luma("ref")), np.ascontiguousarray(case.luma("dist"))


def _frames(result):
    return [dict(f) for f in result.frames]


# ---- layouts -----------------------------------------------------------------------------------

def test_views_with_a_row_stride_are_read_in_place(foreman):
    case, ref, dist = foreman
    # The file's luma planes with the chroma between frames skipped by stride: no copy.
    view = case.luma("ref")
    assert not view.flags.c_contiguous and not host_frames(view, "ref").copied
    # A crop: rows longer than the width.
    big = np.zeros((ref.shape[0], ref.shape[1] + 8, ref.shape[2] + 24), np.uint8)
    big[:, 4:-4, 16:-8] = ref
    crop = big[:, 4:-4, 16:-8]
    assert not host_frames(crop, "ref").copied
    assert _frames(libvif.score(crop, dist)) == _frames(libvif.score(ref, dist))
    assert _frames(libvif.score(view, case.luma("dist"))) == _frames(libvif.score(ref, dist))


def test_column_strides_and_flipped_rows_are_copied_and_score_the_same(foreman):
    case, ref, dist = foreman
    wide = np.repeat(ref, 2, axis=2)[:, :, ::2]  # column stride 2 bytes
    assert np.array_equal(wide, ref)
    assert host_frames(wide, "ref").copied
    assert _frames(libvif.score(wide, dist)) == _frames(libvif.score(ref, dist))
    flipped = ref[:, ::-1, :]
    assert host_frames(flipped, "ref").copied
    assert _frames(libvif.score(flipped, dist[:, ::-1, :])) == \
        _frames(libvif.score(np.ascontiguousarray(flipped), np.ascontiguousarray(dist[:, ::-1])))


def test_one_frame_2d_and_frame_order(foreman):
    case, ref, dist = foreman
    stack = libvif.score(ref, dist)
    single = libvif.score(ref[1], dist[1])
    assert len(single) == 1 and dict(single.frames[0]) == dict(stack.frames[1])
    reversed_stack = libvif.score(ref[::-1], dist[::-1])  # negative frame stride: fine
    assert _frames(reversed_stack)[::-1] == _frames(stack)


def test_big_endian_is_converted_and_lists_need_a_sample_type():
    case = _case("cosmospan_576x324_10b_crf35")
    ref, dist = case.luma("ref", 1), case.luma("dist", 1)
    want = _frames(libvif.score(ref, dist, bitdepth=10))
    assert _frames(libvif.score(ref.astype(">u2"), dist.astype(">u2"), bitdepth=10)) == want
    # A list of Python ints would be int64 samples: refused with the way out (docs/python.md).
    small = np.arange(32 * 32, dtype=np.uint8).reshape(32, 32)
    with pytest.raises(TypeError, match=r"numpy.asarray\(x, dtype=numpy.uint8\)"):
        libvif.score(small.tolist(), small.tolist())
    assert _frames(libvif.score(np.asarray(small.tolist(), dtype=np.uint8), small)) == \
        _frames(libvif.score(small.copy(), small.copy()))


def test_arguments_are_checked_by_name():
    """Negative or absurd numbers, a NUL in a path and an empty stack: a message that names the
    argument, not the extension's signature dump (issue 19)."""
    small = np.zeros((1, 32, 32), np.uint8)
    for name, value in (("threads", -1), ("queue_depth", -2), ("width", -5), ("height", 10**9),
                        ("cuda_device", -3), ("threads", 2**40)):
        with pytest.raises(ValueError, match=f"^{name} must be between 0 and") as err:
            libvif.Scorer(**{name: value})
        assert "incompatible" not in str(err.value)
        with pytest.raises(ValueError, match=f"^{name} must be"):
            libvif.score(small, small, **{name: value})
    with pytest.raises(TypeError, match="^threads must be a whole number"):
        libvif.Scorer(threads="4")
    for stack in (np.zeros((0, 32, 32), np.uint8), np.zeros((2, 0, 32), np.uint8)):
        with pytest.raises(ValueError, match="holds no frame"):
            libvif.score(stack, stack)
        with libvif.Scorer() as scorer, pytest.raises(ValueError, match="holds no frame"):
            scorer.submit(stack, stack)
    if hasattr(libvif, "score_files"):
        with pytest.raises(ValueError, match="ref: the path contains a NUL"):
            libvif.score_files("/tmp/a\0b.yuv", "/tmp/b.yuv", width=32, height=32, bitdepth=8,
                               pixel_format="420")
        with pytest.raises(ValueError, match="^width must be"):
            libvif.score_files("a.yuv", "b.yuv", width=-32, height=32, bitdepth=8,
                               pixel_format="420")


def test_msb_aligned_words_equal_lsb_aligned():
    case = _case("cosmospan_576x324_10b_crf35")
    ref, dist = case.luma("ref", 1), case.luma("dist", 1)
    want = _frames(libvif.score(ref, dist, bitdepth=10))
    got = libvif.score(ref << 6, dist << 6, bitdepth=10, msb_aligned=True)
    assert _frames(got) == want


# ---- errors ------------------------------------------------------------------------------------

GOOD = np.zeros((32, 32), np.uint8)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint32, np.float32, np.float64, bool])
def test_wrong_dtype(dtype):
    with pytest.raises(TypeError, match="expected uint8 or uint16 samples"):
        libvif.score(GOOD.astype(dtype), GOOD.astype(dtype))


@pytest.mark.parametrize("shape", [(32,), (1, 1, 32, 32), ()])
def test_wrong_ndim(shape):
    a = np.zeros(shape, np.uint8)
    with pytest.raises(ValueError, match="expected a 2-D"):
        libvif.score(a, a)


@pytest.mark.parametrize("shape", [(15, 64), (64, 15), (8, 8), (1, 15, 15)])
def test_below_minimum_size(shape):
    a = np.zeros(shape, np.uint8)
    with pytest.raises(libvif.InvalidArgumentError, match="below the minimum"):
        libvif.score(a, a)


def test_minimum_size_is_accepted():
    a = np.full((16, 16), 100, np.uint8)
    assert len(libvif.score(a, a)) == 1


def test_mismatched_shapes_and_types():
    with pytest.raises(ValueError, match="shapes differ"):
        libvif.score(np.zeros((32, 32), np.uint8), np.zeros((32, 48), np.uint8))
    with pytest.raises(ValueError, match="shapes differ"):
        libvif.score(np.zeros((2, 32, 32), np.uint8), np.zeros((3, 32, 32), np.uint8))
    with pytest.raises(ValueError, match="shapes differ"):
        libvif.score(np.zeros((1, 32, 32), np.uint8), np.zeros((32, 32), np.uint8))
    with pytest.raises(TypeError, match="different sample types"):
        libvif.score(np.zeros((32, 32), np.uint8), np.zeros((32, 32), np.uint16), bitdepth=10)


@pytest.mark.parametrize("bitdepth", [0, 7, 9, 11, 14, 17, 32])
def test_bitdepth_out_of_range(bitdepth):
    a = np.zeros((32, 32), np.uint16)
    with pytest.raises(ValueError, match=f"bitdepth {bitdepth} is out of range"):
        libvif.score(a, a, bitdepth=bitdepth)


def test_bitdepth_and_dtype_disagree():
    with pytest.raises(ValueError, match="uint16 samples need bitdepth"):
        libvif.score(np.zeros((32, 32), np.uint16), np.zeros((32, 32), np.uint16))
    with pytest.raises(ValueError, match="uint8 samples are 8-bit"):
        libvif.score(GOOD, GOOD, bitdepth=10)
    with pytest.raises(ValueError, match="bitdepth=8 needs uint8"):
        libvif.score(np.zeros((32, 32), np.uint16), np.zeros((32, 32), np.uint16), bitdepth=8)


def test_samples_above_the_bit_depth():
    a = np.full((32, 32), 1023, np.uint16)
    b = a.copy()
    b[5, 7] = 1024
    assert len(libvif.score(a, a, bitdepth=10)) == 1
    with pytest.raises(ValueError, match="sample value 1024 is out of the 10-bit range"):
        libvif.score(a, b, bitdepth=10)


def test_bad_options():
    with pytest.raises(ValueError, match="unknown variant 'fast'"):
        libvif.score(GOOD, GOOD, "fast")
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        libvif.score(GOOD, GOOD, backend="tpu")
    with pytest.raises(libvif.InvalidArgumentError, match="gain limit|enhn"):
        libvif.score(GOOD, GOOD, enhn_gain_limit=0.5)
    with pytest.raises(TypeError):
        libvif.score(GOOD, GOOD, not_an_option=1)


def test_cuda_backend_without_gpu_says_so():
    if libvif.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(libvif.VifError) as err:
        libvif.score(GOOD, GOOD, backend="cuda")
    assert isinstance(err.value, (libvif.NoDeviceError, libvif.UnsupportedError))
    assert str(err.value)


# ---- streaming ---------------------------------------------------------------------------------

def test_scorer_streaming_equals_score(foreman):
    case, ref, dist = foreman
    want = _frames(libvif.score(ref, dist))
    got = []
    with libvif.Scorer(backend="cpu", queue_depth=1, threads=2) as scorer:
        assert not scorer.started and scorer.receive() is None
        for i in range(ref.shape[0]):
            index = scorer.submit(ref[i], dist[i])  # the queue fills: VIF_AGAIN is handled
            assert index == i
        assert scorer.backend == "cpu" and scorer.names[4] == "integer_vif"
        first = scorer.receive(block=True)
        assert first is not None and first.index == 0
        got.append(first)
        got.extend(scorer)  # receives the rest, in order
        assert scorer.pending == 0 and scorer.receive() is None
    assert [s.index for s in got] == list(range(ref.shape[0]))
    assert [dict(s) for s in got] == want
    with pytest.raises(libvif.VifError, match="closed"):
        scorer.submit(ref[0], dist[0])


def test_scorer_result_and_stacks(foreman):
    case, ref, dist = foreman
    with libvif.Scorer() as scorer:
        assert scorer.submit(ref[:2], dist[:2]) == 0
        assert scorer.submit(ref[2:], dist[2:]) == 2
        result = scorer.result()
    assert _frames(result) == _frames(libvif.score(ref, dist))


def test_scorer_keeps_its_first_frame_size_as_maximum(foreman):
    case, ref, dist = foreman
    with libvif.Scorer() as scorer:
        scorer.submit(ref[0, :100, :100], dist[0, :100, :100])
        with pytest.raises(libvif.InvalidArgumentError, match="exceeds the context's maximum"):
            scorer.submit(ref[0], dist[0])
    with libvif.Scorer(width=176, height=144) as scorer:
        scorer.submit(ref[0, :100, :100], dist[0, :100, :100])
        scorer.submit(ref[0], dist[0])
        assert len(scorer.result()) == 2


def test_concurrent_scoring_from_two_threads(foreman):
    """Two threads score at once (a context each) and both get the right values."""
    case, ref, dist = foreman
    want = _frames(libvif.score(ref, dist, threads=1))
    results = [None, None]

    def work(k):
        results[k] = _frames(libvif.score(ref, dist, threads=1))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert results == [want, want]


def test_first_submits_from_many_threads_share_one_context(foreman):
    """Threads making their first submit() at the same moment: one context, every frame kept,
    every index given once (issue 19: each thread used to make a context of its own)."""
    case, ref, dist = foreman
    want = _frames(libvif.score(ref[:1], dist[:1]))[0]
    for _ in range(5):
        scorer = libvif.Scorer(backend="cpu", threads=1)
        n = 8
        start = threading.Barrier(n)
        indices = [None] * n

        def work(k):
            start.wait()
            indices[k] = scorer.submit(ref[0], dist[0])

        threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert sorted(indices) == list(range(n))
        result = scorer.result()
        scorer.close()
        assert len(result) == n
        assert all(f == want for f in _frames(result))


def test_gil_is_released_while_scoring(foreman):
    """While one thread is inside score(), this thread keeps running Python code: the longest
    pause between its loop turns stays far below the length of the call (with the GIL held for
    the call it would be the whole call)."""
    case, ref, dist = foreman
    big_ref, big_dist = np.tile(ref, (8, 4, 4)), np.tile(dist, (8, 4, 4))
    span = {}

    def work():
        span["start"] = time.monotonic()
        libvif.score(big_ref, big_dist, threads=1)
        span["end"] = time.monotonic()

    worker = threading.Thread(target=work)
    stamps = []
    worker.start()
    while worker.is_alive():
        stamps.append(time.monotonic())
    worker.join()
    inside = [t for t in stamps if span["start"] <= t <= span["end"]]
    duration = span["end"] - span["start"]
    if duration < 0.1:
        pytest.skip(f"the call took {duration:.3f} s: too short to tell")
    edges = [span["start"]] + inside + [span["end"]]
    longest = max(b - a for a, b in zip(edges, edges[1:]))
    assert longest < duration / 2, f"this thread stalled {longest:.3f} s of a {duration:.3f} s call"


# ---- backend="auto" for host arrays --------------------------------------------------------------

def test_auto_keeps_short_host_runs_on_the_cpu():
    """score() on host arrays: a run the CPU finishes before CUDA could have started never
    starts CUDA (libvif/_auto.py); a long one is left to the library's auto (CUDA when a GPU is
    present). The rule, and the choice score() makes, whatever the machine has."""
    from libvif._auto import host_run_backend
    assert host_run_backend(48, 1080, 1920, threads=16) == "cpu"  # the probe
    assert host_run_backend(1, 2160, 3840, threads=16) == "cpu"
    assert host_run_backend(10_000, 1080, 1920, threads=16) == "auto"
    assert host_run_backend(1_200, 2160, 3840, threads=16) == "auto"

    def crossing(height, width, threads):
        n = 1
        while n < 100_000 and host_run_backend(n, height, width, threads) == "cpu":
            n += 1
        assert n < 100_000, "CUDA never chosen"
        assert all(host_run_backend(m, height, width, threads) == "auto"
                   for m in range(n, n + 50))
        return n

    hd16 = crossing(1080, 1920, 16)
    assert crossing(1080, 1920, 32) > hd16  # more CPU threads: the CPU stays ahead longer
    assert crossing(2160, 3840, 16) < hd16  # bigger frames: CUDA pays for its start sooner
    assert crossing(1080, 1920, 2) < hd16

    rng = np.random.default_rng(3)
    ref = rng.integers(0, 256, (4, 64, 96), dtype=np.uint8)
    assert libvif.score(ref, ref // 2 + 40).backend == "cpu"
    with libvif.Scorer(backend="cpu") as s:
        s.submit(ref, ref // 2 + 40)
        assert s.backend == "cpu"

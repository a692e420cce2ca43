"""The library's `auto` backend from Python (docs/design.md, "auto in the library"): frames
scored on the CPU while the GPU starts, then on the GPU, the same values as backend='cpu'; and a
process that exits with such a scorer still open while the GPU is starting. Without a GPU the
library's test stand-in plays the GPU (VIF_TEST_AUTO=standin: a second CPU backend that becomes
ready after a delay or at a given frame); on the GPU machine the exit tests also run the real
start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import libvif
import libvif._auto

PACKAGE_DIR = str(Path(libvif.__file__).resolve().parent.parent)


def frames(n: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 256, (n, 72, 96), dtype=np.uint8)
    dist = np.clip(ref.astype(np.int16) + rng.integers(-12, 13, ref.shape), 0, 255)
    return ref, dist.astype(np.uint8)


@pytest.mark.parametrize("variant", ["integer", "float"])
@pytest.mark.parametrize("at", [0, 3, 7, 20])
def test_scorer_hand_over_gives_the_cpu_values(monkeypatch, variant, at):
    ref, dist = frames(12)
    with libvif.Scorer(variant, "cpu") as s:
        s.submit(ref, dist)
        want = s.result()
    monkeypatch.setenv("VIF_TEST_AUTO", f"standin,ms=0,frame={at}")
    with libvif.Scorer(variant, "auto") as s:
        for i in range(0, 12, 4):  # a stream, 4 frames at a time
            s.submit(ref[i:i + 4], dist[i:i + 4])
        got = s.result()
    assert got.backend == ("standin" if at == 0 else "cpu" if at >= 12 else "cpu+standin")
    for key in want.names:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    assert [f["frame"] if "frame" in f else i for i, f in enumerate(got.frames)] == \
        [f["frame"] if "frame" in f else i for i, f in enumerate(want.frames)]


def test_score_takes_the_library_hand_over_where_it_would_take_cuda(monkeypatch):
    """score() keeps its estimate where it picks the CPU; where it would have picked CUDA it
    leaves `auto` to the library, which hands over (here to the stand-in)."""
    ref, dist = frames(10)
    want = libvif.score(ref, dist, backend="cpu")
    monkeypatch.setenv("VIF_TEST_AUTO", "standin,ms=0,frame=4")
    assert libvif.score(ref, dist).backend == "cpu"  # short: the estimate keeps it on the CPU
    monkeypatch.setattr(libvif._auto, "host_run_backend", lambda *a, **k: "auto")
    got = libvif.score(ref, dist)
    assert got.backend == "cpu+standin"
    np.testing.assert_array_equal(got["integer_vif"], want["integer_vif"])


def test_failed_start_up_stays_on_the_cpu(monkeypatch):
    ref, dist = frames(6)
    want = libvif.score(ref, dist, backend="cpu")
    monkeypatch.setenv("VIF_TEST_AUTO", "standin,ms=0,fail")
    with libvif.Scorer("integer", "auto") as s:
        s.submit(ref, dist)
        got = s.result()
    assert got.backend == "cpu"
    np.testing.assert_array_equal(got["integer_vif"], want["integer_vif"])


EXIT_PROBE = r"""
import atexit, sys
import numpy as np
import libvif
import libvif._scorer
how = sys.argv[1]
ref = np.zeros((3, 72, 96), dtype=np.uint8) + 90
s = libvif.Scorer("integer", "auto")
s.submit(ref, ref)
assert s.receive() is not None
if how == "cycle":  # freed only by the garbage collector, late in the interpreter's exit
    s.self_ref = s
    del s
elif how == "no-atexit":  # the package's exit hook bypassed: the library's own wait remains
    atexit.unregister(libvif._scorer._close_open_scorers)
    LEAK = [s]
else:  # a module global, as a script leaves it
    LEAK = [s]
print("scored", flush=True)
"""


def run_exit_probe(how: str, auto_env: str | None):
    env = dict(os.environ, PYTHONPATH=PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("VIF_TEST_AUTO", None)
    env["VIF_AUTO"] = "handover"  # whatever the build's default
    if auto_env is not None:
        env["VIF_TEST_AUTO"] = auto_env
    return subprocess.run([sys.executable, "-c", EXIT_PROBE, how], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("how", ["global", "cycle", "no-atexit"])
def test_exit_with_an_open_auto_scorer_while_the_gpu_starts(how):
    """The interpreter exits with the scorer open and the (stand-in) GPU start-up still running
    (it takes 400 ms): the process ends cleanly, status 0, no crash or abort message."""
    p = run_exit_probe(how, "standin,ms=400")
    assert p.returncode == 0, p.stderr
    assert "scored" in p.stdout
    for bad in ("Fatal", "terminate", "Aborted", "Segmentation"):
        assert bad not in p.stderr, p.stderr


@pytest.mark.parametrize("how", ["global", "no-atexit"])
def test_exit_with_an_open_auto_scorer_real_start_up(how):
    """The same with the build's real `auto` (CUDA's start-up where there is a GPU, none
    without one)."""
    p = run_exit_probe(how, None)
    assert p.returncode == 0, p.stderr
    for bad in ("Fatal", "terminate", "Aborted", "Segmentation"):
        assert bad not in p.stderr, p.stderr

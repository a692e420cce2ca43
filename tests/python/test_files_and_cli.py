"""score_files() (the CLI's readers) and score() give the vif CLI's values, bit for bit, and
libvmaf's; Y4M, FFmpeg inputs, frame-count mismatches and bad inputs behave as the CLI does."""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings

import pytest

import libvif
from conftest import REPO_CASES, SHARED_CASES

pytestmark = pytest.mark.skipif(not libvif._core.HAVE_FILES,
                                reason="built without the file readers (fmt was missing)")

# A spread of sizes, bit depths and chroma layouts; the shared copies have more frames.
PICK = ["foreman_176x144_8b_crf45", "bsds100007pan_481x271_8b_crf35",
        "cosmospan_576x324_10b_crf35", "cosmospan_576x324_12b_x265crf35",
        "checker_352x288_16b_shift1", "img1012576pan_576x324_444_8b_crf35",
        "kodim23pan_576x324_422_8b_crf35"]


def _cases():
    by_name = {c.name: c for c in REPO_CASES}
    by_name.update({c.name: c for c in SHARED_CASES})  # the longer versions when present
    return [pytest.param(by_name[n], id=n) for n in PICK if n in by_name]


def _raw_args(case):
    return dict(width=case.width, height=case.height, bitdepth=case.bitdepth,
                pixel_format=case.pix_fmt)


def _cli_json(cli, case, *extra):
    cmd = [cli, "-r", str(case.ref), "-d", str(case.dist), "-w", str(case.width), "-h",
           str(case.height), "-p", case.pix_fmt, "-b", str(case.bitdepth), "--backend", "cpu",
           "--precision", "max", "--debug-metrics", "-q", "-o", "-", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout)


@pytest.mark.parametrize("case", _cases())
def test_score_files_equals_libvmaf(case):
    result = libvif.score_files(case.ref, case.dist, backend="cpu", **_raw_args(case))
    expected = case.expected()
    assert len(result) == len(expected)
    for got, want in zip(result.frames, expected):
        for key, value in got.items():
            assert value == want[key], f"frame {got.index} {key}"
    assert result.info["reference"]["width"] == case.width


@pytest.mark.parametrize("variant", ["integer", "float"])
@pytest.mark.parametrize("case", _cases())
def test_score_and_score_files_equal_cli(cli, case, variant):
    doc = _cli_json(cli, case, "--variant", variant)
    from_files = libvif.score_files(case.ref, case.dist, variant, "cpu", **_raw_args(case))
    from_arrays = libvif.score(case.luma("ref"), case.luma("dist"), variant, "cpu",
                               None if case.bitdepth == 8 else case.bitdepth)
    assert len(doc["frames"]) == len(from_files) == len(from_arrays) == case.frames
    for frame, a, b in zip(doc["frames"], from_files.frames, from_arrays.frames):
        assert frame["metrics"] == dict(a) == dict(b)
    for key, pooled in doc["pooled_metrics"].items():
        assert from_arrays.pooled[key] == pooled, key


def _write_y4m(path, case, frames):
    header = f"YUV4MPEG2 W{case.width} H{case.height} F25:1 Ip A1:1 C420jpeg\n".encode()
    raw = case.ref.read_bytes()
    with open(path, "wb") as f:
        f.write(header)
        for i in range(frames):
            f.write(b"FRAME\n")
            f.write(raw[i * case.frame_bytes():(i + 1) * case.frame_bytes()])


def _case(name):
    return next(c for c in SHARED_CASES + REPO_CASES if c.name == name)


def test_y4m_input_equals_arrays(tmp_path):
    case = _case("foreman_176x144_8b_crf45")
    ref_y4m = tmp_path / "ref.y4m"
    _write_y4m(ref_y4m, case, case.frames)
    from_files = libvif.score_files(ref_y4m, case.dist, backend="cpu",
                                    pixel_format="420", **{k: v for k, v in _raw_args(case).items()
                                                           if k != "pixel_format"})
    from_arrays = libvif.score(case.luma("ref"), case.luma("dist"), backend="cpu")
    assert [dict(f) for f in from_files.frames] == [dict(f) for f in from_arrays.frames]


@pytest.mark.skipif(not libvif.HAVE_FFMPEG, reason="built without FFmpeg")
def test_ffmpeg_input_equals_arrays(tmp_path):
    if not shutil.which("ffmpeg"):
        pytest.skip("no ffmpeg program to make a lossless file with")
    case = _case("foreman_176x144_8b_crf45")
    mkv = tmp_path / "dist.mkv"
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt",
                    "yuv420p", "-s", f"{case.width}x{case.height}", "-i", str(case.dist),
                    "-frames:v", str(case.frames), "-c:v", "ffv1", str(mkv)], check=True,
                   timeout=120)
    result = libvif.score_files(case.ref, mkv, backend="cpu", **_raw_args(case))
    expected = libvif.score(case.luma("ref"), case.luma("dist"), backend="cpu")
    assert [dict(f) for f in result.frames] == [dict(f) for f in expected.frames]


def test_length_mismatch_scores_common_frames_and_warns(tmp_path):
    case = _case("foreman_176x144_8b_crf45")
    assert case.frames >= 3
    short = tmp_path / "short.yuv"
    short.write_bytes(case.dist.read_bytes()[: 2 * case.frame_bytes()])
    with pytest.warns(RuntimeWarning, match="reference has more frames"):
        result = libvif.score_files(case.ref, short, backend="cpu", **_raw_args(case))
    assert len(result) == 2
    assert result.frames[1]["integer_vif"] == case.expected()[1]["integer_vif"]


def test_frames_limit():
    case = _case("foreman_176x144_8b_crf45")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = libvif.score_files(case.ref, case.dist, frames=2, **_raw_args(case))
    assert len(result) == 2
    with pytest.raises(ValueError, match="frames must be > 0"):
        libvif.score_files(case.ref, case.dist, frames=0, **_raw_args(case))


def test_bad_inputs_raise_input_error(tmp_path):
    case = _case("foreman_176x144_8b_crf45")
    with pytest.raises(libvif.InputError, match="nothing_here.yuv"):
        libvif.score_files(tmp_path / "nothing_here.yuv", case.dist, **_raw_args(case))
    with pytest.raises(libvif.InputError, match="width"):
        libvif.score_files(case.ref, case.dist)  # raw YUV without its sizes
    odd = tmp_path / "odd.yuv"
    odd.write_bytes(case.dist.read_bytes()[: case.frame_bytes() + 7])
    with pytest.raises(libvif.InputError):
        libvif.score_files(case.ref, odd, **_raw_args(case))

#!/usr/bin/env python3
"""The FFmpeg `libvif` filter (integrations/ffmpeg) against the `vif` CLI.

Every expected value comes from the `vif` CLI run on the same pictures (its reading of raw YUV,
Y4M and Matroska is its own code, and its scores are pinned to libvmaf's goldens by
tests/golden and tests/cli), never from the filter. Logs must be the CLI's bytes, the "fps" line
and attribute aside (a throughput). Every bad input must fail with a message naming the problem,
a non-zero exit, and no log file.

    tests/ffmpeg_filter/test_filter.py --ffmpeg PREFIX/bin/ffmpeg --vif build/tools/vif/vif
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(ROOT, "testdata")

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(cmd, ok=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    if ok and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                          p.stderr[-3000:]))
    return p


def without_fps(text):
    text = re.sub(r'^  "fps": [^\n]*\n', "", text, flags=re.M)
    return re.sub(r'<fyi fps="[^"]*" />', "<fyi />", text)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Env:
    def __init__(self, ffmpeg, vif, tmp):
        self.ffmpeg, self.vif, self.tmp = ffmpeg, vif, tmp
        self.n = 0

    def path(self, name):
        self.n += 1
        return os.path.join(self.tmp, "%03d_%s" % (self.n, name))

    def ff(self, inputs, graph, extra=(), ok=True):
        cmd = [self.ffmpeg, "-hide_banner", "-nostdin", "-y"]
        for i in inputs:
            cmd += i
        cmd += ["-lavfi", graph] + list(extra) + ["-f", "null", "-"]
        return run(cmd, ok)

    def cli(self, args, ok=True):
        return run([self.vif] + args, ok)


def raw_in(path, w, h, pix_fmt):
    return ["-f", "rawvideo", "-pix_fmt", pix_fmt, "-s", "%dx%d" % (w, h), "-i", path]


def cases():
    with open(os.path.join(TESTDATA, "MANIFEST.csv"), newline="") as f:
        for row in csv.DictReader(f):
            yield {"name": row["case"], "ref": os.path.join(TESTDATA, row["ref_file"]),
                   "dist": os.path.join(TESTDATA, row["dist_file"]), "w": int(row["width"]),
                   "h": int(row["height"]), "pix_fmt": row["pix_fmt"], "p": row["vmaf_p"],
                   "b": row["bitdepth"]}


def cli_raw(c):
    return ["-r", c["ref"], "-d", c["dist"], "-w", str(c["w"]), "-h", str(c["h"]), "-p", c["p"],
            "-b", c["b"]]


FMT_FLAG = {"json": "--json", "xml": "--xml", "csv": "--csv"}


def test_golden_raw(env):
    """Every golden case as raw YUV: JSON for all, XML and CSV for a few, the CLI's bytes."""
    for i, c in enumerate(cases()):
        fmts = ["json"] + (["xml", "csv"] if i % 6 == 0 or c["b"] != "8" else [])
        for fmt in fmts:
            out_ff, out_cli = env.path(c["name"] + "." + fmt), env.path(c["name"] + ".cli." + fmt)
            env.ff([raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]),
                    raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"])],
                   "[0:v][1:v]libvif=log_path=%s:log_fmt=%s" % (out_ff, fmt))
            env.cli(cli_raw(c) + [FMT_FLAG[fmt], "-o", out_cli])
            check(without_fps(read(out_ff)) == without_fps(read(out_cli)),
                  "%s %s: the filter's log equals the CLI's" % (c["name"], fmt))


def containers(env, c, kind):
    """The case's pictures as Y4M or lossless Matroska (FFV1), made by the built ffmpeg."""
    outs = []
    for src in (c["dist"], c["ref"]):
        out = env.path(os.path.basename(src) + (".y4m" if kind == "y4m" else ".mkv"))
        codec = ["-strict", "-1", "-f", "yuv4mpegpipe"] if kind == "y4m" else \
            ["-c:v", "ffv1", "-level", "3", "-f", "matroska"]
        run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error"] +
            raw_in(src, c["w"], c["h"], c["pix_fmt"]) + codec + [out])
        outs.append(out)
    return outs


def test_containers(env):
    """Y4M and lossless MKV inputs give the raw case's scores and the CLI's bytes."""
    picks = [c for c in cases() if c["name"] in ("foreman_176x144_8b_crf45",
                                                 "cosmospan_576x324_10b_crf35",
                                                 "cosmospan_576x324_16b_blur",
                                                 "img1012576pan_576x324_444_8b_crf35")]
    check(len(picks) == 4, "the container cases are in the manifest")
    for c in picks:
        expected = env.path(c["name"] + ".cli.json")
        env.cli(cli_raw(c) + ["--json", "-o", expected])
        for kind in ("y4m", "mkv"):
            dist, ref = containers(env, c, kind)
            out = env.path("%s.%s.json" % (c["name"], kind))
            env.ff([["-i", dist], ["-i", ref]],
                   "[0:v][1:v]libvif=log_path=%s:log_fmt=json" % out)
            check(without_fps(read(out)) == without_fps(read(expected)),
                  "%s from %s: the raw case's log" % (c["name"], kind))
            if kind == "y4m":
                cli_y4m = env.path(c["name"] + ".cli.y4m.json")
                env.cli(["-r", ref, "-d", dist, "--json", "-o", cli_y4m])
                check(without_fps(read(out)) == without_fps(read(cli_y4m)),
                      "%s from y4m: the CLI's log from the same files" % c["name"])


def test_rounded_timestamps(env):
    """Matroska's millisecond timestamps (0, 33, 67 ms at 30 fps) against a reference at exact
    1/30 s steps: every distorted frame is paired with the reference frame of the same index,
    as the CLI pairs them, not with the one before (framesync alone did that and failed)."""
    c = [c for c in cases() if c["name"] == "foreman_176x144_8b_crf45"][0]
    dist = env.path("foreman_30fps.mkv")
    run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-framerate", "30"] +
        raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]) +
        ["-c:v", "ffv1", "-level", "3", "-f", "matroska", dist])
    expected, out = env.path("foreman.cli.json"), env.path("foreman.30fps.json")
    env.cli(cli_raw(c) + ["--json", "-o", expected])
    env.ff([["-i", dist], ["-framerate", "30"] + raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"])],
           "[0:v][1:v]libvif=log_path=%s:log_fmt=json" % out)
    check(without_fps(read(out)) == without_fps(read(expected)),
          "ms-rounded Matroska timestamps against exact ones: the CLI's frame-by-frame log")


def test_ts_sync_nearest(env):
    """FFmpeg 7.1's framesync option ts_sync_mode=nearest (no such option in 5.1): the filter
    leaves its half-frame grid to framesync's nearest pairing, and the ms-rounded Matroska case
    still gives the CLI's log."""
    help_text = run([env.ffmpeg, "-hide_banner", "-h", "filter=libvif"]).stdout
    if "ts_sync_mode" not in help_text:
        print("skip test_ts_sync_nearest: this FFmpeg's framesync has no ts_sync_mode (5.1)")
        return
    c = [c for c in cases() if c["name"] == "foreman_176x144_8b_crf45"][0]
    dist = env.path("foreman_30fps_nearest.mkv")
    run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-framerate", "30"] +
        raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]) +
        ["-c:v", "ffv1", "-level", "3", "-f", "matroska", dist])
    expected, out = env.path("foreman.nearest.cli.json"), env.path("foreman.nearest.json")
    env.cli(cli_raw(c) + ["--json", "-o", expected])
    env.ff([["-i", dist], ["-framerate", "30"] + raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"])],
           "[0:v][1:v]libvif=ts_sync_mode=nearest:log_path=%s:log_fmt=json" % out)
    check(without_fps(read(out)) == without_fps(read(expected)),
          "ts_sync_mode=nearest, ms-rounded Matroska timestamps: the CLI's frame-by-frame log")


def frame_bytes(c):
    """Bytes of one frame of a manifest case (4:2:0, 4:2:2 or 4:4:4; 1 or 2 bytes a sample)."""
    chroma = {"420": 0.5, "422": 1.0, "444": 2.0}[c["p"]]
    return int(c["w"] * c["h"] * (1 + chroma)) * (1 if c["b"] == "8" else 2)


def multi_frame(env, c, n):
    """n frames from a case's pictures (frames cycled), as raw files."""
    fsize = frame_bytes(c)
    outs = []
    for src in (c["dist"], c["ref"]):
        data = open(src, "rb").read()
        out = env.path(os.path.basename(src))
        frames = [data[i:i + fsize] for i in range(0, len(data), fsize)]
        with open(out, "wb") as f:
            for k in range(n):
                f.write(frames[k % len(frames)])
        outs.append(out)
    return outs


def by_name(name):
    return next(c for c in cases() if c["name"] == name)


def test_metadata_and_options(env):
    """Per-frame metadata equals the CLI's values; variants, feature options, subsampling and
    precision as the CLI's equivalents."""
    c = dict(by_name("foreman_176x144_8b_crf45"))
    c["dist"], c["ref"] = multi_frame(env, c, 7)
    raw = [raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]),
           raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"])]
    meta = env.path("meta.txt")
    cli_json = env.path("meta.cli.json")
    env.ff(raw, "[0:v][1:v]libvif,metadata=mode=print:file=%s" % meta)
    env.cli(cli_raw(c) + ["--json", "-o", cli_json])
    frames = json.load(open(cli_json), parse_float=str)["frames"]  # the printed text
    text = read(meta)
    blocks = re.split(r"^frame:", text, flags=re.M)[1:]
    check(len(blocks) == 7 == len(frames), "metadata printed for each of the 7 frames")
    for k, (block, fr) in enumerate(zip(blocks, frames)):
        got = dict(re.findall(r"^lavfi\.vif\.(\w+)=(\S+)$", block, flags=re.M))
        want = dict(fr["metrics"])
        check(got == want, "frame %d metadata %s equals the CLI's %s" % (k, got, want))
    # Frames passed on as soon as their scores arrive carry the same metadata, in order.
    meta_w = env.path("meta_wait.txt")
    env.ff(raw, "[0:v][1:v]libvif=score_wait=-1,metadata=mode=print:file=%s" % meta_w)
    check(read(meta_w) == text, "score_wait=-1: the same frames and metadata")

    option_pairs = [
        ("variant=both", ["--feature", "vif", "--feature", "float_vif"]),
        ("variant=float:feature=name=float_vif\\\\:vif_kernelscale=0.5",
         ["--feature", "float_vif=vif_kernelscale=0.5"]),
        ("feature=name=vif\\\\:vif_enhn_gain_limit=1.0|name=float_vif",
         ["--feature", "vif=vif_enhn_gain_limit=1.0", "--feature", "float_vif"]),
        ("feature=egl=1", ["--feature-option", "egl=1"]),
        ("feature=debug=true", ["--debug-metrics"]),
        ("n_subsample=3", ["--subsample", "3"]),
        ("precision=max", ["--precision", "max"]),
        ("precision=9:variant=float", ["--precision", "9", "--variant", "float"]),
        ("n_threads=1", ["--threads", "1"]),
        # score_wait changes when frames leave the filter, never what is scored
        ("score_wait=-1", []),
        ("score_wait=300:n_subsample=2", ["--subsample", "2"]),
        ("score_wait=-1:variant=both", ["--feature", "vif", "--feature", "float_vif"]),
    ]
    for opt, cli_args in option_pairs:
        out, exp = env.path("opt.json"), env.path("opt.cli.json")
        env.ff(raw, "[0:v][1:v]libvif=%s:log_path=%s:log_fmt=json" % (opt, out))
        env.cli(cli_raw(c) + cli_args + ["--json", "-o", exp])
        check(without_fps(read(out)) == without_fps(read(exp)),
              "option %s equals the CLI's %s" % (opt, " ".join(cli_args)))
    # The summary line at the end, as libvmaf's "VMAF score:".
    p = env.ff(raw, "[0:v][1:v]libvif")
    check(re.search(r"VIF score: integer_vif_scale0=\d\.\d{6} .*integer_vif_scale3=", p.stderr)
          is not None, "the summary line is logged")


def test_ladder_rung(env):
    """A rung scaled inside the filtergraph equals the CLI's own ladder upscaling."""
    c = dict(by_name("kodim23pan_576x324_8b_crf35"))
    src = env.path("ladder_src.y4m")
    run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error"] +
        raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"]) + ["-f", "yuv4mpegpipe", src])
    rungs = []
    for w, h in ((288, 162), (384, 216)):
        rung = os.path.join(env.tmp, "rung%dx%d.mkv" % (w, h))
        run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error"] +
            raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]) +
            ["-vf", "scale=%d:%d" % (w, h), "-c:v", "ffv1", rung])
        rungs.append(rung)
    outdir = os.path.join(env.tmp, "ladder")
    env.cli(["-r", src] + sum([["-d", r] for r in rungs], []) + ["-o", outdir])
    for r in rungs:
        stem = os.path.splitext(os.path.basename(r))[0]
        expected = os.path.join(outdir, stem + ".json")
        check(os.path.exists(expected), "the CLI wrote %s" % expected)
        out = env.path(stem + ".json")
        env.ff([["-i", r], ["-i", src]],
               "[0:v]scale=%d:%d:flags=bicubic[d];[d][1:v]libvif=log_path=%s:log_fmt=json"
               % (c["w"], c["h"], out))
        if os.path.exists(expected):
            a, b = json.load(open(out)), json.load(open(expected))
            check(a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"],
                  "rung %s: in-graph scale equals the CLI's ladder" % stem)


def test_pixel_formats(env):
    """The filter's other pixel formats (converted in the graph from a case's planar YUV, which
    leaves luma unchanged) give that case's log: gray, nv12, p010, p016, 4:2:2/4:4:4 planes, and
    the two inputs in different formats of one bit depth."""
    checks = [("kodim23pan_576x324_8b_crf35", ["nv12", "yuv444p"], "yuv420p"),
              ("cosmospan_576x324_10b_crf35", ["p010le", "yuv422p10le"], "yuv420p10le"),
              ("cosmospan_576x324_12b_x265crf35", ["yuv422p12le", "yuv444p12le"], "yuv420p12le"),
              ("cosmospan_576x324_16b_blur", ["yuv444p16le", "p016le"], "yuv420p16le")]
    for name, fmts, native in checks:
        c = by_name(name)
        raw = [raw_in(c["dist"], c["w"], c["h"], c["pix_fmt"]),
               raw_in(c["ref"], c["w"], c["h"], c["pix_fmt"])]
        expected = env.path(name + ".cli.json")
        env.cli(cli_raw(c) + ["--json", "-o", expected])
        for f in fmts:
            out = env.path("%s.%s.json" % (name, f))
            env.ff(raw, "[0:v]format=%s[d];[1:v]format=%s[r];[d][r]libvif=log_path=%s:log_fmt=json"
                   % (f, f, out))
            check(without_fps(read(out)) == without_fps(read(expected)),
                  "%s as %s: the case's log" % (name, f))
        # Gray: the luma planes alone (libswscale's conversion to gray changes the range).
        gray = "gray" if c["b"] == "8" else "gray%sle" % c["b"]
        planes = []
        for src in (c["dist"], c["ref"]):
            data, luma = open(src, "rb").read(), c["w"] * c["h"] * (1 if c["b"] == "8" else 2)
            fb = frame_bytes(c)
            planes.append(env.path(os.path.basename(src) + ".gray"))
            with open(planes[-1], "wb") as f:
                for k in range(0, len(data), fb):
                    f.write(data[k:k + luma])
        out = env.path("%s.%s.json" % (name, gray))
        env.ff([raw_in(planes[0], c["w"], c["h"], gray), raw_in(planes[1], c["w"], c["h"], gray)],
               "[0:v][1:v]libvif=log_path=%s:log_fmt=json" % out)
        check(without_fps(read(out)) == without_fps(read(expected)),
              "%s as %s: the case's log" % (name, gray))
        out = env.path("%s.mixed.json" % name)
        env.ff(raw, "[0:v]format=%s[d];[d][1:v]libvif=log_path=%s:log_fmt=json" % (fmts[1], out))
        check(without_fps(read(out)) == without_fps(read(expected)),
              "%s: %s against %s, the case's log" % (name, fmts[1], native))


def test_details_and_ffprobe(env):
    """The details block names the inputs: through the lavfi device with movie sources (what
    ffprobe reads), the file names, so the whole log is the CLI's --details log for the same
    files; through ffmpeg's -i, FFmpeg's names of its input streams. ffprobe shows each frame's
    lavfi.vif.* tags, the CLI's values."""
    c = by_name("foreman_176x144_8b_crf45")
    c = dict(c)
    c["dist"], c["ref"] = multi_frame(env, c, 4)
    dist, ref = containers(env, c, "y4m")
    expected = env.path("details.cli.json")
    env.cli(["-r", ref, "-d", dist, "--details", "--json", "-o", expected])
    want = json.load(open(expected))

    # ffmpeg -i: the names of FFmpeg's inputs, the rest the CLI's.
    out = env.path("details.json")
    env.ff([["-i", dist], ["-i", ref]], "[0:v][1:v]libvif=details=1:log_path=%s:log_fmt=json" % out)
    got = json.load(open(out))
    names = (got.get("libvif", {}).get("reference", ""), got.get("libvif", {}).get("distorted", ""))
    check(names[0].endswith("1:0") and names[1].endswith("0:0"),
          "ffmpeg -i: the details block names the input streams 1:0 and 0:0, got %s" % (names,))
    if "libvif" in got:
        got["libvif"]["reference"], got["libvif"]["distorted"] = ref, dist
    for d in (got, want):
        d.pop("fps", None)
    check(got == want, "ffmpeg -i with details=1: the CLI's --details log but for the names")

    # ffprobe through the lavfi device: tags on every frame, and the log of the CLI byte for byte.
    ffprobe = os.path.join(os.path.dirname(env.ffmpeg), "ffprobe")
    out = env.path("probe.json")
    graph = "movie=%s[d];movie=%s[r];[d][r]libvif=details=1:log_path=%s:log_fmt=json" % (
        dist, ref, out)
    p = run([ffprobe, "-v", "error", "-f", "lavfi", "-i", graph, "-show_entries", "frame_tags",
             "-of", "json"])
    frames = json.loads(p.stdout).get("frames", [])
    check(len(frames) == 4 == len(want["frames"]), "ffprobe: 4 frames (got %d)" % len(frames))
    for k, (fr, exp) in enumerate(zip(frames, want["frames"])):
        tags = {key[len("lavfi.vif."):]: v for key, v in fr.get("tags", {}).items()
                if key.startswith("lavfi.vif.")}
        check(tags and {t: float(v) for t, v in tags.items()} ==
              {t: float(v) for t, v in exp["metrics"].items()},
              "ffprobe frame %d: tags %s equal the CLI's %s" % (k, tags, exp["metrics"]))
    check(os.path.exists(out) and without_fps(read(out)) == without_fps(read(expected)),
          "lavfi movie sources: the log is the CLI's --details log byte for byte")


def test_bad_inputs(env):
    """Each bad input: non-zero exit, a message naming the problem, no log file."""
    c8 = by_name("foreman_176x144_8b_crf45")
    c10 = by_name("cosmospan_576x324_10b_crf35")
    k8 = by_name("kodim23pan_576x324_8b_crf35")
    d3, r3 = multi_frame(env, dict(c8), 3)
    d2, r2 = multi_frame(env, dict(c8), 2)
    r8_10 = env.path("k8_as_10bit.yuv")
    run([env.ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error"] +
        raw_in(k8["ref"], 576, 324, "yuv420p") + ["-pix_fmt", "yuv420p10le", "-f", "rawvideo",
                                                  r8_10])
    rgb = env.path("rgb.raw")
    with open(rgb, "wb") as f:
        f.write(bytes(176 * 144 * 3))
    W, H = 176, 144
    bad = [
        ("different sizes", [raw_in(k8["dist"], 576, 324, "yuv420p"),
                             raw_in(c8["ref"], W, H, "yuv420p")], "",
         "the distorted input is 576x324 and the reference 176x144"),
        ("different bit depths", [raw_in(k8["dist"], 576, 324, "yuv420p"),
                                  raw_in(r8_10, 576, 324, "yuv420p10le")], "",
         "is 8-bit (yuv420p) and the reference 10-bit"),
        ("unsupported format", [raw_in(rgb, W, H, "rgb24"), raw_in(c8["ref"], W, H, "yuv420p")],
         "", "pixel format rgb24 is not supported"),
        ("reference shorter", [raw_in(d3, W, H, "yuv420p"), raw_in(r2, W, H, "yuv420p")], "",
         "the reference input ended before the distorted one"),
        ("distorted shorter", [raw_in(d2, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")], "",
         "the distorted input ended before the reference"),
        ("unknown log format", [raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
         ":log_fmt=sub", "unknown log_fmt 'sub'"),
        ("unknown variant", [raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
         ":variant=fast", "unknown variant 'fast'"),
        ("unknown feature", [raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
         ":feature=name=adm", "libvif computes only vif and float_vif"),
        ("kernelscale on integer", [raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
         ":feature=name=vif\\\\:vif_kernelscale=0.5", "vif_kernelscale applies to the float"),
        ("score_wait below -1", [raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
         ":score_wait=-2", "score_wait"),
    ]
    for what, inputs, opts, message in bad:
        log = os.path.join(env.tmp, "bad.json")
        if os.path.exists(log):
            os.remove(log)
        p = env.ff(inputs, "[0:v][1:v]libvif=log_path=%s:log_fmt=json%s" % (log, opts), ok=False)
        check(p.returncode != 0, "%s: non-zero exit (got %d)" % (what, p.returncode))
        check(message in p.stderr, "%s: the message says '%s'\n%s" % (what, message,
                                                                      p.stderr[-1500:]))
        check(not os.path.exists(log), "%s: no log file" % what)
        check(not [n for n in os.listdir(env.tmp) if n.startswith(".vif-log-")],
              "%s: no temporary log left" % what)
    # shortest=1 scores up to the shorter input, as libvmaf's filter does.
    log = env.path("shortest.json")
    p = env.ff([raw_in(d3, W, H, "yuv420p"), raw_in(r2, W, H, "yuv420p")],
               "[0:v][1:v]libvif=shortest=1:log_path=%s:log_fmt=json" % log, ok=False)
    check(p.returncode == 0 and len(json.load(open(log))["frames"]) == 2,
          "shortest=1: two frames scored\n" + p.stderr[-800:])
    # A log path that cannot be written fails before scoring, naming the path.
    missing = os.path.join(env.tmp, "no-such-dir", "x.json")
    p = env.ff([raw_in(d3, W, H, "yuv420p"), raw_in(r3, W, H, "yuv420p")],
               "[0:v][1:v]libvif=log_path=%s:log_fmt=json" % missing, ok=False)
    check(p.returncode != 0 and missing in p.stderr,
          "unwritable log path: non-zero exit naming it\n" + p.stderr[-800:])
    check(c10 is not None, "10-bit case present")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ffmpeg", required=True)
    ap.add_argument("--vif", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="vif_ffmpeg_filter.")
    env = Env(os.path.abspath(a.ffmpeg), os.path.abspath(a.vif), tmp)
    tests = [test_golden_raw, test_containers, test_rounded_timestamps, test_ts_sync_nearest,
             test_metadata_and_options,
             test_pixel_formats,
             test_ladder_rung, test_details_and_ffprobe, test_bad_inputs]
    try:
        for t in tests:
            before = len(failures)
            try:
                t(env)
            except Exception as e:  # a command that should have worked did not
                failures.append("%s: %s" % (t.__name__, e))
                print("FAIL:", t.__name__, e, file=sys.stderr)
            print("%s %s" % ("ok  " if len(failures) == before else "FAIL", t.__name__))
    finally:
        if a.keep or failures:
            print("scratch directory kept:", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("ffmpeg filter tests: %d checks passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

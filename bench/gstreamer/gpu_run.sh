#!/usr/bin/env bash
# The GStreamer element on a GPU machine: NVDEC's CUDA memory scored in place, checked bit for bit
# against the CPU backend and the vif CLI, and its speed against `vif --hwdec cuda --decoders 1`.
#   bench/gstreamer/gpu_run.sh [stages]      stages (default: build inspect exact upload bench)
#     build    configure and build libvif with CUDA and the element (build-gst-gpu/) against the
#              carried GStreamer (pkg-config with PKG_CONFIG_SYSROOT_DIR)
#     inspect  which of vif, nvh264dec, cudaupload GStreamer finds; why not, when nvcodec fails
#     exact    the 1080p H.264 pair (1,200 frames) through filesrc ! parsebin ! nvh264dec into
#              vif with CUDA memory on both pads (backend cuda) against the same decoder's
#              frames in system memory scored by the CPU backend, and against the CLI
#     upload   CUDA memory from cudaupload (videotestsrc, a two-rung ladder) against the CPU
#              backend on the same frames in system memory (the fallback the issue names)
#     bench    frames per second, best of RUNS (default 3) whole runs, each variant's result
#              file equal to the CLI's: the pipeline with CUDA memory against
#              `vif --hwdec cuda --decoders 1 --backend cuda` on the same pair, and the variants
#              of the decoder side (nvh264dec's max-display-delay, the stateless nvh264sldec,
#              queues) with the decoders alone into fakesinks (the bound)
# Needs: .gst-pack from bench/gstreamer/pack.sh (GST_PACK=...), nvcc (/usr/local/cuda), cmake;
# for the CLI comparisons a `vif` with NVDEC: built here beside the element when the static
# FFmpeg (sysroot/opt/ffmpeg-nvdec, as bench/integrations/pack.sh packs it) and .gpu-deps/prefix
# are there, else VIF=... (default dist/bin/vif with dist/lib, as bench/nvdec/pack.sh makes it);
# without one those lines say so and are skipped. BUILD_DIR (default build-gst-gpu).
# GST_SERIES=1.26: the same stages on GStreamer 1.26 from Debian 13 (bench/gstreamer/pack126.sh,
# GST126_PACK default .gst126-pack with sysroot/ unpacked): the element is built against 1.26's
# headers (build-gst126, the element alone, libstdc++ linked in), and 1.26's gst-launch-1.0 and
# gst-inspect-1.0 run through the carried glibc's loader (1.26 needs glibc >= 2.38); the CLI, the
# clips and pkg-config come from the 1.22 pack as before. Its bench tries 1.26's decoder options
# (num-output-surfaces, max-display-delay) and queues. GST_LABEL prefixes the bench rows.
# Writes $OUT (default /tmp/gst-gpu-out): summary.md (printed at the end) and logs.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
PACK=${GST_PACK:-$ROOT/.gst-pack}
SERIES=${GST_SERIES:-1.22}
HOST_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
SYS=$PACK/sysroot
SYS122=$SYS # Debian 12's sysroot: pkgconf, the static FFmpeg and the CLI's libraries
CLIPS=${CLIPS:-$PACK/clips}
OUT=${OUT:-/tmp/gst-gpu-out}
B=$(realpath -m "${BUILD_DIR:-$ROOT/build-gst-gpu}")
if [[ $SERIES == 1.26 ]]; then
  SYS=$(realpath -m "${GST126_PACK:-$ROOT/.gst126-pack}")/sysroot
  B=$(realpath -m "${BUILD_DIR:-$ROOT/build-gst126}")
elif [[ $SERIES != 1.22 ]]; then
  echo "FAIL: GST_SERIES is 1.22 or 1.26, not $SERIES"; exit 2
fi
RUNS=${RUNS:-3}
STAGES=${*:-build inspect exact upload bench}
A=x86_64-linux-gnu
mkdir -p "$OUT"
SUMMARY=$OUT/summary.md
: > "$SUMMARY"
has() { [[ " $STAGES " == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$SUMMARY"; }
fail=0
[[ -d $SYS ]] || { say "FAIL: no $SYS (bench/gstreamer/pack.sh or pack126.sh here, carried)"; exit 1; }
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH

say "## GStreamer $SERIES element on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(date -u '+%Y-%m-%d %H:%M UTC')"

# The static FFmpeg with NVDEC inside the sysroot (pkg-config's sysroot then leaves its paths
# alone): the vif CLI is built beside the element, for the comparisons.
FF=$SYS122/opt/ffmpeg-nvdec
# ---- Build ------------------------------------------------------------------------------------
if has build; then
  export PKG_CONFIG_SYSROOT_DIR=$SYS
  export PKG_CONFIG_LIBDIR=$SYS/usr/lib/$A/pkgconfig:$SYS/usr/share/pkgconfig
  cli=(-DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TOOLS=OFF)
  targets=(gstvif)
  link=()
  # 1.26 runs on trixie's glibc and libstdc++ (the carried loader): the element takes its C++
  # runtime with it, so the GPU machine's compiler may be newer than trixie's.
  [[ $SERIES == 1.26 ]] && link=(-DCMAKE_MODULE_LINKER_FLAGS="-static-libstdc++ -static-libgcc")
  if [[ $SERIES == 1.22 && -d $FF/lib/pkgconfig && -d $ROOT/.gpu-deps/prefix ]]; then
    export PKG_CONFIG_LIBDIR=$PKG_CONFIG_LIBDIR:$FF/lib/pkgconfig
    export LIBRARY_PATH=$FF/lib${LIBRARY_PATH:+:$LIBRARY_PATH}
    cli=(-DVIF_WITH_FFMPEG=ON -DVIF_BUILD_TOOLS=ON -DCMAKE_PREFIX_PATH="$ROOT/.gpu-deps/prefix")
    targets+=(vif_cli vif_ffmpeg)
  fi
  # EXTRA_TARGETS (e.g. vif_parity_tests, with GST_BUILD_TESTS=ON) in the same build.
  # shellcheck disable=SC2206
  targets+=(${EXTRA_TARGETS:-})
  pc=()
  if ! command -v pkg-config >/dev/null; then
    export LD_LIBRARY_PATH=$SYS122/usr/lib/$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    pc=(-DPKG_CONFIG_EXECUTABLE="$SYS122/usr/bin/pkgconf")
  fi
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=native -DVIF_BUILD_TESTS="${GST_BUILD_TESTS:-OFF}" -DVIF_BUILD_BENCHMARKS=OFF \
    -DVIF_BUILD_PYTHON=OFF "${cli[@]}" "${pc[@]}" "${link[@]}" \
    > "$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; say "FAIL: configure"; exit 1; }
  grep -E "GStreamer element" "$OUT/configure.log" | tee -a "$SUMMARY"
  cmake --build "$B" --target "${targets[@]}" -j "$(nproc)" > "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; say "FAIL: build"; exit 1; }
  say "built: ${targets[*]}"
fi

# ---- Carried GStreamer ------------------------------------------------------------------------
export LD_LIBRARY_PATH=$SYS122/usr/lib/$A:$SYS122/lib/$A${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_PLUGIN_SYSTEM_PATH_1_0=$SYS/usr/lib/$A/gstreamer-1.0
export GST_PLUGIN_PATH_1_0=$B/integrations/gstreamer
export GST_REGISTRY_1_0=$OUT/registry.bin
LAUNCH=$SYS/usr/bin/gst-launch-1.0
INSPECT=$SYS/usr/bin/gst-inspect-1.0
if [[ $SERIES == 1.26 ]]; then
  # 1.26's tools through trixie's loader with trixie's libraries first, then the machine's own
  # paths (the driver's libcuda/libnvcuvid); nothing else here sees those libraries. Plugins
  # are scanned in-process (the scanner would start under the machine's loader).
  export GST_REGISTRY_FORK=no
  unset GST_PLUGIN_SCANNER_1_0
  drv=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
  libpath=$SYS/usr/lib/$A${HOST_LD_LIBRARY_PATH:+:$HOST_LD_LIBRARY_PATH}${drv:+:$(dirname "$drv")}
  mkdir -p "$B/gst126-bin"
  for t in gst-launch-1.0 gst-inspect-1.0; do
    printf '#!/bin/sh\nexec "%s" --library-path "%s" "%s" "$@"\n' \
      "$SYS/usr/lib64/ld-linux-x86-64.so.2" "$libpath" "$SYS/usr/bin/$t" > "$B/gst126-bin/$t"
    chmod +x "$B/gst126-bin/$t"
  done
  LAUNCH=$B/gst126-bin/gst-launch-1.0
  INSPECT=$B/gst126-bin/gst-inspect-1.0
  "$INSPECT" --version | head -2 | tr '\n' ' ' | sed 's/^/1.26 tools: /' | tee -a "$SUMMARY"; echo | tee -a "$SUMMARY"
else
  export GST_PLUGIN_SCANNER_1_0=$SYS/usr/lib/$A/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner
fi
VIF=${VIF:-$B/tools/vif/vif}
[[ -x $VIF ]] || VIF=$ROOT/dist/bin/vif
[[ -x $VIF && -d $ROOT/dist/lib ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$ROOT/dist/lib
[[ -d $FF/lib ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$FF/lib # libdav1d beside the static FFmpeg
SRC=$CLIPS/h264_src.mp4
ENC=$CLIPS/h264_enc.mkv

nvdec=0
upload=0
if has inspect || has exact || has upload || has bench; then
  "$INSPECT" vif > "$OUT/inspect_vif.txt" 2>&1 || { say "FAIL: gst-inspect-1.0 does not find vif"; exit 1; }
  grep -q "memory:CUDAMemory" "$OUT/inspect_vif.txt" && say "vif: CUDA memory in its caps" ||
    { say "FAIL: vif was built without CUDA memory"; fail=1; }
  "$INSPECT" nvh264dec > "$OUT/inspect_nvh264dec.txt" 2>&1 && nvdec=1
  "$INSPECT" cudaupload > "$OUT/inspect_cudaupload.txt" 2>&1 && upload=1
  say "nvh264dec: $([[ $nvdec = 1 ]] && echo found || echo MISSING); cudaupload: $([[ $upload = 1 ]] && echo found || echo MISSING)"
  # The decoders' own properties (what a pipeline can tune), from gst-inspect.
  for d in nvh264dec nvh264sldec; do
    "$INSPECT" "$d" > "$OUT/inspect_$d.txt" 2>&1 &&
      say "$d properties: $(sed -n '/^Element Properties:/,$p' "$OUT/inspect_$d.txt" |
        grep -oE '^  [a-z][a-z0-9-]+ +:' | tr -d ' :' | tr '\n' ' ')"
  done
  if [[ $nvdec = 0 ]]; then
    # Why nvcodec registered no decoder: its own debug output while the plugin is scanned.
    rm -f "$GST_REGISTRY_1_0"
    GST_DEBUG=nvcodec:6,nvdec:6,cudaloader:6,cudacontext:6 "$INSPECT" nvcodec > "$OUT/nvcodec_debug.log" 2>&1
    say "nvcodec scan (first lines mentioning CUDA/NVDEC):"
    grep -iE "cuvid|nvcuvid|cuInit|libcuda|failed|error" "$OUT/nvcodec_debug.log" | head -12 | sed 's/^/    /' | tee -a "$SUMMARY"
    ldconfig -p 2>/dev/null | grep -E "libnvcuvid|libcuda\.so" | sed 's/^/    /' | tee -a "$SUMMARY"
  fi
fi

# Per-frame integer VIF of a gst-launch -m log: "frame s0 s1 s2 s3 combined" for one pad.
frames_of() { # log pad
  grep "(element): vif, frame=" "$1" | grep "pad=(string)$2," |
    sed -E 's/.*frame=\(guint64\)([0-9]+).*integer_vif_scale0=\(double\)([^,;]+).*integer_vif_scale1=\(double\)([^,;]+).*integer_vif_scale2=\(double\)([^,;]+).*integer_vif_scale3=\(double\)([^,;]+).*integer_vif=\(double\)([^,;]+).*/\1 \2 \3 \4 \5 \6/'
}
# The same columns from a CLI JSON written with --debug-metrics --precision max.
frames_of_json() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["frames"]:
    m = f["metrics"]
    print(f["frameNum"], *(repr(float(m[k])) for k in
          ["integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3", "integer_vif"]))
PY
}
# Two column files equal as numbers (the CLI prints %.17g, GStreamer the shortest exact form).
same_numbers() {
  python3 - "$1" "$2" <<'PY'
import sys
a = [l.split() for l in open(sys.argv[1]) if l.strip()]
b = [l.split() for l in open(sys.argv[2]) if l.strip()]
bad = [i for i, (x, y) in enumerate(zip(a, b)) if [float(v) for v in x] != [float(v) for v in y]]
print(f"{len(a)} vs {len(b)} frames, {len(bad)} differ" + (f" (first: line {bad[0]})" if bad else ""))
sys.exit(0 if len(a) == len(b) and len(a) > 0 and not bad else 1)
PY
}

pipe_nvdec() { # memory-caps backend extra-vif-props
  echo "filesrc location=$SRC ! parsebin ! nvh264dec ! $1 ! q.sink_0" \
       "filesrc location=$ENC ! parsebin ! nvh264dec ! $1 ! q.sink_1" \
       "vif name=q backend=$2 $3 ! fakesink"
}

if has exact; then
  say "### exact: 1080p H.264 pair, nvh264dec, CUDA memory (backend cuda) against system memory (backend cpu)"
  if [[ $nvdec = 1 ]]; then
    # shellcheck disable=SC2046
    "$LAUNCH" -m $(pipe_nvdec 'video/x-raw(memory:CUDAMemory)' cuda "result-file=$OUT/gst_cuda.json") > "$OUT/gst_cuda.log" 2>&1 ||
      { tail -20 "$OUT/gst_cuda.log"; say "FAIL: the CUDA memory pipeline failed"; fail=1; }
    # shellcheck disable=SC2046
    "$LAUNCH" -m $(pipe_nvdec 'video/x-raw' cpu "") > "$OUT/gst_cpu.log" 2>&1 ||
      { tail -20 "$OUT/gst_cpu.log"; say "FAIL: the system memory pipeline failed"; fail=1; }
    frames_of "$OUT/gst_cuda.log" sink_1 > "$OUT/cuda.txt"
    frames_of "$OUT/gst_cpu.log" sink_1 > "$OUT/cpu.txt"
    r=$(same_numbers "$OUT/cuda.txt" "$OUT/cpu.txt") && say "- CUDA memory vs CPU backend: $r: PASS" ||
      { say "- CUDA memory vs CPU backend: $r: FAIL"; fail=1; }
    if [[ -x $VIF ]]; then
      "$VIF" -r "$SRC" -d "$ENC" --backend cuda --hwdec cuda --decoders 1 --debug-metrics --precision max \
        -q --json -o "$OUT/cli.json" 2> "$OUT/cli.err"
      frames_of_json "$OUT/cli.json" > "$OUT/cli.txt"
      r=$(same_numbers "$OUT/cuda.txt" "$OUT/cli.txt") && say "- CUDA memory vs vif --hwdec cuda: $r: PASS" ||
        { say "- CUDA memory vs vif --hwdec cuda: $r: FAIL"; fail=1; }
      # The result file against the CLI's default JSON (fps lines aside).
      "$VIF" -r "$SRC" -d "$ENC" --backend cuda --hwdec cuda --decoders 1 -q --json -o "$OUT/cli_default.json" 2>/dev/null
      if diff <(grep -v fps "$OUT/gst_cuda.json") <(grep -v fps "$OUT/cli_default.json") > "$OUT/result_file.diff"; then
        say "- result-file equals the CLI's JSON (fps aside): PASS"
      else
        say "- result-file differs from the CLI's JSON: FAIL ($OUT/result_file.diff)"; fail=1
      fi
    else
      say "- no vif CLI with NVDEC here (VIF=...): CLI comparison skipped"
    fi
  else
    say "- skipped: nvh264dec is not available (see above); the upload stage tests CUDA memory"
  fi
fi

if has upload; then
  say "### upload: cudaupload CUDA memory (a two-rung ladder, 1080p NV12, 120 frames) against the CPU backend"
  if [[ $upload = 1 ]]; then
    up() { # memory-branch backend
      echo "videotestsrc num-buffers=120 pattern=ball ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1" \
           "! tee name=t t. ! queue $1 ! q.sink_0" \
           "t. ! queue ! videoconvertscale ! video/x-raw,width=960,height=540 ! videoconvertscale" \
           "! video/x-raw,width=1920,height=1080,format=NV12 $1 ! q.sink_1" \
           "t. ! queue ! videoconvertscale ! video/x-raw,width=640,height=360 ! videoconvertscale" \
           "! video/x-raw,width=1920,height=1080,format=NV12 $1 ! q.sink_2" \
           "vif name=q backend=$2 ! fakesink"
    }
    # shellcheck disable=SC2046
    "$LAUNCH" -m $(up "! cudaupload" cuda) > "$OUT/up_cuda.log" 2>&1 || { tail -20 "$OUT/up_cuda.log"; say "FAIL: cudaupload pipeline"; fail=1; }
    # shellcheck disable=SC2046
    "$LAUNCH" -m $(up "" cpu) > "$OUT/up_cpu.log" 2>&1 || { tail -20 "$OUT/up_cpu.log"; say "FAIL: system memory pipeline"; fail=1; }
    for pad in sink_1 sink_2; do
      frames_of "$OUT/up_cuda.log" $pad > "$OUT/up_cuda_$pad.txt"
      frames_of "$OUT/up_cpu.log" $pad > "$OUT/up_cpu_$pad.txt"
      r=$(same_numbers "$OUT/up_cuda_$pad.txt" "$OUT/up_cpu_$pad.txt") && say "- $pad: $r: PASS" ||
        { say "- $pad: $r: FAIL"; fail=1; }
    done
  else
    say "- skipped: cudaupload is not available"
  fi
fi

if has bench && [[ $nvdec = 1 ]]; then
  say "### bench: frames per second, whole runs, best of $RUNS (1,200 frames of 1080p H.264)"
  frames=$(wc -l < "$OUT/cuda.txt" 2>/dev/null || echo 1200)
  [[ $frames -gt 0 ]] || frames=1200
  "$INSPECT" nvh264sldec > "$OUT/inspect_nvh264sldec.txt" 2>&1 && sl=1 || sl=0
  # Decoder side of each variant: the decoder element (with its options) and what follows it.
  #   default     nvh264dec (GstNvDec, NVIDIA's parser; max-display-delay auto)
  #   mdd0/mdd8   nvh264dec max-display-delay=0 / 8 (frames decoded ahead of the one output)
  #   sldec       nvh264sldec (1.22's stateless decoder on GStreamer's own parser, its own
  #               output delay)
  #   q           a queue after each decoder (decode and scoring in separate threads)
  #   sysmem      the decoder's output in system memory (a download per frame), backend cuda
  # decode-*: the two decoders into fakesinks without vif, the bound for the same decoder;
  # decode1-*: the reference's decoder alone (fps of one stream).
  # 1.26 (nvh264dec is the stateless decoder there; nvh264sldec is gone):
  #   nos4/nos16  nvh264dec num-output-surfaces=4 / 16 (output surfaces NVDEC maps from;
  #               0, the default, lets the decoder choose)
  #   mdd0        max-display-delay=0, as above
  # Every sink is fakesink sync=false (its default too): no clock waits.
  if [[ $SERIES == 1.26 ]]; then
    VARIANTS=${GST_VARIANTS:-cli-d1 startup decode1-default decode-default decode-mdd0 decode-nos16 default default-q mdd0 mdd0-q nos4 nos16 nos16-q}
  else
    VARIANTS=${GST_VARIANTS:-cli-d1 cli decode-default decode-sldec default mdd0 mdd8 sldec sldec-q default-q sysmem}
  fi
  dec_of() { # variant -> decoder element and options
    case $1 in
      *sldec*) echo "nvh264sldec" ;;
      *nos4*) echo "nvh264dec num-output-surfaces=4" ;;
      *nos16*) echo "nvh264dec num-output-surfaces=16" ;;
      *mdd0*) echo "nvh264dec max-display-delay=0" ;;
      *mdd8*) echo "nvh264dec max-display-delay=8" ;;
      *) echo "nvh264dec" ;;
    esac
  }
  pipeline() { # variant result-file
    local v=$1 dec mem="video/x-raw(memory:CUDAMemory)" q=""
    dec=$(dec_of "$v")
    [[ $v == *-q ]] && q="! queue max-size-buffers=8 max-size-bytes=0 max-size-time=0"
    [[ $v == sysmem ]] && mem="video/x-raw"
    if [[ $v == decode1-* ]]; then # one stream, one decoder: does a second one slow it?
      echo "filesrc location=$SRC ! parsebin ! $dec ! $mem ! fakesink sync=false"
    elif [[ $v == decode-* ]]; then
      echo "filesrc location=$SRC ! parsebin ! $dec ! $mem ! fakesink sync=false" \
           "filesrc location=$ENC ! parsebin ! $dec ! $mem ! fakesink sync=false"
    else
      echo "filesrc location=$SRC ! parsebin ! $dec ! $mem $q ! q.sink_0" \
           "filesrc location=$ENC ! parsebin ! $dec ! $mem $q ! q.sink_1" \
           "vif name=q backend=cuda frame-message=false result-file=$2 ! fakesink sync=false"
    fi
  }
  run_variant() { # variant result-file
    case $1 in
      cli-d1) "$VIF" -r "$SRC" -d "$ENC" --backend cuda --hwdec cuda --decoders 1 -q --json -o "$2" ;;
      cli) "$VIF" -r "$SRC" -d "$ENC" --backend cuda --hwdec cuda -q --json -o "$2" ;;
      # The fixed cost of a run: gst-launch-1.0 with nvcodec loaded and a CUDA context, one frame.
      startup) "$LAUNCH" videotestsrc num-buffers=1 ! cudaupload ! fakesink sync=false ;;
      *) # shellcheck disable=SC2046  # the pipeline's words
         "$LAUNCH" $(pipeline "$1" "$2") ;;
    esac
  }
  declare -A best=()
  for ((i = 0; i < RUNS; i++)); do
    for v in $VARIANTS; do
      [[ $v == *sldec* && $sl == 0 ]] && continue
      [[ $v == cli* && ! -x $VIF ]] && continue
      t0=$(date +%s.%N)
      run_variant "$v" "$OUT/bench_$v.json" > "$OUT/bench_$v.log" 2>&1; rc=$?
      t1=$(date +%s.%N)
      if [[ $rc != 0 ]]; then best[$v]=fail; continue; fi
      [[ ${best[$v]:-} == fail ]] && continue
      best[$v]=$(python3 -c "t=$t1-$t0; b='${best[$v]:-}'; print(min(t, float(b)) if b else t)")
    done
  done
  c1=${best[cli-d1]:-}
  say "| variant | seconds | fps | / vif --decoders 1 | result file |"
  say "|---|---|---|---|---|"
  top=""; top_v=""
  for v in $VARIANTS; do
    t=${best[$v]:-}
    if [[ -z $t ]]; then say "| ${GST_LABEL:-}$v | skipped (no nvh264sldec or no CLI) | | | |"; continue; fi
    if [[ $t == fail ]]; then
      say "| ${GST_LABEL:-}$v | failed: $(grep -m1 -iE 'error|fail' "$OUT/bench_$v.log" | cut -c1-120) | | | |"
      [[ $v == default ]] && fail=1
      continue
    fi
    ex="-"
    if [[ $v == startup ]]; then
      say "| ${GST_LABEL:-}startup (one frame: the fixed cost of a run) | $(python3 -c "print(f'{$t:.2f}')") | | | |"
      continue
    fi
    if [[ $v != cli* && $v != decode* && -f $OUT/bench_cli-d1.json ]]; then
      if diff -q <(grep -v fps "$OUT/bench_$v.json") <(grep -v fps "$OUT/bench_cli-d1.json") > /dev/null; then ex="= CLI"
      else ex="DIFFERS"; fail=1; fi
    fi
    ratio=$([[ -n $c1 && $c1 != fail ]] && python3 -c "print(f'{$c1/$t:.3f}')" || echo -)
    say "| ${GST_LABEL:-}$v | $(python3 -c "print(f'{$t:.2f}')") | $(python3 -c "print(f'{$frames/$t:.1f}')") | $ratio | $ex |"
    if [[ $v != cli* && $v != decode* && $v != sysmem ]] &&
       { [[ -z $top ]] || python3 -c "import sys; sys.exit(0 if $t < $top else 1)"; }; then
      top=$t; top_v=$v
    fi
  done
  if [[ -n $top && -n $c1 && $c1 != fail ]]; then
    if python3 -c "import sys; sys.exit(0 if $c1/$top >= 0.9 else 1)"; then
      say "- fastest ${GST_LABEL:-}pipeline ($top_v) within 10% of vif --hwdec cuda --decoders 1: PASS ($(python3 -c "print(f'{$c1/$top:.3f}')"))"
    else
      say "- fastest ${GST_LABEL:-}pipeline ($top_v) within 10% of vif --hwdec cuda --decoders 1: FAIL ($(python3 -c "print(f'{$c1/$top:.3f}')"); speed is reported, not part of RESULT)"
    fi
  fi
fi

say "RESULT: $([[ $fail = 0 ]] && echo PASS || echo FAIL)"
exit $fail

#!/usr/bin/env bash
# The FFmpeg filter's and the GStreamer element's GPU runs in one call, from one carried folder
# (bench/integrations/pack.sh): unpacks .integ-pack/deps.tar.xz, builds libvif with CUDA, the
# element and the vif CLI once (bench/gstreamer/gpu_run.sh's build, BUILD_DIR build-integ), runs
# the parity tests of the device-pointer API (vif_cuda_submit, vif_cuda_submit_multi), the
# element's stages, then (part ff or ff71) tests/ffmpeg/cuda_frames_test.cpp (vif_ffmpeg on CUDA frames of
# the primary context and of FFmpeg's own) and bench/ffmpeg/gpu_run.sh with the same build and the
# same clips, for FFmpeg 5.1 (part ff) and, when the pack has it, FFmpeg 7.1 (part ff71: its vif_ffmpeg glue is
# compiled here against 7.1's libavutil and the CUDA build's libvif, scripts/build-vif-ffmpeg-glue.sh).
# Part gst126: GStreamer 1.26 from Debian 13 (.integ-pack/gst126.tar.xz, bench/gstreamer/pack126.sh)
# unpacked into .gst126-pack; the element built against it (build-gst126) runs the same checks
# (nvh264dec CUDA memory = CPU backend = CLI, result file = CLI) and the decoder bench with
# 1.26's options, beside 1.22's nvh264dec (decode alone and the pipeline) and
# `vif --hwdec cuda --decoders 1`; needs part build's CLI (same call or earlier on the machine).
#   bash bench/integrations/gpu_run.sh       carry: .integ-pack (nothing else)
# Environment: INTEG_PACK (.integ-pack), OUT (default /tmp/integ-out: gstreamer/ and ffmpeg/,
# each with its summary.md; summary.md here has all; ffmpeg71/ for 7.1), PARTS (default
# "build api gst ff"; add ff71 for FFmpeg 7.1, e.g. PARTS="build ff71", gst126 for GStreamer
# 1.26, e.g. PARTS="build gst126" (about 6 minutes: its own libvif build); on a warm machine a
# later call can run "ff" or "ff71" alone on the same build), GST_STAGES (default inspect
# exact upload bench), FF_STAGES (default exact faults bench), RUNS (timed rounds, default 2).
# About 7 minutes in all on an H100 (build 2-3, GStreamer 2, FFmpeg 3): split with PARTS when
# a call is limited to 10 minutes and the machine is slower.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
PACK=$(realpath -m "${INTEG_PACK:-.integ-pack}")
OUT=${OUT:-/tmp/integ-out}
mkdir -p "$OUT"
[[ -f $PACK/deps.tar.xz && -d $PACK/clips ]] ||
  { echo "FAIL: no $PACK/deps.tar.xz or clips (run bench/integrations/pack.sh and carry .integ-pack)"; exit 1; }
PARTS=${PARTS:-build api gst ff}
export RUNS=${RUNS:-2}
t0=$(date +%s)
tar -C "$ROOT" -xJf "$PACK/deps.tar.xz" || { echo "FAIL: unpacking $PACK/deps.tar.xz"; exit 1; }
echo "unpacked in $(( $(date +%s) - t0 )) s"

has() { [[ " $PARTS " == *" $1 "* ]]; }
B=$ROOT/build-integ
gst=0; api=0; ff=0; ff71=0; frames=0; gst126=0
# One build for everything: libvif with CUDA, the element, the vif CLI with NVDEC, vif_ffmpeg
# (the filter's library) and the parity tests.
if has build; then
  # shellcheck disable=SC2086  # stage lists
  OUT=$OUT/build CLIPS=$PACK/clips BUILD_DIR=$B GST_BUILD_TESTS=ON \
    EXTRA_TARGETS="vif_parity_tests vif_ffmpeg_cuda_tests" bash bench/gstreamer/gpu_run.sh build || gst=1
fi
# The device-pointer tests: vif_cuda_submit and the ladder's vif_cuda_submit_multi, which the
# element uses for CUDA memory ladders.
if has api; then
  if [[ -x $B/tests/parity/vif_parity_tests ]]; then
    timeout 300 "$B/tests/parity/vif_parity_tests" --gtest_brief=1 \
      --gtest_filter='All/DevicePointer.*:DevicePointerErrors.*' > "$OUT/device_pointer_tests.log" 2>&1
    api=$?
    echo "device-pointer tests (vif_cuda_submit, vif_cuda_submit_multi): rc=$api $(grep -E 'PASSED|FAILED  \]' "$OUT/device_pointer_tests.log" | tail -2 | tr '\n' ' ')" |
      tee "$OUT/api_summary.md"
    grep -E "^\[  FAILED|Failure|Expected|Which is" "$OUT/device_pointer_tests.log" | head -20
  else
    api=1; echo "FAIL: no $B/tests/parity/vif_parity_tests (PARTS=build first)" | tee "$OUT/api_summary.md"
  fi
fi
if has gst; then
  # shellcheck disable=SC2086
  OUT=$OUT/gstreamer CLIPS=$PACK/clips BUILD_DIR=$B \
    bash bench/gstreamer/gpu_run.sh ${GST_STAGES:-inspect exact upload bench} || gst=1
fi
if has ff || has ff71; then
  # vif_ffmpeg_submit on CUDA frames of the primary context and of FFmpeg's own context (copied on
  # the GPU), against libvmaf's goldens (tests/ffmpeg/cuda_frames_test.cpp).
  if [[ -x $B/tests/ffmpeg/vif_ffmpeg_cuda_tests ]]; then
    LD_LIBRARY_PATH=$B/libvif:$B/libvif/ffmpeg:$ROOT/.gst-pack/sysroot/opt/ffmpeg-nvdec/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
      timeout 300 "$B/tests/ffmpeg/vif_ffmpeg_cuda_tests" > "$OUT/cuda_frames_test.log" 2>&1
    frames=$?
    { echo "vif_ffmpeg CUDA frames test (primary context and FFmpeg's own): rc=$frames $(tail -1 "$OUT/cuda_frames_test.log")"
      grep -E "^FAIL" "$OUT/cuda_frames_test.log" | head -10; } | tee "$OUT/cuda_frames_summary.md"
  else
    frames=1; echo "FAIL: no $B/tests/ffmpeg/vif_ffmpeg_cuda_tests (PARTS=build first)" | tee "$OUT/cuda_frames_summary.md"
  fi
  # The plain -hwaccel cuda path's copy between contexts: its cost per plane, that it stays on
  # the GPU, and a model of the filter's pipeline across two contexts, ordered on the GPU or on
  # the host (bench/ffmpeg/peer_copy_bench.cu, INFO lines).
  nvcc=$(readlink -f "$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt" 2>/dev/null)" 2>/dev/null)
  [[ -x $nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
  if "$nvcc" -std=c++17 -O2 -arch=sm_90 bench/ffmpeg/peer_copy_bench.cu -o "$B/peer_copy_bench" -ldl \
       > "$OUT/peer_copy.log" 2>&1; then
    timeout 120 "$B/peer_copy_bench" >> "$OUT/peer_copy.log" 2>&1 || frames=1
  else
    frames=1; echo "FAIL: bench/ffmpeg/peer_copy_bench.cu did not build" >> "$OUT/peer_copy.log"
  fi
  tee -a "$OUT/cuda_frames_summary.md" < "$OUT/peer_copy.log"
fi
if has ff; then
  # shellcheck disable=SC2086
  OUT=$OUT/ffmpeg CLIPS=$PACK/clips FFMPEG=$ROOT/.deps/ffmpeg-libvif-gpu/ffmpeg VIF=$B/tools/vif/vif \
    VIF_LIB=$B/libvif:$B/libvif/ffmpeg VIF_FFMPEG_PREFIX=.gst-pack/sysroot/opt/ffmpeg-nvdec \
    bash bench/ffmpeg/gpu_run.sh ${FF_STAGES:-exact faults bench} || ff=1
fi
if has ff71; then
  F71=$ROOT/.deps/ffmpeg-libvif-7.1
  mkdir -p "$OUT/ffmpeg71"
  if [[ ! -x $F71/bin/ffmpeg ]]; then
    ff71=1; echo "FAIL: the pack has no FFmpeg 7.1 (bench/integrations/pack.sh with FFMPEG71)" | tee "$OUT/ffmpeg71/summary.md"
  elif ! bash scripts/build-vif-ffmpeg-glue.sh "$F71" "$B" "$B/ffmpeg71-glue" > "$OUT/ffmpeg71/glue.log" 2>&1; then
    ff71=1; { echo "FAIL: the vif_ffmpeg glue for FFmpeg 7.1 did not build:"; tail -15 "$OUT/ffmpeg71/glue.log"; } | tee "$OUT/ffmpeg71/summary.md"
  else
    cat "$OUT/ffmpeg71/glue.log"
    # shellcheck disable=SC2086
    OUT=$OUT/ffmpeg71 CLIPS=$PACK/clips FFMPEG=$F71/bin/ffmpeg VIF=$B/tools/vif/vif \
      FFMPEG_LIB=$B/ffmpeg71-glue VIF_LIB=$B/libvif:$B/libvif/ffmpeg VIF_FFMPEG_PREFIX=.gst-pack/sysroot/opt/ffmpeg-nvdec \
      bash bench/ffmpeg/gpu_run.sh ${FF_STAGES:-exact faults bench} || ff71=1
  fi
fi
if has gst126; then
  G126=$ROOT/.gst126-pack
  mkdir -p "$OUT/gst126"
  if [[ ! -f $PACK/gst126.tar.xz ]]; then
    gst126=1; echo "FAIL: the pack has no gst126.tar.xz (bash bench/gstreamer/pack126.sh puts it there)" | tee "$OUT/gst126/summary.md"
  elif [[ ! -x $B/tools/vif/vif || ! -f $B/integrations/gstreamer/libgstvif.so ]]; then
    gst126=1; echo "FAIL: no $B/tools/vif/vif or 1.22 element (PARTS=build first)" | tee "$OUT/gst126/summary.md"
  else
    rm -rf "$G126" && mkdir -p "$G126" && tar -C "$G126" -xJf "$PACK/gst126.tar.xz"
    # 1.22 beside it, the same clips and CLI: its decoder alone and its pipeline.
    OUT=$OUT/gst122 CLIPS=$PACK/clips BUILD_DIR=$B GST_LABEL="1.22 " \
      GST_VARIANTS="cli-d1 startup decode1-default decode-default default" bash bench/gstreamer/gpu_run.sh inspect bench > /dev/null 2>&1
    # shellcheck disable=SC2086
    OUT=$OUT/gst126 CLIPS=$PACK/clips GST_SERIES=1.26 GST126_PACK=$G126 VIF=$B/tools/vif/vif \
      GST_LABEL="1.26 " bash bench/gstreamer/gpu_run.sh ${GST126_STAGES:-build inspect exact bench} || gst126=1
    { echo "### 1.22 beside it (same machine, same call)"; grep -E '^\| 1\.22' "$OUT/gst122/summary.md"; } |
      tee -a "$OUT/gst126/summary.md"
    # Every log of the part in one file (a call brings back a few files only).
    tar -C "$OUT" -czf "$OUT/gst126-logs.tar.gz" gst126 gst122 && echo "logs: $OUT/gst126-logs.tar.gz"
  fi
fi
cat "$OUT/api_summary.md" "$OUT/cuda_frames_summary.md" "$OUT/gstreamer/summary.md" "$OUT/ffmpeg/summary.md" \
  "$OUT/ffmpeg71/summary.md" "$OUT/gst126/summary.md" > "$OUT/summary.md" 2>/dev/null

echo "== integrations: device-pointer tests rc=$api, CUDA frames test rc=$frames, gstreamer rc=$gst, ffmpeg rc=$ff, ffmpeg 7.1 rc=$ff71, gstreamer 1.26 rc=$gst126, $(( $(date +%s) - t0 )) s in all" | tee -a "$OUT/summary.md"
[[ $api == 0 && $frames == 0 && $gst == 0 && $ff == 0 && $ff71 == 0 && $gst126 == 0 ]]

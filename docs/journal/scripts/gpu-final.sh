#!/usr/bin/env bash
# The whole validation of a tree on the GPU machine in one call (what closes a session): the
# test, parity, golden, sanitizer and Nsight Compute stages of scripts/gpu-check.sh, the ladder
# kernel bench, and the CLI batch against separate runs on the clips of
# bench/batch/make_compact_clips.sh (carried), and the whole-process ladder against 6 separate
# runs on the clips of bench/ladder/make_ladder_clips.sh (carried, when LADDER_DIR is given).
# Results are packed into one archive after every step (a call brings back only a few files).
#   scripts/gpu-final.sh CLIPS_DIR [LADDER_DIR]
#   (carry .gpu-deps/prefix, .deps/ffmpeg-nvdec, CLIPS_DIR and LADDER_DIR)
set -u
CLIPS=$(realpath "${1:?usage: gpu-final.sh CLIPS_DIR [LADDER_DIR]}")
LADDER=${2:+$(realpath "$2")}
cd "$(dirname "$0")/.."
ROOT=$PWD FINAL=$OUT R=/tmp/final-res; mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
pack() { tar czf "$FINAL/results.tgz" -C "$R" . ; cp "$R/summary.md" "$FINAL/" 2>/dev/null; }
say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
# The CLI with the static FFmpeg (steps 3 and 4) builds in the background meanwhile, on the
# cores the first build leaves idle.
ff=$ROOT/.deps/ffmpeg-nvdec
( export PKG_CONFIG_PATH=$ff/lib/pkgconfig LIBRARY_PATH=$ff/lib LD_LIBRARY_PATH=$ff/lib
  cmake --preset gpu -B build-ff -DVIF_WITH_FFMPEG=ON -DVIF_BUILD_TESTS=OFF -DVIF_BUILD_BENCHMARKS=OFF \
    -DVIF_BUILD_PYTHON=OFF -DCMAKE_PREFIX_PATH=$ROOT/.gpu-deps/prefix > "$R/ff-configure.log" 2>&1 &&
  nice -n 5 cmake --build build-ff -j8 --target vif_cli > "$R/ff-build.log" 2>&1; echo $? > "$R/ff-build.rc" ) &
ffpid=$!
# 1. build, CTest with the GPU, parity gate, golden, four sanitizers, Nsight Compute (no FFmpeg:
#    the minimal static FFmpeg cannot decode tests/ffmpeg's files)
OUT=$R VIF_FFMPEG_PREFIX=.none SAN_TOOLS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=90 \
  NCU_BATCH="576x324:16/8 576x324:8/10" timeout 400 bash scripts/gpu-check.sh build test parity golden sanitize ncu \
  > "$R/gpucheck.out" 2>&1
say "gpu-check rc=$?"; pack
# 2. ladder kernel time
# (both statistics of the ladder kernels, CudaOptions::ladder_stat_packed; one pair in each run)
for s in 1920x1080 3840x2160; do for st in 1 0 1; do
  timeout 40 build-gpu/bench/ladder/vif_bench_ladder_kernels --size $s --stat $st --per-launch; done; done \
  > "$R/ladder_kernels.txt" 2>&1
say "ladder bench rc=$?"; pack
# 3. the CLI with FFmpeg: 100 short pairs, one batch (ladder kernels for each reference's 5 rungs)
#    against 100 separate runs, scores compared (BATCH_PARTS=none skips it: 100 runs take ~75 s)
wait $ffpid; say "ff build rc=$(cat "$R/ff-build.rc" 2>/dev/null)"
export LIBRARY_PATH=$ff/lib LD_LIBRARY_PATH=$ff/lib
if [ "${BATCH_PARTS:-A}" != none ]; then
  PARTS=${BATCH_PARTS:-A} timeout 110 bash bench/batch/gpu_batch.sh build-ff/tools/vif/vif "$CLIPS" /tmp/gb \
    > "$R/gpu_batch.txt" 2>&1
  say "batch rc=$?"; pack
fi
# 4. the whole-process ladder: one `vif -r SRC -d R1..R6 -o DIR` against 6 separate processes
if [ -n "$LADDER" ]; then
  timeout 120 bash bench/ladder/gpu_ladder_process.sh build-ff/tools/vif/vif "$LADDER" /tmp/glp \
    > "$R/ladder_process.txt" 2>&1
  say "ladder process rc=$?"; pack
fi
grep -h "(Failed)\|(Timeout)" "$R"/ctest.log 2>/dev/null | head -20
head -150 "$R/summary.md"; grep -E "^[0-9]+x|pair|ladder" "$R/ladder_kernels.txt" | head -60; cat "$R/gpu_batch.txt" 2>/dev/null; cat "$R/ladder_process.txt" 2>/dev/null

#!/usr/bin/env bash
# The whole validation of a tree on the GPU machine in one call (what closes a session): the
# test, parity, golden, sanitizer and Nsight Compute stages of scripts/gpu-check.sh, the ladder
# kernel bench, and the CLI batch against separate runs on the clips of
# bench/batch/make_compact_clips.sh (carried). Results are packed into one
# archive after every step (a call brings back only a few files).
#   scripts/gpu-final.sh CLIPS_DIR   (carry .gpu-deps/prefix, .deps/ffmpeg-nvdec and CLIPS_DIR)
set -u
CLIPS=$(realpath "${1:?usage: gpu-final.sh CLIPS_DIR}")
cd "$(dirname "$0")/.."
ROOT=$PWD FINAL=$OUT R=/tmp/final-res; mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
pack() { tar czf "$FINAL/results.tgz" -C "$R" . ; cp "$R/summary.md" "$FINAL/" 2>/dev/null; }
say() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
# 1. build, CTest with the GPU, parity gate, golden, four sanitizers, Nsight Compute (no FFmpeg:
#    the minimal static FFmpeg cannot decode tests/ffmpeg's files)
OUT=$R VIF_FFMPEG_PREFIX=.none SAN_TOOLS="memcheck racecheck synccheck initcheck" SAN_TIMEOUT=90 \
  NCU_BATCH="576x324:16/8 576x324:8/10" timeout 400 bash scripts/gpu-check.sh build test parity golden sanitize ncu \
  > "$R/gpucheck.out" 2>&1
say "gpu-check rc=$?"; pack
# 2. ladder kernel time
for s in 1920x1080 3840x2160; do timeout 30 build-gpu/bench/ladder/vif_bench_ladder_kernels --size $s; done \
  > "$R/ladder_kernels.txt" 2>&1
say "ladder bench rc=$?"; pack
# 3. the CLI with FFmpeg: 100 short pairs, one batch (ladder kernels for each reference's 5 rungs)
#    against 100 separate runs, scores compared
ff=$ROOT/.deps/ffmpeg-nvdec
export PKG_CONFIG_PATH=$ff/lib/pkgconfig LIBRARY_PATH=$ff/lib LD_LIBRARY_PATH=$ff/lib
( cmake --preset gpu -B build-ff -DVIF_WITH_FFMPEG=ON -DVIF_BUILD_TESTS=OFF -DVIF_BUILD_BENCHMARKS=OFF \
    -DVIF_BUILD_PYTHON=OFF -DCMAKE_PREFIX_PATH=$ROOT/.gpu-deps/prefix > "$R/ff-configure.log" 2>&1 &&
  cmake --build build-ff -j16 --target vif_cli > "$R/ff-build.log" 2>&1 ) && say "ff build ok"
PARTS=A timeout 110 bash bench/batch/gpu_batch.sh build-ff/tools/vif/vif "$CLIPS" /tmp/gb > "$R/gpu_batch.txt" 2>&1
say "batch rc=$?"; pack
grep -h "(Failed)\|(Timeout)" "$R"/ctest.log 2>/dev/null | head -20
head -150 "$R/summary.md"; tail -20 "$R/ladder_kernels.txt"; cat "$R/gpu_batch.txt"

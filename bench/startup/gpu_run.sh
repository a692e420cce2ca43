#!/usr/bin/env bash
# On the GPU machine, from the repository root: issue 26's start-up table, this tree beside
# today's (BASE_SRC, default .baseline: main at 795f527), both built with scripts/gpu-check.sh.
#   bash bench/startup/gpu_run.sh build           build both: the CLI, and the Python package
#                                                 where python3 has pybind11
#   bash bench/startup/gpu_run.sh [stages]        bench/startup/startup_bench.py on both builds
#                                                 (stages: probe long hevc raw curves python
#                                                 nvdec library)
#   bash bench/startup/gpu_run.sh ctest           the library `auto` tests on the GPU (ctest
#                                                 Auto*/Handover*: the real hand-over = the CPU
#                                                 run bit for bit) and the Python exit tests
# Two calls keep each under the 10-minute limit; build outputs stay on the warm machine.
# Issue 26: `LEAN=1 N=3 bash bench/startup/gpu_run.sh probe long hevc raw python` (about 5 min;
# long runs the nvdec stage too: decoding started in software with NVDEC joining = one software
# decoder, bit for bit; the probe stage prints where the probe pair's time goes and a thread
# sweep), then
# `LEAN=1 bash bench/startup/gpu_run.sh curves` (clip length 1..1,200, raw and encoded, 1080p
# and 2160p, default vs --backend cpu vs --backend cuda; stops itself after 170 s). The
# crossings alone, sharper (best and median of 5, the variants' order rotated each round;
# PASS/FAIL per point, $OUT/points.csv; startup_bench.py says more), after
# `BASE_SRC=/nonexistent bash bench/startup/gpu_run.sh build` (about 3 minutes):
#   CURVE_POINTS=raw2160:8:10,raw1080:72:90,enc1080:300:370:450,heavy1080:150:200:240 \
#     bash bench/startup/gpu_run.sh curves
# carry .deps/ffmpeg-nvdec .gpu-deps/prefix bench/startup/clips/{h264_src.mp4,h264_enc.mkv,
# heavy_src.mkv,heavy_enc.mkv} (make_clips.sh makes the heavy pair from the probe pair by stream
# copy; the raw clips are made there).
# The library's hand-over against waiting for the GPU, runs paired round by round, after `build`:
# `PY_NEW=$PWD/build-gpu/python /opt/torch/.venv/bin/python bench/startup/handover_pairs.py`.
# Carry: .baseline .deps/ffmpeg-nvdec .gpu-deps/prefix bench/startup/clips (make_clips.sh).
# Results: $OUT/summary.md (PASS/FAIL per target and the tables), $OUT/curves.csv, $OUT/logs.
# VIF / BASE_VIF / PY_NEW / PY_BASE override the builds' paths; other settings: startup_bench.py.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
export OUT=${OUT:-/tmp/startup-out}
mkdir -p "$OUT"
BASE_SRC=${BASE_SRC:-$ROOT/.baseline}
if [[ ${1:-} == build ]]; then
  # An unknown target would stop the whole build: the Python package only where pybind11 is.
  targets="vif_cli"
  python3 -m pybind11 --cmakedir > /dev/null 2>&1 && targets="vif_cli vif_python"
  # The library hand-over's tests, for the ctest mode (this tree only).
  new_targets="$targets vif_api_tests vif_handover_tests"
  rc=0
  OUT=$OUT/build-new BUILD_DIR=build-gpu TARGETS="$new_targets" bash scripts/gpu-check.sh build || rc=1
  if [[ -d $BASE_SRC ]]; then
    # A baseline carried without its testdata/ (to save carry) gets this tree's.
    [[ -d $BASE_SRC/testdata ]] || cp -r "$ROOT/testdata" "$BASE_SRC/"
    VIF_SRC=$BASE_SRC OUT=$OUT/build-base BUILD_DIR=build-base TARGETS="$targets" \
      bash scripts/gpu-check.sh build || rc=1
  else
    echo "no baseline tree at $BASE_SRC: today's rows will be empty"
  fi
  for b in build-gpu build-base; do
    if [[ -x $b/tools/vif/vif ]]; then echo "PASS: $b/tools/vif/vif built"; else echo "FAIL: no $b/tools/vif/vif"; fi
  done
  exit $rc
fi
# The static NVDEC FFmpeg keeps libdav1d (shared: Debian has no static one) beside it; both
# builds link it, so they start only with that folder on the library path.
ff_lib=$ROOT/${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec}/lib
[[ -d $ff_lib ]] && export LD_LIBRARY_PATH=$ff_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [[ ${1:-} == ctest ]]; then
  # The library's `auto` on the real GPU: the hand-over at a given frame and by time = the
  # --backend cpu context bit for bit (AutoCuda), the stand-in tests, exits with a live context
  # while CUDA starts (C: AutoStartDeathTest; Python: test_auto.py).
  rc=0
  # Only the two test binaries the build stage made (the CLI's tests are not built here).
  ctest --test-dir build-gpu -R '^(Auto|Handover|Cases/AutoStandin|Variants/Handover)' \
    --output-on-failure > "$OUT/ctest-auto.log" 2>&1 || rc=1
  tail -n 5 "$OUT/ctest-auto.log"
  if grep -q 'AutoCuda.*Passed' "$OUT/ctest-auto.log"; then echo "PASS: AutoCuda ran and passed on the GPU"
  else echo "FAIL: AutoCuda did not pass (skipped or failed): $OUT/ctest-auto.log"; rc=1; fi
  # The interpreter the module was built for (the bench's choice below), with pytest.
  PY=python3
  python3 -c 'import numpy' 2> /dev/null || PY=/opt/torch/.venv/bin/python
  if ! "$PY" -c 'import pytest' 2> /dev/null; then
    echo "SKIP: no pytest for $PY (the library stage's exit checks cover Python)"
  elif [[ -d build-gpu/python/libvif ]]; then
    PYTHONPATH=build-gpu/python "$PY" -m pytest -q tests/python/test_auto.py > "$OUT/pytest-auto.log" 2>&1 || rc=1
    tail -n 3 "$OUT/pytest-auto.log"
  else
    echo "FAIL: no build-gpu/python (run the build stage where python3 has pybind11)"; rc=1
  fi
  # Diagnostic: the CUDA runtime's exit handlers, at load or registered during its start-up.
  command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
  cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
  if g++ -O1 bench/startup/cuda_atexit_probe.cpp -I"$cuda_home/include" -L"$cuda_home/lib64" \
      -L"$cuda_home/lib" -Wl,--wrap=__cxa_atexit -Wl,--wrap=atexit -lcudart_static -ldl -lpthread \
      -lrt -o "$OUT/cuda_atexit_probe" > "$OUT/cuda-atexit.log" 2>&1; then
    "$OUT/cuda_atexit_probe" >> "$OUT/cuda-atexit.log" 2>&1
    rm -f "$OUT/cuda_atexit_probe"
  fi
  tail -n 2 "$OUT/cuda-atexit.log"
  [[ $rc == 0 ]] && echo "PASS: ctest mode" || echo "FAIL: ctest mode"
  exit $rc
fi
export VIF=${VIF:-$ROOT/build-gpu/tools/vif/vif}
if [[ -z ${BASE_VIF:-} && -x $ROOT/build-base/tools/vif/vif ]]; then BASE_VIF=$ROOT/build-base/tools/vif/vif; fi
export BASE_VIF=${BASE_VIF:-}
export PY_NEW=${PY_NEW:-$ROOT/build-gpu/python} PY_BASE=${PY_BASE:-$ROOT/build-base/python}
# python3 with numpy (the GPU machine's venv when the system one has none).
PY=python3
python3 -c 'import numpy' 2> /dev/null || PY=/opt/torch/.venv/bin/python
export PYTHON=${PYTHON:-$PY}
"$PYTHON" "$ROOT/bench/startup/startup_bench.py" "$@"

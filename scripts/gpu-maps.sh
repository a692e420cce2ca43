#!/usr/bin/env bash
# Issue 24's GPU checks of per-pixel maps, one call on the GPU machine, from the repository root:
#   bash scripts/gpu-maps.sh            (carry .gpu-deps; results and summary.md under $OUT)
# 1. build   scripts/gpu-check.sh's build stage (preset gpu, GoogleTest etc. from .gpu-deps/prefix)
#            of the targets below, the Python module included when python3 has pybind11
# 2. parity  CudaMaps.* of vif_parity_tests: every testdata case (the shared ones too when
#            present), integer and float, CUDA maps = CPU maps bit for bit; vif_cuda_submit's
#            frames get device maps; every integer kernel variant of the table writes cpu_ref's
#            terms. Plus VifMapsApi.* and IsaLevels.* (CPU maps) on this machine's CPU
# 3. python  tests/python/test_maps.py: CUDA maps of host arrays = CPU maps, PyTorch / CuPy GPU
#            tensors give tensors on their device (a GPU test that skips is a FAIL here)
# 4. ncu     Nsight Compute (--clock-control none) kernel-time sum of one 1920x1080 8-bit frame,
#            maps off vs on, integer and float (goal: on <= 1.25x off); and the frame time with
#            CUDA events (vif-sweep's pipelined time per frame, which includes the float maps'
#            copies) beside it
# Prints PASS/FAIL per check and the numbers; exit status 0 only when every check passes.
# Environment: BUILD_DIR (default build-gpu-maps), OUT (default $BUILD_DIR/maps-results),
# SKIP_BUILD=1 (reuse BUILD_DIR), NCU_RATIO (goal, default 1.25).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=$(realpath -m "${BUILD_DIR:-$ROOT/build-gpu-maps}")
RES=${OUT:-$B/maps-results}
GOAL=${NCU_RATIO:-1.25}
mkdir -p "$RES"
SUMMARY=$RES/summary.md
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$SUMMARY"; }
fail=0
check() { # check NAME RC DETAIL
  if [ "$2" -eq 0 ]; then note "PASS $1: $3"; else note "FAIL $1 (rc=$2): $3"; fail=1; fi
}

note "## gpu-maps ($(git -C "$ROOT" log --oneline -1 2>/dev/null | cut -c1-60))"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  >> "$SUMMARY" 2>&1

# 1. build
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  stamp "build"
  BUILD_DIR=$B OUT=$RES/build TARGETS="vif_parity_tests vif_maps_tests vif_isa_tests vif_sweep vif_python vif_cli" \
    bash "$ROOT/scripts/gpu-check.sh" build > "$RES/build_stage.log" 2>&1
  rc=$?
  grep -q "build rc=0" "$RES/build/summary.md" 2>/dev/null || rc=1
  check build "$rc" "$(grep -o 'build rc=.*' "$RES/build/summary.md" 2>/dev/null | head -1)"
  [ "$rc" -ne 0 ] && { grep -E "error|FAILED" -A5 "$RES/build/build.log" | head -40; }
fi
PT=$B/tests/parity/vif_parity_tests
SW=$B/tools/sweep/vif-sweep

# 2. parity (GPU) and the CPU maps tests
if [ -x "$PT" ]; then
  stamp "parity: CudaMaps.*"
  timeout 600 "$PT" --gtest_filter='CudaMaps.*' > "$RES/parity_maps.log" 2>&1
  rc=$?
  grep -q "SKIPPED" "$RES/parity_maps.log" && { rc=1; note "(a CudaMaps test skipped: no GPU?)"; }
  check "parity CudaMaps (CUDA maps = CPU maps, every case, both variants; device maps; every kernel variant)" \
    "$rc" "$(grep -E '^\[  (PASSED|FAILED) ' "$RES/parity_maps.log" | tr '\n' ' ') $(grep -o '\[maps parity\].*' "$RES/parity_maps.log")"
  grep -E "^\[  FAILED|Failure|differ" "$RES/parity_maps.log" | head -20 >> "$SUMMARY"
else
  check "parity CudaMaps" 1 "no $PT"
fi
for t in "tests/unit/vif_maps_tests" "tests/unit/vif_isa_tests"; do
  if [ -x "$B/$t" ]; then
    timeout 300 "$B/$t" > "$RES/$(basename "$t").log" 2>&1
    check "$(basename "$t") (CPU maps)" $? "$(grep -E '^\[  (PASSED|FAILED) ' "$RES/$(basename "$t").log" | tr '\n' ' ')"
  else
    check "$(basename "$t")" 1 "not built"
  fi
done

# 3. Python: the maps tests (GPU ones must run, not skip)
if ls "$B"/python/libvif/_core*.so > /dev/null 2>&1; then
  stamp "python: tests/python/test_maps.py"
  VIF_CLI=$B/tools/vif/vif PYTHONPATH=$B/python timeout 300 python3 tests/python/run_pytest.py \
    tests/python/test_maps.py -q -rs -p no:cacheprovider > "$RES/pytest_maps.log" 2>&1
  rc=$?
  grep -E '^SKIPPED' "$RES/pytest_maps.log" >> "$SUMMARY"
  # A GPU case that skips (no GPU, no PyTorch or CuPy) checked nothing: a failure here.
  if grep -E '^SKIPPED' "$RES/pytest_maps.log" | grep -qE 'GPU|PyTorch|CuPy|CUDA'; then rc=1; fi
  check "python maps (CUDA host-array maps = CPU, torch/cupy tensors on their device)" "$rc" \
    "$(tail -1 "$RES/pytest_maps.log")"
else
  check "python maps" 1 "no Python module in $B/python (pybind11 missing?)"
fi

# 4. Kernel time of a 1080p frame, maps off vs on
ncu_sum() { # ncu_sum LOG -> us per frame (sum of the kernels' medians)
  python3 "$ROOT/scripts/ncu_per_frame.py" "$1" | sed -n 's/^sum of kernel medians per frame, 1 frame(s) per launch: \([0-9.]*\) us$/\1/p'
}
# shellcheck disable=SC2012 # fixed install paths
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -x "$SW" ] && [ -n "$NCU" ]; then
  for variant in integer float; do
    regex='int_scale'
    [ "$variant" = float ] && regex='float_'
    for mode in off on; do
      flag=()
      [ "$mode" = on ] && flag=(--maps)
      stamp "ncu 1920x1080 $variant maps $mode"
      timeout 200 "$NCU" --clock-control none --kernel-name-base function \
        --kernel-name regex:"$regex" --metrics gpu__time_duration.sum \
        --launch-skip 12 --launch-count 18 "$SW" --no-gate --variant "$variant" \
        --sizes 1920x1080 --bitdepths 8 --runs 6 --warmup 3 "${flag[@]}" \
        --out "$RES/sweep_ncu_${variant}_$mode" > "$RES/ncu_${variant}_$mode.txt" 2>&1
      python3 "$ROOT/scripts/ncu_per_frame.py" "$RES/ncu_${variant}_$mode.txt" \
        > "$RES/ncu_${variant}_$mode.md" 2>&1
      # Whole frames with CUDA events (no profiler): vif-sweep's pipelined time per frame.
      timeout 120 "$SW" --variant "$variant" --sizes 1920x1080 --bitdepths 8 --runs 300 \
        "${flag[@]}" --out "$RES/sweep_${variant}_$mode" > /dev/null 2>&1
    done
    off=$(ncu_sum "$RES/ncu_${variant}_off.txt") on=$(ncu_sum "$RES/ncu_${variant}_on.txt")
    pipe() { python3 -c "import json,sys; print('%.1f' % json.load(open(sys.argv[1]))['results'][0]['pipelined_us'])" "$1" 2>/dev/null || echo "?"; }
    poff=$(pipe "$RES/sweep_${variant}_off/sweep.json") pon=$(pipe "$RES/sweep_${variant}_on/sweep.json")
    if [ -n "$off" ] && [ -n "$on" ]; then
      ratio=$(python3 -c "print('%.3f' % ($on / $off))")
      ok=$(python3 -c "print(0 if $on <= $GOAL * $off else 1)")
      check "ncu 1920x1080 8-bit $variant kernels, maps on <= ${GOAL}x off" "$ok" \
        "off $off us, on $on us per frame: ${ratio}x (frame with events, pipelined: off $poff us, on $pon us)"
    else
      check "ncu 1920x1080 8-bit $variant" 1 "no kernel times (see ncu_${variant}_*.txt)"
    fi
    cat "$RES/ncu_${variant}_off.md" "$RES/ncu_${variant}_on.md" >> "$RES/ncu_tables.md" 2>/dev/null
  done
else
  check "ncu" 1 "no vif-sweep ($SW) or no ncu"
fi

stamp "done (fail=$fail)"
echo "==== SUMMARY ===="
cat "$SUMMARY"
[ "$fail" -eq 0 ] && echo "gpu-maps: PASS" || echo "gpu-maps: FAIL"
exit "$fail"

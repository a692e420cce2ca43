#!/usr/bin/env bash
# One device call for the CUDA ladder kernels (cuda/kernels/int_multi_kernels.cuh): build the parity
# and API tests and both ladder benches (preset gpu), run the ladder parity tests (every depth,
# odd sizes, K = 1, 2, 6, 64, the 64x16 tile, forced rung groups), the vif_submit_multi API
# tests, a sample of the pair parity tests and compute-sanitizer memcheck and racecheck on three
# small ladders, then the GPU time of a 6-rung ladder against one pair and 6 separate pairs
# (vif_bench_ladder_kernels, per launch too) and the wall time through the public API
# (vif_bench_ladder), at 1080p and 2160p. Run from the repository root (the tree carried to the
# GPU machine with .gpu-deps/prefix: docs/cuda.md); results in $OUT.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$O/gpu.txt" 2>&1
t0=$(date +%s)
B=build-gpu
cmake --preset gpu -B $B -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TOOLS=OFF -DVIF_BUILD_PYTHON=OFF \
  -DVIF_BUILD_BENCHMARKS=ON -DVIF_BUILD_TUNING=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu-deps/prefix" > "$O/configure.log" 2>&1 \
  || { tail -20 "$O/configure.log"; exit 1; }
cmake --build $B -j"$(nproc)" --target vif_parity_tests vif_api_tests vif_bench_ladder \
  vif_bench_ladder_kernels > "$O/build.log" 2>&1 || { grep -E "error|FAILED" -A4 "$O/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
grep -c "spill" "$O/build.log" | sed 's/^/ptxas spill warnings: /'
timeout 240 $B/tests/parity/vif_parity_tests --gtest_brief=1 \
  --gtest_filter="Ladder/*:Small/SyntheticInteger.*/1*:Pipeline.*${EXTRA_FILTER:-}" > "$O/parity_ladder.log" 2>&1
echo "parity (ladder + sample) rc=$?"; grep -E "PASSED|FAILED" "$O/parity_ladder.log" | head -20
timeout 60 $B/tests/api/vif_api_tests --gtest_brief=1 --gtest_filter='*Multi*' > "$O/api_multi.log" 2>&1
echo "api multi rc=$?"; grep -E "PASSED|FAILED" "$O/api_multi.log" | head -10
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for tool in memcheck racecheck; do
  timeout 90 "$CS" --tool $tool --error-exitcode 9 $B/tests/parity/vif_parity_tests --gtest_brief=1 \
    --gtest_filter='Ladder/*176x144_8bit_K6*:Ladder/*17x19_16bit_K2*:Ladder/*1000x40_10bit_K2*' > "$O/sanitize_$tool.log" 2>&1
  echo "compute-sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/sanitize_$tool.log" | tail -1)"
done
echo "after tests $(( $(date +%s) - t0 )) s"
for sz in 1920x1080 3840x2160; do
  $B/bench/ladder/vif_bench_ladder_kernels --size $sz --rungs 6 --frames 20 --reps 7 --per-launch
done 2>&1 | tee "$O/ladder_kernels.txt"
$B/bench/ladder/vif_bench_ladder_kernels --size 1920x1080 --rungs 6 --bitdepth 10 --frames 20 --reps 5 2>&1 | tee -a "$O/ladder_kernels.txt"
for sz in 1920x1080 3840x2160; do
  $B/bench/ladder/vif_bench_ladder --backend cuda --wall --frames 48 --rungs 6 --size $sz
done 2>&1 | tee "$O/ladder_wall.txt"
echo "total $(( $(date +%s) - t0 )) s"

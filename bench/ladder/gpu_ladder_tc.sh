#!/usr/bin/env bash
# One device call for the ladder's 8-bit scale 0 (CudaOptions::ladder_shape0: 0 = vertical passes
# on the integer tensor cores, two barriers a rung, the default; 3 = tensor cores, four barriers a
# rung; 2 = the CUDA-core 48x16 rung loop of every other depth; 4 = CUDA cores, two barriers a
# rung). Build (preset gpu); the ladder parity tests (8 shards at once), the vif_submit_multi API
# tests and compute-sanitizer memcheck/racecheck on small ladders; then, the GPU otherwise idle,
# the GPU time of a 6-rung ladder against one pair and 6 separate pairs per kernel
# (vif_bench_ladder_kernels --shape0 N --per-launch; 1080p, 2160p); then Nsight Compute:
# instructions of the ladder's scale-0 kernel at 1 and 6 rungs (a rung = the difference / 5) and
# of the pair's scale 0, and one profile (stall reasons, pipes) of the default. Run from the
# repository root of the tree carried to the GPU machine with .gpu-deps/prefix (docs/cuda.md);
# results in $OUT (summary.txt). Results: docs/perf/h100-ladder-tensor.md.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
L=/tmp/ladder-tc-logs; rm -rf "$L"; mkdir -p "$L"
trap 'tar -C /tmp -czf "$O/logs.tgz" ladder-tc-logs 2>/dev/null' EXIT
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
S=$O/summary.txt
say() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$S"
B=build-gpu
timeout 60 cmake --preset gpu -B $B -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TOOLS=OFF -DVIF_BUILD_PYTHON=OFF -DVIF_BUILD_TUNING=ON \
  -DVIF_BUILD_BENCHMARKS=ON -DCMAKE_PREFIX_PATH="$PWD/.gpu-deps/prefix" > "$L/configure.log" 2>&1 \
  || { tail -20 "$L/configure.log"; exit 1; }
timeout 240 cmake --build $B -j"$(nproc)" --target vif_parity_tests vif_api_tests \
  vif_bench_ladder_kernels > "$L/build.log" 2>&1 || { grep -E "error|FAILED" -A4 "$L/build.log" | head -40; exit 1; }
say "built; ptxas spill warnings: $(grep -c spill "$L/build.log")"
grep spill "$L/build.log" | grep -o "int_multi_kernelILi0ELi8E[^']*'.*" | sed 's/^/  /' | tee -a "$S"

# Correctness: ladder parity in 8 shards, the API tests and the sanitizers, all at once.
P=$B/tests/parity/vif_parity_tests
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 200 $P --gtest_brief=1 \
    --gtest_filter="Ladder/*:Small/SyntheticInteger.*/1*:Pipeline.*" > "$L/parity_$i.log" 2>&1 &
done
timeout 90 $B/tests/api/vif_api_tests --gtest_brief=1 --gtest_filter='*Multi*' > "$L/api_multi.log" 2>&1 &
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for tool in memcheck racecheck; do
  timeout 150 "$CS" --tool $tool --error-exitcode 9 $P --gtest_brief=1 \
    --gtest_filter='Ladder/*176x144_8bit_K6:Ladder/*67x45_8bit_K64:Ladder/*17x19_8bit_K2_shape4:Ladder/*481x271_8bit_K6_shape3_rpb4:Ladder/*17x19_16bit_K2:Ladder/*1000x40_10bit_K2' \
    > "$L/sanitize_$tool.log" 2>&1 &
done
wait
for i in 0 1 2 3 4 5 6 7; do grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" "$L/parity_$i.log"; done | sed 's/^/parity shard: /' | tee -a "$S"
grep -hE "^\[  (PASSED|FAILED) " "$L/api_multi.log" | sed 's/^/api multi: /' | tee -a "$S"
for tool in memcheck racecheck; do
  say "compute-sanitizer $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/sanitize_$tool.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' "$L/sanitize_$tool.log" | tr '\n' ' ')"
done

# Timings (nothing else on the GPU).
K=$B/bench/ladder/vif_bench_ladder_kernels
T=$O/ladder_kernels.txt
for s in 0 3 4 2 0 3; do
  timeout 60 $K --size 1920x1080 --rungs 6 --frames 20 --reps 7 --per-launch --shape0 $s
done >> "$T" 2>&1
for s in 0 3 2; do
  timeout 90 $K --size 3840x2160 --rungs 6 --frames 20 --reps 5 --per-launch --shape0 $s
done >> "$T" 2>&1
say "timings done"
grep -E "shape0|one pair|ladder \(multi\)|scale 0 |equal" "$T" | tee -a "$S"

# Nsight Compute: instructions at 1 and 6 rungs (and the pair's scale 0), one full profile.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for r in 1 6; do
  timeout 60 "$NCU" --clock-control none --kernel-name-base function --kernel-name regex:'^int_(multi|scale)_kernel' \
    --launch-count 3 --metrics gpu__time_duration.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum \
    $K --size 1920x1080 --rungs $r --check-only > "$O/ncu_inst_k$r.txt" 2>&1
  say "ncu rungs $r rc=$?"; grep -E "^  void|gpu__time|thread_inst" "$O/ncu_inst_k$r.txt" | cut -c1-110 | tee -a "$S"
done
timeout 60 "$NCU" --clock-control none --kernel-name-base function --kernel-name regex:'^int_multi_kernel' \
  --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
  --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Tables \
  --metrics gpu__time_duration.sum,smsp__thread_inst_executed.sum,smsp__inst_executed.sum,regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',regex:'sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' \
  $K --size 1920x1080 --rungs 6 --check-only > "$O/ncu_default.txt" 2>&1
say "ncu default rc=$? $(grep -E 'gpu__time_duration.sum|smsp__thread_inst_executed.sum|stalled_barrier' "$O/ncu_default.txt" | tr -s ' ' | tr '\n' ' ')"
say "total"

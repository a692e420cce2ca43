#!/usr/bin/env bash
# One call on the GPU machine: build, parity gate, compute-sanitizer, sweeps and benchmarks.
#   bash cuda/scripts/device_run.sh [stages]      stages (default all): build parity golden
#                                                 sanitize sweep logab candidates bench ncu sass e2e
# Writes logs and tables to $OUT (results.tar.gz + summary.md); prints a short summary last.
# Needs build-deps/prefix (GoogleTest and Google Benchmark, carried from the dev machine) when
# the GPU machine has neither, and build-cli-deps/prefix (CLI11, fmt, nlohmann) for the CLI.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/build-device-out}
RES=/tmp/vif-results
B=${VIF_DEVICE_BUILD:-/tmp/vif-build}
STAGES=${*:-build parity golden sanitize sweep candidates bench sass e2e}
mkdir -p "$OUT" "$RES"
SUMMARY=$OUT/summary.md
: > "$SUMMARY"
has() { [[ " $STAGES " == *" $1 "* ]]; }
note() { echo "$*" | tee -a "$SUMMARY"; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$SUMMARY"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$RES/gpu.txt" 2>&1
note "## GPU"; cat "$RES/gpu.txt" >> "$SUMMARY"

if has build; then
  stamp "configure"
  cmake -S "$ROOT/cuda/scripts/superbuild" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CXX_FLAGS="-include system_error" -DCMAKE_PREFIX_PATH="$ROOT/build-deps/prefix;$ROOT/build-cli-deps/prefix" > "$RES/configure.log" 2>&1 || { tail -30 "$RES/configure.log"; }
  stamp "build"
  ninja -C "$B" -j16 vif_parity_tests vif_sweep vif_bench_cuda vif_golden_tests vif_cli vif_cli_tests > "$RES/build.log" 2>&1
  rc=$?
  note "build rc=$rc"
  [ $rc -ne 0 ] && grep -E "error|FAILED" -A5 "$RES/build.log" | head -60
fi
PT=$(find "$B" -name vif_parity_tests -type f | head -1)
GT=$(find "$B" -name vif_golden_tests -type f | head -1)
SW=$(find "$B" -name vif-sweep -type f | head -1)
BE=$(find "$B" -name vif_bench_cuda -type f | head -1)
CLI=$(find "$B" -name vif -type f -perm -u+x | head -1)

if has parity && [ -n "$PT" ]; then
  stamp "parity"
  ( cd "$ROOT" && timeout 300 "$PT" --gtest_brief=1 ) > "$RES/parity.log" 2>&1
  note "## parity rc=$? ($(grep -c '^\[  FAILED' "$RES/parity.log") failed lines)"
  grep -E "^\[parity\]|PASSED|FAILED|tests ran" "$RES/parity.log" | tail -25 >> "$SUMMARY"
fi
if has parity && [ -n "$PT" ]; then
  stamp "parity without graphs (direct launches)"
  ( cd "$ROOT" && VIF_CUDA_GRAPHS=0 timeout 120 "$PT" --gtest_brief=1 \
      --gtest_filter='Small/*:All/DevicePointer.*:Pipeline.*:KernelScales/*' ) > "$RES/parity_nograph.log" 2>&1
  note "## parity (VIF_CUDA_GRAPHS=0) rc=$?"; grep -E "PASSED|FAILED|tests ran" "$RES/parity_nograph.log" | tail -6 >> "$SUMMARY"
fi
if has parity && [ -n "$PT" ]; then
  for tiles in ${PARITY_TILES:-"3,2,0,0,2,1" "5,3,0,0,0,1" "1,4,0,0,1,1" "4,5,2,2,0,0" "2,1,1,1,0,0" "0,0,3,3,0,0"}; do
    stamp "parity with VIF_CUDA_TILES=$tiles"
    ( cd "$ROOT" && VIF_CUDA_TILES=$tiles timeout 100 "$PT" --gtest_brief=1 \
        --gtest_filter='Small/SyntheticInteger.*:Large/SyntheticInteger.*:Pipeline.*' ) > "$RES/parity_tiles_$tiles.log" 2>&1
    note "## parity VIF_CUDA_TILES=$tiles rc=$? $(grep -E 'PASSED|FAILED  \]' "$RES/parity_tiles_$tiles.log" | tail -3 | tr '\n' ' ')"
  done
fi
if has cli; then
  CT=$(find "$B" -name vif_cli_tests -type f | head -1)
  stamp "CLI tests (GPU ones included)"
  ( cd "$ROOT" && timeout 300 "$CT" --gtest_brief=1 ) > "$RES/cli_tests.log" 2>&1
  note "## CLI tests rc=$?"; grep -E "^\[hand-over\]|PASSED|FAILED|tests ran" "$RES/cli_tests.log" | tail -12 >> "$SUMMARY"
fi
if has golden && [ -n "$GT" ]; then
  stamp "golden (backend auto = cuda)"
  ( cd "$ROOT" && timeout 120 "$GT" --gtest_brief=1 ) > "$RES/golden.log" 2>&1
  note "## golden rc=$?"; grep -E "PASSED|FAILED|tests ran" "$RES/golden.log" | tail -8 >> "$SUMMARY"
fi
if has sanitize && [ -n "$PT" ]; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  F='Small/SyntheticInteger.*/?:Small/SyntheticInteger.*/1?:Small/SyntheticFloat.*/?:All/DevicePointer.*:Pipeline.*:DevicePointerErrors.*'
  for tool in ${SAN_TOOLS:-memcheck racecheck synccheck initcheck}; do
    filt=${SAN_FILTER:-$F}
    [ $tool = racecheck ] && [ -z "${SAN_FILTER:-}" ] && filt='Small/SyntheticInteger.*/1:Small/SyntheticInteger.*/5:Small/SyntheticInteger.*/9:Small/SyntheticFloat.*/2:Pipeline.*'
    [ $tool = initcheck ] && [ -z "${SAN_FILTER:-}" ] && filt='Small/SyntheticInteger.*/3:Small/SyntheticFloat.*/1:Pipeline.*'
    [ $tool = synccheck ] && [ -z "${SAN_FILTER:-}" ] && filt='Small/SyntheticInteger.*/3:Small/SyntheticFloat.*/1'
    per_tool=SAN_FILTER_$tool
    [ -n "${!per_tool:-}" ] && filt=${!per_tool}
    stamp "compute-sanitizer $tool"
    ( cd "$ROOT" && timeout ${SAN_TIMEOUT:-150} "$CS" --tool $tool --error-exitcode 9 "$PT" --gtest_brief=1 --gtest_filter="$filt" ) \
      > "$RES/sanitize_$tool.log" 2>&1
    note "## compute-sanitizer $tool rc=$? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$RES/sanitize_$tool.log" | tail -1) $(grep -E 'tests ran|PASSED' "$RES/sanitize_$tool.log" | tail -2 | tr '\n' ' ')"
  done
fi
if has sweep && [ -n "$SW" ]; then
  stamp "sweep"
  mkdir -p "$RES/sweep"
  timeout 300 "$SW" --out "$RES/sweep" --runs 300 ${SWEEP_TILES:-} ${SWEEP_ARGS:-} > "$RES/sweep/stdout.md" 2> "$RES/sweep/stderr.log"
  note "## sweep rc=$?"
  sed -n '/## Per frame/,/## Per kernel/p' "$RES/sweep/sweep.md" >> "$SUMMARY"
  mkdir -p "$RES/sweep_float"
  timeout 150 "$SW" --variant float --sizes 1920x1080,3840x2160 --bitdepths 8 --runs 30 --warmup 3 \
    --out "$RES/sweep_float" > /dev/null 2>&1
  note "## float sweep rc=$?"; grep -A5 "## Per frame" "$RES/sweep_float/sweep.md" >> "$SUMMARY"
fi
if has logab && [ -n "$SW" ]; then
  # The log lookup of the integer kernels: computed with the hardware log2 (default) against
  # always read from the table (VIF_CUDA_LOG=table), same binary, back to back.
  for mode in computed table; do
    stamp "sweep, log lookup $mode"
    mkdir -p "$RES/sweep_log_$mode"
    if [ $mode = table ]; then export VIF_CUDA_LOG=table; fi
    timeout 200 "$SW" --sizes ${LOGAB_SIZES:-576x324,1920x1080,3840x2160} --bitdepths 8,10 --runs 300 \
      --out "$RES/sweep_log_$mode" > /dev/null 2> "$RES/sweep_log_$mode/stderr.log"
    note "## sweep, log lookup $mode rc=$?"
    unset VIF_CUDA_LOG
    sed -n '/## Per frame/,/## Per kernel/p' "$RES/sweep_log_$mode/sweep.md" | grep '^|' >> "$SUMMARY"
  done
fi
if has candidates && [ -n "$SW" ]; then
  stamp "candidates"
  mkdir -p "$RES/cand"
  timeout 300 "$SW" --candidates --sizes 576x324,1920x1080,3840x2160 --bitdepths ${CAND_BPC:-8} --runs 60 --warmup 10 --out "$RES/cand" > /dev/null 2> "$RES/cand/stderr.log"
  note "## candidates rc=$?"
  sed -n '/## Fastest/,$p' "$RES/cand/sweep.md" >> "$SUMMARY"
fi
if has bench && [ -n "$BE" ]; then
  stamp "bench"
  timeout 300 "$BE" --benchmark_min_time=0.2 --benchmark_filter="${BENCH_FILTER:-(Kernels/integer|Pipeline)/(576x324|1920x1080|3840x2160)/8bit}" \
    --benchmark_out="$RES/bench.json" --benchmark_out_format=json > "$RES/bench.txt" 2>&1
  note "## bench rc=$?"; grep -E "Kernels|Pipeline" "$RES/bench.txt" | head -60 >> "$SUMMARY"
fi
if has ncu && [ -n "$SW" ]; then
  stamp "ncu"
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  export VIF_SWEEP_NO_GATE=1
  for sz in 576x324 1920x1080 3840x2160; do
    timeout 120 "$NCU" --clock-control none --kernel-name-base function --kernel-name regex:'int_scale|float_' \
      --metrics gpu__time_duration.sum --launch-skip 8 --launch-count 8 \
      "$SW" --sizes $sz --bitdepths 8 --runs 5 --warmup 2 --out /tmp > "$RES/ncu_$sz.txt" 2>&1
    note "## ncu $sz rc=$? (gpu__time_duration, us)"
    python3 - "$RES/ncu_$sz.txt" >> "$SUMMARY" <<'PY'
import re, sys
name = None
for line in open(sys.argv[1]):
    line = line.replace('(int)', '').replace('(bool)', '')
    m = re.match(r'\s+(?:void )?vif::cuda::(\w+)<(\d+), (\d+), [^>]*IntTile<([^>]*)>', line) or re.match(r'\s+(\S*int_scale_kernel\S*|\S*float_\w+)', line)
    if m: name = ' '.join(m.groups())
    m = re.search(r'gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)', line)
    if m and name: print(f"  {name}: {m.group(2)} {m.group(1)}")
PY
  done
  [ -n "${NCU_DETAIL:-}" ] && timeout 150 "$NCU" --clock-control none --kernel-name-base function --kernel-name regex:'int_scale' \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis \
    --launch-skip 8 --launch-count 4 "$SW" --sizes 1920x1080 --bitdepths 8 --runs 5 --warmup 2 --out /tmp \
    > "$RES/ncu_detail_1080p.txt" 2>&1
  note "## ncu detail rc=$?"
  grep -E "int_scale|Duration|Issue Slots Busy|Executed Ipc Active|Achieved Occupancy|Theoretical Occupancy|Stall|No Eligible|Compute \(SM\) Throughput|Memory Throughput|Bank|Registers Per|Warp Cycles Per Issued" "$RES/ncu_detail_1080p.txt" | head -80 >> "$SUMMARY"
  unset VIF_SWEEP_NO_GATE
fi
if has sass; then
  OBJ=$(find "$B" -name 'engine.cu.o' | head -1)
  if [ -n "$OBJ" ]; then
    cuobjdump -sass "$OBJ" > "$RES/engine.sass" 2>&1
    python3 - "$RES/engine.sass" >> "$SUMMARY" <<'PY'
import re, sys, collections
text = open(sys.argv[1]).read()
for fn in re.split(r'\n\s*Function : ', text)[1:]:
    name = fn.split('\n', 1)[0]
    if 'int_scale_kernelILi0ELi8ENS0_7IntTileILi64ELi16ELi256' not in name and 'int_scale_kernelILi1E' not in name:
        continue
    ops = collections.Counter(m.group(1) for m in re.finditer(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)', fn))
    top = sorted(ops.items(), key=lambda kv: -kv[1])[:22]
    print(f"## SASS {name[:90]}: {sum(ops.values())} instr; " + ", ".join(f"{k} {v}" for k, v in top))
PY
  fi
fi
if has e2e && [ -n "$CLI" ]; then
  stamp "e2e (the vif CLI, whole process)"
  mkdir -p "$RES/e2e"
  OUT="$RES/e2e" VIF_CLI="$CLI" timeout ${E2E_TIMEOUT:-300} bash "$ROOT/tests/cli/device_e2e.sh" > /dev/null 2>&1
  note "## e2e rc=$?"; cat "$RES/e2e/e2e.txt" >> "$SUMMARY"
fi
stamp "done"
cp "$SUMMARY" "$RES/summary.md"
tar -C /tmp -czf "$OUT/results.tar.gz" vif-results
echo "==== SUMMARY ===="; cat "$SUMMARY"

#!/usr/bin/env bash
# The per-pixel statistic's options (issue 9 section 2; docs/cuda.md "The per-pixel statistic")
# on the GPU machine, in one call, from prebuilt binaries in $BIN (vif_stat_check,
# vif_parity_tests, vif-sweep, built on the development machine): checks first (the statistic's
# device options against the plain code, the SASS of the division, the parity gate's variants,
# compute-sanitizer on the table kernels), then Nsight Compute and CUDA-event timings of the
# variants side by side. Logs under $OUT; the summary last.
set -uo pipefail
BIN=${BIN:-bin}
DEST=${OUT:-/tmp/cudastat-out} # what comes back: summary.txt and logs.tgz
OUT=/tmp/cudastat
mkdir -p "$OUT" "$DEST"
S=$OUT/summary.txt
: > "$S"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$S"

stamp "stat check"
timeout 40 "$BIN/vif_stat_check" > "$OUT/stat_check.log" 2>&1; echo "stat_check rc=$?" | tee -a "$S"
grep -E "^\[stat\]|FAILED|PASSED" "$OUT/stat_check.log" | tee -a "$S"

# The division as the compiler emits it (`/`, --prec-div=true) and as div_rn_no_branch writes it:
# div_check holds both.
timeout 30 cuobjdump -sass "$BIN/vif_stat_check" > "$OUT/div_sass.txt" 2>&1
grep -cE "MUFU.RCP64H|CALL" "$OUT/div_sass.txt" | sed 's/^/MUFU.RCP64H+CALL lines: /' | tee -a "$S"

stamp "ncu"
T8=(--tiles auto,auto,auto,auto,auto --tiles 0tc,auto,auto,auto,auto --tiles 0td,auto,auto,auto,auto
    --tiles 0tq,1q,auto,auto,23bq --tiles 0tl,1l,auto,auto,23bl --tiles 0tp,1p,auto,auto,23bp)
T10=(--tiles auto,auto,auto,auto,auto --tiles 0q,1q,auto,auto,23bq --tiles 0l,1l,auto,auto,23bl
     --tiles 0p,1p,auto,auto,23bp)
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
for b in 8 10; do
  if [ $b = 8 ]; then T=("${T8[@]}"); else T=("${T10[@]}"); fi
  timeout 150 ncu --clock-control none --kernel-name-base mangled --kernel-name regex:int_scale \
    --metrics $M "$BIN/vif-sweep" --no-gate --sizes 1920x1080,3840x2160 --bitdepths $b \
    --runs 3 --warmup 1 --out "$OUT/ncu_sweep_$b" "${T[@]}" > "$OUT/ncu_$b.log" 2>&1
  echo "ncu $b-bit rc=$?" | tee -a "$S"
done
timeout 20 python3 "$(dirname "$0")/ncu_stat_table.py" "$OUT/ncu_8.log" "$OUT/ncu_10.log" > "$OUT/ncu_table.md" 2>&1
cat "$OUT/ncu_table.md" >> "$S"

stamp "vif-sweep events"
for b in 8 10; do
  if [ $b = 8 ]; then T=("${T8[@]}"); else T=("${T10[@]}"); fi
  timeout 80 "$BIN/vif-sweep" --sizes 1920x1080,3840x2160 --bitdepths $b --runs 200 --warmup 20 \
    --out "$OUT/sweep_$b" "${T[@]}" > "$OUT/sweep_$b.log" 2>&1
  echo "sweep $b-bit rc=$?" | tee -a "$S"
  awk '/^## Per frame/{p=1;next} /^## /{p=0} p' "$OUT/sweep_$b/sweep.md" | head -40 >> "$S"
done
stamp "parity (new variants and the ones they replace) || compute-sanitizer, concurrently"
K=Table/KernelVariant.EqualsCpuReference
PF="$K/slot0_v0t_8bit:$K/slot0_v0_10bit:$K/slot1_v1_*:$K/slot4_v23b_*"
for v in 0tc 0td 0tq 0tl 0tp; do PF="$PF:$K/slot0_v${v}_8bit"; done
for v in q l p; do PF="$PF:$K/slot0_v0${v}_10bit:$K/slot1_v1${v}_*:$K/slot4_v23b${v}_*"; done
timeout 110 "$BIN/vif_parity_tests" --gtest_filter="$PF" > "$OUT/parity.log" 2>&1 &
P1=$!
timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN/vif_parity_tests" \
  --gtest_filter="$K/slot0_v0tl_8bit:$K/slot0_v0tp_8bit:$K/slot0_v0p_10bit" > "$OUT/san_memcheck.log" 2>&1 &
P2=$!
timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN/vif_parity_tests" \
  --gtest_filter="$K/slot0_v0tp_8bit:$K/slot0_v0tl_8bit" > "$OUT/san_racecheck.log" 2>&1 &
P3=$!
wait $P1; r1=$?; wait $P2; r2=$?; wait $P3; r3=$?
echo "parity rc=$r1 $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/parity.log" | tr '\n' ' ')" | tee -a "$S"
grep -E "^\[  FAILED" "$OUT/parity.log" | head -20 | tee -a "$S"
echo "memcheck rc=$r2 $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$OUT/san_memcheck.log" | tr '\n' ' ')" | tee -a "$S"
echo "racecheck rc=$r3 $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$OUT/san_racecheck.log" | tr '\n' ' ')" | tee -a "$S"
stamp "done"
tar czf "$DEST/logs.tgz" -C /tmp cudastat
cp "$S" "$DEST/"
cat "$S"

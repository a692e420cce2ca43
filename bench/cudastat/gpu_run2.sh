#!/usr/bin/env bash
# Second call of the statistic's A/B (docs/perf/h100-stat-options.md, S2): the new default rules
# ("chosen": 0tp/1p/23bp at 1080p and 2160p) against the old tiles and against the packed table
# without the exact conversions (dp), 8-bit frames, CUDA events; then the parity gate for the dp
# variants and the rule tests. Prebuilt binaries in $BIN; summary.txt and logs.tgz to $OUT.
set -uo pipefail
BIN=${BIN:-bin}
DEST=${OUT:-/tmp/cudastat-out}
OUT=/tmp/cudastat2
mkdir -p "$OUT" "$DEST"
S=$OUT/summary.txt
: > "$S"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$S"
stamp "stat check (with the launch checked and the count of cases run)"
timeout 30 "$BIN/vif_stat_check" > "$OUT/stat_check.log" 2>&1; echo "stat_check rc=$?" | tee -a "$S"
grep -E "^\[stat\]|FAILED|PASSED" "$OUT/stat_check.log" | tee -a "$S"
stamp "vif-sweep events, 8-bit"
timeout 60 "$BIN/vif-sweep" --sizes 1920x1080,3840x2160 --bitdepths 8 --runs 200 --warmup 20 \
  --out "$OUT/sweep_8" --tiles 0t,1,auto,auto,23b --tiles 0tdp,1dp,auto,auto,23bdp \
  > "$OUT/sweep_8.log" 2>&1
echo "sweep rc=$?" | tee -a "$S"
awk '/^## Per frame/{p=1;next} /^## /{p=0} p' "$OUT/sweep_8/sweep.md" >> "$S"
awk '/^## Per kernel/{p=1;next} /^## /{p=0} p' "$OUT/sweep_8/sweep.md" | cut -d'|' -f2-6,13-14 >> "$S"
stamp "parity: dp variants, the rules"
K=Table/KernelVariant.EqualsCpuReference
PF="KernelTableRules.*:$K/slot0_v0tdp_8bit:$K/slot0_v0dp_10bit:$K/slot1_v1dp_*:$K/slot4_v23bdp_*"
timeout 40 "$BIN/vif_parity_tests" --gtest_filter="$PF" > "$OUT/parity.log" 2>&1
echo "parity rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/parity.log" | tr '\n' ' ')" | tee -a "$S"
grep -E "^\[  FAILED" "$OUT/parity.log" | head | tee -a "$S"
stamp "done"
tar czf "$DEST/logs.tgz" -C /tmp cudastat2
cp "$S" "$DEST/"

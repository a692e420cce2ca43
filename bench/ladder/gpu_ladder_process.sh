#!/usr/bin/env bash
# Issue 10's whole-process ladder figure on a GPU machine: one `vif -r SRC -d R1 ... -d R6 -o DIR`
# (the source decoded once, every rung decoded and upscaled in process, scored by the CUDA ladder
# kernels) against 6 separate `vif` processes, one rung each (`vif batch` on a one-row manifest:
# the single-pair command refuses rungs of another size, the batch command upscales them as the
# ladder does). Clips from bench/ladder/make_ladder_clips.sh (carried: the GPU machine has no
# ffmpeg). Scores of both ways are compared (they must be equal); wall times, best of REPS.
#
#   [REPS=3] [BACKEND=cuda] bench/ladder/gpu_ladder_process.sh VIF CLIPS_DIR [WORK_DIR]
set -euo pipefail
VIF=$(realpath "${1:?usage: gpu_ladder_process.sh VIF CLIPS_DIR [WORK_DIR]}")
CLIPS=$(realpath "${2:?usage: gpu_ladder_process.sh VIF CLIPS_DIR [WORK_DIR]}")
WORK=${3:-/tmp/vif-ladder-process}
REPS=${REPS:-3}
BACKEND=${BACKEND:-cuda}
RUNGS="1920x1080 1280x720 960x540 768x432 640x360 480x270"
mkdir -p "$WORK" && cd "$WORK"
cat "$CLIPS"/*.mkv > /dev/null # into the page cache
now() { date +%s.%N; }
best=() # best wall time of each way
ladder() {
  local a=()
  for s in $RUNGS; do a+=(-d "$CLIPS/r$s.mkv"); done
  rm -rf L && "$VIF" -r "$CLIPS/src1080.mkv" "${a[@]}" -o L --backend "$BACKEND" -q --precision max
}
separate() {
  rm -rf S && mkdir -p S
  for s in $RUNGS; do
    printf 'reference,distorted\n%s,%s\n' "$CLIPS/src1080.mkv" "$CLIPS/r$s.mkv" > "S/m$s.csv"
    "$VIF" batch "S/m$s.csv" --out-dir "S/$s" --backend "$BACKEND" -q --precision max
  done
}
time_best() { # NAME FUNCTION: the best wall time of REPS runs
  local b=999999 t0 t1 t
  for _ in $(seq "$REPS"); do
    t0=$(now); "$2"; t1=$(now)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "  $1: $t s"
    b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (t < a) ? t : a }')
  done
  eval "best_$1=$b"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true
echo "CPU cores: $(nproc)"
time_best ladder ladder
time_best separate separate
for s in $RUNGS; do
  python3 - "L/r$s.json" "S/$s/r$s.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"], sys.argv[1]
PY
done
frames=$(python3 -c "import json; print(len(json.load(open('L/r1920x1080.json'))['frames']))")
echo "6 rungs x $frames frames of 1920x1080 (backend $BACKEND): every rung's scores equal"
awk -v l="$best_ladder" -v s="$best_separate" 'BEGIN {
  printf "  one ladder process: %.2f s; 6 separate processes: %.2f s; speed-up %.2fx\n", l, s, s / l }'

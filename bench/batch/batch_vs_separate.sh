#!/usr/bin/env bash
# Whole-process figures for issue 10 (docs/performance.md), on the machine it runs on:
#   1. a batch of 100 short pairs (48 frames of 576x324: 20 sources x 5 x264 encodes) through one
#      `vif batch` against 100 separate `vif` runs;
#   2. a ladder of 6 rungs (1920x1080 down to 480x270, x264) on one 1080p source through one
#      `vif -r SRC -d R1 ... -d R6 -o DIR` (rungs decoded and upscaled in process) against 6
#      separate `vif` runs on the rungs already upscaled by the ffmpeg CLI (the scaling time of
#      the usual workflow is left out of the separate runs, in their favour).
# The scores of both ways are compared (they must be equal), then the times are printed.
#
#   bench/batch/batch_vs_separate.sh BUILD_DIR [WORK_DIR] [--backend cpu|cuda|auto]
# Needs ffmpeg with libx264 on PATH. Clips are made once in WORK_DIR (default /tmp/vif-batch-bench).
set -euo pipefail
BUILD=${1:?usage: batch_vs_separate.sh BUILD_DIR [WORK_DIR] [--backend B]}
WORK=${2:-/tmp/vif-batch-bench}
BACKEND=${4:-cpu}
[ "${3:-}" = "--backend" ] || BACKEND=cpu
VIF=$(realpath "$BUILD/tools/vif/vif")
F="ffmpeg -hide_banner -loglevel error -nostdin -y"
mkdir -p "$WORK/clips" && cd "$WORK"

# ---- 1. batch of 100 short pairs ----
if [ ! -f clips/done100 ]; then
  for s in $(seq 0 19); do
    src=$(( s % 4 ))
    case $src in
      0) in="testsrc2=s=576x324:r=25" ;; 1) in="mandelbrot=s=576x324:r=25" ;;
      2) in="life=s=576x324:r=25:mold=10:ratio=0.3:seed=$s" ;; 3) in="cellauto=s=576x324:r=25:rule=$((18 + s))" ;;
    esac
    $F -f lavfi -i "$in,noise=alls=$((2 + s % 5)):allf=t:all_seed=$s,hue=H=$s*0.3" -frames:v 48 -pix_fmt yuv420p clips/s$s.y4m
    for c in 0 1 2 3 4; do
      $F -i clips/s$s.y4m -c:v libx264 -preset veryfast -crf $((22 + 5 * c)) -threads 1 clips/s${s}_c$c.mkv
    done
  done
  touch clips/done100
fi
{ echo "reference,distorted"; for s in $(seq 0 19); do for c in 0 1 2 3 4; do echo "clips/s$s.y4m,clips/s${s}_c$c.mkv"; done; done; } > m100.csv

rm -rf batch_out sep_out && mkdir -p sep_out
t0=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o batch.time "$VIF" batch m100.csv --out-dir batch_out --backend "$BACKEND" -q --precision max
t1=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o sep.time bash -c '
  tail -n +2 m100.csv | while IFS=, read -r r d; do
    "'"$VIF"'" -r "$r" -d "$d" --backend '"$BACKEND"' -q --precision max -o "sep_out/$(basename "${d%.*}").json"
  done'
t2=$(date +%s.%N)
for f in sep_out/*.json; do
  python3 - "$f" "batch_out/$(basename "$f")" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"], sys.argv[1]
PY
done
echo "batch of 100 pairs (48 frames of 576x324, backend $BACKEND): scores equal"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v bt="$(cat batch.time)" -v st="$(cat sep.time)" 'BEGIN {
  split(bt, x, " "); split(st, y, " ");
  printf "  one vif batch:     %7.2f s wall, %7.2f s CPU\n", b - a, x[1] + x[2];
  printf "  100 separate runs: %7.2f s wall, %7.2f s CPU\n", c - b, y[1] + y[2];
  printf "  throughput: %.2fx (wall), %.2fx (CPU)\n", (c - b) / (b - a), (y[1] + y[2]) / (x[1] + x[2]) }'

# ---- 2. ladder of 6 rungs on a 1080p source ----
if [ ! -f clips/done_ladder ]; then
  $F -f lavfi -i "testsrc2=s=1920x1080:r=25,noise=alls=5:allf=t:all_seed=1" -frames:v 24 -pix_fmt yuv420p clips/src1080.y4m
  for s in 1920x1080 1280x720 960x540 768x432 640x360 480x270; do
    $F -i clips/src1080.y4m -vf scale=${s/x/:}:flags=bicubic -c:v libx264 -preset veryfast -crf 28 -threads 1 clips/r$s.mkv
    $F -i clips/r$s.mkv -vf scale=1920:1080:flags=bicubic -pix_fmt yuv420p clips/up$s.y4m
  done
  touch clips/done_ladder
fi
RUNGS="1920x1080 1280x720 960x540 768x432 640x360 480x270"
rm -rf ladder_out lsep_out && mkdir -p lsep_out
args=(); for s in $RUNGS; do args+=(-d clips/r$s.mkv); done
t0=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o ladder.time "$VIF" -r clips/src1080.y4m "${args[@]}" -o ladder_out --backend "$BACKEND" -q --precision max
t1=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o lsep.time bash -c '
  for s in '"$RUNGS"'; do "'"$VIF"'" -r clips/src1080.y4m -d clips/up$s.y4m --backend '"$BACKEND"' -q --precision max -o lsep_out/r$s.json; done'
t2=$(date +%s.%N)
for s in $RUNGS; do
  python3 - lsep_out/r$s.json ladder_out/r$s.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["frames"] == b["frames"] and a["pooled_metrics"] == b["pooled_metrics"], sys.argv[1]
PY
done
echo "ladder of 6 rungs, 24 frames of 1080p (backend $BACKEND): scores equal"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v bt="$(cat ladder.time)" -v st="$(cat lsep.time)" 'BEGIN {
  split(bt, x, " "); split(st, y, " ");
  printf "  one ladder run (decode + upscale in process): %7.2f s wall, %7.2f s CPU\n", b - a, x[1] + x[2];
  printf "  6 separate runs (on pre-upscaled Y4M):       %7.2f s wall, %7.2f s CPU\n", c - b, y[1] + y[2];
  printf "  speed-up: %.2fx (wall), %.2fx (CPU)\n", (c - b) / (b - a), (y[1] + y[2]) / (x[1] + x[2]) }'

#!/usr/bin/env bash
# Issue 10's GPU batch figures, in one call on the GPU machine (no ffmpeg there):
#   A. the batch of 100 short pairs (bench/batch/make_compact_clips.sh, carried): one
#      `vif batch --backend cuda` against 100 separate `vif --backend cuda` runs;
#   B. one GPU against two on a batch of large frames (the most kernel time per pair): 64 pairs
#      of 3840x2160 raw 8-bit 4:2:0, 48 frames each, made on the machine by numpy (page cache),
#      scored with the same number of workers on --devices 0 and on --devices 0,1;
#   C. part B's rows in float VIF (more kernel time per byte read), one GPU against two.
# Every way's per-pair scores are compared (they must be equal); times are wall clock.
#
#   [PARTS="A B C"] bench/batch/gpu_batch.sh VIF_BINARY CLIPS_DIR [WORK_DIR]
set -euo pipefail
VIF=$(realpath "${1:?usage: gpu_batch.sh VIF CLIPS_DIR [WORK_DIR]}")
CLIPS=$(realpath "${2:?usage: gpu_batch.sh VIF CLIPS_DIR [WORK_DIR]}")
WORK=${3:-/tmp/vif-gpu-batch}
PARTS=${PARTS:-A B C}
mkdir -p "$WORK" && cd "$WORK"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
same_scores() { # DIR_A DIR_B: every JSON in A has the same frames and pooled scores in B
  python3 - "$1" "$2" <<'PY'
import json, os, sys
a, b = sys.argv[1:3]
names = sorted(n for n in os.listdir(a) if n.endswith(".json"))
assert names, "no outputs in " + a
for n in names:
    x, y = (json.load(open(os.path.join(d, n))) for d in (a, b))
    assert x["frames"] == y["frames"] and x["pooled_metrics"] == y["pooled_metrics"], n
print(f"  {len(names)} outputs equal ({a} = {b})")
PY
}
run_b() { # OUT_DIR DEVICES WORKERS VARIANT: one batch of m64.csv, wall and CPU seconds
  local t
  TIMEFORMAT="%R %U %S"
  t=$( { time "$VIF" batch m64.csv --out-dir "$1" --backend cuda --devices "$2" --workers "$3" \
           --variant "$4" -q --precision max >&3 2>&3; } 3>&2 2>&1 )
  awk -v t="$t" -v d="$2" -v w="$3" -v v="$4" 'BEGIN { split(t, x, " ");
    printf "  %s, --devices %s --workers %s: %.2f s wall (%.0f pair-frames/s), %.1f s CPU\n",
           v, d, w, x[1], 64 * 48 / x[1], x[2] + x[3] }'
}
ngpu=$(nvidia-smi -L | grep -c '^GPU')
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
echo "GPUs: $ngpu, CPU cores: $(nproc)"

# ---- A. 100 short pairs: one batch against 100 runs ----
if [[ " $PARTS " == *" A "* ]]; then
echo "== A. 100 pairs of 48 frames of 576x324 (x264 MKV, FFmpeg decode), backend cuda"
cp "$CLIPS/m100.csv" m100.csv && ln -sfn "$CLIPS/clips" clips
rm -rf sep && mkdir sep
t0=$(now)
tail -n +2 m100.csv | while IFS=, read -r r d; do
  "$VIF" -r "$r" -d "$d" --backend cuda -q --precision max -o "sep/$(basename "${d%.*}").json"
done
t1=$(now)
sep=$(secs "$t0" "$t1")
echo "  100 separate runs: $sep s"
for w in 1 2 4; do
  rm -rf "b1_w$w"
  t0=$(now)
  "$VIF" batch m100.csv --out-dir "b1_w$w" --backend cuda --devices 0 --workers $w -q --precision max
  t1=$(now)
  b=$(secs "$t0" "$t1")
  echo "  one vif batch, 1 GPU, $w workers: $b s, $(awk -v s="$sep" -v b="$b" 'BEGIN { printf "%.1f", s / b }')x the separate runs"
  same_scores sep "b1_w$w"
done
fi

# ---- B. one GPU against two ----
if [[ " $PARTS " == *" B "* || " $PARTS " == *" C "* ]]; then
# Two references and two distorted versions of each are written once (2.4 GB); the manifest's 64
# rows reach them through links of their own, so each row is a group of its own (a batch
# groups rows by reference path) and the workers can spread the rows freely.
echo "== B. 64 pairs of 48 frames of 3840x2160 raw 8-bit 4:2:0, backend cuda"
if [ ! -f raw/done ]; then
  mkdir -p raw
  python3 - <<'PY'
import numpy as np
w, h, n = 3840, 2160, 48
yy, xx = np.mgrid[0:h, 0:w]
rng = np.random.default_rng(1)
noise = [rng.normal(0, 6, (h, w)).astype(np.float32) for _ in range(4)]
dnoise = [rng.integers(-9, 10, (h, w), dtype=np.int16) for _ in range(4)]
chroma = np.full(w * h // 2, 128, np.uint8).tobytes()
for s in range(2):
    base = (128 + 60 * np.sin(xx / (23.0 + 7 * s)) * np.cos(yy / (31.0 + 5 * s))).astype(np.float32)
    with open(f"raw/r{s}.yuv", "wb") as o, open(f"raw/r{s}_d0.yuv", "wb") as d0, \
            open(f"raw/r{s}_d1.yuv", "wb") as d1:
        for f in range(n):
            ref = np.clip(np.roll(base, 3 * f, axis=1) + noise[f % 4], 0, 255).astype(np.uint8)
            o.write(ref.tobytes()); o.write(chroma)
            for c, out in enumerate((d0, d1)):
                d = ref.astype(np.int16) + dnoise[(f + c) % 4] // (c + 1)
                out.write(np.clip(d, 0, 255).astype(np.uint8).tobytes()); out.write(chroma)
PY
  touch raw/done
fi
mkdir -p rows
{
  echo "reference,distorted,width,height,pixel_format,bitdepth"
  for i in $(seq 0 63); do
    s=$((i % 2)) c=$(((i / 2) % 2))
    ln -sfn "../raw/r$s.yuv" "rows/ref$i.yuv"; ln -sfn "../raw/r${s}_d$c.yuv" "rows/dis$i.yuv"
    echo "rows/ref$i.yuv,rows/dis$i.yuv,3840,2160,420,8"
  done
} > m64.csv
cat raw/*.yuv > /dev/null # into the page cache
fi
if [[ " $PARTS " == *" B "* ]]; then
for w in 2 4 8; do
  for devs in 0 0,1; do
    [ "$devs" = 0,1 ] && [ "$ngpu" -lt 2 ] && continue
    out="b2_${devs/,/}_w$w"
    rm -rf "$out"
    run_b "$out" "$devs" $w integer
  done
  if [ "$ngpu" -ge 2 ]; then same_scores "b2_0_w$w" "b2_01_w$w"; fi
done
fi

# ---- C. the same rows in float VIF (about 6x the kernel time of integer per frame) ----
if [[ " $PARTS " == *" C "* ]]; then
echo "== C. the 64 pairs of part B in float VIF, backend cuda"
for devs in 0 0,1; do
  [ "$devs" = 0,1 ] && [ "$ngpu" -lt 2 ] && continue
  rm -rf "c_${devs/,/}"
  run_b "c_${devs/,/}" "$devs" 4 float
done
if [ "$ngpu" -ge 2 ]; then same_scores c_0 c_01; fi
fi

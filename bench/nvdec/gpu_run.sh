#!/usr/bin/env bash
# NVDEC end-to-end table, bit-exactness and fault checks for `vif --hwdec`, on a GPU machine.
#   bench/nvdec/gpu_run.sh [stages]   stages (default all): exact library faults bench
# Needs: VIF (the vif binary; default dist/bin/vif beside this checkout, with its libraries in
# dist/lib), the clips of bench/nvdec/make_clips.sh in CLIPS (default bench/nvdec/clips).
# Writes logs to $OUT (default /tmp/nvdec-out) and prints a summary (markdown).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VIF=${VIF:-$ROOT/dist/bin/vif}
CLIPS=${CLIPS:-$ROOT/bench/nvdec/clips}
OUT=${OUT:-/tmp/nvdec-out}
STAGES=${*:-exact library faults bench}
export LD_LIBRARY_PATH=$(dirname "$VIF")/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT/logs"
LOG=$OUT/logs
has() { [[ " $STAGES " == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$OUT/summary.md"; }

say "## $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $(nproc) cores"
"$VIF" --version | tee -a "$OUT/summary.md"

# Scores of a JSON output without the speed line.
scores() { grep -v -e '"fps"' -e '"backend"' "$1"; }

if has exact; then
  say "### bit-exactness: NVDEC frames against software-decoded frames (cuda scoring, --precision max)"
  for pair in "h264_src.mp4 h264_enc.mkv" "hevc_src.mp4 hevc_enc.mkv" "av1_src.mkv av1_enc.ivf" \
              "small_src.y4m small_enc.mp4" "small_enc.mp4 small_src.y4m" "h264_enc130.mkv h264_enc.mkv"; do
    set -- $pair
    [[ -f $CLIPS/$1 && -f $CLIPS/$2 ]] || { say "- $1 / $2: clip missing"; continue; }
    n=${1%%.*}_${2%%.*}; [[ $1 == *_src.* ]] && n=${1%%.*}
    "$VIF" -r "$CLIPS/$1" -d "$CLIPS/$2" --backend cuda --hwdec none --precision max -q -o "$LOG/sw_$n.json" 2> "$LOG/sw_$n.err"
    r1=$?
    "$VIF" -r "$CLIPS/$1" -d "$CLIPS/$2" --backend cuda --hwdec cuda --precision max -q --verbose -o "$LOG/hw_$n.json" 2> "$LOG/hw_$n.err"
    r2=$?
    "$VIF" -r "$CLIPS/$1" -d "$CLIPS/$2" --backend cuda --hwdec cuda --decoders 1 --cpu-decoders 0 --precision max -q -o "$LOG/hw1_$n.json" 2> "$LOG/hw1_$n.err"
    r3=$?
    "$VIF" -r "$CLIPS/$1" -d "$CLIPS/$2" --backend cuda --hwdec cuda --decoders 2 --cpu-decoders 2 --precision max -q -o "$LOG/hw2_$n.json" 2> "$LOG/hw2_$n.err"
    r3=$((r3 + $?))
    frames=$(grep -c '"frameNum"' "$LOG/sw_$n.json" 2>/dev/null)
    if [[ $r1 == 0 && $r2 == 0 && $r3 == 0 ]] && cmp -s <(scores "$LOG/sw_$n.json") <(scores "$LOG/hw_$n.json") \
       && cmp -s <(scores "$LOG/sw_$n.json") <(scores "$LOG/hw1_$n.json") \
       && cmp -s <(scores "$LOG/sw_$n.json") <(scores "$LOG/hw2_$n.json"); then
      say "- $1 / $2: IDENTICAL ($frames frames; 3 NVDEC decoders an input (default), 1, and 2 NVDEC + 2 software)"
    else
      say "- $1 / $2: DIFFERENT or failed (rc $r1 $r2 $r3)"; tail -n 3 "$LOG/hw_$n.err" "$LOG/sw_$n.err" | tee -a "$OUT/summary.md"
    fi
    grep "hwdec" "$LOG/hw_$n.err" | sed 's/^/    /' | tee -a "$OUT/summary.md"
  done
fi

if has library; then
  say "### vif_ffmpeg on real NVDEC frames (examples/nvdec_decode_score.c) against software decoding"
  EX=${EXAMPLE:-$(dirname "$VIF")/vif_nvdec_decode_score}
  for n in h264 hevc av1; do
    [[ -f $LOG/sw_${n}_src.json ]] || { say "- $n: no software scores (run the exact stage first)"; continue; }
    set -- $(ls "$CLIPS" | grep "^${n}_src"; ls "$CLIPS" | grep "^${n}_enc\.")
    "$EX" "$CLIPS/$1" "$CLIPS/$2" > "$LOG/ex_$n.txt" 2> "$LOG/ex_$n.err"
    rc=$?
    res=$(python3 - "$LOG/sw_${n}_src.json" "$LOG/ex_$n.txt" <<'PY'
import json, sys
sw = json.load(open(sys.argv[1]))["frames"]
ex = [l.split(":")[1].split() for l in open(sys.argv[2]) if l.startswith("frame ")]
bad = sum(1 for f, e in zip(sw, ex)
          if [float(f["metrics"]["integer_vif_scale%d" % k]) for k in range(4)] != [float(x) for x in e[1:5]])
print("IDENTICAL" if len(sw) == len(ex) and bad == 0 else "DIFFERENT (%d vs %d frames, %d differ)" % (len(sw), len(ex), bad), len(ex), "frames")
PY
)
    say "- $n ($1 / $2): rc=$rc, $res"
  done
  NVDEC_EXAMPLE_VERBOSE=1 "$EX" "$CLIPS/av1_src.mkv" "$CLIPS/av1_enc.ivf" 3 > /dev/null 2> "$LOG/ex_av1_verbose.err"
  say "  AV1 through NVDEC, FFmpeg's log: $(grep -v -i 'stream\|input\|Duration\|Metadata' "$LOG/ex_av1_verbose.err" | head -8 | tr '\n' ' ')"
fi

if has faults; then
  say "### faults"
  check() { # name, expected exit code, command...
    local name=$1 want=$2; shift 2
    rm -f "$LOG/fault.json"
    timeout 120 "$@" -o "$LOG/fault.json" > "$LOG/fault_$name.out" 2>&1
    local rc=$?
    local left=$([[ -e $LOG/fault.json ]] && echo "output written" || echo "no output file")
    say "- $name: rc=$rc (want $want), $left: $(grep -E 'error|warning|note' "$LOG/fault_$name.out" | grep -v '^\[' | head -2 | tr '\n' ' ')"
  }
  C=$CLIPS
  check size-mismatch 1 "$VIF" -r "$C/h264_src.mp4" -d "$C/hevc_enc.mkv" --hwdec cuda -q
  check depth-mismatch 1 "$VIF" -r "$C/av1_src.mkv" -d "$C/hevc_enc.mkv" --hwdec cuda -q
  check count-mismatch 0 "$VIF" -r "$C/h264_enc130.mkv" -d "$C/h264_enc.mkv" --hwdec cuda -q
  check corrupt-packet 1 "$VIF" -r "$C/h264_enc130.mkv" -d "$C/corrupt.mkv" --hwdec cuda -q
  check corrupt-packet-sw 1 "$VIF" -r "$C/h264_enc130.mkv" -d "$C/corrupt.mkv" --hwdec none --decoders 2 -q
  check cpu-backend 2 "$VIF" -r "$C/h264_src.mp4" -d "$C/h264_enc.mkv" --hwdec cuda --backend cpu -q
  check raw-only 1 "$VIF" -r "$C/small_src.y4m" -d "$C/small_src.y4m" --hwdec cuda -q
  check many-sessions 0 "$VIF" -r "$C/hevc_src.mp4" -d "$C/hevc_enc.mkv" --hwdec cuda --decoders 48 -q
  check skip-subsample 0 "$VIF" -r "$C/h264_src.mp4" -d "$C/h264_enc.mkv" --hwdec cuda --skip-ref 3 --skip-dist 3 --subsample 7 --frames 100 -q
  "$VIF" -r "$C/h264_src.mp4" -d "$C/h264_enc.mkv" --hwdec none --skip-ref 3 --skip-dist 3 --subsample 7 --frames 100 -q --precision max -o "$LOG/ss_sw.json" 2>/dev/null
  for cpu in 0 2; do
    "$VIF" -r "$C/h264_src.mp4" -d "$C/h264_enc.mkv" --hwdec cuda --cpu-decoders $cpu --skip-ref 3 --skip-dist 3 --subsample 7 --frames 100 -q --precision max -o "$LOG/ss_hw.json" 2>/dev/null
    cmp -s <(scores "$LOG/ss_sw.json") <(scores "$LOG/ss_hw.json") && say "- skip/subsample/frames (NVDEC + $cpu software decoders): = software" || say "- skip/subsample/frames (NVDEC + $cpu software decoders): DIFFERENT"
  done
fi

if has bench; then
  say "### end to end (whole process, files in page cache; fps = frames / wall seconds)"
  say "| clip pair | frames | mode | wall s | fps (whole process) | fps (decode+score loop) | NVDEC util avg/max % |"
  say "|---|---|---|---|---|---|---|"
  cat "$CLIPS"/* > /dev/null
  run() { # label, pair, args...
    local label=$1 r=$2 d=$3; shift 3
    local dm=$LOG/dmon_$$.txt
    nvidia-smi dmon -s u -d 1 > "$dm" 2>/dev/null &
    local dpid=$!
    local t0=$(date +%s.%N)
    rm -f "$LOG/bench.json"
    "$VIF" -r "$CLIPS/$r" -d "$CLIPS/$d" -q "$@" -o "$LOG/bench.json" > "$LOG/bench.out" 2> "$LOG/bench.err"
    local rc=$?
    local t1=$(date +%s.%N)
    kill $dpid 2>/dev/null; wait $dpid 2>/dev/null
    local frames
    if grep -q "^decoded" "$LOG/bench.out"; then frames=$(awk '/^decoded/{print $2}' "$LOG/bench.out")
    elif grep -q "^read" "$LOG/bench.out"; then frames=$(awk '/^read/{print $2}' "$LOG/bench.out")
    else frames=$(grep -c '"frameNum"' "$LOG/bench.json" 2>/dev/null); fi
    # dmon columns: gpu sm mem enc dec ...; the decoder column is the 5th.
    local util=$(awk '!/^#/ && NF>=5 {s+=$5; n++; if ($5>m) m=$5} END {if (n) printf "%.0f/%d", s/n, m; else print "-"}' "$dm")
    local wall=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')
    local fps=$(awk -v f=${frames:-0} -v w=$wall 'BEGIN{printf "%.1f", f/w}')
    local loop=$(grep -o '"fps": [0-9.]*' "$LOG/bench.json" 2>/dev/null | awk '{print $2}')
    [[ -z $loop ]] && loop=$(grep -oE '[0-9.]+ fps' "$LOG/bench.out" | awk '{print $1}')
    say "| $r / $d | $frames | $label | $wall | $fps | ${loop:--} | $util |"
    [[ $rc == 0 ]] || { say "  (rc=$rc: $(tail -2 "$LOG/bench.err" | tr '\n' ' '))"; }
    cat "$LOG/bench.err" >> "$LOG/bench_all.err"
  }
  for pair in "h264_src.mp4 h264_enc.mkv" "hevc_src.mp4 hevc_enc.mkv" "av1_src.mkv av1_enc.ivf"; do
    set -- $pair
    [[ -f $CLIPS/$1 && -f $CLIPS/$2 ]] || continue
    run "software decode (default), cuda scoring" $1 $2 --backend cuda --hwdec none
    run "software decode, 4 segment decoders/input" $1 $2 --backend cuda --hwdec none --decoders 4
    if [[ $1 == av1* ]]; then
      run "software decode, 6 segment decoders/input" $1 $2 --backend cuda --hwdec none --decoders 6
      run "--hwdec auto (NVDEC has no AV1 here: software)" $1 $2 --backend cuda
      run "decode only: software (default)" $1 $2 --read-only --hwdec none
      run "decode only: software, 4 segment decoders/input" $1 $2 --read-only --hwdec none --decoders 4
      continue
    fi
    for n in 1 2 3 4 6; do
      run "NVDEC, $n decoders/input" $1 $2 --backend cuda --hwdec cuda --decoders $n --cpu-decoders 0
    done
    if [[ $1 == h264* ]]; then
      run "NVDEC 3 + software 2 decoders/input" $1 $2 --backend cuda --hwdec cuda --decoders 3 --cpu-decoders 2
      run "NVDEC 4 + software 2 decoders/input" $1 $2 --backend cuda --hwdec cuda --decoders 4 --cpu-decoders 2
      run "NVDEC 3 + software 3 decoders/input" $1 $2 --backend cuda --hwdec cuda --decoders 3 --cpu-decoders 3
      run "decode only: NVDEC 3 + software 2 decoders/input" $1 $2 --read-only --hwdec cuda --decoders 3 --cpu-decoders 2
    fi
    run "default (--hwdec auto)" $1 $2 --backend cuda
    run "decode only: NVDEC, 3 decoders/input" $1 $2 --read-only --hwdec cuda --decoders 3 --cpu-decoders 0
    run "decode only: NVDEC, 4 decoders/input" $1 $2 --read-only --hwdec cuda --decoders 4 --cpu-decoders 0
    run "decode only: software (default)" $1 $2 --read-only --hwdec none
    run "decode only: software, 4 segment decoders/input" $1 $2 --read-only --hwdec none --decoders 4
    "$VIF" -r "$CLIPS/$1" -d "$CLIPS/$2" -q --hwdec cuda --verbose -o "$LOG/v.json" 2> "$LOG/verbose_$1.err"
    say "  --verbose of NVDEC on $1 / $2:"; grep -E "timing|hwdec" "$LOG/verbose_$1.err" | sed 's/^/    /' | tee -a "$OUT/summary.md"
  done
fi
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"

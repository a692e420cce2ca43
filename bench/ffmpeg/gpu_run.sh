#!/usr/bin/env bash
# The FFmpeg `libvif` filter on a GPU machine: NVDEC frames (AV_PIX_FMT_CUDA) scored on the GPU
# without a copy must equal the CPU path bit for bit, and the whole process is timed against
# `vif --hwdec cuda` on bench/nvdec's 1080p H.264 and 2160p HEVC Main10 pairs, side by side.
#   bench/ffmpeg/gpu_run.sh [stages]     stages (default all): exact faults bench
# Needs, from the repository root:
#   FFMPEG   ffmpeg with the libvif filter and NVDEC (default .deps/ffmpeg-libvif-ci/bin/ffmpeg:
#            scripts/build-ffmpeg-libvif.sh --ci on a machine with libffmpeg-nvenc-dev)
#   VIF_LIB  the CUDA build's libraries, found before the ones the binary was linked with
#            (default build-gpu/libvif:build-gpu/libvif/ffmpeg: scripts/gpu-check.sh build)
#   VIF      the CUDA build's CLI (default build-gpu/tools/vif/vif)
#   CLIPS    bench/nvdec/make_clips.sh's clips (default bench/nvdec/clips)
#   RUNS     timed runs of each command (default 3, alternating; the best is reported)
# Writes $OUT (default /tmp/ffmpeg-filter-out): summary.md (printed too) and logs.tar.gz.
# What travels to the GPU machine (about 61 MiB): the ffmpeg binary alone (4.4 MiB; it needs only
# libvif.so.1 and libvif_ffmpeg.so.1, taken from the CUDA build there), .deps/ffmpeg-nvdec and
# .gpu-deps/prefix for scripts/gpu-check.sh's build, and bench/nvdec/clips:
#   bash scripts/gpu-check.sh build && FFMPEG=.deps/ffmpeg-libvif-gpu/ffmpeg bash bench/ffmpeg/gpu_run.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
FFMPEG=${FFMPEG:-$ROOT/.deps/ffmpeg-libvif-ci/bin/ffmpeg}
VIF=${VIF:-$ROOT/build-gpu/tools/vif/vif}
VIF_LIB=${VIF_LIB:-$ROOT/build-gpu/libvif:$ROOT/build-gpu/libvif/ffmpeg}
CLIPS=${CLIPS:-$ROOT/bench/nvdec/clips}
OUT=${OUT:-/tmp/ffmpeg-filter-out}
RUNS=${RUNS:-3}
STAGES=${*:-exact faults bench}
ff_lib=$ROOT/${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec}/lib
export LD_LIBRARY_PATH=$VIF_LIB${ff_lib:+:$ff_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
LOG=$OUT/logs
mkdir -p "$LOG"
: > "$OUT/summary.md"
has() { [[ " $STAGES " == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$OUT/summary.md"; }
fail=0

say "## libvif FFmpeg filter on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
"$FFMPEG" -hide_banner -filters 2>/dev/null | grep -q ' libvif ' || { say "FAIL: $FFMPEG has no libvif filter"; exit 1; }
"$FFMPEG" -hide_banner -hwaccels 2>/dev/null | grep -q cuda || { say "FAIL: $FFMPEG has no cuda hwaccel"; exit 1; }
say "libvif: $(ldd "$FFMPEG" | grep -E 'libvif' | awk '{print $1, $3}' | tr '\n' ' ')"

# The CUDA device on the primary context (libvif's CUDA runtime works there), used by -hwaccel.
# shellcheck disable=SC2054  # the comma is part of -init_hw_device's value
INIT=(-init_hw_device cuda=cu:0,primary_ctx=1)
HW=(-hwaccel cuda -hwaccel_output_format cuda)
ff() { "$FFMPEG" -hide_banner -nostdin -y "$@"; }
# A JSON log's scores: every frame and the pooled values, not the throughput.
scores() { grep -v -e '"fps"' "$1"; }
PAIRS="h264_src.mp4:h264_enc.mkv hevc_src.mp4:hevc_enc.mkv"

if has exact; then
  say "### bit-exactness (integer VIF, precision=max): CUDA frames on the GPU against the CPU path"
  for pair in $PAIRS; do
    src=$CLIPS/${pair%%:*}; enc=$CLIPS/${pair##*:}; n=$(basename "${src%%_*}")
    [[ -f $src && -f $enc ]] || { say "- $n: clips missing"; fail=1; continue; }
    opts="precision=max:log_fmt=json"
    ff -i "$enc" -i "$src" -lavfi "libvif=backend=cpu:$opts:log_path=$LOG/$n.cpu.json" -f null - 2> "$LOG/$n.cpu.err"; r1=$?
    ff "${INIT[@]}" "${HW[@]}" -i "$enc" "${HW[@]}" -i "$src" -lavfi "libvif=backend=cuda:$opts:log_path=$LOG/$n.cuda.json" -f null - 2> "$LOG/$n.cuda.err"; r2=$?
    ff "${INIT[@]}" "${HW[@]}" -i "$enc" -i "$src" -lavfi "libvif=backend=cuda:$opts:log_path=$LOG/$n.mixed.json" -f null - 2> "$LOG/$n.mixed.err"; r3=$?
    "$VIF" -r "$src" -d "$enc" --backend cuda --hwdec cuda --precision max --json -q -o "$LOG/$n.cli.json" 2> "$LOG/$n.cli.err"; r4=$?
    frames=$(grep -c '"frameNum"' "$LOG/$n.cpu.json" 2>/dev/null)
    res=""
    if cmp -s <(scores "$LOG/$n.cpu.json") <(scores "$LOG/$n.cuda.json"); then res+="cuda frames = cpu; "; else res+="cuda frames DIFFER; "; fail=1; fi
    if cmp -s <(scores "$LOG/$n.cpu.json") <(scores "$LOG/$n.mixed.json"); then res+="cuda+software (uploaded) = cpu; "; else res+="mixed DIFFER; "; fail=1; fi
    if cmp -s <(scores "$LOG/$n.cpu.json") <(scores "$LOG/$n.cli.json"); then res+="= vif --hwdec cuda"; else res+="vif CLI DIFFERS"; fail=1; fi
    say "- $n: ${frames:-0} frames, rc $r1 $r2 $r3 $r4: $res"
    [[ $r1$r2$r3$r4 == 0000 ]] || { fail=1; tail -n 3 "$LOG/$n".*.err | tee -a "$OUT/summary.md"; }
  done
fi

if has faults; then
  say "### faults (each: non-zero exit, the message, no log file)"
  src=$CLIPS/h264_src.mp4; enc=$CLIPS/h264_enc.mkv
  fault() { # name, message, ffmpeg args...
    local name=$1 msg=$2; shift 2
    rm -f "$LOG/fault.json"
    timeout 300 "$FFMPEG" -hide_banner -nostdin -y "$@" -f null - > "$LOG/fault_$name.err" 2>&1
    local rc=$?
    local left="no log"
    [[ -e $LOG/fault.json ]] && left="LOG WRITTEN"
    if [[ $rc != 0 && $left == "no log" ]] && grep -q "$msg" "$LOG/fault_$name.err"; then
      say "- $name: ok (rc=$rc): $(grep -m1 "$msg" "$LOG/fault_$name.err")"
    else
      say "- $name: FAIL (rc=$rc, $left): $(grep -i -m2 error "$LOG/fault_$name.err" | tr '\n' ' ')"; fail=1
    fi
  }
  fault cuda-frames-backend-cpu "backend=cpu with CUDA frames" "${INIT[@]}" "${HW[@]}" -i "$enc" "${HW[@]}" -i "$src" \
    -lavfi "libvif=backend=cpu:log_path=$LOG/fault.json:log_fmt=json"
  fault not-primary-context "primary" -hwaccel cuda -hwaccel_output_format cuda -i "$enc" \
    -hwaccel cuda -hwaccel_output_format cuda -i "$src" -lavfi "libvif=backend=cuda:log_path=$LOG/fault.json:log_fmt=json"
  fault size-mismatch "the distorted input is" "${INIT[@]}" "${HW[@]}" -i "$CLIPS/hevc_enc.mkv" "${HW[@]}" -i "$src" \
    -lavfi "libvif=log_path=$LOG/fault.json:log_fmt=json"
fi

if has bench; then
  say "### whole process, side by side (files in page cache; best of $RUNS, alternating)"
  say "| pair | frames | vif --hwdec cuda (s) | ffmpeg -lavfi libvif, CUDA frames (s) | filter / CLI speed |"
  say "|---|---|---|---|---|"
  cat "$CLIPS"/* > /dev/null
  for pair in $PAIRS; do
    src=$CLIPS/${pair%%:*}; enc=$CLIPS/${pair##*:}; n=$(basename "${src%%_*}")
    [[ -f $src && -f $enc ]] || continue
    best_cli=999999; best_ff=999999
    for ((i = 0; i < RUNS; i++)); do
      t0=$(date +%s.%N)
      "$VIF" -r "$src" -d "$enc" --backend cuda --hwdec cuda -q --json -o "$LOG/bench_cli.json" 2>> "$LOG/bench_cli.err" || fail=1
      t1=$(date +%s.%N)
      ff "${INIT[@]}" "${HW[@]}" -i "$enc" "${HW[@]}" -i "$src" -lavfi "libvif=backend=cuda:log_path=$LOG/bench_ff.json:log_fmt=json" -f null - 2>> "$LOG/bench_ff.err" || fail=1
      t2=$(date +%s.%N)
      best_cli=$(awk -v a="$t0" -v b="$t1" -v m="$best_cli" 'BEGIN{d=b-a; print (d<m)?d:m}')
      best_ff=$(awk -v a="$t1" -v b="$t2" -v m="$best_ff" 'BEGIN{d=b-a; print (d<m)?d:m}')
    done
    frames=$(grep -c '"frameNum"' "$LOG/bench_ff.json" 2>/dev/null)
    cmp -s <(scores "$LOG/bench_cli.json") <(scores "$LOG/bench_ff.json") || say "  (the two runs' scores differ: see logs)"
    say "$(awk -v n="$n" -v f="${frames:-0}" -v c="$best_cli" -v g="$best_ff" 'BEGIN{printf "| %s | %d | %.2f (%.0f fps) | %.2f (%.0f fps) | %.0f%% |", n, f, c, f/c, g, f/g, 100*c/g}')"
  done
  say "target: the filter at >= 90% of the CLI's speed"
fi
say "result: $([[ $fail == 0 ]] && echo PASS || echo FAIL)"
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$LOG"
exit $fail

#!/usr/bin/env bash
# The element built against GStreamer 1.26 (bench/gstreamer/pack126.sh's sysroot), on the
# development machine, system memory: 1.26's gst-launch-1.0 (through the carried loader) tees
# videotestsrc frames into vif and into raw files, a down-and-up scaled copy as the distorted
# stream (one pad, then a two-rung ladder); the result files must equal the vif CLI's on the
# raw files (fps aside), and every frame must have its message.
#   bench/gstreamer/check126_cpu.sh BUILD_126 VIF_CLI [GST126_PACK]
#     BUILD_126  a build configured against the 1.26 sysroot (PKG_CONFIG_SYSROOT_DIR, see
#                docs/journal/2026-11-26-gstreamer126.md) with gstvif built
#     VIF_CLI    the vif CLI (any build: the reference)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
b=$(realpath -m "$1"); vif=$(realpath -m "$2")
sys=$(realpath -m "${3:-$root/.gst126-pack}")/sysroot
lib=$sys/usr/lib/x86_64-linux-gnu
[[ -f $b/integrations/gstreamer/libgstvif.so ]] || { echo "FAIL: no $b/integrations/gstreamer/libgstvif.so"; exit 1; }
[[ -x $sys/usr/lib64/ld-linux-x86-64.so.2 ]] || { echo "FAIL: no 1.26 sysroot at $sys (pack126.sh)"; exit 1; }
work=$(mktemp -d)
[[ -n ${KEEP:-} ]] && echo "work: $work" || trap 'rm -rf "$work"' EXIT
export GST_REGISTRY_1_0=$work/registry.bin GST_REGISTRY_FORK=no
export GST_PLUGIN_SYSTEM_PATH_1_0=$lib/gstreamer-1.0 GST_PLUGIN_PATH_1_0=$b/integrations/gstreamer
gst126() { "$sys/usr/lib64/ld-linux-x86-64.so.2" --library-path "$lib" "$sys/usr/bin/$1" "${@:2}"; }
fail=0
check() { if "${@:2}"; then echo "PASS: $1"; else echo "FAIL: $1"; fail=1; fi; }

ver=$(gst126 gst-inspect-1.0 --version | sed -n 's/^GStreamer //p')
echo "GStreamer $ver"
check "gst-inspect-1.0 (1.26) finds vif" gst126 gst-inspect-1.0 vif >"$work/inspect.txt" 2>&1

frames=30 w=320 h=240
caps="video/x-raw,format=I420,width=$w,height=$h,framerate=25/1"
rung() { # name width height: a scaled-down-and-up copy, saved raw and sent to a vif pad
  echo "t. ! queue ! videoconvertscale ! video/x-raw,width=$2,height=$3 ! videoconvertscale" \
       "! $caps ! tee name=$1 $1. ! queue ! filesink location=$work/$1.yuv $1. ! queue"
}
launch() { # log result-file pads...: ref and each rung into vif, all saved raw
  local log=$1 res=$2 p=1 parts=()
  shift 2
  for r in "$@"; do
    read -ra words <<<"$(rung "$r" $((w / (p + 1))) $((h / (p + 1))))"
    parts+=("${words[@]}" ! "q.sink_$p"); p=$((p + 1))
  done
  gst126 gst-launch-1.0 -m -e videotestsrc num-buffers=$frames pattern=ball ! "$caps" ! tee name=t \
    t. ! queue ! filesink location="$work/ref.yuv" t. ! queue ! q.sink_0 "${parts[@]}" \
    vif name=q backend=cpu result-file="$res" ! fakesink sync=false >"$log" 2>&1
}
# Per-frame integer scores of one pad from a -m log / a CLI JSON (--debug-metrics).
of_log() {
  grep "(element): vif, frame=" "$1" | grep "pad=(string)$2," |
    sed -E 's/.*integer_vif_scale0=\(double\)([^,;]+).*integer_vif_scale1=\(double\)([^,;]+).*integer_vif_scale2=\(double\)([^,;]+).*integer_vif_scale3=\(double\)([^,;]+).*integer_vif=\(double\)([^,;]+).*/\1 \2 \3 \4 \5/'
}
of_json() {
  python3 -c 'import json,sys
for f in json.load(open(sys.argv[1]))["frames"]:
    m=f["metrics"]; print(*(repr(float(m[k])) for k in ["integer_vif_scale0","integer_vif_scale1","integer_vif_scale2","integer_vif_scale3","integer_vif"]))' "$1"
}
same() { python3 -c 'import sys
a=[[float(v) for v in l.split()] for l in open(sys.argv[1]) if l.strip()]
b=[[float(v) for v in l.split()] for l in open(sys.argv[2]) if l.strip()]
sys.exit(0 if a and a==b else 1)' "$1" "$2"; }

# A pair: the result file byte for byte against the CLI's (fps aside).
launch "$work/pair.log" "$work/gst_pair.json" d1
check "1.26 pair pipeline ran" grep -q "Execution ended" "$work/pair.log"
"$vif" -r "$work/ref.yuv" -d "$work/d1.yuv" -w $w -h $h -p 420 -b 8 -q --json -o "$work/cli_pair.json"
check "pair: result file = vif CLI's JSON (fps aside)" \
  cmp -s <(grep -v fps "$work/gst_pair.json") <(grep -v fps "$work/cli_pair.json")
# A two-rung ladder: every frame's message on each pad against the CLI on that rung.
launch "$work/ladder.log" "$work/gst_ladder_%u.json" d1 d2
check "1.26 ladder pipeline ran" grep -q "Execution ended" "$work/ladder.log"
n=$(grep -c '(element): vif, frame=' "$work/ladder.log" || true)
check "ladder frame messages: $n = 2 rungs x $frames" test "$n" = $((2 * frames))
p=1
for r in d1 d2; do
  "$vif" -r "$work/ref.yuv" -d "$work/$r.yuv" -w $w -h $h -p 420 -b 8 -q --json --debug-metrics \
    --precision max -o "$work/cli_$r.json"
  of_log "$work/ladder.log" "sink_$p" >"$work/gst_$r.txt"
  of_json "$work/cli_$r.json" >"$work/cli_$r.txt"
  check "ladder sink_$p: $(wc -l <"$work/gst_$r.txt") frames = vif CLI's scores" same "$work/gst_$r.txt" "$work/cli_$r.txt"
  "$vif" -r "$work/ref.yuv" -d "$work/$r.yuv" -w $w -h $h -p 420 -b 8 -q --json -o "$work/cli_${r}_file.json"
  check "ladder sink_$p: its result file = vif CLI's JSON (fps aside)" \
    cmp -s <(grep -v fps "$work/gst_ladder_$p.json") <(grep -v fps "$work/cli_${r}_file.json")
  p=$((p + 1))
done
echo "RESULT: $([[ $fail == 0 ]] && echo PASS || echo FAIL)"
exit $fail

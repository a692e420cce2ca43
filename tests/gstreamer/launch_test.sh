#!/usr/bin/env bash
# gst-launch-1.0 end to end: videotestsrc teed into x264enc ! avdec_h264 (the distorted stream)
# and straight into vif (the reference); vif must post a "vif" message for every frame, with
# scores in (0, 1], and one summary. Skips (exit 77) when x264enc or avdec_h264 is missing.
#   launch_test.sh PLUGIN_DIR
set -euo pipefail
export GST_PLUGIN_PATH=$1
frames=30
for e in vif x264enc avdec_h264 videotestsrc; do
  if ! gst-inspect-1.0 "$e" >/dev/null 2>&1; then
    [ "$e" = vif ] && { echo "FAIL: vif not found in $1"; exit 1; }
    echo "SKIP: GStreamer element $e missing"; exit 77
  fi
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
gst-launch-1.0 -m -e \
  videotestsrc num-buffers=$frames pattern=ball ! video/x-raw,format=I420,width=320,height=240,framerate=25/1 \
  ! tee name=t \
  t. ! queue ! x264enc speed-preset=ultrafast bitrate=200 ! avdec_h264 ! q.sink_1 \
  t. ! queue ! q.sink_0 \
  vif name=q backend=cpu ! fakesink >"$log" 2>&1 || { cat "$log"; echo "FAIL: gst-launch-1.0 failed"; exit 1; }
n=$(grep -c '(element): vif, frame=' "$log" || true)
s=$(grep -c '(element): vif-summary' "$log" || true)
echo "frames scored: $n of $frames, summaries: $s"
[ "$n" = "$frames" ] || { cat "$log"; echo "FAIL: expected $frames frame messages"; exit 1; }
[ "$s" = 1 ] || { cat "$log"; echo "FAIL: expected one vif-summary"; exit 1; }
# Every combined score is a number in (0, 1] (the encoded stream is close to its source).
bad=$(grep '(element): vif, frame=' "$log" | sed -n 's/.*integer_vif=(double)\([^,;]*\).*/\1/p' \
  | awk '!($1 > 0 && $1 <= 1) {c++} END {print c+0}')
got=$(grep -c 'integer_vif=(double)' "$log" || true)
[ "$got" = "$frames" ] && [ "$bad" = 0 ] || { cat "$log"; echo "FAIL: combined scores missing or out of range"; exit 1; }
echo PASS

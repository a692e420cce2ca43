#!/usr/bin/env bash
# `vif batch` on NVDEC for ladders (rows sharing a reference): the reference decoded once by
# NVDEC for all its rungs of its size, each frame scored against every rung by one submission
# (tools/vif/commands/ladder_run.cpp, media/device_pairs.cpp run_device_group). The small encodes
# of testdata/encoded (the GPU machine cannot make any):
#   batch_nvdec_groups_test.sh VIF CLIPS_DIR
# The same manifest with --hwdec cuda and with --hwdec none (every input decoded on the host)
# gives the same summary.csv and the same per-row outputs (all but the timing line), byte for
# byte; --verbose says which groups NVDEC took and which went the host way: an H.264 ladder of
# three rungs (one of them the reference itself), an HEVC Main10 ladder of two, a ladder with a
# rung shorter than the reference and a reference shorter than its rungs (the host path's notes,
# word for word), and a ladder with a rung of another size (upscaled on the host, so the whole
# group goes that way). Exit 77 (skipped) without a GPU or without NVDEC in this build.
set -uo pipefail
vif=$1 clips=$(cd "$2" && pwd) || { echo "FAIL: no folder $2"; exit 1; }
[[ -x $vif ]] || { echo "no vif CLI: skipped"; exit 77; }
"$vif" --version | grep -q "cuda available" || { echo "no GPU: skipped"; exit 77; }
for f in h264_ref.mp4 h264_dist.mkv h264_short.mkv h264_small.mkv hevc10_ref.mp4 hevc10_dist.mkv; do
  [[ -f $clips/$f ]] || { echo "FAIL: $clips/$f missing"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# Each group's reference is a name of its own (a link), so that the groups are the ladders below.
mkdir -p "$work/in"
for g in a b c d e; do
  ln -s "$clips/h264_ref.mp4" "$work/in/ref_$g.mp4"
done
ln -s "$clips/hevc10_ref.mp4" "$work/in/ref10.mp4"
ln -s "$clips/h264_short.mkv" "$work/in/short_ref.mkv"
c=$clips i=$work/in
cat > "$work/m.csv" <<EOF
reference,distorted
$i/ref_a.mp4,$c/h264_dist.mkv
$i/ref_a.mp4,$c/h264_short.mkv
$i/ref_a.mp4,$c/h264_ref.mp4
$i/ref10.mp4,$c/hevc10_dist.mkv
$i/ref10.mp4,$c/hevc10_ref.mp4
$i/short_ref.mkv,$c/h264_dist.mkv
$i/short_ref.mkv,$c/h264_ref.mp4
$i/ref_b.mp4,$c/h264_dist.mkv
$i/ref_b.mp4,$c/h264_small.mkv
$i/ref_c.mp4,$c/h264_dist.mkv
EOF
"$vif" batch -q --precision max --hwdec none --out-dir "$work/host" "$work/m.csv" > "$work/host.log" 2>&1 \
  || { bad "host decoding: rc=$?: $(cat "$work/host.log")"; exit 1; }
out=$("$vif" batch -q --precision max --hwdec cuda --verbose --devices 0 --out-dir "$work/nvdec" "$work/m.csv" 2>&1); rc=$?
if [[ $rc != 0 ]]; then
  [[ $out == *"no NVDEC support"* ]] && { echo "this build has no NVDEC: skipped"; exit 77; }
  bad "NVDEC: rc=$rc: $out"; exit 1
fi
if cmp -s "$work/host/summary.csv" "$work/nvdec/summary.csv"; then
  echo "PASS summary.csv = the host-decoded run's ($(($(wc -l < "$work/host/summary.csv") - 1)) rows)"
else
  bad "summary.csv differs from the host-decoded run's:"; diff "$work/host/summary.csv" "$work/nvdec/summary.csv"
fi
n=0
for f in "$work/host"/*.json; do
  g=$work/nvdec/$(basename "$f")
  if cmp -s <(grep -v '"fps"' "$f") <(grep -v '"fps"' "$g" 2>/dev/null); then
    n=$((n + 1))
  else
    bad "$(basename "$f") differs from the host-decoded run's"
  fi
done
[[ $n == 10 ]] && echo "PASS all 10 outputs = the host-decoded run's, bit for bit (--precision max)" \
  || bad "$n of 10 outputs equal"
# Which way each group went (--verbose): the ladders of one size on NVDEC, the one with a smaller
# rung on the host.
for want in "ref_a.mp4': 3 rungs on NVDEC" "ref10.mp4': 2 rungs on NVDEC" \
            "short_ref.mkv': 2 rungs on NVDEC" "ref_b.mp4': host path"; do
  grep -q "group of reference '[^']*$want" <<< "$out" && echo "PASS $want" \
    || bad "--verbose does not say \"$want\": $(grep 'hwdec: group' <<< "$out" | tr '\n' ' ')"
done
# The notes of the rows whose frame counts differ (the host path's words).
grep -q "fewer than the reference" "$work/nvdec/summary.csv" \
  && grep -q "more frames than the reference" "$work/nvdec/summary.csv" \
  && echo "PASS the short rung and the short reference are noted" \
  || bad "summary.csv lacks the frame-count notes"
[[ $fail == 0 ]] && echo "batch NVDEC groups: all checks passed"
exit $fail

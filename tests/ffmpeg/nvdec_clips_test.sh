#!/usr/bin/env bash
# The NVDEC segment decoder (media/segment_decoder.cpp through media/decode_loop.cpp) on the small
# encodes of testdata/encoded, which the GPU machine cannot make (no encoder there):
#   nvdec_clips_test.sh VIF CLIPS_DIR
# For an H.264 pair and an HEVC Main10 pair, `vif --hwdec cuda` with 3 decoders an input (the
# stream cut in segments decoded apart; --verbose counts them), 1 decoder, and 2 NVDEC + 2
# software decoders gives the scores of one software decoder (--hwdec none), bit for bit; so
# do software decoding in 3 segments and decoding started in software with NVDEC joining
# (VIF_TEST_SOFTWARE_FIRST=1). Exit 77 (skipped) without a GPU or without NVDEC in
# this build.
set -uo pipefail
vif=$1 clips=$2
[[ -x $vif ]] || { echo "no vif CLI: skipped"; exit 77; }
"$vif" --version | grep -q "cuda available" || { echo "no GPU: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
scores() { grep -v -e '"fps"' -e '"backend"' "$1"; }
for pair in "h264_ref.mp4 h264_dist.mkv" "hevc10_ref.mp4 hevc10_dist.mkv"; do
  set -- $pair
  r=$clips/$1 d=$clips/$2 n=${1%%_*}
  [[ -f $r && -f $d ]] || { bad "$n: clips missing in $clips"; continue; }
  "$vif" -q --precision max -r "$r" -d "$d" --backend cuda --hwdec none -o "$work/sw.json" \
    || { bad "$n: software decoding failed"; continue; }
  frames=$(grep -c '"frameNum"' "$work/sw.json")
  [[ $frames == 90 ]] || bad "$n: $frames frames scored, want 90"
  for mode in "3:--hwdec cuda --decoders 3 --cpu-decoders 0 --verbose" \
              "1:--hwdec cuda --decoders 1 --cpu-decoders 0" \
              "2+2:--hwdec cuda --decoders 2 --cpu-decoders 2" "sw3:--hwdec none --decoders 3"; do
    tag=${mode%%:*}
    # shellcheck disable=SC2086
    out=$("$vif" -q --precision max -r "$r" -d "$d" --backend cuda ${mode#*:} -o "$work/hw.json" 2>&1); rc=$?
    if [[ $rc != 0 ]]; then
      [[ $out == *"no NVDEC support"* ]] && { echo "this build has no NVDEC: skipped ($out)"; exit 77; }
      bad "$n decoders $tag: rc=$rc: $out"; continue
    fi
    if cmp -s <(scores "$work/sw.json") <(scores "$work/hw.json"); then
      echo "PASS $n decoders $tag: $frames frames, scores = one software decoder's"
    else
      bad "$n decoders $tag: scores differ from one software decoder's"
    fi
    if [[ $tag == 3 ]]; then
      segs=$(grep -oE 'hwdec: (reference|distorted): [0-9]+ segments' <<< "$out" | awk '{print $3}' | sort -n | head -1)
      [[ ${segs:-0} -ge 3 ]] && echo "PASS $n: each input cut in >= $segs segments" \
        || bad "$n: NVDEC did not decode in segments (--verbose: $(grep hwdec <<< "$out" | tr '\n' ' '))"
    fi
  done
  # Decoding started in software, NVDEC joining once CUDA is up (what `auto` does on long
  # clips; forced here on these short ones): the same scores, however the segments were shared.
  out=$(VIF_TEST_SOFTWARE_FIRST=1 "$vif" -q --precision max -r "$r" -d "$d" --backend cuda \
        --hwdec auto --verbose -o "$work/first.json" 2>&1); rc=$?
  shared=$(grep -oE 'hwdec: (reference|distorted): [0-9]+ segments: .*' <<< "$out" | tr '\n' ' ')
  if [[ $rc != 0 ]]; then
    bad "$n software first: rc=$rc: $out"
  elif [[ -z $shared ]]; then
    bad "$n software first: --verbose does not say how the segments were shared ($(grep hwdec <<< "$out" | tr '\n' ' '))"
  elif cmp -s <(scores "$work/sw.json") <(scores "$work/first.json"); then
    echo "PASS $n software first, NVDEC joining: scores = one software decoder's ($shared)"
  else
    bad "$n software first: scores differ from one software decoder's ($shared)"
  fi
done
[[ $fail == 0 ]] && echo "nvdec clips: all checks passed"
exit $fail

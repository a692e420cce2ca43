#!/usr/bin/env bash
# `vif --hwdec` on small encodes made here with the ffmpeg CLI.
#   hwdec_cli_test.sh VIF FFMPEG cpu   option handling; no GPU needed:
#       --hwdec none and auto give the same scores (auto decodes in software when the scoring
#       is not on CUDA); --hwdec cuda without a usable GPU / NVDEC is a clear error (exit 1),
#       with --backend cpu a usage error (exit 2); an unknown value is a usage error;
#       --decoder-threads 1 and 3 give the same scores as the automatic count; two encoded
#       inputs scored with contexts made while they open = the same frames as Y4M.
#   hwdec_cli_test.sh VIF FFMPEG gpu   NVDEC (needs a GPU): scores of NVDEC-decoded frames equal
#       those of software-decoded frames bit for bit (H.264 8-bit, HEVC Main10; 1 and 3
#       decoders an input, so that segments are decoded apart), and one raw (Y4M) input next to
#       an encoded one.
# Exit 77 (skipped) when ffmpeg or an encoder is missing, or (gpu) when there is no GPU/NVDEC.
set -uo pipefail
vif=$1 ffmpeg=$2 mode=$3
[[ -x $vif ]] || { echo "no vif CLI: skipped"; exit 77; }
[[ -n $ffmpeg && -x $ffmpeg ]] || { echo "no ffmpeg CLI: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
enc() { "$ffmpeg" -hide_banner -loglevel error -y "$@" || { echo "encoder missing: skipped"; exit 77; }; }
src="testsrc2=s=256x144:r=30:d=3,noise=alls=6:allf=t"
enc -f lavfi -i "$src" -pix_fmt yuv420p "$work/src.y4m"
enc -i "$work/src.y4m" -c:v libx264 -b:v 150k -g 30 -keyint_min 30 -sc_threshold 0 "$work/h264.mp4"
scores() { grep -v '"fps"' "$1"; }
run() { "$vif" -q --precision max "$@"; }

if [[ $mode == cpu ]]; then
  run -r "$work/src.y4m" -d "$work/h264.mp4" --hwdec none --backend cpu -o "$work/none.json" || bad "--hwdec none failed"
  run -r "$work/src.y4m" -d "$work/h264.mp4" --hwdec auto --backend cpu -o "$work/auto.json" || bad "--hwdec auto failed"
  cmp -s <(scores "$work/none.json") <(scores "$work/auto.json") || bad "--hwdec auto differs from none"
  run -r "$work/src.y4m" -d "$work/h264.mp4" --hwdec none --decoders 3 --backend cpu -o "$work/seg.json" || bad "--decoders 3 failed"
  cmp -s <(scores "$work/none.json") <(scores "$work/seg.json") || bad "software decoding in segments differs"
  # Two encoded inputs on the CPU: the scoring contexts are made while the inputs open (from
  # the reference's header); the scores equal those of the same frames decoded to Y4M first.
  enc -i "$work/src.y4m" -c:v libx264 -b:v 60k -g 30 "$work/h264q.mp4"
  enc -i "$work/h264.mp4" -pix_fmt yuv420p "$work/h264.y4m"
  enc -i "$work/h264q.mp4" -pix_fmt yuv420p "$work/h264q.y4m"
  out=$(run -r "$work/h264.mp4" -d "$work/h264q.mp4" --backend cpu --verbose -o "$work/early.json" 2>&1) || bad "two encoded inputs on the cpu failed: $out"
  [[ $out == *"scoring contexts made while the inputs opened"* ]] || bad "the contexts were not made while the inputs opened: $(grep timing <<< "$out" | tr '\n' ' ')"
  run -r "$work/h264.y4m" -d "$work/h264q.y4m" --backend cpu -o "$work/y4m.json" || bad "the Y4M pair failed"
  cmp -s <(scores "$work/early.json") <(scores "$work/y4m.json") || bad "contexts made early: scores differ from the Y4M pair's"
  for t in 1 3; do
    run -r "$work/src.y4m" -d "$work/h264.mp4" --backend cpu --decoder-threads $t -o "$work/dt.json" || bad "--decoder-threads $t failed"
    cmp -s <(scores "$work/none.json") <(scores "$work/dt.json") || bad "--decoder-threads $t differs"
  done
  out=$("$vif" -r "$work/h264.mp4" -d "$work/h264.mp4" --hwdec cuda --backend cpu 2>&1); rc=$?
  [[ $rc == 2 && $out == *"--hwdec cuda needs the cuda backend"* ]] || bad "--hwdec cuda --backend cpu: rc=$rc: $out"
  out=$("$vif" -r "$work/h264.mp4" -d "$work/h264.mp4" --hwdec bogus 2>&1); rc=$?
  [[ $rc == 2 && $out == *"unknown --hwdec 'bogus'"* ]] || bad "--hwdec bogus: rc=$rc: $out"
  out=$("$vif" -r "$work/src.y4m" -d "$work/src.y4m" --hwdec cuda 2>&1); rc=$?
  [[ $rc == 1 && $out == *"--hwdec cuda:"* ]] || bad "--hwdec cuda on Y4M only: rc=$rc: $out"
  # Without a GPU (CI): a clear error, nothing written.
  if ! "$vif" --version | grep -q "cuda available"; then
    out=$("$vif" -r "$work/h264.mp4" -d "$work/h264.mp4" --hwdec cuda -o "$work/x.json" 2>&1); rc=$?
    [[ $rc == 1 && $out == *"--hwdec cuda:"* && ! -e $work/x.json ]] || bad "--hwdec cuda without a GPU: rc=$rc: $out"
  fi
else
  "$vif" --version | grep -q "cuda available" || { echo "no GPU: skipped"; exit 77; }
  enc -f lavfi -i "$src" -pix_fmt yuv420p10le -c:v libx265 -b:v 150k -x265-params \
      "keyint=30:min-keyint=30:scenecut=0:open-gop=0:log-level=error" "$work/hevc10.mkv"
  enc -f lavfi -i "$src" -pix_fmt yuv420p10le "$work/src10.y4m"
  for pair in "src.y4m h264.mp4" "h264.mp4 src.y4m" "src10.y4m hevc10.mkv"; do
    set -- $pair
    run -r "$work/$1" -d "$work/$2" --hwdec none --backend cuda -o "$work/sw.json" || bad "$pair: software decoding failed"
    for n in 1 3; do
      out=$(run -r "$work/$1" -d "$work/$2" --hwdec cuda --decoders $n -o "$work/hw.json" 2>&1); rc=$?
      [[ $rc == 0 ]] || { [[ $out == *"NVDEC"* ]] && { echo "NVDEC unavailable: skipped ($out)"; exit 77; }; bad "$pair: --hwdec cuda: $out"; }
      cmp -s <(scores "$work/sw.json") <(scores "$work/hw.json") || bad "$pair: NVDEC ($n decoders) differs from software"
    done
  done
fi
[[ $fail == 0 ]] && echo "hwdec $mode: all checks passed"
exit $fail

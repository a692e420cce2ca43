#!/usr/bin/env bash
# The encoded clips bench/startup/startup_bench.py reads, in one folder to carry to the GPU
# machine (it has no encoder): the 48-frame 1080p x264 probe pair of bench/ladder
# (src1080.mkv, r1920x1080.mkv) and bench/nvdec's 1,200-frame 1080p H.264 and 600-frame 2160p
# HEVC Main10 pairs, and a heavy 240-frame 1080p pair made of the probe pair (about 59 MB in
# all). Clips already made elsewhere are copied, not remade.
#   bench/startup/make_clips.sh [DIR]   (default bench/startup/clips; git-ignored)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/bench/startup/clips}
mkdir -p "$dir"
nvdec=$root/bench/nvdec/clips
for f in h264_src.mp4 h264_enc.mkv hevc_src.mp4 hevc_enc.mkv; do
  [[ -s $dir/$f ]] && continue
  [[ -s $nvdec/$f ]] || bash "$root/bench/nvdec/make_clips.sh" "$nvdec"
  cp "$nvdec/$f" "$dir/$f"
done
if [[ ! -s $dir/src1080.mkv || ! -s $dir/r1920x1080.mkv ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # Only the probe's two files are kept (make_ladder_clips.sh also makes the smaller rungs).
  bash "$root/bench/ladder/make_ladder_clips.sh" "$tmp" 48 > /dev/null
  cp "$tmp/src1080.mkv" "$tmp/r1920x1080.mkv" "$dir/"
fi
# A heavy 1080p pair for the curve points (bench/startup's heavy1080): the probe pair, whose CRF
# 17 reference is the heaviest decoding measured (about 76 KB a frame), five times over by stream
# copy (no encoder needed): 240 frames, about 21 MB.
for f in src1080:heavy_src.mkv r1920x1080:heavy_enc.mkv; do
  [[ -s $dir/${f#*:} ]] && continue
  list=$(mktemp)
  for _ in 1 2 3 4 5; do echo "file '$dir/${f%%:*}.mkv'"; done > "$list"
  ffmpeg -hide_banner -loglevel error -f concat -safe 0 -i "$list" -c copy -y "$dir/${f#*:}"
  rm -f "$list"
done
du -sh "$dir"
ls -l "$dir"

#!/usr/bin/env bash
# A 6-rung encoding ladder small enough to carry to the GPU machine (which has no ffmpeg): a
# 1080p "mezzanine" source (testsrc2 with temporal noise, x264 CRF 17) and six x264 rungs from
# 1920x1080 down to 480x270, each scaled from the decoded source with bicubic, as a ladder is made.
# Writes DIR/src1080.mkv and DIR/r<W>x<H>.mkv.
#
#   bench/ladder/make_ladder_clips.sh DIR [FRAMES]
set -euo pipefail
DIR=${1:?usage: make_ladder_clips.sh DIR [FRAMES]}
N=${2:-48}
F="ffmpeg -hide_banner -loglevel error -nostdin -y"
mkdir -p "$DIR" && cd "$DIR"
[ -f src1080.mkv ] || $F -f lavfi -i "testsrc2=s=1920x1080:r=25,noise=alls=3:allf=t:all_seed=1" \
  -frames:v "$N" -pix_fmt yuv420p -c:v libx264 -preset veryfast -crf 17 -threads 2 src1080.mkv
for s in 1920x1080 1280x720 960x540 768x432 640x360 480x270; do
  [ -f "r$s.mkv" ] || $F -i src1080.mkv -vf "scale=${s/x/:}:flags=bicubic" -c:v libx264 \
    -preset veryfast -crf 28 -threads 2 "r$s.mkv"
done
ls -l "$PWD"

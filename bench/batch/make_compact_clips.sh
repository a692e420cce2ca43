#!/usr/bin/env bash
# The batch workload of issue 10 in a form small enough to carry to the GPU machine (which has
# no ffmpeg): 100 pairs of 48 frames of 576x324, 20 sources x 5 x264 encodes, every file an MKV
# (the references too: x264 at CRF 18; about 4.5 MB in all, where Y4M references would be
# 270 MB). Writes DIR/clips/*.mkv and DIR/m100.csv (reference,distorted; paths relative to DIR).
#
#   bench/batch/make_compact_clips.sh DIR
set -euo pipefail
DIR=${1:?usage: make_compact_clips.sh DIR}
F="ffmpeg -hide_banner -loglevel error -nostdin -y"
mkdir -p "$DIR/clips" && cd "$DIR"
if [ ! -f clips/done ]; then
  for s in $(seq 0 19); do
    case $((s % 4)) in
      0) in="testsrc2=s=576x324:r=25" ;; 1) in="mandelbrot=s=576x324:r=25" ;;
      2) in="testsrc=s=576x324:r=25" ;; 3) in="rgbtestsrc=s=576x324:r=25" ;;
    esac
    $F -f lavfi -i "$in,hue=H=$s*0.3,gblur=sigma=0.$((s % 5 + 3))" -frames:v 48 -pix_fmt yuv420p \
      -c:v libx264 -preset veryfast -crf 18 -threads 2 clips/s$s.mkv
    for c in 0 1 2 3 4; do
      $F -i clips/s$s.mkv -c:v libx264 -preset veryfast -crf $((24 + 5 * c)) -threads 2 clips/s${s}_c$c.mkv
    done
  done
  touch clips/done
fi
{
  echo "reference,distorted"
  for s in $(seq 0 19); do for c in 0 1 2 3 4; do echo "clips/s$s.mkv,clips/s${s}_c$c.mkv"; done; done
} > m100.csv

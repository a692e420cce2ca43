#!/usr/bin/env bash
# Makes the NVDEC benchmark clips with Debian's ffmpeg (libx264, libx265, libsvtav1): a synthetic
# but textured source (testsrc2 plus temporal noise), 30 fps, 2-second closed GOPs (60 frames),
# each as a "source" (higher bitrate) and an "encode" (lower bitrate) of the same frames.
#   h264_src.mp4 / h264_enc.mkv    1920x1080 8-bit 4:2:0, 1,200 frames  (x264)
#   hevc_src.mp4 / hevc_enc.mkv    3840x2160 Main10,       600 frames  (x265)
#   av1_src.mkv  / av1_enc.ivf     1920x1080 8-bit 4:2:0,   300 frames  (SVT-AV1)
# Bitrates are modest so that all of them (about 42 MB) travel to the GPU machine with the binary.
# Not committed (too big). Use: bench/nvdec/make_clips.sh [dir]   (default bench/nvdec/clips)
set -euo pipefail
dir=${1:-$(dirname "$0")/clips}
mkdir -p "$dir"
ff() { nice ffmpeg -hide_banner -loglevel error -y "$@"; }
gop=60
# The source filter ends by itself (d=): -frames:v would bind to the first output only.
src1080() { echo "testsrc2=s=1920x1080:r=30:d=$1,noise=alls=8:allf=t+u"; }
[[ -s $dir/h264_enc.mkv ]] || ff -f lavfi -i "$(src1080 40)" -filter_complex "[0:v]split[a][b]" \
  -map "[a]" -c:v libx264 -preset veryfast -b:v 3M -maxrate 4M -bufsize 6M -g $gop -keyint_min $gop \
     -sc_threshold 0 -pix_fmt yuv420p "$dir/h264_src.mp4" \
  -map "[b]" -c:v libx264 -preset veryfast -b:v 1M -maxrate 1.5M -bufsize 2M -g $gop -keyint_min $gop \
     -sc_threshold 0 -pix_fmt yuv420p "$dir/h264_enc.mkv"
x265p="keyint=$gop:min-keyint=$gop:scenecut=0:open-gop=0:log-level=error"
[[ -s $dir/hevc_enc.mkv ]] || ff -f lavfi -i "testsrc2=s=3840x2160:r=30:d=20,noise=alls=8:allf=t+u" \
  -filter_complex "[0:v]format=yuv420p10le,split[a][b]" \
  -map "[a]" -c:v libx265 -preset ultrafast -profile:v main10 -b:v 4M -x265-params "$x265p" "$dir/hevc_src.mp4" \
  -map "[b]" -c:v libx265 -preset ultrafast -profile:v main10 -b:v 1.5M -x265-params "$x265p" "$dir/hevc_enc.mkv"
[[ -s $dir/av1_enc.ivf ]] || ff -f lavfi -i "$(src1080 10)" -filter_complex "[0:v]split[a][b]" \
  -map "[a]" -c:v libsvtav1 -preset 12 -b:v 2M -g $gop -pix_fmt yuv420p "$dir/av1_src.mkv" \
  -map "[b]" -c:v libsvtav1 -preset 12 -b:v 700k -g $gop -pix_fmt yuv420p "$dir/av1_enc.ivf"
# Small checks: a raw (Y4M) input next to an encoded one (10-frame GOPs: several segments), and
# a 130-frame H.264 MKV with a copy whose packet 90 has a broken NAL length (a damaged stream).
[[ -s $dir/small_enc.mp4 ]] || { ff -f lavfi -i "testsrc2=s=320x240:r=30:d=1,noise=alls=8:allf=t+u" \
  -pix_fmt yuv420p "$dir/small_src.y4m" && ff -i "$dir/small_src.y4m" -c:v libx264 -preset veryfast \
  -b:v 200k -g 10 -keyint_min 10 -sc_threshold 0 "$dir/small_enc.mp4"; }
if [[ ! -s $dir/corrupt.mkv ]]; then
  ff -i "$dir/h264_enc.mkv" -frames:v 130 -c copy "$dir/h264_enc130.mkv"
  pos=$(ffprobe -v error -select_streams v -show_entries packet=pos -of csv=p=0 "$dir/h264_enc130.mkv" | sed -n 91p)
  cp "$dir/h264_enc130.mkv" "$dir/corrupt.mkv"
  # pos is the Matroska block: 4 header bytes, then the NAL length: overwrite from its 2nd byte.
  printf '\xff%.0s' $(seq 40) | dd of="$dir/corrupt.mkv" bs=1 seek=$((pos + 5)) conv=notrunc status=none
fi
ls -l "$dir"

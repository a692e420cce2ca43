#!/usr/bin/env bash
# Builds a minimal static FFmpeg 5.1 with NVDEC (libavcodec's `cuda` hwaccel through the
# dynamically loaded ffnvcodec headers) for the vif CLI's --hwdec cuda path, into an ignored
# prefix (default .deps/ffmpeg-nvdec). The result links into a CLI that runs on a machine with
# an NVIDIA driver (libcuda, libnvcuvid: loaded at run time) and no FFmpeg installed.
#
# Needs (Debian 12): a deb-src entry, then
#   apt-get source ffmpeg          (or pass the unpacked source as $FFMPEG_SRC)
#   apt-get install libffmpeg-nvenc-dev nasm libdav1d-dev pkg-config
# Software AV1 decoding uses libdav1d (FFmpeg 5.1's native `av1` decoder only drives hwaccels);
# libdav1d stays a shared library (Debian ships no static one): carry libdav1d.so.6 with the
# binary where there is none.
#
# Use:   scripts/build-ffmpeg-nvdec.sh [prefix]   (session 9's patched build: .deps/ffmpeg-nvdec-keep)
# Then:  cmake ... -DVIF_FFMPEG_ROOT=$PWD/.deps/ffmpeg-nvdec -DCMAKE_CUDA_ARCHITECTURES=90
#        (bench/nvdec/pack.sh packs the CLI, its libraries and the clips for the GPU machine).
# This FFmpeg has only what the NVDEC path needs: tests/ffmpeg's encodes (FFV1, NUT, MPEG-4,
# audio, ...) fail to decode with it, so run the test suite on a build with the system FFmpeg.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(realpath -m "${1:-$root/.deps/ffmpeg-nvdec}")
src=${FFMPEG_SRC:-}
if [[ -z $src ]]; then
  src=$(ls -d "$root"/.deps/src/ffmpeg-5.1*/ 2>/dev/null | head -1 || true); src=${src%/}
fi
if [[ -z $src || ! -x $src/configure ]]; then
  mkdir -p "$root/.deps/src"
  (cd "$root/.deps/src" && apt-get source ffmpeg)
  src=$(ls -d "$root"/.deps/src/ffmpeg-5.1*/ | head -1); src=${src%/}
fi
# libvif's patches (scripts/ffmpeg-patches, each applied once): nvdec-keep-decoders.patch keeps
# cuvid decoders for reuse where the environment asks (VIF_NVDEC_KEEP_DECODERS=1, which `vif
# batch` sets on GPUs): the driver makes NVDEC sessions one at a time for the whole host, and
# FFmpeg 5.1's H.264 decoder makes a new one for every input; with the same variable the decoder
# capabilities are asked for once a device (the driver answers those one at a time too).
for p in "$root"/scripts/ffmpeg-patches/*.patch; do
  [[ -e $p ]] || continue
  if patch -d "$src" -p1 -R -s -f --dry-run < "$p" > /dev/null 2>&1; then continue; fi # applied
  patch -d "$src" -p1 -s -f < "$p"
done
jobs=${JOBS:-2}
build=$root/.deps/build-ffmpeg-nvdec
mkdir -p "$build"
cd "$build"
nice "$src/configure" \
  --prefix="$prefix" \
  --disable-everything --disable-autodetect \
  --enable-static --disable-shared --enable-pic \
  --disable-programs --disable-doc --disable-debug \
  --disable-avdevice --disable-avfilter --disable-swresample --disable-postproc \
  --enable-avcodec --enable-avformat --enable-avutil --enable-swscale \
  --enable-pthreads --enable-x86asm \
  --enable-ffnvcodec --enable-cuda --enable-nvdec \
  --enable-libdav1d \
  --enable-decoder=h264,hevc,av1,libdav1d,rawvideo,wrapped_avframe \
  --enable-hwaccel=h264_nvdec,hevc_nvdec,av1_nvdec \
  --enable-demuxer=mov,matroska,ivf,yuv4mpegpipe,h264,hevc,obu,rawvideo \
  --enable-parser=h264,hevc,av1 \
  --enable-bsf=av1_frame_split,av1_frame_merge,h264_mp4toannexb,hevc_mp4toannexb \
  --enable-protocol=file,pipe
nice make -j"$jobs"
make install
# Relocatable .pc files: the prefix is carried to the GPU machine under another path.
sed -i 's|^prefix=.*|prefix=${pcfiledir}/../..|; s|^libdir=.*|libdir=${prefix}/lib|; s|^includedir=.*|includedir=${prefix}/include|' \
  "$prefix"/lib/pkgconfig/*.pc
# libdav1d beside the static libraries, as plain files (carried without links): link with
# LIBRARY_PATH=$prefix/lib, run with LD_LIBRARY_PATH=$prefix/lib where the system has none.
cp -L "$(pkg-config --variable=libdir dav1d)/libdav1d.so.6" "$prefix/lib/libdav1d.so.6"
cp -L "$prefix/lib/libdav1d.so.6" "$prefix/lib/libdav1d.so"
echo "FFmpeg with NVDEC installed in $prefix"

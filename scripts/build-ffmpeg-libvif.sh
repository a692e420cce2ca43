#!/usr/bin/env bash
# Builds FFmpeg 5.1 (Debian 12's source) with the `libvif` filter (integrations/ffmpeg) into a
# prefix: ffmpeg and ffprobe, linked against an installed libvif found through pkg-config.
#
# Use:   scripts/build-ffmpeg-libvif.sh [--ci] PREFIX
#   --ci       a small static configuration with only what tests/ffmpeg_filter uses (raw video,
#              Y4M, Matroska with FFV1, the scale/format/metadata/movie filters, the lavfi input
#              device for ffprobe): a few minutes on 2 cores. Without it: FFmpeg's default configuration plus --enable-libvif.
# Environment:
#   VIF_PREFIX   installed libvif (cmake --install build --prefix DIR) with vif-ffmpeg.pc;
#                default .deps/libvif-prefix
#   FFMPEG_SRC   an unpacked FFmpeg 5.1 source; default .deps/src/ffmpeg-5.1*, fetched with
#                `apt-get source ffmpeg` when missing (a deb-src entry is added when there is none)
#   JOBS         make -j (default 2)
#   CUDA: when the ffnvcodec headers are found (pkg-config ffnvcodec, Debian's
#   libffmpeg-nvenc-dev, or FFNVCODEC_PREFIX), the cuda/nvdec hwaccels (--ci: H.264 and HEVC)
#   are enabled too, so `-hwaccel cuda -hwaccel_output_format cuda` frames reach the filter.
# The build is skipped when PREFIX already holds one made from the same FFmpeg source, patches,
# options, filter source and libvif headers (PREFIX/.libvif-build-key); a configured tree of the
# same source, patches and options is reused (only a changed filter source is recompiled).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ci=0
if [[ ${1:-} == --ci ]]; then ci=1; shift; fi
[[ $# -eq 1 ]] || { echo "usage: $0 [--ci] PREFIX" >&2; exit 2; }
prefix=$(realpath -m "$1")
vif_prefix=$(realpath -m "${VIF_PREFIX:-$root/.deps/libvif-prefix}")
jobs=${JOBS:-2}
patches=("$root"/integrations/ffmpeg/patches/*.patch)
filter_src=$root/integrations/ffmpeg/vf_libvif.c

vif_pc=$(ls -d "$vif_prefix"/lib*/pkgconfig "$vif_prefix"/lib/*/pkgconfig 2>/dev/null | head -1 || true)
if [[ -z $vif_pc || ! -f $vif_pc/vif-ffmpeg.pc ]]; then
  echo "build-ffmpeg-libvif: no vif-ffmpeg.pc under $vif_prefix: install libvif built with" \
       "FFmpeg there first (cmake --install build --prefix $vif_prefix)" >&2
  exit 1
fi

# ---- FFmpeg's source ----------------------------------------------------------------------
src=${FFMPEG_SRC:-}
if [[ -z $src ]]; then
  src=$(ls -d "$root"/.deps/src/ffmpeg-5.1*/ 2>/dev/null | head -1 || true); src=${src%/}
fi
if [[ -z $src || ! -x $src/configure ]]; then
  sudo_cmd=""; [[ $(id -u) == 0 ]] || sudo_cmd=sudo
  if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "build-ffmpeg-libvif: adding a deb-src entry for Debian 12 (bookworm)"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $sudo_cmd tee /etc/apt/sources.list.d/libvif-deb-src.sources >/dev/null
    $sudo_cmd apt-get update -qq
  fi
  command -v dpkg-source >/dev/null || $sudo_cmd apt-get install -y -qq --no-install-recommends dpkg-dev
  mkdir -p "$root/.deps/src"
  (cd "$root/.deps/src" && apt-get source -qq ffmpeg)
  src=$(ls -d "$root"/.deps/src/ffmpeg-5.1*/ | head -1); src=${src%/}
fi
version=$(cat "$src/RELEASE" 2>/dev/null || echo unknown)
[[ $version == 5.1* ]] || echo "build-ffmpeg-libvif: warning: FFmpeg $version, the series is made for 5.1" >&2
command -v nasm >/dev/null || { echo "build-ffmpeg-libvif: nasm is needed (apt-get install nasm)" >&2; exit 1; }

# ---- CUDA hwaccels when the headers are there ------------------------------------------------
export PKG_CONFIG_PATH="$vif_pc${FFNVCODEC_PREFIX:+:$FFNVCODEC_PREFIX/lib/pkgconfig}${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cuda_opts=(--disable-ffnvcodec --disable-cuda --disable-nvdec)
if pkg-config --exists ffnvcodec; then
  # cuvid: the h264_cuvid/hevc_cuvid decoders (NVDEC behind its own parser, -surfaces), which
  # bench/ffmpeg/gpu_run.sh times beside the nvdec hwaccel.
  cuda_opts=(--enable-ffnvcodec --enable-cuda --enable-nvdec --enable-cuvid)
  # shellcheck disable=SC2054  # commas inside configure's values, not array separators
  [[ $ci == 1 ]] && cuda_opts+=(--enable-hwaccel=h264_nvdec,hevc_nvdec
                               --enable-decoder=h264,hevc,h264_cuvid,hevc_cuvid
                               --enable-demuxer=mov,h264,hevc
                               --enable-parser=h264,hevc --enable-filter=hwupload_cuda,hwdownload
                               --enable-bsf=h264_mp4toannexb,hevc_mp4toannexb)
fi

if [[ $ci == 1 ]]; then
  # shellcheck disable=SC2054  # commas inside configure's values, not array separators
  # The lavfi input device and the movie source let ffprobe read a filtergraph's frames (the
  # metadata test).
  opts=(--disable-everything --disable-autodetect --disable-doc --disable-network
        --disable-ffplay --disable-swresample --disable-postproc --enable-indev=lavfi
        --enable-ffmpeg --enable-ffprobe --enable-avfilter --enable-swscale --enable-pthreads
        --enable-decoder=rawvideo,ffv1,wrapped_avframe
        --enable-encoder=rawvideo,ffv1,wrapped_avframe
        --enable-demuxer=rawvideo,yuv4mpegpipe,matroska
        --enable-muxer=rawvideo,yuv4mpegpipe,matroska,null
        --enable-filter=libvif,scale,format,metadata,null,setpts,trim,split,movie
        --enable-protocol=file,pipe)
else
  opts=()
fi
opts+=(--prefix="$prefix" --enable-libvif "${cuda_opts[@]}"
       --extra-ldflags="-Wl,-rpath,$(dirname "$vif_pc")")

# conf_key: what the configured tree depends on; key: what the installed binary depends on.
conf_key=$( { echo "$version ${opts[*]}"; cat "${patches[@]}"; } | sha256sum | cut -c1-16)
key=$( { echo "$conf_key"; cat "$filter_src" "$vif_prefix"/include/vif/*.h; } | sha256sum | cut -c1-16)
if [[ -x $prefix/bin/ffmpeg && $(cat "$prefix/.libvif-build-key" 2>/dev/null) == "$key" ]]; then
  echo "build-ffmpeg-libvif: $prefix/bin/ffmpeg is up to date ($key)"
  exit 0
fi

# ---- a patched copy of the source --------------------------------------------------------
work=$root/.deps/build-ffmpeg-libvif$([[ $ci == 1 ]] && echo -ci)
# A configured tree of the same key is built on (an interrupted build resumes).
if [[ $(cat "$work/.key" 2>/dev/null) == "$conf_key" && -f $work/build/ffbuild/config.mak ]]; then
  cd "$work/build"
  echo "build-ffmpeg-libvif: resuming the build in $work"
else
rm -rf "$work"
mkdir -p "$work"
cp -a "$src" "$work/src"
for p in "${patches[@]}"; do
  if ! (cd "$work/src" && patch -p1 --dry-run --quiet <"$p" >/dev/null); then
    echo "build-ffmpeg-libvif: $(basename "$p") does not apply to FFmpeg $version" >&2
    (cd "$work/src" && patch -p1 --dry-run <"$p") >&2 || true
    exit 1
  fi
  (cd "$work/src" && patch -p1 --quiet --no-backup-if-mismatch <"$p")
done
cp "$filter_src" "$work/src/libavfilter/vf_libvif.c"

mkdir -p "$work/build"
cd "$work/build"
echo "build-ffmpeg-libvif: configuring FFmpeg $version$([[ $ci == 1 ]] && echo " (CI configuration)")"
if ! nice "$work/src/configure" "${opts[@]}" >configure.out 2>&1; then
  tail -20 configure.out >&2
  tail -30 ffbuild/config.log >&2 || true
  exit 1
fi
grep -qs 'CONFIG_LIBVIF_FILTER 1' config_components.h config.h || { echo "build-ffmpeg-libvif: the libvif filter is not enabled" >&2; exit 1; }
echo "$conf_key" >"$work/.key"
fi
# The filter source (a changed one recompiles alone), and libvif's headers through it.
cmp -s "$filter_src" "$work/src/libavfilter/vf_libvif.c" || cp "$filter_src" "$work/src/libavfilter/vf_libvif.c"
nice make -j"$jobs" >make.out 2>&1 || { grep -E 'error|Error' make.out | head -30 >&2; tail -20 make.out >&2; exit 1; }
make install >install.out 2>&1 || { tail -20 install.out >&2; exit 1; }
echo "$key" >"$prefix/.libvif-build-key"
echo "build-ffmpeg-libvif: $prefix/bin/ffmpeg with the libvif filter"

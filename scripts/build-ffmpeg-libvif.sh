#!/usr/bin/env bash
# Builds FFmpeg 5.1 (Debian 12's source) or 7.1 (Debian 13's) with the `libvif` filter
# (integrations/ffmpeg) into a prefix: ffmpeg and ffprobe, linked against an installed libvif
# found through pkg-config.
#
# Use:   scripts/build-ffmpeg-libvif.sh [--ci] [--ffmpeg 5.1|7.1] PREFIX
#   --ffmpeg   the FFmpeg release (default 5.1) and so the series integrations/ffmpeg/patches/VER.
#              7.1's source comes from Debian 13 (trixie) through a private apt state
#              (.deps/apt-trixie: its own sources list and package lists, deb-src only), so the
#              system's apt sources never see trixie; it is unpacked into .deps/src-7.1.
#   --ci       a small static configuration with only what tests/ffmpeg_filter uses (raw video,
#              Y4M, Matroska with FFV1, the scale/format/metadata/movie filters, the lavfi input
#              device for ffprobe): a few minutes on 2 cores. Without it: FFmpeg's default configuration plus --enable-libvif.
# Environment:
#   VIF_PREFIX   installed libvif (cmake --install build --prefix DIR) with vif-ffmpeg.pc;
#                default .deps/libvif-prefix
#   FFMPEG_SRC   an unpacked FFmpeg source of that release; default .deps/src/ffmpeg-5.1*
#                (5.1, fetched with `apt-get source ffmpeg` when missing; a deb-src entry is added
#                when there is none) or .deps/src-7.1/ffmpeg-7.1* (7.1, see --ffmpeg)
#   JOBS         make -j (default 2)
#   7.1: the ffmpeg binary loads PREFIX/lib/libvif_ffmpeg.so.1 first (its rpath), a glue built
#   against 7.1's own libavutil by scripts/build-vif-ffmpeg-glue.sh (VIF_PREFIX's vif_ffmpeg
#   is compiled against the system's FFmpeg 5.1, whose AVFrame layout and pixel-format numbers
#   differ; it serves only configure's link check). On a CUDA machine rebuild that glue from
#   the CUDA build: scripts/build-vif-ffmpeg-glue.sh PREFIX BUILD_DIR DIR, DIR first on
#   LD_LIBRARY_PATH.
#   CUDA: when the ffnvcodec headers are found (pkg-config ffnvcodec, Debian's
#   libffmpeg-nvenc-dev, or FFNVCODEC_PREFIX), the cuda/nvdec hwaccels (--ci: H.264 and HEVC)
#   are enabled too, so `-hwaccel cuda -hwaccel_output_format cuda` frames reach the filter.
# The build is skipped when PREFIX already holds one made from the same FFmpeg source, patches,
# options, filter source and libvif headers (PREFIX/.libvif-build-key); a configured tree of the
# same source, patches and options is reused (only a changed filter source is recompiled).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ci=0
ffver=5.1
usage() { echo "usage: $0 [--ci] [--ffmpeg 5.1|7.1] PREFIX" >&2; exit 2; }
while [[ ${1:-} == --* ]]; do
  case $1 in
    --ci) ci=1; shift ;;
    --ffmpeg) [[ $# -ge 2 ]] || usage; ffver=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ $# -eq 1 ]] || usage
[[ $ffver == 5.1 || $ffver == 7.1 ]] ||
  { echo "build-ffmpeg-libvif: no series for FFmpeg $ffver (integrations/ffmpeg/patches has 5.1 and 7.1)" >&2; exit 2; }
prefix=$(realpath -m "$1")
vif_prefix=$(realpath -m "${VIF_PREFIX:-$root/.deps/libvif-prefix}")
jobs=${JOBS:-2}
patches=("$root"/integrations/ffmpeg/patches/"$ffver"/*.patch)
filter_src=$root/integrations/ffmpeg/vf_libvif.c

vif_pc=$(ls -d "$vif_prefix"/lib*/pkgconfig "$vif_prefix"/lib/*/pkgconfig 2>/dev/null | head -1 || true)
if [[ -z $vif_pc || ! -f $vif_pc/vif-ffmpeg.pc ]]; then
  echo "build-ffmpeg-libvif: no vif-ffmpeg.pc under $vif_prefix: install libvif built with" \
       "FFmpeg there first (cmake --install build --prefix $vif_prefix)" >&2
  exit 1
fi

# ---- FFmpeg's source ----------------------------------------------------------------------
# apt-get on Debian 13's (trixie's) source packages only: a private sources list (one deb-src
# line), package lists and cache under .deps/apt-trixie, none of the system's sources parts.
trixie_apt() {
  local apt_dir=$root/.deps/apt-trixie
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' \
    >"$apt_dir/trixie.list"
  apt-get -qq -o Dir::Etc::SourceList="$apt_dir/trixie.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" "$@"
}

# Where each release's source is unpacked (5.1's place predates the option and stays).
src_dir=$root/.deps/src$([[ $ffver == 5.1 ]] || echo "-$ffver")
src=${FFMPEG_SRC:-}
if [[ -z $src ]]; then
  src=$(ls -d "$src_dir"/ffmpeg-"$ffver"*/ 2>/dev/null | head -1 || true); src=${src%/}
fi
if [[ -z $src || ! -x $src/configure ]] && [[ $ffver == 7.1 ]]; then
  # Debian 13's source package through a private apt configuration: its own sources list (one
  # deb-src line), package lists and cache, none of the system's sources parts. Nothing is
  # installed from it; `apt-get source` only downloads and unpacks.
  sudo_cmd=""; [[ $(id -u) == 0 ]] || sudo_cmd=sudo
  command -v dpkg-source >/dev/null || $sudo_cmd apt-get install -y -qq --no-install-recommends dpkg-dev
  mkdir -p "$src_dir"
  echo "build-ffmpeg-libvif: fetching FFmpeg 7.1's source from Debian 13 (trixie) into $src_dir"
  trixie_apt update
  (cd "$src_dir" && trixie_apt source ffmpeg)
  src=$(ls -d "$src_dir"/ffmpeg-7.1*/ 2>/dev/null | head -1 || true); src=${src%/}
  [[ -n $src ]] || { echo "build-ffmpeg-libvif: trixie's ffmpeg source is not 7.1 (ls $src_dir)" >&2; exit 1; }
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
[[ $version == "$ffver"* ]] || echo "build-ffmpeg-libvif: warning: FFmpeg $version, the series is made for $ffver" >&2
command -v nasm >/dev/null || { echo "build-ffmpeg-libvif: nasm is needed (apt-get install nasm)" >&2; exit 1; }

# ---- CUDA hwaccels when the headers are there ------------------------------------------------
# 7.1 wants ffnvcodec >= 11.1.5.3, Debian 12 has 11.1.5.2: trixie's nv-codec-headers (headers
# and a .pc file, nothing compiled) into .deps/ffnvcodec-7.1 when the system's are older.
if [[ $ffver == 7.1 && -z ${FFNVCODEC_PREFIX:-} ]] && pkg-config --exists ffnvcodec &&
   ! pkg-config --exists 'ffnvcodec >= 11.1.5.3'; then
  FFNVCODEC_PREFIX=$root/.deps/ffnvcodec-7.1
  if [[ ! -f $FFNVCODEC_PREFIX/lib/pkgconfig/ffnvcodec.pc ]]; then
    nv_src=$root/.deps/src-7.1/nv-codec-headers
    rm -rf "$nv_src" && mkdir -p "$nv_src"
    echo "build-ffmpeg-libvif: ffnvcodec $(pkg-config --modversion ffnvcodec) is too old for 7.1: trixie's nv-codec-headers into $FFNVCODEC_PREFIX"
    trixie_apt update
    # Only the upstream tarball is used (the Debian packaging is not needed for headers).
    (cd "$nv_src" && trixie_apt source --download-only nv-codec-headers) || true
    orig=$(ls "$nv_src"/nv-codec-headers_*.orig.tar.* 2>/dev/null | head -1 || true)
    [[ -n $orig ]] || { echo "build-ffmpeg-libvif: could not fetch trixie's nv-codec-headers" >&2; exit 1; }
    tar -C "$nv_src" -xf "$orig"
    make -C "$(ls -d "$nv_src"/nv-codec-headers-*/ | head -1)" install PREFIX="$FFNVCODEC_PREFIX" >/dev/null
  fi
fi
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
rpath=$(dirname "$vif_pc")
[[ $ffver == 5.1 ]] || rpath=$prefix/lib:$rpath # its own glue first (see above)
opts+=(--prefix="$prefix" --enable-libvif "${cuda_opts[@]}" --extra-ldflags="-Wl,-rpath,$rpath")

# conf_key: what the configured tree depends on; key: what the installed binary depends on.
conf_key=$( { echo "$version ${opts[*]}"; cat "${patches[@]}"; } | sha256sum | cut -c1-16)
glue_src=("$root"/libvif/ffmpeg/*.cpp "$root"/scripts/build-vif-ffmpeg-glue.sh)
key=$( { echo "$conf_key"; cat "$filter_src" "$vif_prefix"/include/vif/*.h "${glue_src[@]}"; } | sha256sum | cut -c1-16)
if [[ -x $prefix/bin/ffmpeg && $(cat "$prefix/.libvif-build-key" 2>/dev/null) == "$key" ]]; then
  echo "build-ffmpeg-libvif: $prefix/bin/ffmpeg is up to date ($key)"
  exit 0
fi

# ---- a patched copy of the source --------------------------------------------------------
work=$root/.deps/build-ffmpeg-libvif$([[ $ci == 1 ]] && echo -ci)$([[ $ffver == 5.1 ]] || echo "-$ffver")
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
if [[ $ffver != 5.1 ]]; then
  bash "$root/scripts/build-vif-ffmpeg-glue.sh" "$prefix" "$vif_prefix" "$prefix/lib"
fi
echo "$key" >"$prefix/.libvif-build-key"
echo "build-ffmpeg-libvif: $prefix/bin/ffmpeg with the libvif filter"

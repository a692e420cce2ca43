#!/usr/bin/env bash
# Builds libvif_ffmpeg.so.1 (libvif/ffmpeg: the AVFrame glue behind vif/vif_ffmpeg.h) against
# another FFmpeg's libavutil than the one libvif's build used, next to an existing libvif build.
#
# Why: vif_ffmpeg reads AVFrame, AVHWFramesContext and pixel-format numbers, whose layout and
# values change between FFmpeg major versions (5.1's libavutil 57, 7.1's 59). An ffmpeg binary
# must load a vif_ffmpeg compiled against its own FFmpeg's headers; libvif's CMake build uses
# one FFmpeg (the system's or VIF_FFMPEG_ROOT, also for the CLI's decoding), and the FFmpeg
# 7.1 build of the filter (scripts/build-ffmpeg-libvif.sh --ffmpeg 7.1) needs a second glue.
# libavutil is linked statically and hidden (as the CMake build does with a static FFmpeg), so
# the glue carries its own copy of the matching version.
#
# Use:   scripts/build-vif-ffmpeg-glue.sh FFMPEG_PREFIX LIBVIF OUT_DIR
#   FFMPEG_PREFIX  an installed FFmpeg with its headers and static libavutil.a (include/, lib/)
#   LIBVIF         a libvif CMake build directory (libvif/libvif.so.1, generated/include) or an
#                  installed prefix (lib/libvif.so.1, include/); CUDA frames are handled when it
#                  was built with CUDA (the build's CMakeCache says VIF_ENABLE_CUDA=ON)
#   OUT_DIR        gets libvif_ffmpeg.so.1 and the libvif_ffmpeg.so link
# Environment: CXX (default c++), CUDA_HOME (default: the build's nvcc's toolkit) for CUDA.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -eq 3 ]] || { echo "usage: $0 FFMPEG_PREFIX LIBVIF_BUILD_OR_PREFIX OUT_DIR" >&2; exit 2; }
ff=$(realpath -m "$1"); vif=$(realpath -m "$2"); out=$(realpath -m "$3")
[[ -f $ff/include/libavutil/frame.h && -f $ff/lib/libavutil.a ]] ||
  { echo "build-vif-ffmpeg-glue: $ff has no include/libavutil/frame.h and lib/libavutil.a (a static FFmpeg install)" >&2; exit 1; }
if [[ -f $vif/CMakeCache.txt ]]; then
  vif_lib=$vif/libvif; vif_inc=$vif/generated/include
  cuda=$(grep -q '^VIF_ENABLE_CUDA:BOOL=ON' "$vif/CMakeCache.txt" && echo 1 || echo 0)
else
  vif_lib=$vif/lib; vif_inc=$vif/include; cuda=0
fi
[[ -e $vif_lib/libvif.so ]] || { echo "build-vif-ffmpeg-glue: no libvif.so in $vif_lib" >&2; exit 1; }

srcs=("$root/libvif/ffmpeg/vif_ffmpeg.cpp")
# vif.h includes "vif_version.h", generated into (build or prefix)/.../vif/
defs=(); incs=(-I"$root/libvif/include" -I"$vif_inc" -I"$vif_inc/vif" -I"$ff/include"); libs=()
if [[ $cuda == 1 ]]; then
  nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$vif/CMakeCache.txt")
  cuda_home=${CUDA_HOME:-$([[ -n $nvcc ]] && dirname "$(dirname "$nvcc")" || echo /usr/local/cuda)}
  srcs+=("$root/libvif/ffmpeg/vif_ffmpeg_cuda.cpp")
  defs+=(-DVIF_FFMPEG_HAVE_CUDA=1)
  incs+=(-I"$cuda_home/include")
  libs+=(-L"$cuda_home/lib64" -lcudart_static -lrt -ldl)
fi
# libavutil's own needs, from its .pc file (static: Libs.private).
av_private=$(PKG_CONFIG_PATH=$ff/lib/pkgconfig pkg-config --static --libs-only-l libavutil 2>/dev/null |
  sed 's/-lavutil//') || av_private="-lm -latomic"
mkdir -p "$out"
# shellcheck disable=SC2086  # av_private is a list of -l flags
"${CXX:-c++}" -std=c++17 -O2 -fPIC -shared -fvisibility=hidden "${defs[@]}" "${incs[@]}" "${srcs[@]}" \
  -o "$out/libvif_ffmpeg.so.1" -Wl,-soname,libvif_ffmpeg.so.1 -Wl,--exclude-libs,ALL \
  -Wl,-Bsymbolic -L"$vif_lib" -lvif "$ff/lib/libavutil.a" $av_private "${libs[@]}" -ldl -lpthread -lm
ln -sf libvif_ffmpeg.so.1 "$out/libvif_ffmpeg.so"
echo "build-vif-ffmpeg-glue: $out/libvif_ffmpeg.so.1 against FFmpeg $(cat "$ff/share/ffmpeg/RELEASE" 2>/dev/null ||
  grep -m1 LIBAVUTIL_VERSION_MAJOR "$ff/include/libavutil/version.h" | awk '{print "libavutil " $3}')$([[ $cuda == 1 ]] && echo ", CUDA frames")"

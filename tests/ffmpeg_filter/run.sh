#!/usr/bin/env bash
# The FFmpeg `libvif` filter in CI: libvif from BUILD_DIR installed into .deps/libvif-prefix,
# FFmpeg 5.1 with the series built by scripts/build-ffmpeg-libvif.sh --ci into
# .deps/ffmpeg-libvif-ci (kept between runs: rebuilt only when the series, the filter, libvif's
# headers or the script change), the series checked to apply to the pristine source, then
# test_filter.py against the build's `vif` CLI.
#   tests/ffmpeg_filter/run.sh [BUILD_DIR]     (default build)
# FFMPEG_VERSION=7.1 runs the same against FFmpeg 7.1 (series patches/7.1, built into
# .deps/ffmpeg-libvif-ci-7.1 with its own vif_ffmpeg glue): by hand, CI runs 5.1 only.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-build}")
ffver=${FFMPEG_VERSION:-5.1}
sfx=$([[ $ffver == 5.1 ]] || echo "-$ffver") # 5.1's places predate the option and stay
t0=$(date +%s)
step() { echo "== ffmpeg filter test [$(( $(date +%s) - t0 ))s]: $*"; }

[[ -x $build/tools/vif/vif ]] || { echo "ffmpeg filter test: no vif CLI in $build" >&2; exit 1; }
[[ -e $build/libvif/ffmpeg/libvif_ffmpeg.so ]] ||
  { echo "ffmpeg filter test: $build has no vif_ffmpeg (configure with FFmpeg)" >&2; exit 1; }

# What the FFmpeg build needs beyond libvif's own packages.
missing=()
command -v nasm >/dev/null || missing+=(nasm)
command -v dpkg-source >/dev/null || missing+=(dpkg-dev)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then
  sudo_cmd=""; [[ $(id -u) == 0 ]] || sudo_cmd=sudo
  step "installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

prefix=$root/.deps/libvif-prefix
step "installing libvif into $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

ff_prefix=$root/.deps/ffmpeg-libvif-ci$sfx
step "building FFmpeg $ffver with the libvif filter (cached in $ff_prefix)"
VIF_PREFIX=$prefix "$root/scripts/build-ffmpeg-libvif.sh" --ci --ffmpeg "$ffver" "$ff_prefix"

step "the series applies to the pristine FFmpeg source"
src=${FFMPEG_SRC:-$(ls -d "$root"/.deps/src"$sfx"/ffmpeg-"$ffver"*/ | head -1)}
for p in "$root"/integrations/ffmpeg/patches/"$ffver"/*.patch; do
  (cd "$src" && patch -p1 --dry-run --quiet <"$p" >/dev/null) ||
    { echo "ffmpeg filter test: $(basename "$p") does not apply cleanly" >&2; exit 1; }
  if (cd "$src" && patch -p1 --dry-run <"$p" | grep -q -e 'offset' -e 'fuzz'); then
    echo "ffmpeg filter test: $(basename "$p") applies only with offset or fuzz" >&2; exit 1
  fi
done

step "tests/ffmpeg_filter/test_filter.py"
# The freshly built libvif, whatever the binary was linked against. 7.1's ffmpeg finds its own
# glue (built against 7.1's libavutil) through its runpath: the build's (5.1's, which the CLI
# loads) must not come before it.
libs=$build/libvif:$build/libvif/ffmpeg
[[ $ffver == 5.1 ]] || libs=$build/libvif
LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  python3 "$root/tests/ffmpeg_filter/test_filter.py" --ffmpeg "$ff_prefix/bin/ffmpeg" \
  --vif "$build/tools/vif/vif"
step "done"

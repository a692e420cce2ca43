#!/usr/bin/env bash
# The FFmpeg `libvif` filter in CI: libvif from BUILD_DIR installed into .deps/libvif-prefix,
# FFmpeg 5.1 with the series built by scripts/build-ffmpeg-libvif.sh --ci into
# .deps/ffmpeg-libvif-ci (kept between runs: rebuilt only when the series, the filter, libvif's
# headers or the script change), the series checked to apply to the pristine source, then
# test_filter.py against the build's `vif` CLI.
#   tests/ffmpeg_filter/run.sh [BUILD_DIR]     (default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:-build}")
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

step "building FFmpeg with the libvif filter (cached in .deps/ffmpeg-libvif-ci)"
VIF_PREFIX=$prefix "$root/scripts/build-ffmpeg-libvif.sh" --ci "$root/.deps/ffmpeg-libvif-ci"

step "the series applies to the pristine FFmpeg source"
src=${FFMPEG_SRC:-$(ls -d "$root"/.deps/src/ffmpeg-5.1*/ | head -1)}
for p in "$root"/integrations/ffmpeg/patches/*.patch; do
  (cd "$src" && patch -p1 --dry-run --quiet <"$p" >/dev/null) ||
    { echo "ffmpeg filter test: $(basename "$p") does not apply cleanly" >&2; exit 1; }
  if (cd "$src" && patch -p1 --dry-run <"$p" | grep -q -e 'offset' -e 'fuzz'); then
    echo "ffmpeg filter test: $(basename "$p") applies only with offset or fuzz" >&2; exit 1
  fi
done

step "tests/ffmpeg_filter/test_filter.py"
# The freshly built libvif, whatever the binary was linked against.
LD_LIBRARY_PATH=$build/libvif:$build/libvif/ffmpeg${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  python3 "$root/tests/ffmpeg_filter/test_filter.py" --ffmpeg "$root/.deps/ffmpeg-libvif-ci/bin/ffmpeg" \
  --vif "$build/tools/vif/vif"
step "done"

#!/usr/bin/env bash
# Prepares, on the development machine (Debian), what the GPU machine lacks, so that
# scripts/gpu-check.sh can build everything there: static GoogleTest/GoogleMock and Google
# Benchmark built from Debian's sources, and the header-only CLI11, fmt (used header-only) and
# nlohmann-json, and ISA-L (the PNG maps' compressor, igzip: its headers and libisal.so.2, which
# the GPU machine lacks; the build's RUNPATH finds it in the prefix).
# Result: .gpu-deps/prefix (git-ignored, about 6 MB); carry `.gpu-deps/prefix` to the GPU machine.
#   scripts/gpu-deps.sh            build what is missing
#   scripts/gpu-deps.sh --clean    start again
# A static FFmpeg with NVDEC, when scripts/build-ffmpeg-nvdec.sh has made one, is picked up by
# scripts/gpu-check.sh from its own prefix; this script does not build it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dest=$root/.gpu-deps
prefix=$dest/prefix
jobs=${VIF_JOBS:-$(nproc)}
[ "${1:-}" = --clean ] && rm -rf "$dest"
mkdir -p "$prefix/include" "$dest/src"

need=(libgtest-dev libgmock-dev libcli11-dev libfmt-dev nlohmann-json3-dev libisal-dev cmake ninja-build
      dpkg-dev)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# GoogleTest + GoogleMock: Debian ships their sources in /usr/src/googletest.
if [ ! -f "$prefix/lib/cmake/GTest/GTestConfig.cmake" ]; then
  echo "gpu-deps: GoogleTest"
  cmake -S /usr/src/googletest -B "$dest/build-gtest" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF > "$dest/gtest.log"
  cmake --build "$dest/build-gtest" -j "$jobs" >> "$dest/gtest.log"
  cmake --install "$dest/build-gtest" >> "$dest/gtest.log"
fi

# Google Benchmark: Debian ships it shared only, so build it static from the source package
# (needs a deb-src entry in the apt sources).
if [ ! -f "$prefix/lib/cmake/benchmark/benchmarkConfig.cmake" ]; then
  echo "gpu-deps: Google Benchmark"
  (cd "$dest/src" && { ls -d benchmark-*/ >/dev/null 2>&1 || apt-get source -qq benchmark; })
  src=$(ls -d "$dest"/src/benchmark-*/ | head -1); src=${src%/}
  cmake -S "$src" -B "$dest/build-benchmark" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBENCHMARK_ENABLE_TESTING=OFF \
    -DBENCHMARK_ENABLE_GTEST_TESTS=OFF -DBENCHMARK_ENABLE_WERROR=OFF \
    -DGIT_VERSION="$(basename "$src" | sed "s/^benchmark-//")" > "$dest/benchmark.log"
  cmake --build "$dest/build-benchmark" -j "$jobs" >> "$dest/benchmark.log"
  cmake --install "$dest/build-benchmark" >> "$dest/benchmark.log"
fi

# Header-only libraries: the build finds bare headers on CMAKE_PREFIX_PATH/include (fmt is then
# used header-only; see tools/vif/CMakeLists.txt and tests/cli/CMakeLists.txt).
for h in CLI fmt nlohmann; do
  rm -rf "${prefix:?}/include/$h"
  cp -r "/usr/include/$h" "$prefix/include/"
done
# ISA-L: the vif CLI links libisal (tools/vif/CMakeLists.txt; Debian ships no static archive),
# found on CMAKE_PREFIX_PATH/include and /lib.
mkdir -p "$prefix/lib"
rm -rf "$prefix/include/isa-l" "$prefix/include/libdeflate.h" "$prefix/lib/libdeflate.a"
cp -r /usr/include/isa-l "$prefix/include/"
cp -P "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)"/libisal.so* "$prefix/lib/"
du -sh "$prefix"
echo "gpu-deps: ready in .gpu-deps/prefix (carry .gpu-deps/prefix)"

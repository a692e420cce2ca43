#!/usr/bin/env bash
# Every test: check the formatting (.clang-format), set up and build, run CTest (GPU tests skip with a message when no GPU is
# present), check the installed package with the examples, the FFmpeg filter (FFmpeg built with
# integrations/ffmpeg, cached in .deps), the Debian packages (dpkg -i, as root) and the Python
# package installed with pip, then build again with AddressSanitizer and UndefinedBehaviorSanitizer (CPU paths, CLI,
# FFmpeg) and run CTest there, and last run each libFuzzer target of tests/fuzz for
# VIF_FUZZ_SECONDS (default 30) when clang is installed (scripts/fuzz.sh; without clang it says
# the targets were skipped). CTest already replays the fuzz seeds and crash reproducers in both
# builds (label fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/check-format.sh
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j "${VIF_JOBS:-$(nproc)}"

if [ -x tests/install/run.sh ] || [ -f tests/install/run.sh ]; then
  bash tests/install/run.sh build
fi

# The FFmpeg filter (integrations/ffmpeg): FFmpeg 5.1 with the series, built once into .deps and
# kept (rebuilt when the series, the filter, libvif's headers or the build script change), then
# its tests against the vif CLI (tests/ffmpeg_filter/run.sh). VIF_SKIP_FFMPEG_FILTER=1 skips.
if [ "${VIF_SKIP_FFMPEG_FILTER:-0}" != 1 ]; then
  bash tests/ffmpeg_filter/run.sh build
fi

# The Debian packages (CPack, docs/packaging.md) installed with dpkg -i, used from the shell, C,
# CMake and Python outside the build tree, and removed again. Needs root (CI runs as root); skipped
# with a message otherwise.
if [ "${VIF_SKIP_PACKAGES:-0}" != 1 ]; then
  rc=0
  bash tests/packages/run.sh build || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || exit "$rc"
fi

# The Python package installed with pip into a fresh virtual environment, then its pytest suite
# (the suite also runs from the build tree in CTest as python.pytest). docs/python.md.
if [ "${VIF_SKIP_PYTHON_INSTALL:-0}" != 1 ]; then
  bash tests/python/install_test.sh build
fi

if [ "${VIF_SKIP_SANITIZERS:-0}" != 1 ]; then
  # Everything but CUDA (device code is not instrumented) and the benchmarks.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIF_ENABLE_SANITIZERS=ON \
        -DVIF_ENABLE_CUDA=OFF -DVIF_BUILD_BENCHMARKS=OFF
  cmake --build build-asan -j "${VIF_JOBS:-$(nproc)}"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "${VIF_JOBS:-$(nproc)}"
fi

if [ "${VIF_SKIP_FUZZ:-0}" != 1 ]; then
  scripts/fuzz.sh "${VIF_FUZZ_SECONDS:-30}"
fi

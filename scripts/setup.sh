#!/usr/bin/env bash
# Installs the Debian packages libvif needs (only those missing), then configures and builds.
#   scripts/setup.sh [build-dir] [extra cmake args...]
# Environment: VIF_JOBS (parallel jobs, default: all cores), VIF_BUILD_TARGETS (only these targets).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true

packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libfmt-dev libcli11-dev nlohmann-json3-dev
          # PNG maps and the report's pictures (vif --map-format png, vif report: ISA-L's igzip),
          # the tests' PNG decoder (libpng) and the report rendered by a headless browser in the
          # tests (tests/cli/report_browser_test.sh)
          libisal-dev libpng-dev chromium
          libavformat-dev libavcodec-dev libswscale-dev libavutil-dev ffmpeg
          # the Python package (python/, docs/python.md) and its tests
          pybind11-dev python3-dev python3-numpy python3-pytest python3-setuptools python3-pip
          python3-venv
          # the GStreamer element (integrations/gstreamer) and its tests (x264enc, avdec_h264)
          libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
          gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
          gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# nvcc lives outside PATH in the CUDA Toolkit's default location.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# The CLI is what run-sample.sh runs: ask for it explicitly, whatever an old cache says.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_BUILD_TOOLS=ON "$@"
# VIF_BUILD_TARGETS: build only these targets (run-sample.sh: the CLI first); default everything.
targets=()
for t in ${VIF_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "${VIF_JOBS:-$(nproc)}" "${targets[@]}"

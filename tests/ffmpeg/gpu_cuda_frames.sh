#!/usr/bin/env bash
# The CUDA-frames test and the CUDA install test on a GPU machine that has no FFmpeg.
#
#   tests/ffmpeg/gpu_cuda_frames.sh prepare   # here (Debian with FFmpeg dev packages): copies
#                                             # libavutil's headers, library and its dependencies
#                                             # into build-gpu-carry/ (ignored by git)
#   tests/ffmpeg/gpu_cuda_frames.sh run       # there, with build-gpu-carry carried along: builds
#                                             # libvif with CUDA (no FFmpeg), compiles vif_ffmpeg
#                                             # and tests/ffmpeg/cuda_frames_test.cpp against the
#                                             # carried libavutil, runs it, then tests/install/run.sh
#
# Exit status: non-zero when a build or either test fails. Logs go to $OUT when set.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
carry="$src/build-gpu-carry"

case "${1:-}" in
prepare)
    avutil=$(ls /usr/lib/*/libavutil.so.[0-9]* 2>/dev/null | head -1)
    inc=$(dirname "$(ls -d /usr/include/*/libavutil /usr/include/libavutil 2>/dev/null | head -1)")
    [[ -n "$avutil" && -n "$inc" ]] || { echo "libavutil (libavutil-dev) not found" >&2; exit 1; }
    rm -rf "$carry" && mkdir -p "$carry/include" "$carry/lib"
    cp -r "$inc/libavutil" "$carry/include/"
    cp -L "$avutil" "$carry/lib/"
    ldd "$avutil" | awk '{print $3}' | grep -v -E '^$|/libc\.so|/libm\.so|libstdc\+\+|libgcc_s|ld-linux' |
        while read -r lib; do cp -L "$lib" "$carry/lib/"; done
    ln -sf "$(basename "$avutil" | sed 's/\(\.so\.[0-9]*\).*/\1/')" "$carry/lib/libavutil.so"
    [[ -e "$carry/lib/libavutil.so" ]] || ln -sf "$(basename "$avutil")" "$carry/lib/libavutil.so"
    du -sh "$carry"
    ;;
run)
    [[ -d "$carry/lib" ]] || { echo "no $carry: run 'prepare' where FFmpeg is installed" >&2; exit 1; }
    out="${OUT:-/tmp}"
    build="$src/build-gpu-frames"
    nvcc_dir="$(dirname "$(readlink -f "$(command -v nvcc)")")/.."
    cuda_lib="$nvcc_dir/lib64"
    [[ -f "$cuda_lib/libcudart_static.a" ]] || cuda_lib="$nvcc_dir/targets/x86_64-linux/lib"
    cd "$src"
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TESTS=OFF \
        -DVIF_BUILD_BENCHMARKS=OFF -DVIF_BUILD_TOOLS=OFF >"$out/gpu-configure.log" 2>&1 ||
        { tail -30 "$out/gpu-configure.log"; exit 1; }
    cmake --build "$build" -j "$(nproc)" >"$out/gpu-build.log" 2>&1 ||
        { grep -v 'ptxas warning' "$out/gpu-build.log" | tail -40; exit 1; }
    g++ -std=c++17 -O2 -Wall -DVIF_FFMPEG_HAVE_CUDA=1 -DVIF_TESTDATA_DIR="\"$src/testdata\"" \
        -DVIF_SHARED_TESTDATA_DIR="\"${VIF_SHARED_TESTDATA_DIR:-$src/testdata}\"" -Ilibvif/include -I"$build/generated/include/vif" -Ilibvif/ffmpeg \
        -Itests -I"$carry/include" -I"$nvcc_dir/include" \
        libvif/ffmpeg/vif_ffmpeg.cpp libvif/ffmpeg/vif_ffmpeg_cuda.cpp tests/ffmpeg/cuda_frames_test.cpp \
        -o "$build/cuda_frames_test" -L"$build/libvif" -lvif -L"$carry/lib" -lavutil \
        -L"$cuda_lib" -lcudart_static -ldl -lrt -lpthread \
        -Wl,-rpath,"$build/libvif" -Wl,-rpath-link,"$carry/lib"
    LD_LIBRARY_PATH="$carry/lib" "$build/cuda_frames_test"
    VIF_INSTALL_TEST_ALLOW_NO_PKGCONFIG=1 JOBS="$(nproc)" bash tests/install/run.sh "$build"
    ;;
*)
    sed -n '2,13p' "$0"; exit 2 ;;
esac

#!/usr/bin/env bash
# Installs libvif into a temporary prefix and builds and runs the examples against that install,
# both through CMake (find_package(vif): vif::vif, vif::vif_static, vif::ffmpeg) and through
# pkg-config (vif, vif --static, vif-ffmpeg). Exits non-zero on the first failure.
#
#   tests/install/run.sh [BUILD_DIR]
#
# BUILD_DIR: an existing, built libvif build tree to install from. Without it (or with
# VIF_INSTALL_TEST_FRESH=1) the script configures and builds a fresh tree in the temporary folder,
# with the extra configure arguments in $VIF_CMAKE_ARGS (e.g. "-DVIF_ENABLE_CUDA=OFF").
# Environment: CC, CXX (compilers for the pkg-config builds; default cc, c++), JOBS (default 2),
# VIF_INSTALL_TEST_KEEP=1 keeps the temporary folder, VIF_INSTALL_TEST_ALLOW_NO_PKGCONFIG=1 lets
# a machine without pkg-config pass on the CMake checks alone (otherwise that is a failure).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../.." && pwd)"
jobs="${JOBS:-2}"
cc="${CC:-cc}"
cxx="${CXX:-c++}"

work="$(mktemp -d "${TMPDIR:-/tmp}/vif-install-test.XXXXXX")"
cleanup() {
    if [[ "${VIF_INSTALL_TEST_KEEP:-0}" == 1 ]]; then
        echo "install test: kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

step() { echo "== install test: $*"; }
fail() { echo "install test FAILED: $*" >&2; exit 1; }

# ---- Build and install ------------------------------------------------------------------------
build="${1:-}"
if [[ -z "$build" || "${VIF_INSTALL_TEST_FRESH:-0}" == 1 ]]; then
    build="$work/build"
    step "configuring a fresh build in $build"
    # shellcheck disable=SC2086
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DVIF_BUILD_TESTS=OFF \
        -DVIF_BUILD_BENCHMARKS=OFF ${VIF_CMAKE_ARGS:-} >"$work/configure.log" 2>&1 ||
        { cat "$work/configure.log"; fail "configure"; }
    cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1 ||
        { tail -50 "$work/build.log"; fail "build"; }
else
    [[ -f "$build/CMakeCache.txt" ]] || fail "$build is not a CMake build tree"
    build="$(cd "$build" && pwd)"
    step "building the install targets in $build"
    cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1 ||
        { tail -50 "$work/build.log"; fail "build"; }
fi

prefix="$work/prefix"
step "installing to $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install"; }

libdir=""
for d in lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu; do
    if [[ -f "$prefix/$d/pkgconfig/vif.pc" ]]; then libdir="$prefix/$d"; break; fi
done
[[ -n "$libdir" ]] || fail "no vif.pc installed under $prefix"
for f in "$prefix/include/vif/vif.h" "$prefix/include/vif/vif_log.h" "$libdir/libvif.so" "$libdir/libvif.a" \
         "$libdir/cmake/vif/vifConfig.cmake" "$libdir/cmake/vif/vifConfigVersion.cmake"; do
    [[ -e "$f" ]] || fail "not installed: ${f#$prefix/}"
done
has_ffmpeg=0
if [[ -f "$libdir/pkgconfig/vif-ffmpeg.pc" ]]; then
    has_ffmpeg=1
    for f in "$prefix/include/vif/vif_ffmpeg.h" "$libdir/libvif_ffmpeg.so"; do
        [[ -e "$f" ]] || fail "not installed: ${f#$prefix/}"
    done
fi
# The shared library exports the C API and nothing of the internals.
if command -v nm >/dev/null; then
    # (Captured first: grep -q closing a pipe early would fail the pipeline under pipefail.)
    exported="$(nm -D --defined-only "$libdir/libvif.so" | awk '$2 == "T" { print $3 }')"
    grep -qx 'vif_create' <<<"$exported" || fail "libvif.so does not export vif_create"
    grep -qx 'vif_log_finish' <<<"$exported" || fail "libvif.so does not export vif_log_finish"
    others="$(grep -v '^vif_' <<<"$exported" || true)"
    [[ -z "$others" ]] || { head <<<"$others" >&2; fail "libvif.so exports symbols outside the vif_ C API"; }
fi
if [[ -x "$prefix/bin/vif" ]]; then
    "$prefix/bin/vif" --version >/dev/null || fail "installed vif CLI does not run"
fi
# The GStreamer plugin (when built): in GStreamer's plugin folder under the prefix, and found
# there through GST_PLUGIN_PATH.
plugin="$(find "$prefix" -name libgstvif.so -print -quit)"
if [[ -n "$plugin" ]]; then
    [[ "$(basename "$(dirname "$plugin")")" == gstreamer-1.0 ]] ||
        fail "libgstvif.so not in a gstreamer-1.0 folder: ${plugin#$prefix/}"
    if command -v gst-inspect-1.0 >/dev/null; then
        GST_PLUGIN_PATH="$(dirname "$plugin")" GST_REGISTRY="$work/gst-registry.bin" \
            gst-inspect-1.0 vif >/dev/null 2>&1 || fail "gst-inspect-1.0 does not find the installed vif"
        step "GStreamer plugin installed: ${plugin#$prefix/}"
    fi
fi

examples="$src/examples"
args=(96 64 5 8)
args10=(96 64 3 10)
outputs=()

# Runs an example, keeps its output for the cross-check, fails on a non-zero exit.
run_example() {
    local name="$1"; shift
    local out="$work/out.$name"
    local rc=0
    "$@" >"$out" 2>"$out.err" || rc=$?
    if ((rc != 0)); then cat "$out.err" >&2; fail "$name exited with status $rc"; fi
    grep -q "mean vif" "$out" || { cat "$out" >&2; fail "$name printed no scores"; }
    outputs+=("$out")
}

# ---- CMake consumer ---------------------------------------------------------------------------
step "CMake: find_package(vif) from $prefix"
cmake -S "$examples" -B "$work/cmake-examples" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release >"$work/cmake-examples.log" 2>&1 ||
    { cat "$work/cmake-examples.log"; fail "configuring the examples with find_package(vif)"; }
cmake --build "$work/cmake-examples" -j "$jobs" >>"$work/cmake-examples.log" 2>&1 ||
    { tail -50 "$work/cmake-examples.log"; fail "building the examples with CMake"; }
ex="$work/cmake-examples"
run_example cmake_c "$ex/encoder_loop" "${args[@]}"
run_example cmake_cpp "$ex/encoder_loop_cpp" "${args[@]}"
[[ -x "$ex/encoder_loop_static" ]] || fail "vif::vif_static missing from the CMake package"
run_example cmake_c_static "$ex/encoder_loop_static" "${args[@]}"
run_example cmake_cpp_static "$ex/encoder_loop_cpp_static" "${args[@]}"
# The static executables must not need libvif.so.
if command -v ldd >/dev/null; then
    deps="$(ldd "$ex/encoder_loop_static")"
    if grep -q 'libvif\.so' <<<"$deps"; then fail "encoder_loop_static is linked to libvif.so"; fi
fi
if ((has_ffmpeg)); then
    [[ -x "$ex/ffmpeg_encoder_loop" ]] || fail "vif::ffmpeg example not built with CMake"
    "$ex/ffmpeg_encoder_loop" >"$work/out.ffmpeg_cmake" 2>&1 ||
        { cat "$work/out.ffmpeg_cmake" >&2; fail "ffmpeg_encoder_loop (CMake)"; }
fi

# ---- pkg-config consumer ----------------------------------------------------------------------
step "pkg-config: vif.pc from $libdir/pkgconfig"
if ! command -v pkg-config >/dev/null; then
    # Only where the caller says pkg-config may be absent (a bare GPU machine); a failure otherwise.
    [[ "${VIF_INSTALL_TEST_ALLOW_NO_PKGCONFIG:-0}" == 1 ]] || fail "pkg-config not found"
    echo "install test: pkg-config not found: pkg-config builds NOT checked"
    no_pkgconfig=1
fi
if [[ -z "${no_pkgconfig:-}" ]]; then
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pkg-config --exists vif || fail "pkg-config cannot find vif"
[[ "$(pkg-config --modversion vif)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "bad vif.pc version"
pc_cflags="$(pkg-config --cflags vif)"
pc_libs="$(pkg-config --libs vif)"
pc_static_libs="$(pkg-config --static --libs-only-other --libs-only-L vif) \
$(pkg-config --static --libs-only-l vif | sed 's/-lvif\b//')"
rpath="-Wl,-rpath,$libdir"
pk="$work/pkgconfig-examples"
mkdir -p "$pk"
# shellcheck disable=SC2086
{
    "$cc" -O2 -o "$pk/encoder_loop" "$examples/encoder_loop.c" $pc_cflags $pc_libs $rpath &&
    "$cxx" -O2 -std=c++17 -o "$pk/encoder_loop_cpp" "$examples/encoder_loop.cpp" $pc_cflags \
        $pc_libs $rpath &&
    # Static: libvif.a itself, then what vif.pc's Libs.private says it needs.
    "$cc" -O2 -o "$pk/encoder_loop_static" "$examples/encoder_loop.c" $pc_cflags \
        "$libdir/libvif.a" $pc_static_libs &&
    "$cxx" -O2 -std=c++17 -o "$pk/encoder_loop_cpp_static" "$examples/encoder_loop.cpp" \
        $pc_cflags "$libdir/libvif.a" $pc_static_libs
} >"$work/pkgconfig.log" 2>&1 || { cat "$work/pkgconfig.log"; fail "building with pkg-config"; }
run_example pkgconfig_c "$pk/encoder_loop" "${args[@]}"
run_example pkgconfig_cpp "$pk/encoder_loop_cpp" "${args[@]}"
run_example pkgconfig_c_static "$pk/encoder_loop_static" "${args[@]}"
run_example pkgconfig_cpp_static "$pk/encoder_loop_cpp_static" "${args[@]}"
if ((has_ffmpeg)); then
    if pkg-config --exists libavcodec libavutil; then
        # shellcheck disable=SC2046
        "$cc" -O2 -o "$pk/ffmpeg_encoder_loop" "$examples/ffmpeg_encoder_loop.c" \
            $(pkg-config --cflags --libs vif-ffmpeg libavcodec libavutil) $rpath \
            >"$work/pkgconfig-ffmpeg.log" 2>&1 ||
            { cat "$work/pkgconfig-ffmpeg.log"; fail "building ffmpeg_encoder_loop with pkg-config"; }
        "$pk/ffmpeg_encoder_loop" >"$work/out.ffmpeg_pkgconfig" 2>&1 ||
            { cat "$work/out.ffmpeg_pkgconfig" >&2; fail "ffmpeg_encoder_loop (pkg-config)"; }
        cmp -s <(grep '^frame\|frames:' "$work/out.ffmpeg_cmake") \
               <(grep '^frame\|frames:' "$work/out.ffmpeg_pkgconfig") ||
            fail "ffmpeg_encoder_loop scores differ between the CMake and pkg-config builds"
    else
        echo "install test: libavcodec not found by pkg-config; ffmpeg example skipped"
    fi
fi

fi  # pkg-config

# ---- Every build of the same example printed the same scores ----------------------------------
for out in "${outputs[@]}"; do
    cmp -s "${outputs[0]}" "$out" ||
        { diff "${outputs[0]}" "$out" >&2 || true; fail "$(basename "$out") differs from $(basename "${outputs[0]}")"; }
done
# 10-bit through a shared and a static build.
"$ex/encoder_loop" "${args10[@]}" >"$work/out10.cmake" 2>/dev/null || fail "encoder_loop 10-bit"
"$ex/encoder_loop_cpp_static" "${args10[@]}" >"$work/out10.pk" 2>/dev/null ||
    fail "encoder_loop_cpp_static 10-bit"
cmp -s "$work/out10.cmake" "$work/out10.pk" || fail "10-bit scores differ between builds"

echo "install test: OK (${#outputs[@]} example builds agree; ffmpeg=$has_ffmpeg)"

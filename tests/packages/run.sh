#!/usr/bin/env bash
# The Debian packages as a user gets them (docs/packaging.md): builds them with CPack from a build
# tree (`cmake --build BUILD --target package`), installs them with dpkg -i, then, from a
# temporary folder outside the build tree and with a bare environment (PATH=/usr/bin:/bin: no CUDA
# toolkit, no LD_LIBRARY_PATH):
#   - /usr/bin/vif scores the README's sample pair; its integer scores equal libvmaf's JSON;
#     --verbose names the backend once; ldd shows no libcudart in vif, libvif.so.1 or the module;
#   - the `package` preset lists sm_75..sm_120 + compute_120 PTX, and the installed libvif.so.1
#     carries the build's architectures (tests/packages/architectures.sh; cuobjdump, where found);
#   - encoder_loop.c builds and runs through pkg-config, and through CMake find_package(vif);
#   - Debian's python3 imports libvif from /usr/lib/python3/dist-packages and scores a golden
#     case bit for bit;
# and last removes the packages with dpkg -r and checks that none of their files is left.
#
#   tests/packages/run.sh BUILD_DIR
#
# Needs root (dpkg -i). Without it the script says so and exits 77 (skipped), unless
# VIF_PACKAGE_TEST_REQUIRED=1 (then it fails). VIF_PACKAGE_TEST_KEEP=1 keeps the temporary folder.
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:?usage: tests/packages/run.sh BUILD_DIR}"
[[ -f "$build/CMakeCache.txt" ]] || { echo "$build is not a CMake build tree" >&2; exit 2; }
build="$(cd "$build" && pwd)"

step() { echo "== package test: $*"; }
fail() { echo "package test FAILED: $*" >&2; exit 1; }

if [[ "$(id -u)" != 0 ]]; then
    [[ "${VIF_PACKAGE_TEST_REQUIRED:-0}" == 1 ]] && fail "dpkg -i needs root"
    echo "package test: SKIPPED: dpkg -i needs root (run as root, as CI does)"
    exit 77
fi
for p in libvif1 libvif-dev vif python3-libvif gstreamer1.0-vif; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        fail "$p is already installed: remove it first (dpkg -r $p); this test installs its own"
    fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/vif-package-test.XXXXXX")"
installed=()
remove_packages() {
    if ((${#installed[@]})); then dpkg -r "${installed[@]}" >/dev/null 2>&1 || true; fi
}
# After the check: nothing of them left in dpkg's records either (libvif1's ldconfig trigger
# keeps it as "config-files" after dpkg -r).
purge_packages() {
    if ((${#installed[@]})); then dpkg -P "${installed[@]}" >/dev/null 2>&1 || true; fi
    installed=()
}
cleanup() {
    remove_packages
    purge_packages
    if [[ "${VIF_PACKAGE_TEST_KEEP:-0}" == 1 ]]; then echo "package test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# ---- Build and install --------------------------------------------------------------------------
step "cmake --build $build --target package"
rm -rf "$build/packages"
cmake --build "$build" --target package >"$work/package.log" 2>&1 || { tail -40 "$work/package.log"; fail "package target"; }
debs=()
for p in libvif1 libvif-dev vif python3-libvif; do
    f=("$build"/packages/"${p}"_*.deb)
    [[ -f "${f[0]}" ]] || fail "no $p package in $build/packages"
    debs+=("${f[0]}")
    # Nothing of the CUDA toolkit in any package's dependencies.
    deps="$(dpkg-deb -f "${f[0]}" Depends)"
    echo "   $p: $deps"
    if grep -qi 'cuda' <<<"$deps"; then fail "$p depends on a CUDA package: $deps"; fi
    # The PNG maps' compressor, ISA-L, is Debian's shared libisal.so.2 (tools/vif/CMakeLists.txt):
    # where the CLI needs it, its package must say so.
    if [[ $p == vif ]]; then
        needed="$(objdump -p "$build/tools/vif/vif" 2>/dev/null | grep NEEDED || true)"
        if grep -q 'libisal' <<<"$needed" && ! grep -q 'libisal' <<<"$deps"; then
            fail "vif needs libisal at run time but its package does not depend on it: $deps"
        fi
    fi
done
# The GStreamer element's package, where the build has the element.
names=(python3-libvif vif libvif-dev libvif1)
gst=("$build"/packages/gstreamer1.0-vif_*.deb)
if [[ -f "${gst[0]}" ]]; then
    debs+=("${gst[0]}")
    names=(gstreamer1.0-vif "${names[@]}")
    echo "   gstreamer1.0-vif: $(dpkg-deb -f "${gst[0]}" Depends)"
    if dpkg-deb -f "${gst[0]}" Depends | grep -qi cuda; then fail "gstreamer1.0-vif depends on a CUDA package"; fi
fi
step "dpkg -i ${debs[*]##*/}"
dpkg -i "${debs[@]}" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; installed=("${names[@]}"); fail "dpkg -i"; }
installed=("${names[@]}")

# A bare environment: no CUDA toolkit on any path, nothing of the build tree.
bare() { env -i HOME="$work" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }
cd "$work"
cp "$src/testdata/cases/foreman_cif_352x288_2f.yuv" "$src/testdata/cases/foreman_352x288_yuv420p_crf35.yuv" "$work/"
golden="$src/testdata/expected/foreman_352x288_8b_crf35.csv"

# ---- The CLI -------------------------------------------------------------------------------------
step "/usr/bin/vif on the README sample"
[[ -x /usr/bin/vif ]] || fail "/usr/bin/vif not installed"
bare /usr/bin/vif -r foreman_cif_352x288_2f.yuv -d foreman_352x288_yuv420p_crf35.yuv \
    -w 352 -h 288 -p 420 -b 8 --json -o sample.json --verbose 2>verbose.txt ||
    { cat verbose.txt; fail "/usr/bin/vif exited with an error"; }
# Every integer score per frame equals libvmaf's own JSON for the pair (testdata/libvmaf-json).
python3 - "$src/testdata/libvmaf-json/foreman_352x288_8b_crf35.json" sample.json <<'PY' ||
import json, sys
want = json.load(open(sys.argv[1]))["frames"]
got = json.load(open(sys.argv[2]))["frames"]
# (The repository keeps the pair's first frame; libvmaf's JSON has the full clip's frames.)
assert 1 <= len(got) <= len(want), (len(got), len(want))
n = 0
for g in got:
    w = want[g["frameNum"]]
    for k, v in w["metrics"].items():
        if k.startswith("integer_vif"):
            assert g["metrics"][k] == v, (g["frameNum"], k, g["metrics"][k], v)
            n += 1
assert n == 4 * len(got), n
print(f"   {n} integer scores equal libvmaf's JSON")
PY
    fail "/usr/bin/vif's scores differ from libvmaf's"
backend_lines="$(grep -cE 'scoring on the|no usable GPU|staying on the cpu|frames on the cpu while CUDA started' verbose.txt || true)"
[[ "$backend_lines" == 1 ]] || { cat verbose.txt; fail "--verbose should name the backend once (got $backend_lines lines)"; }
grep -E 'scoring on the|no usable GPU|staying on the cpu|while CUDA started' verbose.txt | sed 's/^/   /'

step "no CUDA toolkit library is needed"
pymod="$(ls /usr/lib/python3/dist-packages/libvif/_core.*.so)"
libso="$(dpkg -L libvif1 | grep '/libvif\.so\.1$')" || fail "libvif1 has no libvif.so.1"
for bin in /usr/bin/vif "$libso" "$pymod"; do
    out="$(bare ldd "$bin")" || fail "ldd $bin"
    if grep -q 'libcudart' <<<"$out"; then fail "$bin needs libcudart: $out"; fi
    if grep -q 'not found' <<<"$out"; then fail "$bin has unresolved libraries: $out"; fi
done

step "the GPU architectures (the package preset's list; the installed library's images)"
bash "$src/tests/packages/architectures.sh" "$build" "$libso" || fail "GPU architectures"

# ---- C through pkg-config and CMake ---------------------------------------------------------------
step "encoder_loop.c through pkg-config"
cp "$src/examples/encoder_loop.c" "$work/"
# shellcheck disable=SC2046
bare cc -O2 -o encoder_loop_pc encoder_loop.c $(bare pkg-config --cflags --libs vif) >cc.log 2>&1 ||
    { cat cc.log; fail "building encoder_loop.c with pkg-config vif"; }
bare ./encoder_loop_pc 96 64 5 8 >pc.out 2>&1 || { cat pc.out; fail "encoder_loop (pkg-config)"; }
grep -q "mean vif" pc.out || fail "encoder_loop (pkg-config) printed no scores"

step "encoder_loop.c through CMake find_package(vif)"
mkdir -p cmake-consumer
cp "$src/examples/encoder_loop.c" cmake-consumer/
cat >cmake-consumer/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(vif_package_consumer C)
find_package(vif 1.0 CONFIG REQUIRED)
add_executable(encoder_loop encoder_loop.c)
target_link_libraries(encoder_loop PRIVATE vif::vif)
CM
if ! { bare cmake -S cmake-consumer -B cmake-consumer/build -DCMAKE_BUILD_TYPE=Release &&
       bare cmake --build cmake-consumer/build; } >cmake.log 2>&1; then
    cat cmake.log
    fail "CMake consumer"
fi
grep -q "^vif_DIR:PATH=/usr/lib/.*cmake/vif" cmake-consumer/build/CMakeCache.txt || fail "find_package(vif) did not find the package's files"
bare cmake-consumer/build/encoder_loop 96 64 5 8 >cm.out 2>&1 || { cat cm.out; fail "encoder_loop (CMake)"; }
cmp -s pc.out cm.out || fail "the pkg-config and CMake builds print different scores"

# ---- Python ---------------------------------------------------------------------------------------
step "Debian's python3: import libvif, score a golden case"
bare /usr/bin/python3 - "$work/foreman_cif_352x288_2f.yuv" "$work/foreman_352x288_yuv420p_crf35.yuv" "$golden" <<'PY' ||
import csv, sys
import numpy as np
import libvif
assert libvif.__file__.startswith("/usr/lib/python3/dist-packages/libvif/"), libvif.__file__
w, h, frames = 352, 288, 1
def luma(path):
    a = np.fromfile(path, np.uint8)
    size = w * h * 3 // 2
    return np.stack([a[i * size:i * size + w * h].reshape(h, w) for i in range(frames)])
r = libvif.score(luma(sys.argv[1]), luma(sys.argv[2]), "integer", "cpu")
want = list(csv.DictReader(open(sys.argv[3])))
n = 0
for got, exp in zip(r.frames, want):
    for k, v in got.items():
        if k in exp:
            assert v == float(exp[k]), (k, v, exp[k])
            n += 1
assert n >= 15, n
print(f"   libvif {libvif.__version__}: {n} values equal the golden CSV bit for bit")
PY
    fail "python3-libvif"

# ---- GStreamer ------------------------------------------------------------------------------------
if [[ " ${names[*]} " == *" gstreamer1.0-vif "* ]] && command -v gst-inspect-1.0 >/dev/null; then
    step "gst-inspect-1.0 finds the vif element in GStreamer's own folder"
    plugin="$(dpkg -L gstreamer1.0-vif | grep '\.so$' | head -1)"
    # The CUDA-memory path loads the driver at run time: the plugin must load without one.
    if bare ldd "$plugin" | grep -q 'libcuda\.so'; then fail "$plugin links libcuda directly"; fi
    bare gst-inspect-1.0 vif >gst.out 2>&1 || { cat gst.out; fail "gst-inspect-1.0 vif"; }
    grep -q "Factory Details" gst.out || { cat gst.out; fail "gst-inspect-1.0 vif did not describe the element"; }
fi

# ---- Removal ----------------------------------------------------------------------------------------
step "dpkg -r removes every file"
files=()
for d in "${debs[@]}"; do
    while IFS= read -r f; do files+=("$f"); done < <(dpkg-deb --fsys-tarfile "$d" | tar -t | sed -n 's|^\./|/|p' | grep -v '/$')
done
remove_packages
left=()
for f in "${files[@]}"; do [[ -e "$f" || -L "$f" ]] && left+=("$f"); done
((${#left[@]} == 0)) || fail "left after dpkg -r: ${left[*]}"
echo "package test: OK (${#files[@]} files installed, run and removed)"

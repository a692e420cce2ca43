#!/usr/bin/env bash
# shellcheck disable=SC2317,SC2030,SC2031,SC2012  # functions run through check(); subshell PATHs
# On the GPU machine, the packages as users get them (docs/packaging.md), in one call:
#   1. the `package` preset (CUDA for sm_75..sm_120 + compute_120 PTX) built and packaged, timed;
#   2. cuobjdump: libvif.so.1 carries those architectures;
#   3. the .deb files unpacked with dpkg -x (no install) and, in an empty environment
#      (PATH=/usr/bin:/bin, no CUDA toolkit; LD_LIBRARY_PATH only to the unpacked /usr/lib):
#      ldd finds no libcudart, the packaged /usr/bin/vif scores every golden case on the GPU
#      (--backend cuda) and its integer scores equal libvmaf's (testdata/expected) bit for bit,
#      and the packaged Python module (built for this machine's python3) does the same on CuPy
#      and PyTorch CUDA tensors;
#   4. a wheel built with `pip wheel` here, installed into a fresh virtual environment, scores
#      the golden cases on CUDA tensors bit-exactly.
#
#   bash scripts/gpu-packages.sh          # carry .gpu-deps/prefix (scripts/gpu-deps.sh); $OUT
#
# Pass: the last line is "gpu-packages: PASS"; $OUT/summary.txt has a line per check.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-/tmp/vif-packages-out}
B=${BUILD_DIR:-/tmp/vif-package-build}
W=$(mktemp -d /tmp/vif-gpu-packages.XXXXXX)
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
fail=0
note() { echo "$*" | tee -a "$S"; }
check() { # check NAME COMMAND...: runs it, notes PASS/FAIL
    local name=$1
    shift
    if "$@" >"$OUT/$name.log" 2>&1; then
        note "PASS $name"
    else
        note "FAIL $name (see $name.log)"
        tail -20 "$OUT/$name.log"
        fail=1
    fi
}
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee -a "$S"

# ---- 1. Build ------------------------------------------------------------------------------------
pyargs=()
if pyb=$(python3 -m pybind11 --cmakedir 2>/dev/null); then
    pyargs=(-Dpybind11_DIR="$pyb" -DPython_EXECUTABLE="$(command -v python3)")
fi
t0=$(date +%s)
(export PATH=/usr/local/cuda/bin:$PATH
 cmake --preset package -S "$ROOT" -B "$B" -DCMAKE_PREFIX_PATH="$ROOT/.gpu-deps/prefix" \
     "${pyargs[@]}" && cmake --build "$B" -j "$(nproc)" --target package) >"$OUT/build.log" 2>&1
rc=$?
note "build of the package preset: rc=$rc, $(($(date +%s) - t0)) s on $(nproc) cores; $(grep -o 'libvif: CUDA=.*' "$OUT/build.log" | head -1)"
if [ $rc != 0 ]; then
    grep -E "error|FAILED|CMake Error" -A5 "$OUT/build.log" | head -40
    echo "gpu-packages: FAIL"
    exit 1
fi
ls -l "$B"/packages/*.deb | tee -a "$S"

# ---- 2. Architectures ----------------------------------------------------------------------------
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$cuobjdump" --list-elf "$B/libvif/libvif.so.1" >"$OUT/elf.txt" 2>&1
"$cuobjdump" --list-ptx "$B/libvif/libvif.so.1" >"$OUT/ptx.txt" 2>&1
arches() {
    for a in 75 80 86 89 90 100 120; do
        grep -q "sm_$a\b" "$OUT/elf.txt" || { echo "no sm_$a binary"; return 1; }
        echo "sm_$a: $(grep -c "sm_$a\b" "$OUT/elf.txt") cubins"
    done
    grep -q "sm_120\|compute_120" "$OUT/ptx.txt" || { echo "no compute_120 PTX"; return 1; }
    echo "PTX: $(grep -c ptx "$OUT/ptx.txt") entries; $(grep -c 'ELF file' "$OUT/elf.txt") cubins in all; libvif.so.1 $(stat -c %s "$B/libvif/libvif.so.1") bytes"
}
check architectures arches

# ---- 3. The unpacked .deb files ------------------------------------------------------------------
R=$W/root
mkdir -p "$R"
for d in "$B"/packages/*.deb; do
    if command -v dpkg >/dev/null; then
        dpkg -x "$d" "$R"
    else # ar and tar alone: the data member of the archive
        (mkdir -p "$W/ar" && cd "$W/ar" && rm -f ./* && ar x "$d" && tar -xf data.tar.* -C "$R")
    fi
done
find "$R" -type f | sed "s|^$R||" >"$OUT/unpacked.txt"
bare() { env -i HOME="$W" PATH=/usr/bin:/bin LANG=C.UTF-8 LD_LIBRARY_PATH="$R/usr/lib" \
    PYTHONPATH="$R/usr/lib/python3/dist-packages" "$@"; }
no_cudart() {
    for f in "$R/usr/bin/vif" "$R/usr/lib/libvif.so.1" "$R"/usr/lib/python3/dist-packages/libvif/_core*.so; do
        [ -e "$f" ] || continue
        bare ldd "$f" | tee /dev/stderr | grep -E "libcudart|/usr/local/cuda|not found" && return 1
    done
    return 0
}
check ldd_no_cudart no_cudart

cases_py=$W/cases.py
cat >"$cases_py" <<'PY'
# The golden cases (tests/python/conftest.py reads the manifests), compared with libvmaf's values.
import sys
sys.path.insert(0, sys.argv[1] + "/tests/python")
from conftest import REPO_CASES, SHARED_CASES  # noqa: E402
CASES = list(REPO_CASES) + list(SHARED_CASES)
INT_KEYS = [f"integer_vif_scale{s}" for s in range(4)]
def compare(name, frames, expected):
    assert len(frames) == len(expected), (name, len(frames), len(expected))
    n = 0
    for i, (got, want) in enumerate(zip(frames, expected)):
        for k in INT_KEYS:
            assert float(got[k]) == float(want[k]), (name, i, k, got[k], want[k])
            n += 1
    return n
PY

cli_golden() {
    bare "$(command -v python3)" - "$ROOT" "$R/usr/bin/vif" "$W" "$cases_py" <<'PY'
import csv, subprocess, sys
root, vif, work, cases_py = sys.argv[1:5]
exec(open(cases_py).read().replace("sys.argv[1]", repr(root)))
total = 0
for c in CASES:
    out = f"{work}/{c.name}.csv"
    cmd = [vif, "-r", str(c.ref), "-d", str(c.dist), "-w", str(c.width), "-h", str(c.height),
           "-p", c.pix_fmt, "-b", str(c.bitdepth), "--frames", str(c.frames),
           "--backend", "cuda", "--precision", "max", "--csv", "-o", out]
    subprocess.run(cmd, check=True)
    rows = [r for r in csv.DictReader(open(out))]
    total += compare(c.name, rows, c.expected())
print(f"{len(CASES)} cases, {total} integer scores equal libvmaf's on the GPU (packaged CLI)")
PY
}
check cli_golden_gpu cli_golden
bare "$R/usr/bin/vif" -r testdata/cases/foreman_cif_352x288_2f.yuv \
    -d testdata/cases/foreman_352x288_yuv420p_crf35.yuv -w 352 -h 288 -p 420 -b 8 \
    -o "$W/auto.json" --verbose 2>&1 | grep -v timing | tee -a "$S"

tensors_golden() { # PYTHON: scores every case on CuPy (all depths) and PyTorch (8-bit) tensors
    local py=$1
    shift
    "$@" "$py" - "$ROOT" "$cases_py" <<'PY'
import sys
root, cases_py = sys.argv[1:3]
exec(open(cases_py).read().replace("sys.argv[1]", repr(root)))
import numpy as np
import libvif
print("libvif from", libvif.__file__)
total = 0
try:
    import cupy
except ImportError:
    cupy = None
import torch
for c in CASES:
    bd = None if c.bitdepth == 8 else c.bitdepth
    r, d = np.ascontiguousarray(c.luma("ref")), np.ascontiguousarray(c.luma("dist"))
    if cupy is not None:
        res = libvif.score(cupy.asarray(r), cupy.asarray(d), "integer", "cuda", bd)
        total += compare(c.name + " cupy", res.frames, c.expected())
    if c.bitdepth == 8:
        res = libvif.score(torch.from_numpy(r).cuda(), torch.from_numpy(d).cuda(), "integer", "cuda")
        total += compare(c.name + " torch", res.frames, c.expected())
print(f"{len(CASES)} cases, {total} integer scores equal libvmaf's on CUDA tensors")
PY
}
if [ -d "$R/usr/lib/python3/dist-packages/libvif" ]; then
    check deb_python_tensors tensors_golden "$(command -v python3)" bare
else
    note "SKIP deb_python_tensors: no python3-libvif (pybind11 not found for this python3)"
fi

# ---- 4. The wheel --------------------------------------------------------------------------------
wheel() {
    python3 -m venv --system-site-packages "$W/build-venv" &&
    (cd "$ROOT" && PATH=/usr/local/cuda/bin:$PATH PIP_NO_INDEX=1 VIF_JOBS="$(nproc)" \
        CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=80-real;90-real;120-virtual -DCMAKE_PREFIX_PATH=$ROOT/.gpu-deps/prefix ${pyb:+-Dpybind11_DIR=$pyb}" \
        "$W/build-venv/bin/pip" wheel -q --no-deps --no-build-isolation . -w "$OUT/dist") &&
    ls "$OUT"/dist/libvif-*.whl &&
    python3 -m venv --system-site-packages "$W/venv" &&
    PIP_NO_INDEX=1 "$W/venv/bin/pip" install -q --no-deps "$OUT"/dist/libvif-*.whl &&
    # The machine's python3 is itself a virtual environment (/opt/torch/.venv), whose numpy, CuPy
    # and PyTorch a venv made from it does not see: a .pth file lists that folder after the new
    # venv's own, so libvif still comes from the wheel alone.
    python3 -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))' \
        > "$("$W/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-frameworks.pth"
}
check wheel_build_install wheel
barewheel() { env -i HOME="$W" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }
[ -x "$W/venv/bin/python" ] && check wheel_tensors tensors_golden "$W/venv/bin/python" barewheel

rm -rf "$W"
cat "$S"
if [ $fail = 0 ]; then echo "gpu-packages: PASS"; else echo "gpu-packages: FAIL"; fi
exit $fail

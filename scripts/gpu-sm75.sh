#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through check()
# On the GPU machine: what a Turing GPU (compute capability 7.5, e.g. T4) runs, checked on a newer
# one (docs/cuda.md "Turing"). Stages (default: virtual):
#   virtual  a build with CMAKE_CUDA_ARCHITECTURES=75-virtual only: every kernel is compute_75 PTX
#            (__CUDA_ARCH__ = 750: no tensor-core instructions, no REDUX), JIT-compiled by the
#            driver here, so this GPU runs exactly the code a Turing GPU would. Checks:
#              ptx_only      cuobjdump: no cubin, compute_75 PTX only;
#              parity_sm75   the whole parity gate (tests/parity: every shipped kernel, synthetic
#                            frames, golden cases, ladders, batches against the CPU) with the
#                            Turing rules forced (VIF_TEST_CUDA_RULES=sm_75), and the engine saying
#                            it chose them by itself (no tensor cores in the loaded code);
#              cli_golden    the build's `vif --backend cuda` on every golden case: integer scores
#                            equal libvmaf's (testdata/expected) bit for bit;
#   package  scripts/gpu-packages.sh (the `package` preset, sm_75 binary included: cuobjdump, the
#            packaged CLI's golden check on this GPU, the wheel), results in $OUT/package.
#
#   bash scripts/gpu-sm75.sh [virtual] [package]   # carry .gpu-deps/prefix (scripts/gpu-deps.sh)
#
# Environment: BUILD_DIR (default /tmp/vif-sm75-build), OUT (results, default /tmp/vif-sm75-out).
# Pass: the last line is "gpu-sm75: PASS"; $OUT/summary.txt has a line per check and the numbers.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-/tmp/vif-sm75-out}
B=${BUILD_DIR:-/tmp/vif-sm75-build}
STAGES=${*:-virtual}
W=$(mktemp -d /tmp/vif-gpu-sm75.XXXXXX)
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
fail=0
has() { [[ " $STAGES " == *" $1 "* ]]; }
note() { echo "$*" | tee -a "$S"; }
check() { # check NAME COMMAND...: runs it, notes PASS/FAIL and the log's last line
    local name=$1 t0
    shift
    t0=$(date +%s)
    if "$@" >"$OUT/$name.log" 2>&1; then
        note "PASS $name ($(($(date +%s) - t0)) s): $(tail -1 "$OUT/$name.log")"
    else
        note "FAIL $name ($(($(date +%s) - t0)) s; see $name.log)"
        tail -30 "$OUT/$name.log"
        fail=1
    fi
}
for s in $STAGES; do
    case $s in virtual | package) ;; *) echo "unknown stage '$s' (virtual, package)"; exit 2 ;; esac
done
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee -a "$S"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
# The driver's JIT cache for this run only, large enough for every kernel of the build (the
# parity binary and the CLI JIT the same PTX).
export CUDA_CACHE_PATH=$W/jit-cache CUDA_CACHE_MAXSIZE=4294967296

if has virtual; then
    t0=$(date +%s)
    (cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=75-virtual -DVIF_BUILD_TUNING=OFF -DVIF_BUILD_PYTHON=OFF \
        -DVIF_BUILD_GSTREAMER=OFF -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_BENCHMARKS=OFF \
        -DCMAKE_PREFIX_PATH="$ROOT/.gpu-deps/prefix" &&
        cmake --build "$B" -j "$(nproc)" --target vif_parity_tests vif_cli vif) >"$OUT/build.log" 2>&1
    rc=$?
    note "build (75-virtual): rc=$rc, $(($(date +%s) - t0)) s on $(nproc) cores; $(grep -o 'libvif: CUDA.*' "$OUT/build.log" | head -1)"
    if [ $rc != 0 ]; then
        grep -E "error|FAILED|CMake Error" -A5 "$OUT/build.log" | head -40
        fail=1
    else
        lib=$(find "$B/libvif" -maxdepth 1 -name 'libvif.so.*' -type f | head -1) # target vif
        ptx_only() {
            local cuobjdump elf ptx
            cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
            elf=$("$cuobjdump" --list-elf "$lib" 2>&1)
            ptx=$("$cuobjdump" --list-ptx "$lib" 2>&1)
            echo "$elf" | head -5
            echo "$ptx" | head -5
            if grep -q "sm_[0-9]" <<<"$elf"; then echo "a cubin in $lib"; return 1; fi
            [ -n "$lib" ] || { echo "no libvif.so.* in $B/libvif"; return 1; }
            if grep "PTX file" <<<"$ptx" | grep -qv "sm_75"; then echo "PTX other than compute_75"; return 1; fi
            grep -q "PTX file" <<<"$ptx" || { echo "no PTX in $lib"; return 1; }
            echo "$lib: $(grep -c 'PTX file' <<<"$ptx") compute_75 PTX files, no cubin"
        }
        check ptx_only ptx_only

        parity_sm75() {
            local log=$W/parity.txt
            VIF_TEST_CUDA_RULES=sm_75 timeout 420 "$B/tests/parity/vif_parity_tests" \
                --gtest_brief=1 >"$log" 2>&1
            local rc=$?
            grep -E "^\[(sm75|parity)\]|FAILED|PASSED|tests? ran|Failure" "$log" | head -60
            [ "$rc" = 0 ] || { tail -40 "$log"; return 1; }
            # The engine chose the Turing rules by itself: the loaded code has no tensor cores.
            grep -q "\[sm75\] device code compute_75, tensor cores no, rules of sm_75" "$log" || {
                echo "the engine did not report compute_75 code without tensor cores"
                return 1
            }
            grep -q "golden cases on the Turing rules: [1-9]" "$log" || return 1
            echo "$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$log" | tail -1); $(grep '^\[  PASSED  \]' "$log" | tail -1); $(grep '^\[  SKIPPED \] [0-9]' "$log" | tail -1)"
        }
        check parity_sm75 parity_sm75

        cli_golden() {
            python3 - "$ROOT" "$B/tools/vif/vif" "$W" <<'PY'
import csv, subprocess, sys
root, vif, work = sys.argv[1:4]
sys.path.insert(0, root + "/tests/python")
from conftest import REPO_CASES, SHARED_CASES  # noqa: E402
cases = list(REPO_CASES) + list(SHARED_CASES)
keys = [f"integer_vif_scale{s}" for s in range(4)]
total = 0
for c in cases:
    out = f"{work}/{c.name}.csv"
    subprocess.run([vif, "-r", str(c.ref), "-d", str(c.dist), "-w", str(c.width),
                    "-h", str(c.height), "-p", c.pix_fmt, "-b", str(c.bitdepth),
                    "--frames", str(c.frames), "--backend", "cuda", "--precision", "max",
                    "--csv", "-o", out], check=True)
    rows = list(csv.DictReader(open(out)))
    want = c.expected()
    assert len(rows) == len(want), (c.name, len(rows), len(want))
    for i, (got, exp) in enumerate(zip(rows, want)):
        for k in keys:
            assert float(got[k]) == float(exp[k]), (c.name, i, k, got[k], exp[k])
            total += 1
print(f"{len(cases)} cases, {total} integer scores equal libvmaf's (compute_75 PTX, CLI, CUDA)")
PY
        }
        check cli_golden cli_golden
    fi
fi

if has package; then
    pkg() { OUT=$OUT/package bash "$ROOT/scripts/gpu-packages.sh"; }
    check package pkg
    [ -f "$OUT/package/summary.txt" ] && sed 's/^/  package: /' "$OUT/package/summary.txt" | tee -a "$S"
fi

rm -rf "$W"
cat "$S"
if [ $fail = 0 ]; then echo "gpu-sm75: PASS"; else echo "gpu-sm75: FAIL"; fi
exit $fail

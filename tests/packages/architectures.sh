#!/usr/bin/env bash
# The GPU architectures of the packages (docs/packaging.md, "GPU architectures"):
#   1. the `package` preset (CMakePresets.json) lists sm_75, 80, 86, 89, 90, 100 and 120 as real
#      code plus compute_120 PTX, and the nvcc found (if any) can compile every one of them;
#   2. where the build has CUDA and cuobjdump is found, LIB (a libvif.so.1, e.g. the installed
#      one) carries exactly the build's CMAKE_CUDA_ARCHITECTURES when the configure was given a
#      list (XX-real: an sm_XX cubin; XX-virtual: compute_XX PTX; XX: both), else at least one
#      CUDA image. Prints what it found.
#
#   tests/packages/architectures.sh BUILD_DIR LIB
#
# Called by tests/packages/run.sh on the installed library; runs on its own as well.
set -euo pipefail

src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:?usage: tests/packages/architectures.sh BUILD_DIR LIB}"
lib="${2:?usage: tests/packages/architectures.sh BUILD_DIR LIB}"
fail() { echo "architectures FAILED: $*" >&2; exit 1; }

# ---- 1. The package preset's list --------------------------------------------------------------
want="75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual"
preset="$(python3 - "$src/CMakePresets.json" <<'PY'
import json, sys
presets = json.load(open(sys.argv[1]))["configurePresets"]
print(next(p for p in presets if p["name"] == "package")["cacheVariables"]["CMAKE_CUDA_ARCHITECTURES"])
PY
)" || fail "no package preset in CMakePresets.json"
[[ "$preset" == "$want" ]] || fail "the package preset lists $preset, not $want"
echo "   package preset: $preset"
nvcc="$(command -v nvcc || true)"
[[ -n "$nvcc" || ! -x /usr/local/cuda/bin/nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
if [[ -n "$nvcc" ]]; then
    known="$("$nvcc" --list-gpu-arch 2>/dev/null | tr '\n' ' ')"
    for a in ${preset//;/ }; do
        grep -qw "compute_${a%%-*}" <<<"$known" || fail "$nvcc does not know compute_${a%%-*} ($known)"
    done
    echo "   $nvcc knows every one of them"
fi

# ---- 2. What the library carries ----------------------------------------------------------------
cache="$build/CMakeCache.txt"
grep -q '^VIF_ENABLE_CUDA:BOOL=ON' "$cache" || { echo "   $build has no CUDA: no images to check"; exit 0; }
cuobjdump="$(command -v cuobjdump || true)"
[[ -n "$cuobjdump" || ! -x /usr/local/cuda/bin/cuobjdump ]] || cuobjdump=/usr/local/cuda/bin/cuobjdump
[[ -n "$cuobjdump" ]] || { echo "   no cuobjdump: images not checked"; exit 0; }
[[ -f "$lib" ]] || fail "$lib does not exist"
elf="$("$cuobjdump" --list-elf "$lib" 2>/dev/null | grep -o 'sm_[0-9]*' | sort -u | tr '\n' ' ' || true)"
ptx="$("$cuobjdump" --list-ptx "$lib" 2>/dev/null | grep -o 'sm_[0-9]*' | sed 's/sm_/compute_/' | sort -u | tr '\n' ' ' || true)"
echo "   $lib: cubins ${elf:-none}; PTX ${ptx:-none}"
[[ -n "$elf$ptx" ]] || fail "$lib carries no CUDA code"
given="$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache")"
case "$given" in
"" | native | all | all-major)
    echo "   (the configure chose the architectures: only their presence is checked)"
    exit 0 ;;
esac
expect_elf="" expect_ptx=""
for a in ${given//;/ }; do
    n="${a%%-*}"
    case "$a" in
    *-real) expect_elf+="sm_$n " ;;
    *-virtual) expect_ptx+="compute_$n " ;;
    *) expect_elf+="sm_$n " expect_ptx+="compute_$n " ;;
    esac
done
sorted() { tr ' ' '\n' <<<"$1" | grep . | sort -u | tr '\n' ' '; }
[[ "$(sorted "$expect_elf")" == "$elf" ]] || fail "cubins '$elf', the build asked for '$(sorted "$expect_elf")' ($given)"
[[ "$(sorted "$expect_ptx")" == "$ptx" ]] || fail "PTX '$ptx', the build asked for '$(sorted "$expect_ptx")' ($given)"
echo "   = the build's CMAKE_CUDA_ARCHITECTURES ($given)"

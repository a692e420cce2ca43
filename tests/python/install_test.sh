#!/usr/bin/env bash
# The libvif Python package as a user installs it: a copy of the checkout's files (git ls-files,
# so nothing built here leaks in), `pip wheel --no-build-isolation .` (a wheel carrying libvif.so.1
# beside the module), checked and installed with pip into a fresh virtual
# environment that sees Debian's numpy and pytest (--system-site-packages; no network needed),
# then the whole pytest suite against the installed package, from outside the source tree.
#
#   tests/python/install_test.sh [BUILD_DIR]
#
# BUILD_DIR (optional): a build tree whose vif CLI the CLI comparisons use.
# Environment: VIF_PY_CMAKE_ARGS (CMake arguments for the package's build; default
# "-DVIF_ENABLE_CUDA=OFF", which keeps this quick: the CUDA path is tested by the main build),
# VIF_JOBS (parallel jobs, default 2), VIF_PY_INSTALL_KEEP=1 keeps the temporary folder.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-}"
[ -n "$build" ] && build="$(cd "$build" && pwd)"
python="${VIF_PYTHON:-/usr/bin/python3}"
[ -x "$python" ] || python=python3

work="$(mktemp -d "${TMPDIR:-/tmp}/vif-python-install.XXXXXX")"
cleanup() { [ "${VIF_PY_INSTALL_KEEP:-0}" = 1 ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
step() { echo "== python install test: $*"; }

step "copying the checkout's files to $work/src"
mkdir -p "$work/src"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$src" ls-files -co --exclude-standard -z | (cd "$src" && xargs -0 cp --parents -t "$work/src")
else
  cp -r "$src/." "$work/src"
fi
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$work/shared"

step "virtual environment with the system's site packages"
"$python" -m venv --system-site-packages "$work/venv"
step "pip wheel --no-build-isolation . (offline)"
(cd "$work/src" && CMAKE_ARGS="${VIF_PY_CMAKE_ARGS:--DVIF_ENABLE_CUDA=OFF}" \
   VIF_JOBS="${VIF_JOBS:-2}" PIP_NO_INDEX=1 "$work/venv/bin/pip" wheel -q --no-deps \
   --no-build-isolation . -w "$work/dist")
wheel=("$work"/dist/libvif-*.whl)
[ -f "${wheel[0]}" ] || { echo "python install test FAILED: no wheel in $work/dist"; exit 1; }
# The wheel carries libvif itself, beside the module (found through its $ORIGIN run path).
"$python" - "${wheel[0]}" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("libvif/__init__.py", "libvif/libvif.so.1"):
    assert want in names, f"{want} not in the wheel: {names}"
assert any(n.startswith("libvif/_core.") and n.endswith(".so") for n in names), names
print(f"   {sys.argv[1].rsplit('/', 1)[-1]}: {len(names)} files, libvif.so.1 inside")
PY
step "pip install the wheel (no compiler needed: nothing is built)"
PIP_NO_INDEX=1 "$work/venv/bin/pip" install -q --no-deps "${wheel[0]}"

step "import from the installed package"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np, libvif, sys
assert "/venv/" in libvif.__file__, libvif.__file__
# The module's libvif is the wheel's copy, not a system one.
import os
maps = open("/proc/self/maps").read()
libs = {l.split()[-1] for l in maps.splitlines() if "libvif.so" in l}
assert libs and all(os.path.dirname(p) == os.path.dirname(libvif.__file__) for p in libs), libs
a = np.full((2, 32, 32), 100, np.uint8)
r = libvif.score(a, a)
assert r.pooled["integer_vif"]["mean"] == 1.0, r.pooled
print(f"libvif {libvif.__version__} from {libvif.__file__}: ok")
PY

step "the pytest suite against the installed package"
cli=""
[ -n "$build" ] && [ -x "$build/tools/vif/vif" ] && cli="$build/tools/vif/vif"
set +e
VIF_CLI="$cli" "$work/venv/bin/python" "$work/src/tests/python/run_pytest.py" \
  "$work/src/tests/python" -q -p no:cacheprovider
rc=$?
set -e
[ $rc = 0 ] || { echo "python install test FAILED (pytest exit $rc)"; exit 1; }
step "passed"

#!/usr/bin/env bash
# The libvif Python package as a user installs it: a copy of the checkout's files (git ls-files,
# so nothing built here leaks in), `pip install --no-build-isolation .` into a fresh virtual
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
step "pip install --no-build-isolation . (offline)"
(cd "$work/src" && CMAKE_ARGS="${VIF_PY_CMAKE_ARGS:--DVIF_ENABLE_CUDA=OFF}" \
   VIF_JOBS="${VIF_JOBS:-2}" PIP_NO_INDEX=1 "$work/venv/bin/pip" install -q \
   --no-build-isolation .)

step "import from the installed package"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np, libvif, sys
assert "/venv/" in libvif.__file__, libvif.__file__
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

#!/usr/bin/env bash
# One call on the GPU machine (its python3 has PyTorch, CuPy, pybind11 and numpy; no GoogleTest,
# fmt or FFmpeg): builds libvif with CUDA for sm_90 and the Python module only, runs the pytest
# suite (GPU tests included; the file tests skip without fmt) and the 1080p tensor benchmark.
#   bash tests/python/gpu_run.sh        # results under $OUT (pytest.log, bench.md)
# VIF_SHARED_TESTDATA may name a copy of (part of) ../shared/testdata, e.g. the 1080p case.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/vif-py-out}
B=${VIF_PY_BUILD:-/tmp/vif-py-build}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import sys, torch, cupy, numpy; print(sys.version.split()[0], 'torch', torch.__version__, 'cupy', cupy.__version__, 'numpy', numpy.__version__)"

stamp configure
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_BUILD_TESTS=OFF \
  -DVIF_BUILD_BENCHMARKS=OFF -DVIF_BUILD_TOOLS=OFF -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_PYTHON=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DPython_EXECUTABLE="$(command -v python3)" \
  -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" \
  > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
grep -E "libvif:" "$OUT/configure.log"
stamp build
ninja -C "$B" -j16 vif_python > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -60; exit 1; }
export PYTHONPATH=$B/python PYTHONUNBUFFERED=1

stamp pytest
python3 tests/python/run_pytest.py tests/python -q -rs -p no:cacheprovider 2>&1 | tee "$OUT/pytest.log" | tail -40
rc=${PIPESTATUS[0]}
stamp "pytest rc=$rc"

stamp bench
python3 bench/python/bench_tensors.py --frames 600 --repeat 3 2>&1 | tee "$OUT/bench.md"
stamp done
exit $rc

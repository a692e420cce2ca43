#!/usr/bin/env bash
# One device call (issue 10): build the API tests and the ladder bench with CUDA, run the
# vif_submit_multi tests on the GPU, then the ladder bench on cuda and on this host's CPU.
set -u
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p "$O"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$O/gpu.txt" 2>&1
t0=$(date +%s)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_TOOLS=OFF -DVIF_BUILD_PYTHON=OFF -DVIF_BUILD_BENCHMARKS=ON \
  -DCMAKE_PREFIX_PATH="$PWD/.gpu-deps/prefix" > "$O/configure.log" 2>&1 || { tail -20 "$O/configure.log"; exit 1; }
cmake --build b -j16 --target vif_api_tests vif_bench_ladder > "$O/build.log" 2>&1 || { grep -E "error|FAILED" -A4 "$O/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
b/tests/api/vif_api_tests --gtest_filter='*Multi*:ApiInputs*' > "$O/api_multi.log" 2>&1; echo "api tests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED " "$O/api_multi.log" | head -20
for f in 48; do b/bench/ladder/vif_bench_ladder --backend cuda --wall --frames $f --rungs 6; done | tee "$O/ladder_cuda.txt"
b/bench/ladder/vif_bench_ladder --backend cuda --wall --frames 48 --rungs 6 --size 3840x2160 | tee -a "$O/ladder_cuda.txt"
b/bench/ladder/vif_bench_ladder --frames 8 --rungs 6 | tee "$O/ladder_cpu_host.txt"
echo "total $(( $(date +%s) - t0 )) s"

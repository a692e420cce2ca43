#!/usr/bin/env bash
# A short re-validation on the GPU machine after a kernel-source change (about 3 minutes): builds
# the parity and golden tests, runs the whole parity binary and the golden cases through CUDA, then
# compute-sanitizer memcheck and racecheck on tensor-core, float-set and ladder cases. Run from
# the repository root with .gpu-deps/prefix carried; logs in $OUT.
set -u; O=${OUT:-/tmp/vif-revalidate}; mkdir -p "$O"; export PATH=/usr/local/cuda/bin:$PATH; t0=$(date +%s); B=build-gpu
cmake --preset gpu -B $B -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_PYTHON=OFF -DVIF_BUILD_BENCHMARKS=OFF \
  -DCMAKE_PREFIX_PATH=$PWD/.gpu-deps/prefix > $O/conf.log 2>&1 || { tail -20 $O/conf.log; exit 1; }
cmake --build $B -j16 --target vif_parity_tests vif_golden_tests > $O/build.log 2>&1 || { grep -E "error" -A3 $O/build.log | head -30; exit 1; }
echo "build $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
PT=$B/tests/parity/vif_parity_tests
timeout 200 $PT --gtest_brief=1 > $O/parity_all.log 2>&1; echo "parity (whole binary) rc=$? $(grep -E 'PASSED|FAILED  \]' $O/parity_all.log | tail -2 | tr '\n' ' ')"
grep "^\[  FAILED" $O/parity_all.log | head
GT=$(find $B -name vif_golden_tests -type f | head -1)
timeout 100 $GT --gtest_brief=1 > $O/golden.log 2>&1; echo "golden rc=$? $(grep -E 'PASSED|FAILED  \]' $O/golden.log | tail -2 | tr '\n' ' ')"
F='Table/KernelVariant.*0t*:Table/KernelVariant.*0h*:Sets/FloatKernelSet.*/?:Small/SyntheticFloat.*/?:Ladder/MultiParity.*/17x19*:Ladder/MultiParity.*/175x143_8bit*'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $PT --gtest_brief=1 --gtest_filter="$F" > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san_$tool.log | tail -1) $(grep PASSED $O/san_$tool.log | tail -1)"
done
echo "total $(( $(date +%s) - t0 )) s"

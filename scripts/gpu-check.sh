#!/usr/bin/env bash
# The GPU checks, in one place (the only GPU session driver; docs/cuda.md, "Checking on a GPU").
# Run on a machine with an NVIDIA GPU and the CUDA Toolkit, from the repository root:
#   bash scripts/gpu-check.sh [stages]
# stages (default: build test parity golden sanitize sweep e2e):
#   build     configure (CMake preset `gpu`: native architecture) and build into $BUILD_DIR
#             (TARGETS="a b": only those targets, e.g. "vif_parity_tests vif_golden_tests vif-sweep")
#   test      the whole CTest suite (GPU tests included: label gpu)
#   parity    the parity gate's kernel-table part on its own: every variant of the table (one
#             frame a launch and batched), the launches without CUDA graphs, table-only log,
#             per-launch sync, unfused, batched (CudaOptions), the batching tests, the ladder
#             kernels (Ladder/*); with TUNING=1 the table holds every tuning candidate too
#   parity_all  the whole parity binary (every shipped kernel and path against the CPU reference)
#   golden    libvmaf's golden cases through the default backend (CUDA)
#   sanitize  compute-sanitizer (SAN_TOOLS, default memcheck racecheck synccheck initcheck) on
#             the parity tests
#   sweep     vif-sweep: occupancy and duration per resolution, integer and float; the
#             per-resolution table of docs/performance.md (scripts/sweep_table.py: sweep/table.md)
#   bench     Google Benchmark suite of the CUDA backend
#   ncu       Nsight Compute kernel durations at 576x324, 1920x1080 and 3840x2160 (clocks left
#             alone), each with the sum of its kernels' medians per frame; NCU_BATCH
#             ("576x324:16/8 ..." = size:frames per launch/bits) adds batched launches, per frame
#   cubin     kernels per architecture in the built libvif (cuobjdump --list-elf, -res-usage)
#   e2e       the vif CLI end to end (tests/cli/device_e2e.sh)
#   nvdec     the NVDEC segment decoder (media/segment_decoder.cpp, media/decode_loop.cpp):
#             first on testdata/encoded (tests/ffmpeg/nvdec_clips_test.sh, also in `test` as
#             vif_cli_nvdec_clips), then on the 1080p clips of bench/nvdec/make_clips.sh when
#             they are in ${CLIPS:-bench/nvdec/clips} (h264_src.mp4 and h264_enc.mkv; hevc_*,
#             small_*, corrupt.mkv when present): scores of `vif --hwdec cuda` (3 decoders an
#             input, 1, and 2 NVDEC + 2 software) and of software segment decoding (--hwdec
#             none --decoders 4) equal to one software decoder's, bit for bit; the stream cut
#             in several segments; a corrupt clip an error. Needs a build with FFmpeg (NVDEC).
#             NVDEC_BACKEND=cpu runs it without a GPU (the NVDEC checks then fail: the script's test)
# Environment: VIF_SRC (source tree, default this repository; a baseline tree carried along
# works too), BUILD_DIR (default build-gpu), TUNING=1 (-DVIF_BUILD_TUNING=ON: the kernel
# candidates of cuda/tuning/ compiled in, so the parity gate checks every one), OUT (results).
# Old and new side by side in one call (the same card; compare the "sum ... per frame" lines):
#   VIF_SRC=$PWD/../baseline BUILD_DIR=build-old OUT=$OUT/old TARGETS="vif vif_sweep" \
#     bash scripts/gpu-check.sh build ncu
#   BUILD_DIR=build-new OUT=$OUT/new bash scripts/gpu-check.sh build parity_all golden sanitize ncu cubin
#   TUNING=1 BUILD_DIR=build-tuning OUT=$OUT/tuning TARGETS=vif_parity_tests \
#     bash scripts/gpu-check.sh build parity
# Dependencies the GPU machine lacks (GoogleTest, Google Benchmark, CLI11, fmt, nlohmann-json)
# come from .gpu-deps/prefix, made by scripts/gpu-deps.sh on the development machine; a static
# FFmpeg with NVDEC from ${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec} when present (else FFmpeg off).
# Results: one folder, ${OUT:-$BUILD_DIR/results}: summary.md (also printed last), logs, tables.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SRC=$(cd "${VIF_SRC:-$ROOT}" && pwd)
B=$(realpath -m "${BUILD_DIR:-$ROOT/build-gpu}")
RES=${OUT:-$B/results}
STAGES=${*:-build test parity golden sanitize sweep e2e}
mkdir -p "$RES"
SUMMARY=$RES/summary.md
: > "$SUMMARY"
has() { [[ " $STAGES " == *" $1 "* ]]; }
note() { echo "$*" | tee -a "$SUMMARY"; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$SUMMARY"; }
fail=0

note "## GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
  --format=csv,noheader >> "$SUMMARY" 2>&1

ff=$ROOT/${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec}
# libdav1d (shared: Debian has no static one) sits beside the static FFmpeg: link and run with it.
[ -d "$ff/lib" ] && export LIBRARY_PATH=$ff/lib${LIBRARY_PATH:+:$LIBRARY_PATH} \
  LD_LIBRARY_PATH=$ff/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if has build; then
  stamp "configure"
  ffargs=(-DVIF_WITH_FFMPEG=OFF)
  if [ -d "$ff/lib/pkgconfig" ]; then
    export PKG_CONFIG_PATH=$ff/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    ffargs=(-DVIF_WITH_FFMPEG=ON)
  fi
  command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
  # The Python package too, where python3 has pybind11 (its GPU tests use PyTorch and CuPy).
  pyargs=()
  if pyb=$(python3 -m pybind11 --cmakedir 2>/dev/null); then
    pyargs=(-Dpybind11_DIR="$pyb" -DPython_EXECUTABLE="$(command -v python3)")
  fi
  targs=(-DVIF_BUILD_TUNING=OFF)
  [ "${TUNING:-0}" = 1 ] && targs=(-DVIF_BUILD_TUNING=ON)
  (cd "$SRC" && cmake --preset gpu -B "$B" "${ffargs[@]}" "${pyargs[@]}" "${targs[@]}" \
    -DCMAKE_PREFIX_PATH="$ROOT/.gpu-deps/prefix") \
    > "$RES/configure.log" 2>&1 || { tail -30 "$RES/configure.log"; fail=1; }
  stamp "build ($SRC -> $B${TARGETS:+, targets: $TARGETS}${TUNING:+, TUNING=$TUNING})"
  btargets=()
  for t in ${TARGETS:-}; do btargets+=(--target "$t"); done
  cmake --build "$B" -j "$(nproc)" "${btargets[@]}" -- -k 0 > "$RES/build.log" 2>&1  # every error
  rc=$?
  note "build rc=$rc ($(grep -o 'libvif: CUDA=.*' "$RES/configure.log" | head -1); python: ${#pyargs[@]})"
  [ $rc -ne 0 ] && { grep -E "error|FAILED" -A5 "$RES/build.log" | head -60; fail=1; }
fi
PT=$B/tests/parity/vif_parity_tests
GT=$B/tests/golden/vif_golden_tests
SW=$B/tools/sweep/vif-sweep
BE=$B/bench/cuda/vif_bench_cuda
CLI=$B/tools/vif/vif

if has test; then
  stamp "ctest (every test, GPU ones included)"
  ctest --test-dir "$B" -j 4 --timeout 900 > "$RES/ctest.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && fail=1
  note "## ctest rc=$rc: $(grep -E 'tests passed|tests failed' "$RES/ctest.log" | tail -1)"
  grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)" "$RES/ctest.log" | head -20 >> "$SUMMARY"
  note "GPU tests that skipped: $(grep -c 'Skipped' "$RES/ctest.log")"
fi
if has parity && [ -x "$PT" ]; then
  # The same tests run inside `test` (CTest); here on their own, with their own log and count.
  stamp "parity: every kernel-table variant and launch path, every float kernel set"
  timeout 400 "$PT" --gtest_brief=1 \
    --gtest_filter='KernelTableRules.*:Table/KernelVariant.*:KernelVariantErrors.*:Options/LaunchPath.*:Depths/Batching.*:BatchingMixed.*:BatchingErrors.*:Ladder/*:Sets/FloatKernelSet.*:FloatKernelSetAuto.*:FloatKernelSetErrors.*' \
    > "$RES/parity_table.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && fail=1
  note "## parity, kernel table, launch paths and batching: rc=$rc $(grep -E 'PASSED|FAILED  \]' "$RES/parity_table.log" | tail -2 | tr '\n' ' ')"
  grep -E "^\[  FAILED" "$RES/parity_table.log" | head -20 >> "$SUMMARY"
fi
if has parity_all && [ -x "$PT" ]; then
  stamp "parity: the whole binary"
  timeout "${PARITY_TIMEOUT:-400}" "$PT" --gtest_brief=1 > "$RES/parity_all.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && fail=1
  note "## parity (whole binary) rc=$rc $(grep -E 'PASSED|FAILED  \]' "$RES/parity_all.log" | tail -2 | tr '\n' ' ')"
  grep -E "^\[  FAILED" "$RES/parity_all.log" | head -20 >> "$SUMMARY"
fi
if has golden && [ -x "$GT" ]; then
  stamp "golden (backend auto = cuda)"
  timeout 200 "$GT" --gtest_brief=1 > "$RES/golden.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && fail=1
  note "## golden rc=$rc $(grep -E 'PASSED|FAILED  \]' "$RES/golden.log" | tail -2 | tr '\n' ' ')"
fi
if has sanitize && [ -x "$PT" ]; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  for tool in ${SAN_TOOLS:-memcheck racecheck synccheck initcheck}; do
    case $tool in
      memcheck)  filt='Small/SyntheticInteger.*/?:Small/SyntheticFloat.*/?:Sets/FloatKernelSet.*/?:All/DevicePointer.*:Pipeline.*:DevicePointerErrors.*:BatchingMixed.*:BatchingErrors.*' ;;
      racecheck) filt='Small/SyntheticInteger.*/1:Small/SyntheticInteger.*/5:Small/SyntheticFloat.*/2:Pipeline.*:BatchingMixed.*' ;;
      *)         filt='Small/SyntheticInteger.*/3:Small/SyntheticFloat.*/1' ;;
    esac
    stamp "compute-sanitizer $tool"
    timeout "${SAN_TIMEOUT:-200}" "$CS" --tool "$tool" --error-exitcode 9 "$PT" --gtest_brief=1 \
      --gtest_filter="$filt" > "$RES/sanitize_$tool.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && fail=1
    note "## compute-sanitizer $tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$RES/sanitize_$tool.log" | tail -1)"
  done
fi
if has sweep && [ -x "$SW" ]; then
  stamp "sweep"
  mkdir -p "$RES/sweep" "$RES/sweep_float"
  timeout 300 "$SW" --out "$RES/sweep" --runs 300 > "$RES/sweep/stdout.md" 2> "$RES/sweep/stderr.log"
  note "## sweep rc=$?"
  sed -n '/## Per frame/,/## Per kernel/p' "$RES/sweep/sweep.md" >> "$SUMMARY"
  # docs/performance.md's per-resolution table (576x324..7680x4320, 8 and 10 bits), checked
  # complete (PASS/FAIL line), also in sweep/table.md.
  python3 "$ROOT/scripts/sweep_table.py" "$RES/sweep/sweep.md" > "$RES/sweep/table.md" 2>&1
  rc=$?; [ $rc -ne 0 ] && fail=1
  note "## sweep table rc=$rc"; cat "$RES/sweep/table.md" >> "$SUMMARY"
  timeout 150 "$SW" --variant float --sizes 1920x1080,3840x2160 --bitdepths 8 --runs 30 --warmup 3 \
    --out "$RES/sweep_float" > /dev/null 2>&1
  note "## float sweep rc=$?"; grep -A5 "## Per frame" "$RES/sweep_float/sweep.md" >> "$SUMMARY"
fi
if has bench && [ -x "$BE" ]; then
  stamp "bench"
  timeout 300 "$BE" --benchmark_min_time=0.2 \
    --benchmark_filter="${BENCH_FILTER:-(Kernels/integer|Pipeline)/(576x324|1920x1080|3840x2160)/8bit}" \
    --benchmark_out="$RES/bench.json" --benchmark_out_format=json > "$RES/bench.txt" 2>&1
  note "## bench rc=$?"; grep -E "Kernels|Pipeline" "$RES/bench.txt" | head -40 >> "$SUMMARY"
fi
if has ncu && [ -x "$SW" ]; then
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for sz in 576x324 1920x1080 3840x2160; do
    stamp "ncu $sz"
    timeout 150 "$NCU" --clock-control none --kernel-name-base function \
      --kernel-name regex:'int_scale|float_' --metrics gpu__time_duration.sum \
      --launch-skip 9 --launch-count 9 "$SW" --no-gate --sizes "$sz" --bitdepths 8 --runs 5 --warmup 2 \
      --out "$RES" > "$RES/ncu_$sz.txt" 2>&1
    note "## ncu $sz rc=$? (gpu__time_duration per launch)"
    grep -E "int_scale|float_|gpu__time_duration" "$RES/ncu_$sz.txt" | head -24 >> "$RES/ncu_launches.txt"
    python3 "$ROOT/scripts/ncu_per_frame.py" "$RES/ncu_$sz.txt" >> "$SUMMARY" 2>&1
  done
  # Batched launches (NCU_BATCH="sizes:F,F bpc"): vif-sweep --batch F alone times F frames per
  # launch; the launches profiled are those of the batch (per frame: divide by F).
  for spec in ${NCU_BATCH:-}; do
    sz=${spec%%:*}; rest=${spec#*:}; f=${rest%%/*}; bd=${rest#*/}
    stamp "ncu $sz batch $f ${bd}-bit"
    timeout 150 "$NCU" --clock-control none --kernel-name-base function \
      --kernel-name regex:'int_scale' --metrics gpu__time_duration.sum \
      --launch-skip 6 --launch-count 15 "$SW" --no-gate --sizes "$sz" --bitdepths "$bd" --runs 5 \
      --warmup 2 --batch "$f" --out "$RES/ncu_b" > "$RES/ncu_${sz}_b${f}_${bd}.txt" 2>&1
    note "## ncu $sz batch $f ${bd}-bit rc=$? (gpu__time_duration per launch; grid z = frames)"
    python3 "$ROOT/scripts/ncu_per_frame.py" "$RES/ncu_${sz}_b${f}_${bd}.txt" >> "$SUMMARY" 2>&1
  done
fi
if has cubin; then
  LIB=$(ls "$B"/libvif/libvif.so.*.*.* 2>/dev/null | head -1)
  OBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
  if [ -n "$LIB" ] && [ -n "$OBJ" ]; then
    "$OBJ" --list-elf "$LIB" > "$RES/cubin_elf.txt" 2>&1
    "$OBJ" -res-usage "$LIB" > "$RES/cubin_res.txt" 2>&1
    note "## kernels in $(basename "$LIB"): $(grep -c 'Function' "$RES/cubin_res.txt") functions over $(grep -c 'ELF file' "$RES/cubin_elf.txt") ELF file(s) (per architecture: cubin_res.txt)"
    awk '/arch = /{a=$0} /Function/{n[a]++} END{for (k in n) print n[k], k}' "$RES/cubin_res.txt" >> "$SUMMARY"
  else
    note "## cubin: no libvif or cuobjdump"
  fi
fi
if has e2e && [ -x "$CLI" ]; then
  stamp "e2e (the vif CLI, whole process)"
  mkdir -p "$RES/e2e"
  OUT="$RES/e2e" VIF_CLI="$CLI" timeout "${E2E_TIMEOUT:-300}" bash "$ROOT/tests/cli/device_e2e.sh" > /dev/null 2>&1
  note "## e2e rc=$?"; cat "$RES/e2e/e2e.txt" >> "$SUMMARY" 2>/dev/null
fi
if has nvdec; then
  stamp "nvdec: the segment decoder on real clips"
  C=${CLIPS:-$ROOT/bench/nvdec/clips}
  NV=$RES/nvdec
  mkdir -p "$NV"
  scores() { grep -v -e '"fps"' -e '"backend"' "$1"; }
  bash "$ROOT/tests/ffmpeg/nvdec_clips_test.sh" "$CLI" "$ROOT/testdata/encoded" > "$NV/small.log" 2>&1
  rc=$?
  note "## nvdec on testdata/encoded rc=$rc (77 = skipped: no GPU or no NVDEC)"
  grep -E "PASS|FAIL|skipped" "$NV/small.log" >> "$SUMMARY"
  [ $rc -ne 0 ] && fail=1
  if [ ! -x "$CLI" ]; then
    note "FAIL nvdec: no vif CLI at $CLI"; fail=1
  elif [ ! -f "$C/h264_src.mp4" ] || [ ! -f "$C/h264_enc.mkv" ]; then
    note "nvdec: no 1080p clips in $C (carry bench/nvdec/clips/h264_src.mp4 and h264_enc.mkv for them)"
  else
    for pair in "h264_src.mp4 h264_enc.mkv" "hevc_src.mp4 hevc_enc.mkv" "small_src.y4m small_enc.mp4"; do
      set -- $pair
      [ -f "$C/$1" ] && [ -f "$C/$2" ] || continue
      n=${1%%_*}
      timeout 300 "$CLI" -r "$C/$1" -d "$C/$2" --backend "${NVDEC_BACKEND:-cuda}" --hwdec none \
        --precision max -q -o "$NV/sw_$n.json" 2> "$NV/sw_$n.err"
      rc=$?
      frames=$(grep -c '"frameNum"' "$NV/sw_$n.json" 2>/dev/null)
      if [ $rc -ne 0 ] || [ "${frames:-0}" -lt 2 ]; then
        note "FAIL nvdec $n: software decoding rc=$rc, ${frames:-0} frames: $(tail -2 "$NV/sw_$n.err" | tr '\n' ' ')"
        fail=1; continue
      fi
      for mode in "3:--hwdec cuda --verbose" "1:--hwdec cuda --decoders 1 --cpu-decoders 0" \
                  "2+2:--hwdec cuda --decoders 2 --cpu-decoders 2" "sw4:--hwdec none --decoders 4 --verbose"; do
        tag=${mode%%:*}; args=${mode#*:}
        # shellcheck disable=SC2086
        timeout 300 "$CLI" -r "$C/$1" -d "$C/$2" --backend "${NVDEC_BACKEND:-cuda}" $args --precision max -q \
          -o "$NV/hw_${n}_$tag.json" 2> "$NV/hw_${n}_$tag.err"
        rc=$?
        if [ $rc -eq 0 ] && cmp -s <(scores "$NV/sw_$n.json") <(scores "$NV/hw_${n}_$tag.json"); then
          note "PASS nvdec $n ($1 / $2, $frames frames) decoders $tag: scores = one software decoder's"
        else
          note "FAIL nvdec $n ($1 / $2) decoders $tag: rc=$rc, scores differ or missing: $(tail -2 "$NV/hw_${n}_$tag.err" | tr '\n' ' ')"
          fail=1
        fi
      done
      # Decoded in segments apart: the --verbose lines count them (more than one an encoded input).
      segs=$(grep -hoE 'hwdec: (reference|distorted): [0-9]+ segments' "$NV/hw_${n}_3.err" | awk '{print $3}' | sort -n | tail -1)
      grep -h "hwdec" "$NV/hw_${n}_3.err" | head -4 >> "$SUMMARY"
      if [ "${segs:-0}" -gt 1 ]; then
        note "PASS nvdec $n: NVDEC cut the stream in $segs segments"
      else
        note "FAIL nvdec $n: NVDEC did not decode in segments (${segs:-no} segment count in --verbose)"
        fail=1
      fi
    done
    if [ -f "$C/corrupt.mkv" ] && [ -f "$C/h264_enc130.mkv" ]; then
      for args in "--hwdec cuda" "--hwdec none --decoders 2"; do
        rm -f "$NV/corrupt.json"
        # shellcheck disable=SC2086
        timeout 120 "$CLI" -r "$C/h264_enc130.mkv" -d "$C/corrupt.mkv" $args -q -o "$NV/corrupt.json" \
          > "$NV/corrupt.err" 2>&1
        rc=$?
        if [ $rc -eq 1 ] && [ ! -e "$NV/corrupt.json" ] && grep -q "error: .*corrupt.mkv" "$NV/corrupt.err"; then
          note "PASS nvdec corrupt clip ($args): rc=1, no output: $(grep error "$NV/corrupt.err" | head -1)"
        else
          note "FAIL nvdec corrupt clip ($args): rc=$rc (want 1, an error naming the clip, no output file): $(head -1 "$NV/corrupt.err")"; fail=1
        fi
      done
    fi
  fi
  tar czf "$RES/nvdec.tar.gz" -C "$RES" nvdec 2>/dev/null && rm -rf "$NV"
fi
stamp "done (fail=$fail)"
echo "==== SUMMARY ===="; cat "$SUMMARY"
exit $fail

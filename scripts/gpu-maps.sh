#!/usr/bin/env bash
# Issue 24's GPU checks of per-pixel maps, one call on the GPU machine, from the repository root:
#   bash scripts/gpu-maps.sh            (carry .gpu-deps; results and summary.md under $OUT)
# 1. build   scripts/gpu-check.sh's build stage (preset gpu, GoogleTest etc. from .gpu-deps/prefix)
#            of the targets below, the Python module included when python3 has pybind11
# 2. parity  CudaMaps.* of vif_parity_tests: every testdata case (the shared ones too when
#            present), integer and float, CUDA maps = CPU maps bit for bit; vif_cuda_submit's
#            frames get device maps; every integer kernel variant of the table writes cpu_ref's
#            terms. Plus VifMapsApi.* and IsaLevels.* (CPU maps) on this machine's CPU
# 3. python  tests/python/test_maps.py: CUDA maps of host arrays = CPU maps, PyTorch / CuPy GPU
#            tensors give tensors on their device (a GPU test that skips is a FAIL here)
# 4. ncu     Nsight Compute (--clock-control none) kernel-time sum of one 1920x1080 8-bit frame,
#            maps off vs on, integer and float, and 10-bit integer (goal: on <= 1.25x off); and the frame time with
#            CUDA events (vif-sweep's pipelined time per frame, which includes the float maps'
#            copies) beside it
#            The ratios are printed side by side in one table at the end
# 5. cli     the `vif` CLI's map files with --backend cuda = --backend cpu byte for byte: the CLI
#            tests MapCli.* / MapPictures.* (auto and cuda against cpu on testdata), and a
#            1920x1080 clip of 6 frames (bench/cpu/make_maps_clip.py) mapped whole (every frame and
#            scale, npy and pgm16), integer and float, compared with diff -r; worst:3 on cuda
#            (scored without maps, the 3 worst again with them) = those frames' files
# 6. cpu     bench/cpu/maps_speed.sh on this machine's cores (--backend cpu): `--map-frames
#            worst:10` against no maps, 720p and 1080p, integer and float (goal <= 1.2x the wall
#            time, the issue's "speed"; the CPU time printed beside it), best of MAPS_REPS (5)
#            runs alternating with and without maps; the default (the worst frames' contexts
#            made by 2 threads while the clip is scored, the worst so far scored again while the
#            last frames are, each in 2 bands on contexts made for a band) decides; PNG files
#            (clip-png) by default beside it, and with MAPS_MODES other ways (whole frames on
#            contexts made for a frame, clip-whole; the contexts made by a thread each at once,
#            clip-mall; 16 band contexts, clip-c16; 5, clip-c5; more in maps_speed.sh's
#            mode_env), each also with the median of its runs' ratios, its clip phase and tail,
#            and the steps after the last frame (from VIF_MAP_TRACE: the last frame scored
#            again, local maps, files, the commit)
# Prints PASS/FAIL per check and the numbers; exit status 0 only when every check passes.
# Results: summary.md and logs.tar.gz (every log and table) in $OUT.
# Environment: BUILD_DIR (default build-gpu-maps), OUT (default $BUILD_DIR/maps-results),
# STAGES (default "build parity python ncu cli cpu": the stages run, in that order; with only
# "build cpu" the build is the vif_cli target alone), SKIP_BUILD=1 (reuse BUILD_DIR), NCU_RATIO
# (goal, default 1.25), SKIP_CPU=1 (no stage 6), MAPS_REPS (stage 6: runs of each way, default
# 5), MAPS_MODES, MAPS_SIZES, MAPS_VARIANTS (stage 6: maps_speed.sh's MODES, the first of which
# decides, SIZES and VARIANTS).
# The CPU stage alone, quickly (the build dir reused when the machine is warm, else vif_cli
# built, about a minute):  STAGES="build cpu" bash scripts/gpu-maps.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
B=$(realpath -m "${BUILD_DIR:-$ROOT/build-gpu-maps}")
RES=${OUT:-$B/maps-results}
GOAL=${NCU_RATIO:-1.25}
# A Python with numpy (the maps tests, the clip maker): PYTHON, the GPU machine's PyTorch venv,
# else python3.
PY=python3
for p in "${PYTHON:-}" /opt/torch/.venv/bin/python3 python3; do
  if [ -n "$p" ] && "$p" -c "import numpy" > /dev/null 2>&1; then PY=$p && break; fi
done
STAGES=" ${STAGES:-build parity python ncu cli cpu} "
stage() { [[ "$STAGES" == *" $1 "* ]]; }
mkdir -p "$RES"
SUMMARY=$RES/summary.md
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$SUMMARY"; }
fail=0
check() { # check NAME RC DETAIL
  if [ "$2" -eq 0 ]; then note "PASS $1: $3"; else note "FAIL $1 (rc=$2): $3"; fail=1; fi
}

note "## gpu-maps ($(git -C "$ROOT" log --oneline -1 2>/dev/null | cut -c1-60))"
note "python: $PY ($("$PY" -c 'import numpy; print("numpy", numpy.__version__)' 2>&1 | tail -1))"
# tail_of LOG: the end of a failing step's log, into the summary (the logs come back too, in
# logs.tar.gz, but the summary is what is read first).
tail_of() { { echo '```'; tail -n "${2:-25}" "$1" 2>&1; echo '```'; } >> "$SUMMARY"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  >> "$SUMMARY" 2>&1

# 1. build
if [ "${SKIP_BUILD:-0}" != 1 ] && stage build; then
  stamp "build"
  targets="vif_parity_tests vif_maps_tests vif_isa_tests vif_sweep vif_python vif_cli vif_cli_tests"
  stage parity || stage python || stage ncu || stage cli || targets=vif_cli # the CPU stage's
  BUILD_DIR=$B OUT=$RES/build TARGETS="$targets" \
    bash "$ROOT/scripts/gpu-check.sh" build > "$RES/build_stage.log" 2>&1
  rc=$?
  grep -q "build rc=0" "$RES/build/summary.md" 2>/dev/null || rc=1
  check build "$rc" "$(grep -o 'build rc=.*' "$RES/build/summary.md" 2>/dev/null | head -1)"
  [ "$rc" -ne 0 ] && { grep -E "error|FAILED" -A5 "$RES/build/build.log" | head -40; }
  # PNG maps need ISA-L (its headers and libisal.so.2: .gpu-deps/prefix from
  # scripts/gpu-deps.sh, or Debian's libisal-dev); without it the CLI refuses png.
  grep -q '^VIF_CLI_WRITES_PNG:INTERNAL=ON' "$B/CMakeCache.txt" 2>/dev/null
  check "vif writes PNG (ISA-L found)" $? \
    "$(grep -E '^VIF_ISAL_(LIBRARY|INCLUDE_DIR):' "$B/CMakeCache.txt" 2>/dev/null | tr '\n' ' ')"
fi
# The libvif just built first on the library path: the CLI, its tests and the Python module load
# it, not an older libvif.so.1 that LD_LIBRARY_PATH (which overrides the build's RUNPATH) may name.
LIBVIF=$(find "$B" -name 'libvif.so.1' -not -path '*/CMakeFiles/*' 2> /dev/null | head -1)
for lib in "$LIBVIF" "$(find "$B" -name 'libvif_ffmpeg.so.1' 2> /dev/null | head -1)"; do
  [ -n "$lib" ] && LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
# The static NVDEC FFmpeg that gpu-check.sh links keeps libdav1d (shared) beside it.
ff_lib=$ROOT/${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec}/lib
[ -d "$ff_lib" ] && LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$ff_lib
export LD_LIBRARY_PATH
note "libvif: ${LIBVIF:-not found}; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
PT=$B/tests/parity/vif_parity_tests
SW=$B/tools/sweep/vif-sweep

# 2. parity (GPU) and the CPU maps tests
if ! stage parity; then
  :
elif [ -x "$PT" ]; then
  stamp "parity: CudaMaps.*"
  timeout 600 "$PT" --gtest_filter='CudaMaps.*' > "$RES/parity_maps.log" 2>&1
  rc=$?
  grep -q "SKIPPED" "$RES/parity_maps.log" && { rc=1; note "(a CudaMaps test skipped: no GPU?)"; }
  check "parity CudaMaps (CUDA maps = CPU maps, every case, both variants; device maps; every kernel variant)" \
    "$rc" "$(grep -E '^\[  (PASSED|FAILED) ' "$RES/parity_maps.log" | tr '\n' ' ') $(grep -o '\[maps parity\].*' "$RES/parity_maps.log")"
  grep -E "^\[  FAILED|Failure|differ" "$RES/parity_maps.log" | head -20 >> "$SUMMARY"
else
  check "parity CudaMaps" 1 "no $PT"
fi
stage parity && for t in "tests/unit/vif_maps_tests" "tests/unit/vif_isa_tests"; do
  if [ -x "$B/$t" ]; then
    timeout 300 "$B/$t" > "$RES/$(basename "$t").log" 2>&1
    check "$(basename "$t") (CPU maps)" $? "$(grep -E '^\[  (PASSED|FAILED) ' "$RES/$(basename "$t").log" | tr '\n' ' ')"
  else
    check "$(basename "$t")" 1 "not built"
  fi
done

# 3. Python: the maps tests (GPU ones must run, not skip)
if ! stage python; then
  :
elif ls "$B"/python/libvif/_core*.so > /dev/null 2>&1; then
  stamp "python: tests/python/test_maps.py"
  VIF_CLI=$B/tools/vif/vif PYTHONPATH=$B/python timeout 300 "$PY" tests/python/run_pytest.py \
    tests/python/test_maps.py -q -rs -p no:cacheprovider > "$RES/pytest_maps.log" 2>&1
  rc=$?
  grep -E '^SKIPPED' "$RES/pytest_maps.log" >> "$SUMMARY"
  # A GPU case that skips (no GPU, no PyTorch or CuPy) checked nothing: a failure here.
  if grep -E '^SKIPPED' "$RES/pytest_maps.log" | grep -qE 'GPU|PyTorch|CuPy|CUDA'; then rc=1; fi
  check "python maps (CUDA host-array maps = CPU, torch/cupy tensors on their device)" "$rc" \
    "$(tail -1 "$RES/pytest_maps.log")"
  [ "$rc" -ne 0 ] && tail_of "$RES/pytest_maps.log" 30
else
  check "python maps" 1 "no Python module in $B/python (pybind11 missing?)"
fi

# 4. Kernel time of a 1080p frame, maps off vs on
ncu_sum() { # ncu_sum LOG -> us per frame (sum of the kernels' medians)
  python3 "$ROOT/scripts/ncu_per_frame.py" "$1" | sed -n 's/^sum of kernel medians per frame, 1 frame(s) per launch: \([0-9.]*\) us$/\1/p'
}
# shellcheck disable=SC2012 # fixed install paths
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
NCU_ROWS=()
if ! stage ncu; then
  :
elif [ -x "$SW" ] && [ -n "$NCU" ]; then
  # 8-bit integer and float (the goal), and 10-bit integer (its scale-0 maps kernel has a
  # register budget of its own: 3 blocks an SM, no spill).
  for case in integer:8 float:8 integer:10; do
    variant=${case%:*} bits=${case#*:}
    tag=${variant}
    [ "$bits" != 8 ] && tag=${variant}_${bits}bit
    regex='int_scale'
    [ "$variant" = float ] && regex='float_'
    for mode in off on; do
      flag=()
      [ "$mode" = on ] && flag=(--maps)
      stamp "ncu 1920x1080 $bits-bit $variant maps $mode"
      timeout 200 "$NCU" --clock-control none --kernel-name-base function \
        --kernel-name regex:"$regex" --metrics gpu__time_duration.sum \
        --launch-skip 12 --launch-count 18 "$SW" --no-gate --variant "$variant" \
        --sizes 1920x1080 --bitdepths "$bits" --runs 6 --warmup 3 "${flag[@]}" \
        --out "$RES/sweep_ncu_${tag}_$mode" > "$RES/ncu_${tag}_$mode.txt" 2>&1
      python3 "$ROOT/scripts/ncu_per_frame.py" "$RES/ncu_${tag}_$mode.txt" \
        > "$RES/ncu_${tag}_$mode.md" 2>&1
      # Whole frames with CUDA events (no profiler): vif-sweep's pipelined time per frame.
      timeout 120 "$SW" --no-gate --variant "$variant" --sizes 1920x1080 --bitdepths "$bits" --runs 300 \
        "${flag[@]}" --out "$RES/sweep_${tag}_$mode" > "$RES/sweep_${tag}_$mode.log" 2>&1
    done
    off=$(ncu_sum "$RES/ncu_${tag}_off.txt") on=$(ncu_sum "$RES/ncu_${tag}_on.txt")
    NCU_ROWS+=("| $variant | $bits | ${off:-?} | ${on:-?} | $(python3 -c "print('%.3fx' % ($on / $off))" 2>/dev/null || echo ?) |")
    pipe() { python3 -c "import json,sys; print('%.1f' % json.load(open(sys.argv[1]))['results'][0]['pipelined_us'])" "$1" 2>/dev/null || echo "?"; }
    poff=$(pipe "$RES/sweep_${tag}_off/sweep.json") pon=$(pipe "$RES/sweep_${tag}_on/sweep.json")
    if [ -n "$off" ] && [ -n "$on" ]; then
      ratio=$(python3 -c "print('%.3f' % ($on / $off))")
      ok=$(python3 -c "print(0 if $on <= $GOAL * $off else 1)")
      check "ncu 1920x1080 $bits-bit $variant kernels, maps on <= ${GOAL}x off" "$ok" \
        "off $off us, on $on us per frame: ${ratio}x (frame with events, pipelined: off $poff us, on $pon us)"
    else
      check "ncu 1920x1080 $bits-bit $variant" 1 "no kernel times (see ncu_${tag}_*.txt)"
    fi
    cat "$RES/ncu_${tag}_off.md" "$RES/ncu_${tag}_on.md" >> "$RES/ncu_tables.md" 2>/dev/null
  done
else
  check "ncu" 1 "no vif-sweep ($SW) or no ncu"
fi

if [ "${#NCU_ROWS[@]}" -gt 0 ]; then
  note ""
  note "Nsight Compute, 1920x1080, sum of the kernels' medians per frame (us), goal on <= ${GOAL}x off:"
  note "| variant | bits | maps off | maps on | on / off |"
  note "|---|---|---|---|---|"
  for row in "${NCU_ROWS[@]}"; do note "$row"; done
  note ""
fi

# 5. The CLI's map files: --backend cuda = --backend cpu, byte for byte
CT=$B/tests/cli/vif_cli_tests
VIF=$B/tools/vif/vif
if ! stage cli; then
  :
elif [ -x "$CT" ]; then
  stamp "cli: MapCli.* MapPictures.*"
  note "environment: $(env | grep -E '^VIF_' | tr '\n' ' ')(VIF_CLI_UNDER_TEST dropped: the tests run $VIF)"
  env -u VIF_CLI_UNDER_TEST timeout 300 "$CT" --gtest_filter='MapCli.*:MapPictures.*' \
    > "$RES/cli_map_tests.log" 2>&1
  rc=$?
  check "CLI map tests (auto and cuda map files = cpu on testdata)" "$rc" \
    "$(grep -E '^\[  (PASSED|FAILED) ' "$RES/cli_map_tests.log" | tr '\n' ' ')"
  if [ "$rc" -ne 0 ]; then
    { echo '```'; grep -E -A6 'Failure|error' "$RES/cli_map_tests.log" | head -50; echo '```'; } >> "$SUMMARY"
  fi
else
  check "CLI map tests" 1 "no $CT"
fi
if ! stage cli; then
  :
elif [ -x "$VIF" ]; then
  note "vif: $("$VIF" --version 2>&1 | head -1) (rc=$?); $(ldd "$VIF" 2>&1 | grep -E 'libvif|not found' | tr -s ' \t' ' ' | tr '\n' ';')"
  stamp "cli: 1920x1080 map files, cuda vs cpu"
  C=$B/maps-cli
  rm -rf "$C" && mkdir -p "$C"
  "$PY" "$ROOT/bench/cpu/make_maps_clip.py" 1920x1080 6 "$C/ref.y4m" "$C/dis.y4m" > "$RES/cli_clip.log" 2>&1 ||
    { note "FAIL making the 1080p clip:"; tail_of "$RES/cli_clip.log" 10; fail=1; }
  for variant in integer float; do
    for fmt in npy pgm16; do
      rc=0
      for backend in cpu cuda; do
        "$VIF" -r "$C/ref.y4m" -d "$C/dis.y4m" --variant "$variant" --backend "$backend" -q \
          -o "$C/${variant}_${fmt}_$backend.json" --map "$C/${variant}_${fmt}_$backend" \
          --map-format "$fmt" >> "$RES/cli_maps.log" 2>&1 || rc=1
      done
      n=$(find "$C/${variant}_${fmt}_cpu" -type f 2> /dev/null | wc -l)
      [ "$n" -eq 24 ] || rc=1 # 6 frames x 4 scales
      diff -r "$C/${variant}_${fmt}_cpu" "$C/${variant}_${fmt}_cuda" >> "$RES/cli_maps.log" 2>&1 || rc=1
      check "CLI 1920x1080 $variant $fmt map files, --backend cuda = cpu byte for byte" "$rc" \
        "$n files each ($(du -sb "$C/${variant}_${fmt}_cpu" 2> /dev/null | cut -f1) bytes)"
    done
    # worst:N on cuda: the clip scored without maps, the 3 worst frames again with maps (their
    # scores checked by vif itself); their files = those of the all run.
    rc=0
    "$VIF" -r "$C/ref.y4m" -d "$C/dis.y4m" --variant "$variant" --backend cuda -q \
      -o "$C/${variant}_worst.json" --map "$C/${variant}_worst" --map-format npy \
      --map-frames worst:3 >> "$RES/cli_maps.log" 2>&1 || rc=1
    n=$(find "$C/${variant}_worst" -type f 2> /dev/null | wc -l)
    [ "$n" -eq 12 ] || rc=1 # 3 frames x 4 scales
    for f in "$C/${variant}_worst"/*; do
      cmp "$f" "$C/${variant}_npy_cpu/$(basename "$f")" >> "$RES/cli_maps.log" 2>&1 || rc=1
    done
    check "CLI 1920x1080 $variant --map-frames worst:3 on cuda = those frames' files of the all run" \
      "$rc" "$n files"
  done
  grep -qE "error|Error" "$RES/cli_maps.log" && { note "vif's messages:"; grep -E "error|Error" "$RES/cli_maps.log" | sort | uniq -c | head -10 >> "$SUMMARY"; }
  rm -rf "$C"
else
  check "CLI map files" 1 "no $VIF"
fi

# 6. The CPU's cost of --map-frames worst:10, on this machine's cores
if [ "${SKIP_CPU:-0}" != 1 ] && stage cpu && [ ! -x "$VIF" ]; then
  check "CPU --map-frames worst:10" 1 "no $VIF (build it: STAGES=\"build cpu\")"
elif [ "${SKIP_CPU:-0}" != 1 ] && stage cpu; then
  stamp "cpu: maps_speed.sh ($(nproc) cores; $(lscpu 2>/dev/null | awk -F: '/^Thread\(s\) per core/ { gsub(/ /, "", $2); print $2 " threads a core" }'); transparent huge pages $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null))"
  speed_env=(GEN=numpy "PYTHON=$PY" "DIR=$B/maps-speed" "REPS=${MAPS_REPS:-5}" METRIC=wall BACKEND=cpu)
  [ -n "${MAPS_MODES:-}" ] && speed_env+=("MODES=$MAPS_MODES")
  [ -n "${MAPS_SIZES:-}" ] && speed_env+=("SIZES=$MAPS_SIZES")
  [ -n "${MAPS_VARIANTS:-}" ] && speed_env+=("VARIANTS=$MAPS_VARIANTS")
  # The kernel's huge-page work during the runs (the maps' buffers ask for huge pages: a fault
  # that finds none free may compact memory first, on the faulting thread).
  vmstat_of() { grep -E '^(compact_stall|compact_fail|thp_fault_alloc|thp_fault_fallback) ' /proc/vmstat 2>/dev/null | sort; }
  vm0=$(vmstat_of)
  env "${speed_env[@]}" bash "$ROOT/bench/cpu/maps_speed.sh" "$VIF" > "$RES/cpu_maps_speed.log" 2>&1
  rc=$?
  note "  huge pages during the runs (/proc/vmstat, every run together; defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)): $(join -a 2 <(echo "$vm0") <(vmstat_of) | awk 'NF == 3 { printf "%s +%d  ", $1, $3 - $2 }')"
  while read -r line; do note "  $line"; done < <(grep -E '^(PASS|FAIL|medians|tail|steps) ' "$RES/cpu_maps_speed.log")
  check "CPU --map-frames worst:10 on $(nproc) cores, <= 1.2x the wall time of no maps (best of ${MAPS_REPS:-5}, the default way)" "$rc" \
    "$(grep -cE '^PASS .*\(decides\)' "$RES/cpu_maps_speed.log") of $(grep -cE '^(PASS|FAIL) .*\(decides\)' "$RES/cpu_maps_speed.log") sizes/variants; the other ways compared beside it"
  [ "$rc" -ne 0 ] && tail_of "$RES/cpu_maps_speed.log" 10
fi

stamp "done (fail=$fail)"
# At most a few files come back: the summary, and every log and table in one archive.
# (Top-level entries only: build/ has a summary.md of its own, which goes into the archive.)
if (cd "$RES" && tar czf "$B/maps-logs.tar.gz" --exclude=./summary.md --exclude=./logs.tar.gz .); then
  find "$RES" -mindepth 1 -maxdepth 1 ! -name summary.md -exec rm -rf {} +
  mv "$B/maps-logs.tar.gz" "$RES/logs.tar.gz"
fi
echo "==== SUMMARY ===="
cat "$SUMMARY"
[ "$fail" -eq 0 ] && echo "gpu-maps: PASS" || echo "gpu-maps: FAIL"
exit "$fail"

#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (-fsanitize=fuzzer,address,undefined) in
# build-fuzz/ and runs each for a bounded time, starting from its seed corpus.
#   scripts/fuzz.sh [seconds-per-target, default 30] [target...]
# Without clang it says so and exits 0 (skipped, not failed). Exit 1 when a target crashed (its
# reproducer is in build-fuzz/artifacts/<target>/; keep it in tests/fuzz/regressions/<target>/ once
# fixed). Per-target logs: build-fuzz/logs/<target>.log. Environment: VIF_FUZZ_BUILD (build dir),
# VIF_JOBS (build jobs), VIF_FUZZ_RSS_MB (memory limit per target, default 2048).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
build=${VIF_FUZZ_BUILD:-build-fuzz}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: SKIPPED: clang++ not found (install clang; Debian: apt-get install clang libclang-rt-dev)"
  exit 0
fi
# libFuzzer's runtime comes with clang's compiler-rt (Debian: libclang-rt-<version>-dev).
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe_dir/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" 2>/dev/null; then
  ver=$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  echo "fuzz: clang++ cannot link libFuzzer; installing libclang-rt-$ver-dev libfuzzer-$ver-dev"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  { $sudo_cmd apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "libclang-rt-$ver-dev" "libfuzzer-$ver-dev"; } || true
  if ! clang++ -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" 2>/dev/null; then
    echo "fuzz: SKIPPED: clang++ $ver cannot link -fsanitize=fuzzer (libFuzzer runtime missing)"
    exit 0
  fi
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVIF_BUILD_FUZZERS=ON -DVIF_BUILD_TESTS=OFF -DVIF_BUILD_TOOLS=OFF -DVIF_BUILD_BENCHMARKS=OFF \
  -DVIF_ENABLE_CUDA=OFF -DVIF_WITH_FFMPEG=OFF "${launcher[@]}" >/dev/null
targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in fuzz_api fuzz_y4m fuzz_raw fuzz_options; do
    if grep -q "^build tests/fuzz/$t:" "$build/build.ninja" 2>/dev/null; then
      targets+=("$t")
    else
      echo "fuzz: $t not built (it needs fmt, and CLI11 and tools/vif/options.cpp for fuzz_options)"
    fi
  done
fi
cmake --build "$build" -j "${VIF_JOBS:-$(nproc)}" --target "${targets[@]}"

mkdir -p "$build/logs"
failed=()
printf '%-13s %10s %8s %8s %8s %s\n' target runs cov ft exec/s result
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  mkdir -p "$work" "$build/artifacts/$t"
  log="$build/logs/$t.log"
  seeds=(tests/fuzz/corpus/$t)
  [ -d "tests/fuzz/regressions/$t" ] && seeds+=("tests/fuzz/regressions/$t")
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=20 \
      -rss_limit_mb="${VIF_FUZZ_RSS_MB:-2048}" -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t/" "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  stats=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$stats")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$stats")
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if ((rc == 0)); then result=ok; else result="CRASH (rc $rc; $log)"; failed+=("$t"); fi
  printf '%-13s %10s %8s %8s %8s %s\n' "$t" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${eps:-?}" "$result"
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}; reproducers in $build/artifacts/<target>/"
  for t in "${failed[@]}"; do grep -E 'ERROR|contract broken|SUMMARY|==[0-9]+==' "$build/logs/$t.log" | head -5; done
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a crash"

#!/usr/bin/env bash
# On the GPU machine: build the vif CLI with CUDA, run tests/cli there (parity included), and
# time the CLI end to end on synthetic 1080p / 2160p clips from the page cache.
#   bash tests/cli/device_bench.sh
# Needs build-deps/prefix (GoogleTest) and build-cli-deps/prefix (CLI11, fmt, nlohmann headers)
# carried from the dev machine when the GPU machine lacks them. Writes $OUT/cli_summary.txt.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/build-device-out}
B=${VIF_CLI_DEVICE_BUILD:-$ROOT/build-device-cli}
DATA=${VIF_CLI_BENCH_DATA:-/tmp/vif-cli-bench}
mkdir -p "$OUT" "$DATA"
S=$OUT/cli_summary.txt
: > "$S"
note() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
stamp() { note "[$(( $(date +%s) - t0 ))s] $*"; }

note "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"
note "cores: $(nproc)  $(grep -m1 'model name' /proc/cpuinfo)"

stamp configure
cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIF_ENABLE_CUDA=ON \
  -DVIF_WITH_FFMPEG=OFF -DVIF_BUILD_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CXX_FLAGS="-include system_error" \
  -DCMAKE_PREFIX_PATH="$ROOT/build-deps/prefix;$ROOT/build-cli-deps/prefix" > "$OUT/cli_configure.log" 2>&1
crc=$?
TARGETS="vif_cli vif_cli_tests"
if [ $crc -ne 0 ] || ! grep -q vif_cli_tests "$B/build.ninja" 2>/dev/null; then
  note "configure with tests failed or has no tests/cli; CLI only: $(grep -i error "$OUT/cli_configure.log" | head -3)"
  cmake -S "$ROOT" -B "$B" -DVIF_BUILD_TESTS=OFF > "$OUT/cli_configure2.log" 2>&1 \
    || { tail -30 "$OUT/cli_configure2.log" | tee -a "$S"; exit 1; }
  TARGETS="vif_cli"
fi
stamp build
ninja -C "$B" -j"$(nproc)" $TARGETS > "$OUT/cli_build.log" 2>&1 \
  || { grep -E "error|FAILED" -A3 "$OUT/cli_build.log" | head -40 | tee -a "$S"; exit 1; }
V=$(find "$B" -name vif -type f -perm -u+x | head -1)
T=$(find "$B" -name vif_cli_tests -type f | head -1)
note "$("$V" --version)"

# Synthetic clips: a textured frame panned one pixel a frame, distorted by noise (frames
# differ, so nothing is cached anywhere), written once and read from the page cache.
stamp "make clips"
python3 - "$DATA" <<'EOF'
import numpy as np, os, sys
d = sys.argv[1]
def make(w, h, n, bd, name):
    ref_p, dis_p = f"{d}/{name}_ref.yuv", f"{d}/{name}_dis.yuv"
    if os.path.exists(ref_p) and os.path.exists(dis_p): return
    rng = np.random.default_rng(1)
    dt = np.uint8 if bd == 8 else np.uint16
    top = (1 << bd) - 1
    y, x = np.mgrid[0:h, 0:w + n]
    base = (0.5 + 0.25 * np.sin(x / 23.0) * np.cos(y / 17.0) + 0.2 * np.sin((x + y) / 5.0)) * top
    base = np.clip(base + rng.normal(0, top * 0.02, base.shape), 0, top)
    noisy = np.clip(base + rng.normal(0, top * 0.03, base.shape), 0, top).astype(dt)
    base = base.astype(dt)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    chroma = np.full(2 * cw * ch, (top + 1) // 2, dt).tobytes()
    with open(ref_p, "wb") as fr, open(dis_p, "wb") as fd:
        for i in range(n):
            fr.write(np.ascontiguousarray(base[:, i:i + w]).tobytes()); fr.write(chroma)
            fd.write(np.ascontiguousarray(noisy[:, i:i + w]).tobytes()); fd.write(chroma)
make(1920, 1080, 1200, 8, "p1080")
make(3840, 2160, 300, 8, "p2160")
make(1920, 1080, 200, 10, "p1080_10b")
EOF
cat "$DATA"/*.yuv > /dev/null  # into the page cache
ls -la "$DATA" >> "$S"

run() { # label, then the vif arguments
  local label=$1; shift
  local s e
  s=$(date +%s.%N)
  "$V" "$@" > "$OUT/cli_run.out" 2> "$OUT/cli_run.err"
  local rc=$?
  e=$(date +%s.%N)
  note "$label: rc=$rc wall $(echo "$e - $s" | bc 2>/dev/null || python3 -c "print($e-$s)") s | $(tail -1 "$OUT/cli_run.out") $(tail -2 "$OUT/cli_run.err" | tr '\n' ' ')"
}
R1="-r $DATA/p1080_ref.yuv -d $DATA/p1080_dis.yuv -w 1920 -h 1080 -p 420 -b 8"
R2="-r $DATA/p2160_ref.yuv -d $DATA/p2160_dis.yuv -w 3840 -h 2160 -p 420 -b 8"
R3="-r $DATA/p1080_10b_ref.yuv -d $DATA/p1080_10b_dis.yuv -w 1920 -h 1080 -p 420 -b 10"
stamp "input speed (--read-only: read, check, one copy per plane)"
run "1080p read-only mapped" $R1 --read-only
run "1080p read-only pread " $R1 --read-only --no-mmap
run "2160p read-only mapped" $R2 --read-only
run "1080p 10-bit read-only mapped (sample check)" $R3 --read-only
stamp "scoring, whole process"
for i in 1 2; do
  run "1080p cuda integer 1200 frames" $R1 --backend cuda -q -o "$DATA/o.json"
  grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
done
run "1080p cuda integer --no-mmap" $R1 --backend cuda -q -o "$DATA/o.json"
grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
run "2160p cuda integer 300 frames" $R2 --backend cuda -q -o "$DATA/o.json"
grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
run "1080p cuda integer 10-bit 200 frames" $R3 --backend cuda -q -o "$DATA/o.json"
grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
run "1080p cuda float 100 frames" $R1 --backend cuda --variant float --frames 100 -q -o "$DATA/o.json"
grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
run "1080p cpu integer 60 frames (16 threads)" $R1 --backend cpu --frames 60 -q -o "$DATA/o.json"
grep -m1 '"fps"' "$DATA/o.json" | tee -a "$S"
run "1080p start-up: 1 frame cuda" $R1 --backend cuda --frames 1 -q -o "$DATA/o.json"
stamp "parity: 1080p clip, 100 frames"
run "1080p --check-parity integer" $R1 --check-parity --frames 100 -q
tail -18 "$OUT/cli_run.err" >> "$S"
run "1080p --check-parity float" $R1 --check-parity --variant float --frames 30 -q
tail -3 "$OUT/cli_run.err" >> "$S"
if [ -n "$T" ]; then
  stamp "tests/cli on the GPU machine"
  ( cd "$ROOT" && timeout 180 "$T" --gtest_brief=1 ) > "$OUT/cli_tests.log" 2>&1
  note "tests/cli rc=$?"
  grep -E "PASSED|FAILED|SKIPPED|Skipped|tests ran" "$OUT/cli_tests.log" | tail -12 | tee -a "$S"
fi
stamp done

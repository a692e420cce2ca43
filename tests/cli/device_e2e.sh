#!/usr/bin/env bash
# On the GPU machine: the `vif` CLI end to end (whole process, inputs in the page cache) at 1080p
# and 2160p, the start-up broken down, and --check-parity through the CLI. This is the script
# behind the end-to-end figures in docs/performance.md.
#   VIF_CLI=/path/to/vif bash tests/cli/device_e2e.sh
# scripts/gpu-check.sh e2e runs it with the CLI it built.
# E2E_FRAMES_1080 (default 1200) and E2E_FRAMES_2160 (default 600) set the clip lengths; the
# clips live in /tmp and are made once per machine. Writes $OUT/e2e.txt; prints it last.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/e2e-out}
mkdir -p "$OUT"
S=$OUT/e2e.txt
: > "$S"
note() { echo "$*" >> "$S"; }
V=${VIF_CLI:-}
[ -x "$V" ] || { echo "set VIF_CLI to a vif binary built with CUDA (scripts/gpu-check.sh build does that)" >&2; exit 2; }
F1080=${E2E_FRAMES_1080:-1200}
F2160=${E2E_FRAMES_2160:-600}

# Synthetic clips: a textured frame panned one pixel a frame, distorted by noise.
python3 - "$F1080" "$F2160" <<'PY'
import numpy as np, os, sys
def make(w, h, n, name):
    rp, dp = f"/tmp/{name}_ref.yuv", f"/tmp/{name}_dis.yuv"
    if os.path.exists(rp) and os.path.getsize(rp) == n * w * h * 3 // 2: return
    rng = np.random.default_rng(1)
    y, x = np.mgrid[0:h, 0:w + 64]
    base = np.clip((0.5 + 0.25*np.sin(x/23.0)*np.cos(y/17.0) + 0.2*np.sin((x+y)/5.0))*255
                   + rng.normal(0, 5, x.shape), 0, 255)
    noisy = np.clip(base + rng.normal(0, 8, base.shape), 0, 255).astype(np.uint8)
    base = base.astype(np.uint8)
    ch = np.full(2 * (w//2) * (h//2), 128, np.uint8).tobytes()
    with open(rp, "wb") as fr, open(dp, "wb") as fd:
        for i in range(n):
            s = i % 64
            fr.write(np.ascontiguousarray(base[:, s:s+w]).tobytes()); fr.write(ch)
            fd.write(np.ascontiguousarray(noisy[:, s:s+w]).tobytes()); fd.write(ch)
make(1920, 1080, int(sys.argv[1]), "p1080")
make(3840, 2160, int(sys.argv[2]), "p2160")
PY
cat /tmp/p1080_*.yuv /tmp/p2160_*.yuv > /dev/null  # into the page cache
note "$(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.mem --format=csv,noheader 2>&1)"
note "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo); $("$V" --version)"
note "clips: $(ls -la /tmp/p1080_ref.yuv /tmp/p2160_ref.yuv | awk '{print $5, $9}' | tr '\n' ' ')"

# run LABEL FRAMES ARGS...: wall time from date stamps; the exit's share from the
# "leaving main()" stamp that --verbose prints.
run() {
  local label=$1 frames=$2; shift 2
  local s e
  s=$(date +%s.%N)
  "$@" > "$OUT/run.out" 2> "$OUT/run.err"
  local rc=$?
  e=$(date +%s.%N)
  local fps leave
  fps=$(grep -m1 '"fps"' /tmp/e2e.json 2>/dev/null | tr -dc '0-9.')
  leave=$(grep -o 'leaving main() at [0-9.]*' "$OUT/run.err" | awk '{print $4}')
  python3 - "$label" "$frames" "$s" "$e" "$rc" "${fps:-}" "${leave:-}" >> "$S" <<'PY'
import sys
label, frames, s, e, rc, fps, leave = sys.argv[1:]
wall = float(e) - float(s)
line = f"{label:<44} rc={rc} wall {wall:.3f} s = {int(frames)/wall:7.0f} fps"
if fps: line += f" | steady (JSON fps) {float(fps):.0f}"
if leave: line += f" | exit after main {1000*(float(e)-float(leave)):.0f} ms"
print(line)
PY
  grep -E "^vif: timing|^vif: [0-9]+ frames|^vif: staying|^libvif cuda|error" "$OUT/run.err" >> "$S"
  rm -f /tmp/e2e.json
}

for size in 1080 2160; do
  if [ $size = 1080 ]; then W=1920; H=1080; N=$F1080; else W=3840; H=2160; N=$F2160; fi
  A=(-r /tmp/p${size}_ref.yuv -d /tmp/p${size}_dis.yuv -w $W -h $H -p 420 -b 8)
  note ""
  note "## ${W}x${H} 8-bit, $N frames"
  for i in 1 2 3; do run "whole process, --backend cuda (run $i)" $N "$V" "${A[@]}" --backend cuda -q -o /tmp/e2e.json; done
  for i in 1 2 3; do run "whole process, default (auto: cpu, then cuda) ($i)" $N "$V" "${A[@]}" -q -o /tmp/e2e.json; done
  run "whole process, auto, --verbose" $N "$V" "${A[@]}" --verbose -q -o /tmp/e2e.json
  run "whole process, --backend cuda, --verbose" $N "$V" "${A[@]}" --backend cuda --verbose -q -o /tmp/e2e.json
  run "one frame, --backend cuda, --verbose" 1 "$V" "${A[@]}" --backend cuda --frames 1 --verbose -q -o /tmp/e2e.json
  for i in 1 2 3; do run "one frame, default (auto) ($i)" 1 "$V" "${A[@]}" --frames 1 -q -o /tmp/e2e.json; done
  run "one frame, default (auto), --verbose" 1 "$V" "${A[@]}" --frames 1 --verbose -q -o /tmp/e2e.json
  run "one frame, --backend cpu" 1 "$V" "${A[@]}" --backend cpu --frames 1 -q -o /tmp/e2e.json
  run "whole process, --backend cuda --no-mmap (pread)" $N "$V" "${A[@]}" --backend cuda --no-mmap -q -o /tmp/e2e.json
  run "--read-only (input speed)" $N "$V" "${A[@]}" --read-only
  note "$(tail -1 "$OUT/run.out")"
  run "--check-parity, 20 frames" 20 "$V" "${A[@]}" --check-parity --frames 20 -q
  grep -E "parity:" "$OUT/run.err" | tail -1 >> "$S"
done
note ""
"$V" -r "$ROOT/testdata/cases/kodim23pan_576x324_yuv420p_ref.yuv" -d "$ROOT/testdata/cases/kodim23pan_576x324_yuv420p_crf35.yuv" \
  -w 576 -h 324 -p 420 -b 8 --check-parity > /dev/null 2> "$OUT/run.err"
note "--check-parity golden 576x324: rc=$? $(grep 'parity:' "$OUT/run.err" | tail -1)"
"$V" -r /tmp/p1080_ref.yuv -d /tmp/p1080_dis.yuv -w 1920 -h 1080 -p 420 -b 8 --check-parity --variant float --frames 20 -q 2> "$OUT/run.err"
note "--check-parity float 1080p 20 frames: rc=$? $(grep 'parity:' "$OUT/run.err" | tail -1)"

# CUDA's own start-up and exit, outside libvif (bench/cuda/startup_probe.cu).
if [ "${E2E_PROBE:-1}" = 1 ] && command -v nvcc > /dev/null && nvcc -O2 -arch=sm_90 "$ROOT/bench/cuda/startup_probe.cu" -o /tmp/probe 2> "$OUT/probe_build.log"; then
  for mode in return quick reset; do
    for i in 1 2; do
      s=$(date +%s.%N); /tmp/probe $mode > "$OUT/probe.out" 2>&1; e=$(date +%s.%N)
      leave=$(grep -o 'leaving main at [0-9.]*' "$OUT/probe.out" | awk '{print $4}')
      note "probe $mode: whole process $(python3 -c "print(f'{1000*($e-$s):.0f} ms; exit after main {1000*($e-${leave:-$e}):.0f} ms')")"
      [ $i = 1 ] && grep -E "^probe: [a-zA-Z(]" "$OUT/probe.out" | grep -v leaving >> "$S"
    done
  done
fi
cat "$S"

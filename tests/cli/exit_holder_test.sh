#!/usr/bin/env bash
# The exit holder (tools/vif/pair/exit_holder.hpp, on unless VIF_EXIT_HOLDER=0; the pair command
# and `vif batch`), which keeps the process's memory and files (the driver's among them) after it
# has gone, changes nothing a caller sees:
# the scores on a pipe equal those of a run without it, an error exits as before with nothing
# written, and no vif process of the run is left a moment later.
#   exit_holder_test.sh VIF
set -uo pipefail
vif=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# 24 frames of 1920x1080 (a textured ramp): long enough that `auto` may start CUDA.
python3 - "$work" << 'PY' || { echo "python3 missing: skipped"; exit 77; }
import sys
w, h, n = 1920, 1080, 24
with open(sys.argv[1] + "/ref.yuv", "wb") as r, open(sys.argv[1] + "/dis.yuv", "wb") as d:
    for i in range(n):
        row = bytes((x * 7 + i * 3) % 251 for x in range(w))
        r.write(row * h + bytes([128]) * (w * h // 2))
        d.write(bytes((b + (x % 5)) % 256 for x, b in enumerate(row)) * h + bytes([128]) * (w * h // 2))
PY
args=(-r "$work/ref.yuv" -d "$work/dis.yuv" -w 1920 -h 1080 -p 420 -b 8 --json -q --precision max)
plain=$(VIF_EXIT_HOLDER=0 "$vif" "${args[@]}") || bad "run without the holder failed"
held=$("$vif" "${args[@]}") || bad "run with the holder failed"
[[ "$(grep -v '"fps"' <<< "$plain")" == "$(grep -v '"fps"' <<< "$held")" ]] || bad "scores differ with the holder"
[[ $(grep -c frameNum <<< "$held") == 24 ]] || bad "not 24 frames with the holder"
if ! "$vif" --version | grep -q "cuda available"; then
  out=$("$vif" "${args[@]}" --backend cuda -o "$work/x.json" 2>&1); rc=$?
  [[ $rc != 0 && $out == *"--backend cuda"* && ! -e $work/x.json ]] || bad "--backend cuda without a GPU: rc=$rc: $out"
fi
# `vif batch` makes a holder too: the same outputs as without it, and a second run right after
# the first finds the folder's progress log free (closed before the exit) and reuses the row.
printf 'reference,distorted,width,height,pixel_format,bitdepth\n%s,%s,1920,1080,420,8\n' \
  "$work/ref.yuv" "$work/dis.yuv" > "$work/m.csv"
VIF_EXIT_HOLDER=0 "$vif" batch "$work/m.csv" --out-dir "$work/b0" -q --precision max || bad "batch without the holder failed"
"$vif" batch "$work/m.csv" --out-dir "$work/b1" -q --precision max || bad "batch with the holder failed"
cmp -s "$work/b0/summary.csv" "$work/b1/summary.csv" || bad "batch summaries differ with the holder"
again=$("$vif" batch "$work/m.csv" --out-dir "$work/b1" --precision max 2>&1) || bad "batch right after: $again"
[[ $again == *"1 reused"* ]] || bad "batch right after did not reuse the row: $again"
sleep 0.5
left=$(pgrep -f -- "$work/(ref.yuv|m.csv)" | wc -l)
[[ $left == 0 ]] || bad "$left vif processes of the run are still there"
[[ $fail == 0 ]] && echo "exit holder: all checks passed"
exit $fail

#!/usr/bin/env bash
# Issue 25 in one GPU call: `vif batch` on 1, 2 and 4 GPUs of one host against today's binary,
# whole process, the same files side by side, with the checks that say PASS or FAIL.
#
#   A. the compact catalogue (bench/batch/make_compact_clips.sh: 100 pairs of 48 frames of
#      576x324, x264 MKV, software decoding): the baseline (`--devices 0`, its default of one
#      worker; and with 4 workers), then this tree on 1, 2 and 4 GPUs (`--devices`, default
#      workers: up to 4 per GPU). Its work (about 0.5 s on one GPU) is shorter than what a
#      second device's start-up costs: `vif batch` starts the others only where the work pays
#      for them (--timings: "devices: ..."), so the target there is "never slower than one";
#   A10. the compact catalogue ten times over (1,000 rows: its rows listed once per copy, each
#      copy's clips through a link folder of its own, so 200 reference groups of 5), a
#      catalogue big enough to pay for the devices: this tree on 1, 2 and 4 GPUs;
#   R. raw input (issue 25's third step, pinned staging, is worth it only where raw reads and
#      copies bind): ROWS_RAW rows (default 48) of a 1080p 8-bit 4:2:0 pair of 120 frames made
#      here from /dev/urandom (two files, linked per row), this tree on 1, 2 and 4 GPUs, with
#      --timings (decode wait: reading; scoring wait: copies and kernels); informational;
#   B. a catalogue of the bench/nvdec 1080p H.264 pair (h264_src.mp4 / h264_enc.mkv, 1,200
#      frames): ROWS_1080 rows (default 16), each a group of its own (links), the same ways
#      (each row decoded by the NVDEC of the GPU that scores it) and one GPU with --hwdec none
#      (the one-pair default of 3 NVDEC decoders an input measured 0.90x of the batch's 1 on 4x
#      H200 2026-11-26: no longer run);
#   B64. part B's pair in 64 rows (a group each, links), about 37 s on one H200 (its ways about
#      140 s in all on 4 GPUs: with BUDGET=300 and the parts "A A10 B B64", the last ones may be
#      skipped): the targets
#      over a catalogue whose fixed costs (CUDA's initialisation, the devices' start-ups, the
#      first round of NVDEC sessions) are a smaller share; this tree on 1, 2 and 4 GPUs by
#      default (NVDEC rows: 8 workers a GPU), and ways that say what pays (B64_WAYS chooses):
#      4 workers a GPU (g4w4, g2w4), no open-ahead (g4na, g4w4na), decoders not kept (g4nk);
#   B128, B256. the same pair in 128 and 256 rows (about 66 s and 130 s on one H200): longer
#      catalogues' ratios (a real one is thousands of encodes; the fixed costs shrink with more
#      rows); g1 and g4 by default, B128_WAYS / B256_WAYS (as B64_WAYS) for more (B256 wants
#      RUN_TIMEOUT=180);
#   L. part B's pair as a catalogue of ladders: L_SOURCES sources (default 16) of L_RUNGS rungs
#      (default 4), each source a link of h264_src.mp4 and each rung one of h264_enc.mkv, so
#      that a source's rows share its reference: NVDEC decodes the reference once for its
#      rungs; g1, g2, g4 and the same groups decoded on the host (g1h, g2h: --hwdec none) by
#      default (L_WAYS as B64_WAYS); 2 GPUs >= 1.8x one, 4 GPUs >= 3.4x;
#   B32. part B's catalogue with twice the rows (32), this tree on 1 and 2 GPUs (4 where there
#      are 4): the same target over more rows;
#   C. where one GPU's time goes (measure before fixing): the compact catalogue on one GPU with
#      1, 2, 4 and 8 workers (wall and CPU seconds), the GPU's utilisation during part B's
#      one-GPU run, and the 1080p pair alone decoded on the CPU (--read-only) and scored with
#      NVDEC (--hwdec cuda);
#   D. faults on the real GPUs: the second device of `--devices 0,1` (0,0 on one GPU) fails
#      after 2 rows (VIF_TEST_FAIL_DEVICE): exit 0, the same outputs, its rows re-run and named;
#      the only device failing: exit 1, no summary; a device that is not there: exit 2, named.
# Is the bound in the process or in the machine? The same catalogue as N processes, one per GPU
# (`--shard I/N --devices I`, started together: the way "gNproc"), beside one process on N GPUs;
# and, on the compact catalogue, one process on N GPUs with 2 workers per GPU ("gNw2") beside
# the default (4 per GPU).
# Where the time went, for every run of this tree: `vif batch --timings` (per device: start-up,
# contexts made, opening, decode and scoring waits, busy time) and each GPU's utilisation while
# the run went (nvidia-smi, 100 ms samples), in the summary under each table.
# Every way's outputs are compared with the one-GPU run's: summary.csv byte for byte and every
# per-pair JSON byte for byte but its "fps" line (a timing); the baseline's too.
# Targets (issue 25): one GPU >= 1.5x the baseline's pair-frames/s on A; 2 GPUs >= 1.8x one on
# A10 and on B; 4 GPUs >= 3.4x one (where there are 4: on a 2-GPU machine the 4-GPU ways and
# targets are skipped, SKIP lines). On A (about 0.45 s of one GPU's work in a 1.6 s process):
# 2 GPUs >= 1.8x one, or the second device rightly not started (the "A estimate" line: at the
# very best, started, it would stay under 1.8x) and never slower than one (>= 0.95x); 4 GPUs
# never slower. Each catalogue's one-GPU wall is split into the run (--timings) and what is
# outside it (process start, CUDA initialisation, exit), which no number of GPUs shortens.
# Session 7 (informational): gNold, the defaults before session 7 (4 workers a GPU, glibc's
# malloc as it is, a group's reference on the inputs' threads: VIF_BATCH_MALLOC_TUNE=0
# VIF_BATCH_REF_THREADS=-1; A10: one GPU only); with SESSION7_WAYS=1, A10 gNsc, glibc's cache of
# thread stacks at 1 GiB, and A10 gNbw, blocking waits for the scores (VIF_CUDA_BLOCKING_WAIT=1).
# Session 8: the device plan leaves devices out where the host's decoding binds (A10): A10's
# 2- and 4-GPU checks pass at the target, or with the other devices left out, the run never
# slower than one GPU (>= 0.95x) and no slower than every device started (A10 gNall: the work
# said to be long, VIF_TEST_BATCH_WORK_S=1000, as the plan before did; within 5%); B gNsb (a row
# opened when it is to be scored starting in software while its NVDEC sessions open: slower in
# both calls, removed in session 9). Every table gives each run's time before the run
# (process start, CUDA's initialisation: 0.55-1.05 s on the 4x H200 host whatever the way) and
# the run's own (--timings). --timings also
# gives the run's CPU and context switches and the host readers' CPU against reading time; the
# GPUs' NVDEC utilisation is sampled beside their SM's.
# Session 9: A10's g1, g2 and g4 run REPS times each (default 3, in turn), the medians judged
# (one run's spread was 15-20%), "never slower" a check of its own; A10's informational ways of
# sessions 7 and 8 (g1x12, g1x16, g4proc, g1old) only with A10_EXTRA=1.
# Ways that say what binds (informational): B with the next row's opening while a row decodes
# turned off (gNna: VIF_BATCH_OPEN_AHEAD=0); R with each context's staging copies on 8 threads
# (gNt8: --threads 8, the automatic count of a context alone, before the batch shared half the
# cores among its contexts). Round 1 of session 6 (2x H200) also ran A10 with 1 and 2 libavcodec
# threads an input, blocking waits (VIF_CUDA_BLOCKING_WAIT=1), R with pread (--no-mmap) and a page
# drop a frame (VIF_PREFETCH_DROP_BYTES=1), A with the teardown in the exit (VIF_EXIT_HOLDER=0):
# the journal has them; the switches stay for such runs.
#   RX. R's outputs again, several times each way (round 1: one run of 2 GPUs with --threads 8
#      gave one row's file and summary line unlike one GPU's): the first lines that differ of
#      every differing file go to RX-diffs.txt; then every row of every R and RX way (all rows
#      are one pair) against the pair scored once with --backend cpu: its JSON (but "fps") and
#      its summary columns from status to error; the first bad row's per-frame diff (frame,
#      scale, CPU value, this row's value) goes to R-first-bad-row.diff;
#   W. the catalogues A, A10 and B on 1 and 2 GPUs with the GPUs kept initialised by a process
#      of their own (as persistence mode keeps them on a production host; here every process's
#      CUDA initialisation, 0.35-0.5 s, initialises them again): INFO lines, no target.
#      HOLD_GPUS=1 keeps them initialised the same way for every part's runs.
# Time: BUDGET seconds in all (default 280, builds included): a run that would start later is skipped (SKIP lines),
# so that the call ends inside the device time it was given.
#
# On the GPU machine, from the repository root (no network, no ffmpeg there):
#   OUT=$OUT bash bench/batch/multi_gpu.sh
# Environment:
#   NEW_VIF   this tree's vif (default: built here into build-mgpu, CLI only, with the static
#             FFmpeg of .deps/ffmpeg-nvdec and .gpu-deps/prefix, as scripts/gpu-check.sh does)
#   BASE_VIF  the baseline's vif (default: built from BASE_SRC, default .baseline/src, into
#             build-mgpu-base); BASE_VIF=none skips the baseline
#   COMPACT   the compact clips: DIR with m100.csv and clips/ (default bench/batch/clips, made on
#             the development machine by bench/batch/make_compact_clips.sh bench/batch/clips)
#   NVCLIPS   folder with h264_src.mp4 and h264_enc.mkv (default bench/nvdec/clips)
#   ROWS_1080 rows of part B (default 16); ROWS_RAW, RAW_FRAMES of part R (48, 120); REPS runs
#   of A10's g1, g2, g4 (default 3); PARTS (default "A A10 B D", the targets and the faults;
#   every part: "A A10 R RX B B64 B128 B256 L C D W B32"); B64_WAYS, B128_WAYS, B256_WAYS (the
#   ways beside g1);
#   WORK
#   (default /tmp/vif-mgpu);
#   RUN_TIMEOUT seconds a run may take (default 120); NGPU (a dry run on CPU stand-in devices:
#   NGPU=2 VIF_TEST_CPU_DEVICES=2 NEW_VIF=build-cpu/tools/vif/vif BASE_VIF=none)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
RES=${OUT:-$ROOT/out}
WORK=${WORK:-/tmp/vif-mgpu}
PARTS=${PARTS:-A A10 B D}
BUDGET=${BUDGET:-280}
ROWS_1080=${ROWS_1080:-16}
REPS=${REPS:-3}
COMPACT=$(realpath -m "${COMPACT:-$ROOT/bench/batch/clips}")
NVCLIPS=$(realpath -m "${NVCLIPS:-$ROOT/bench/nvdec/clips}")
mkdir -p "$RES" "$WORK"
SUMMARY=$RES/multi_gpu.md
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
fails=0
check() { # NAME CONDITION-TEXT OK(0/1)
  if [ "$3" = 1 ]; then note "PASS $1 ($2)"; else note "FAIL $1 ($2)"; fails=$((fails + 1)); fi
}
has() { [[ " $PARTS " == *" $1 "* ]]; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "0" }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }' && echo 1 || echo 0; }

ngpu=${NGPU:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')} # NGPU: a dry run without GPUs
note "## multi_gpu.sh: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) x $ngpu, $(nproc) cores, $(date -u +%FT%TZ)"
# The host: are its cores hyperthreads of half as many (decoding on the host scales with the
# physical cores), and is WORK on a disk whose syncs cost (every output is fsynced)?
note "host: $(lscpu 2>/dev/null | grep -E '^(Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)):' | sed 's/  */ /g' | paste -sd';' -); $WORK on $(df -T "$WORK" 2>/dev/null | awk 'NR == 2 { print $2 }')"
[ "$ngpu" -ge 4 ] || note "SKIP every 4-GPU way and target: this machine has $ngpu GPU(s) (the 2-GPU targets are checked)"

# ---- builds (both at once) ----
# (VIF_FFMPEG_PREFIX: the static FFmpeg's prefix for scripts/gpu-check.sh's builds, default
# .deps/ffmpeg-nvdec-keep where it was carried -- scripts/build-ffmpeg-nvdec.sh with
# scripts/ffmpeg-patches, whose cuvid decoders are kept from input to input -- else
# .deps/ffmpeg-nvdec.)
if [ -z "${VIF_FFMPEG_PREFIX:-}" ] && [ -f "$ROOT/.deps/ffmpeg-nvdec-keep/lib/libavcodec.a" ]; then
  export VIF_FFMPEG_PREFIX=.deps/ffmpeg-nvdec-keep
fi
ff=$ROOT/${VIF_FFMPEG_PREFIX:-.deps/ffmpeg-nvdec}
[ -d "$ff/lib" ] && export LD_LIBRARY_PATH=$ff/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -f "$ff/lib/libavcodec.a" ]; then
  if grep -qa VIF_NVDEC_KEEP_DECODERS "$ff/lib/libavcodec.a"; then
    note "FFmpeg: $ff, with scripts/ffmpeg-patches/nvdec-keep-decoders.patch (cuvid decoders kept from input to input)"
  else
    note "FFmpeg: $ff, without the kept cuvid decoders (scripts/ffmpeg-patches not applied)"
  fi
fi
build() { # SRC BUILD_DIR LOG
  # A build directory configured with another FFmpeg prefix keeps the one it found: configured
  # again from scratch.
  if [ -n "${VIF_FFMPEG_PREFIX:-}" ] && [ -f "$2/CMakeCache.txt" ] &&
     ! grep -q "${VIF_FFMPEG_PREFIX##*/}/" "$2/CMakeCache.txt"; then
    rm -f "$2/CMakeCache.txt"
  fi
  VIF_SRC=$1 BUILD_DIR=$2 OUT=$RES/$3 TARGETS=vif_cli bash "$ROOT/scripts/gpu-check.sh" build \
    > "$RES/$3.log" 2>&1
}
pids=()
if [ -z "${NEW_VIF:-}" ]; then
  build "$ROOT" "$ROOT/build-mgpu" build-new & pids+=($!)
  NEW_VIF=$ROOT/build-mgpu/tools/vif/vif
fi
BASE_SRC=${BASE_SRC:-$ROOT/.baseline/src}
if [ -z "${BASE_VIF:-}" ] && [ -d "$BASE_SRC" ]; then
  # Its tests' configuration looks for testdata/ (not carried with it): this tree's.
  [ -e "$BASE_SRC/testdata" ] || ln -sfn "$ROOT/testdata" "$BASE_SRC/testdata"
  build "$BASE_SRC" "$ROOT/build-mgpu-base" build-base & pids+=($!)
  BASE_VIF=$ROOT/build-mgpu-base/tools/vif/vif
fi
BASE_VIF=${BASE_VIF:-none}
for p in "${pids[@]}"; do wait "$p"; done
[ -x "$NEW_VIF" ] || { note "FAIL build: no $NEW_VIF"; tail -30 "$RES"/build-new/build.log 2>/dev/null; exit 1; }
[ "$BASE_VIF" = none ] || [ -x "$BASE_VIF" ] || { note "no baseline binary ($BASE_VIF): the baseline columns are skipped"; BASE_VIF=none; }
NEW_VIF=$(realpath "$NEW_VIF")
[ "$BASE_VIF" = none ] || BASE_VIF=$(realpath "$BASE_VIF")
note "new: $NEW_VIF; baseline: $BASE_VIF"
# (The FFmpeg linked into the new binary: with the kept cuvid decoders of
# scripts/ffmpeg-patches, or not -- a build directory configured before keeps the FFmpeg it found.)
if grep -qa VIF_NVDEC_KEEP_DECODERS "$NEW_VIF"; then
  note "new binary: its FFmpeg keeps cuvid decoders (nvdec-keep-decoders.patch)"
else
  note "new binary: its FFmpeg does not keep cuvid decoders (unpatched, or none)"
fi

# ---- helpers ----
# Each timed run starts once the runs before it have gone, their exit holders too (a holder
# tears the GPU state down after its process has gone: a run started meanwhile would wait for
# that teardown in its own CUDA initialisation, paying for the run before it).
settle() { # (zombies aside: a holder whose new parent does not reap it is gone all the same)
  local i
  for i in $(seq 1 15); do
    ps -u "$(id -u)" -o stat=,comm= | awk '$2 == "vif" && $1 !~ /^Z/ { found = 1 } END { exit !found }' || return 0
    sleep 0.1
  done
}
# run NAME VIF OUTDIR MANIFEST [ARGS...]: a whole `vif batch`, wall and CPU seconds into
# $WORK/NAME.time, stderr into $RES/NAME.err, each GPU's utilisation during it into
# $WORK/NAME.util ("0: 35% (NVDEC 80%) 1: 30% (NVDEC 75%)"); prints "wall cpu rc".
run() {
  local name=$1 vif=$2 out=$3 m=$4 t TIMEFORMAT="%R %U %S" smi=""
  shift 4
  rm -rf "$out"
  if [ "$SECONDS" -ge "$BUDGET" ]; then echo "0 0 skipped"; return; fi
  settle
  if [ -z "${NGPU:-}" ] && command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=index,utilization.gpu,utilization.decoder --format=csv,noheader,nounits -lms 100 \
      > "$WORK/$name.smi" 2>/dev/null &
    smi=$!
  fi
  t=$( { time { timeout "${RUN_TIMEOUT:-120}" "$vif" batch "$m" --out-dir "$out" --backend cuda --precision max "$@" \
                  2> "$RES/$name.err"; echo $? > "$WORK/$name.rc"; }; } 2>&1 )
  if [ -n "$smi" ]; then
    kill "$smi" 2>/dev/null
    wait "$smi" 2>/dev/null
    awk -F', ' '{ s[$1] += $2; d[$1] += $3; n[$1]++ }
      END { for (g in s) printf "%s: %.0f%% (NVDEC %.0f%%) ", g, s[g] / n[g], d[g] / n[g] }' \
      "$WORK/$name.smi" > "$WORK/$name.util"
  fi
  awk -v t="$t" -v rc="$(cat "$WORK/$name.rc")" \
    'BEGIN { split(t, x, " "); printf "%.3f %.1f %s\n", x[1], x[2] + x[3], rc }'
}
# run_procs NAME VIF OUTDIR MANIFEST N [ARGS...]: N processes at once, process I on GPU I with
# shard I/N of the manifest; prints "wall cpu rc" (rc: the worst exit status).
run_procs() {
  local name=$1 vif=$2 out=$3 m=$4 n=$5 t TIMEFORMAT="%R %U %S" i
  shift 5
  rm -rf "$out"
  if [ "$SECONDS" -ge "$BUDGET" ]; then echo "0 0 skipped"; return; fi
  settle
  t=$( { time {
      for i in $(seq 0 $((n - 1))); do
        timeout "${RUN_TIMEOUT:-120}" "$vif" batch "$m" --out-dir "$out" --backend cuda --precision max \
          --shard "$i/$n" --devices "$i" "$@" 2> "$RES/$name.$i.err" &
      done
      rc=0
      for i in $(seq 0 $((n - 1))); do wait -n || rc=$?; done
      echo $rc > "$WORK/$name.rc"
    }; } 2>&1 )
  cat "$RES/$name".*.err > "$RES/$name.err" 2>/dev/null
  # The shards' summaries as one (the frames column is what counts).
  { head -1 "$out"/summary.shard-0-of-"$n".csv; tail -q -n +2 "$out"/summary.shard-*-of-"$n".csv; } \
    > "$out/summary.all.csv" 2>/dev/null
  awk -v t="$t" -v rc="$(cat "$WORK/$name.rc")" \
    'BEGIN { split(t, x, " "); printf "%.3f %.1f %s\n", x[1], x[2] + x[3], rc }'
}
# timings NAME: the run's `--timings` lines and GPU utilisation, for the summary.
timings() {
  local name=$1
  note "- $name: GPU utilisation $(cat "$WORK/$name.util" 2>/dev/null || echo "-")"
  grep '^vif: timings: ' "$RES/$name.err" 2>/dev/null | sed 's/^vif: timings: /    /' | tee -a "$SUMMARY"
}
frames_of() { # summary.csv -> sum of the frames column
  awk -F, 'NR > 1 && $5 == "ok" { n += $6 } END { print n + 0 }' "$1" 2>/dev/null || echo 0
}
# same DIR_A DIR_B: summary.csv equal, every JSON equal but its "fps" line; prints why not
# (All JSONs of a folder in one grep, each line prefixed with its file's name: a folder's
# thousand files compared in two processes, not two thousand.)
same() {
  local a=$1 b=$2 bad=0 n first
  if [ ! -f "$a/summary.csv" ] || [ ! -f "$b/summary.csv" ]; then echo "a summary is missing"; return 1; fi
  cmp -s "$a/summary.csv" "$b/summary.csv" || { echo "summary.csv differs"; bad=1; }
  n=$(find "$a" -maxdepth 1 -name '*.json' | wc -l)
  [ "$n" -gt 0 ] || { echo "no outputs"; return 1; }
  [ "$n" = "$(find "$b" -maxdepth 1 -name '*.json' | wc -l)" ] || { echo "not as many JSON files"; bad=1; }
  first=$(cmp <(cd "$a" && grep -H -v '"fps"' -- *.json) <(cd "$b" && grep -H -v '"fps"' -- *.json 2>/dev/null) 2>&1 | head -1)
  if [ -n "$first" ]; then
    # The first file that differs, by name.
    local f
    for f in "$a"/*.json; do
      cmp -s <(grep -v '"fps"' "$f") <(grep -v '"fps"' "$b/$(basename "$f")" 2>/dev/null) ||
        { echo "$(basename "$f") differs"; break; }
    done
    bad=1
  fi
  return $bad
}
devlist() { seq -s, 0 $(($1 - 1)); }
# part B's pair, many rows (L: the same pair as a ladder catalogue)
long_b() { [ "$1" = B64 ] || [ "$1" = B128 ] || [ "$1" = B256 ] || [ "$1" = L ]; }
median() { printf '%s\n' "$@" | awk '$1 > 0' | sort -n | awk '{ v[NR] = $1 } END { if (!NR) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The GPUs kept initialised by a process of their own (primary contexts retained), as
# persistence mode keeps them on a production host: a run's CUDA initialisation then finds them
# ready. start_holder LOG waits until it holds them (LOG says "holding N"); stop_holder ends it.
# (W_HOLDER: another command that prints "holding" and waits, for a dry run.)
holder_pid=""
start_holder() {
  if [ -n "${W_HOLDER:-}" ]; then
    bash -c "$W_HOLDER" > "$1" 2>&1 &
  else
    python3 - << 'PY' > "$1" 2>&1 &
import ctypes, sys, time
cuda = ctypes.CDLL("libcuda.so.1")
if cuda.cuInit(0) != 0:
    sys.exit("cuInit failed")
n = ctypes.c_int()
cuda.cuDeviceGetCount(ctypes.byref(n))
for i in range(n.value):
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    cuda.cuDeviceGet(ctypes.byref(dev), i)
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
print("holding", n.value, flush=True)
time.sleep(3600)
PY
  fi
  holder_pid=$!
  local _
  for _ in $(seq 1 50); do grep -q holding "$1" 2>/dev/null && break; sleep 0.1; done
}
stop_holder() {
  [ -n "$holder_pid" ] || return 0
  kill "$holder_pid" 2>/dev/null
  wait "$holder_pid" 2>/dev/null
  holder_pid=""
}

# One catalogue (A or B): baseline, then 1, 2, 4 GPUs; table, byte checks, targets.
catalogue() { # TAG MANIFEST
  local tag=$1 m=$2 wall cpu rc fr base_pfs=0 one_pfs=0
  note ""
  note "### $tag: $(($(wc -l < "$m") - 1)) pairs ($m)"
  note "| way | wall s | CPU s | pair-frames/s | vs baseline | vs 1 GPU | rows per device | before the run s | run s |"
  note "|---|---|---|---|---|---|---|---|---|"
  local ways=()
  # The baseline as it runs by default (one worker on one GPU) and with 4 workers; part B (long
  # rows) only the latter; A10 and R none (this tree on 1, 2 and 4 GPUs only).
  local lean=0
  [ "$tag" = A10 ] || [ "$tag" = R ] || [ "$tag" = B32 ] || long_b "$tag" && lean=1
  if [ "$BASE_VIF" != none ] && [ "$lean" = 0 ]; then
    if [ "$tag" = A ]; then ways+=("base:--devices 0" "base4:--devices 0 --workers 4")
    else ways+=("base:--devices 0 --workers 4"); fi
  fi
  for g in 1 2 4; do [ "$g" -le "$ngpu" ] && ways+=("g$g:--devices $(devlist "$g")"); done
  # A: one GPU without the host's share (its workers wait for the estimate, then find the rows
  # host-decoded: what does that cost a short catalogue?)
  [ "$tag" = A ] && ways+=("g1nv:--devices 0 (no host share)")
  # A10 (session 9): REPS runs of each of g1, g2 and g4 (one run's spread is 15-20%), in turn
  # (g1 g2 g4 g1r2 g2r2 g4r2 ...), the medians judged.
  if [ "$tag" = A10 ]; then
    local rep
    for rep in $(seq 2 "$REPS"); do
      for g in 1 2 4; do [ "$g" -le "$ngpu" ] && ways+=("g${g}r$rep:--devices $(devlist "$g")"); done
    done
  fi
  # B64 / B128 / B256 (sessions 9, 10): the default (NVDEC rows: 8 workers a GPU), then the
  # ways that say what pays, in that order, the last the first to go when time runs out.
  if long_b "$tag"; then
    # (Round 1 of session 9 measured g4proc, one process per GPU: 1.77x against 2.03x, the
    # sessions' making serialised for the host, not the process; g4so, sessions in arrival
    # order: 1.59x (round 3, with kept decoders: 13.57 s of run against 10.58: no turns was
    # removed in session 10); g4d2, two NVDEC decoders an input: 1.10x. Not run again.)
    # (Session 10, the switches removed after its two calls: a turn held for a row's whole
    # opening, as in session 9 (g4rt), 10.54 s of run against the default's 10.36; four turns
    # at once (g4wide) 11.39 s against 11.22; a worker's next row opened once its row is decoded
    # (g4ad, g4w4ad, g2w4ad) 10.41 s against 10.36, B128 18.36 s both; the decoders torn down on
    # the workers rather than on a thread of their own (g4tw) 10.94 s against 11.22, the
    # teardowns 0.02-0.07 s in all with kept decoders: now on the workers.)
    # g4nk / g2nk: cuvid decoders not kept (VIF_NVDEC_KEEP_DECODERS=0: a session made for every
    # input, as before).
    # With kept decoders a session is made only for more inputs open at once than before: the
    # workers and open-ahead set how many (8 a GPU with open-ahead: 32 rows, 64 sessions, on four
    # GPUs, each worker's 2 rows of the 64 open at once: nothing kept is taken again). g4w4 (4 a
    # GPU), g4na (no open-ahead), g4w4na (both: 16 rows at once, 32 sessions) say which pays.
    [ "$ngpu" -ge 4 ] && ways+=("g4w4:--devices $(devlist 4) --workers 16" "g4na:--devices $(devlist 4) (open-ahead off)" "g4w4na:--devices $(devlist 4) --workers 16 (open-ahead off)" "g4nk:--devices $(devlist 4) (decoders not kept)")
    [ "$ngpu" -ge 2 ] && ways+=("g2w4na:--devices $(devlist 2) --workers 8 (open-ahead off)" "g2nk:--devices $(devlist 2) (decoders not kept)" "g2w4:--devices $(devlist 2) --workers 8")
    # L: its ladders decoded on the host as well (gNh, --hwdec none: every group's way before
    # ladders went to NVDEC).
    if [ "$tag" = L ]; then
      for g in 1 2 4; do [ "$g" -le "$ngpu" ] && ways+=("g${g}h:--devices $(devlist "$g") --hwdec none"); done
    fi
    # gNnv: NVDEC's workers alone, without the host's share beside them (before session 12).
    for g in 1 2 4; do [ "$g" -le "$ngpu" ] && ways+=("g${g}nv:--devices $(devlist "$g") (no host share)"); done
    for g in 1 2 4; do [ "$g" -le "$ngpu" ] && ways+=("g${g}n0:--devices $(devlist "$g") (host share not niced)"); done
    # B64_WAYS="g2 g4 ...": only those ways (and g1), in that list's order of the ways above;
    # B128 and B256 by default g4 alone (and g1), L g2 g4 g1h g2h: B128_WAYS, B256_WAYS, L_WAYS
    # for more.
    local want=${B64_WAYS:-} dflt=g4
    [ "$tag" = L ] && dflt="g2 g4 g1h g2h"
    [ "$tag" = B64 ] || want=$(eval echo "\${${tag}_WAYS:-$dflt}")
    if [ -n "$want" ]; then
      local keep=() w
      for w in "${ways[@]}"; do
        [[ ${w%%:*} == g1 || " $want " == *" ${w%%:*} "* ]] && keep+=("$w")
      done
      ways=("${keep[@]}")
    fi
  fi
  for g in 2 4; do
    long_b "$tag" && break
    if [ "$g" -gt "$ngpu" ]; then continue; fi
    # (A10 and R: the four GPUs only, one process each, and 2 workers a GPU: is what binds in
    # the process or in the machine, and is it the workers' number?)
    # (B: measured in session 7, 1.62x and 1.68x: no better than one process; not run.)
    # (A10: session 8's two calls, 0.99x and 0.62x-0.84x of one process: not run unless
    # A10_EXTRA=1.)
    if { [ "$lean" = 0 ] && [ "$tag" != B ]; } ||
       { [ "$g" = 4 ] && [ "$tag" != B ] && { [ "$tag" != A10 ] || [ "${A10_EXTRA:-0}" = 1 ]; }; }; then
      ways+=("g${g}proc:one process per GPU, --shard I/$g --devices I")
    fi
    # (B gNw2, session 8's first call: 1.34x and 1.26x against 1.44x and 1.82x; not run.)
    if [ "$tag" = A ] || { [ "$lean" = 1 ] && [ "$g" = 4 ]; }; then
      ways+=("g${g}w2:--devices $(devlist "$g") --workers $((2 * g))")
    fi
    # (Session 8: more workers on one GPU than its default 8, A and A10: does the host's decoding
    # on 64 cores want more?)
    # (A10: 1.01-1.12x of 8 in session 8: only with A10_EXTRA=1.)
    if [ "$g" = 2 ] && { [ "$tag" = A ] || { [ "$tag" = A10 ] && [ "${A10_EXTRA:-0}" = 1 ]; }; }; then
      ways+=("g1x12:--devices 0 --workers 12" "g1x16:--devices 0 --workers 16")
    fi
    # A10: every device started whatever the plan says (the work said to be long,
    # VIF_TEST_BATCH_WORK_S: the plan before session 8 did so): is leaving them out right?
    [ "$tag" = A10 ] && ways+=("g${g}all:--devices $(devlist "$g") (every device started)")
  done
  # Part B's rows are groups of one: decoded by NVDEC on the scoring GPU by default (with the
  # one-pair default of NVDEC decoders per input too); on the host (libavcodec) as well, to see
  # what that path gives.

  # Is the next row's opening while a row decodes (VIF_BATCH_OPEN_AHEAD=0: off) worth it? (B)
  # Do the contexts' copy threads bind (R: 8 each, as alone)?
  if [ "$tag" = R ] || { [ "$tag" = B ] && [ -n "${B_NA:-}" ]; }; then
    for g in 1 2; do
      [ "$g" -le "$ngpu" ] || continue
      case $tag in
        B) ways+=("g${g}na:--devices $(devlist "$g") (open-ahead off)") ;;
        R) ways+=("g${g}t8:--devices $(devlist "$g") --threads 8") ;;
      esac
    done
  fi
  # (B gNsb, session 8's software start of a row's decoding while its NVDEC sessions open,
  # slower in both its calls, was removed in session 9.)
  # Session 7's defaults against the ones before (gNold: 4 workers a GPU, glibc's malloc as it
  # is, the reference on the inputs' threads): 8 workers a GPU where a quarter of the cores
  # allows (at most half the groups), malloc kept from trimming, a shared reference on 2
  # threads. A10: glibc's cache of thread stacks at 1 GiB (gNsc), not built in.
  # (Session 8: A10 keeps g1old only: with the devices a plan leaves out, --workers 4g now puts
  # every worker on the device running, no longer "as before". gNsc and gNbw, measured in
  # session 7, only where SESSION7_WAYS=1.)
  if [ "$tag" = A10 ] || [ "$tag" = B ]; then
    for g in 1 2 4; do
      [ "$g" -le "$ngpu" ] || continue
      [ "$tag" = A10 ] && { [ "$g" -gt 1 ] || [ "${A10_EXTRA:-0}" != 1 ]; } && continue
      # (B: one GPU as before measured as fast as today's in session 7, 10.27 s against 10.34.)
      [ "$tag" = B ] && continue # (session 8's first call: as fast as gN; not run)
      ways+=("g${g}old:--devices $(devlist "$g") --workers $((4 * g)) (as before session 7)")
    done
  fi
  if [ "$tag" = A10 ] && [ "${SESSION7_WAYS:-0}" = 1 ]; then
    for g in 1 2; do
      [ "$g" -le "$ngpu" ] || continue
      ways+=("g${g}sc:--devices $(devlist "$g") (thread stacks cached)")
      # (Blocking waits: a worker waiting for its scores spins on a core the decoders want.)
      ways+=("g${g}bw:--devices $(devlist "$g") (blocking waits)")
    done
  fi
  for w in "${ways[@]}"; do
    local key=${w%%:*} args=${w#*:} vif=$NEW_VIF
    local more=--timings ahead=1
    [[ $key == base* ]] && vif=$BASE_VIF more=""
    [[ $key == *na ]] && ahead=0 args=${args% (open-ahead off)}
    local nkeep=${VIF_NVDEC_KEEP_DECODERS:-}
    [[ $key == *nk ]] && nkeep=0 args=${args% (decoders not kept)}
    local dropb=${VIF_PREFETCH_DROP_BYTES:-}
    [[ $key == *d1 ]] && dropb=1 args=${args% (a page drop a frame)}
    local holder=${VIF_EXIT_HOLDER:-}
    [[ $key == *nh ]] && holder=0 args=${args% (teardown in the exit)}
    local refth=${VIF_BATCH_REF_THREADS:-} mtune=${VIF_BATCH_MALLOC_TUNE:-}
    [[ $key == *old ]] && refth=-1 mtune=0 args=${args% (as before session 7)}
    # Threads made and ended every group (readers, opens): glibc keeps 40 MiB of stacks, five
    # of 8 MiB; each other one is an mmap and munmap, which take the page-table lock that every
    # page fault of the process waits for.
    local tun=${GLIBC_TUNABLES:-}
    [[ $key == *sc ]] && tun=glibc.pthread.stack_cache_size=1073741824 args=${args% (thread stacks cached)}
    local bwait=${VIF_CUDA_BLOCKING_WAIT:-}
    [[ $key == *bw ]] && bwait=1 args=${args% (blocking waits)}
    local works=${VIF_TEST_BATCH_WORK_S:-}
    [[ $key == *all ]] && works=1000 args=${args% (every device started)}
    # gNnv: NVDEC's workers alone, without the host's share beside them (VIF_BATCH_HOST_WORKERS=0).
    local hostw=${VIF_BATCH_HOST_WORKERS:-}
    [[ $key == *nv ]] && hostw=0 args=${args% (no host share)}
    # gNn0: the host's share at the niceness of the rest (VIF_BATCH_HOST_NICE=0).
    local hnice=${VIF_BATCH_HOST_NICE:-}
    [[ $key == *n0 ]] && hnice=0 args=${args% (host share not niced)}
    local sum=$WORK/$tag-$key/summary.csv
    if [[ $key == *proc ]]; then
      local n=${key#g}
      n=${n%proc}
      # shellcheck disable=SC2086 # args are words
      read -r wall cpu rc < <(run_procs "$tag-$key" "$vif" "$WORK/$tag-$key" "$m" "$n" $more)
      sum=$WORK/$tag-$key/summary.all.csv
    else
      # shellcheck disable=SC2086 # args are words
      read -r wall cpu rc < <(VIF_BATCH_MALLOC_TUNE=$mtune GLIBC_TUNABLES=$tun VIF_BATCH_REF_THREADS=$refth VIF_BATCH_OPEN_AHEAD=$ahead VIF_NVDEC_KEEP_DECODERS=$nkeep VIF_PREFETCH_DROP_BYTES=$dropb VIF_CUDA_BLOCKING_WAIT=$bwait VIF_TEST_BATCH_WORK_S=$works VIF_EXIT_HOLDER=$holder VIF_BATCH_HOST_WORKERS=$hostw VIF_BATCH_HOST_NICE=$hnice run "$tag-$key" "$vif" "$WORK/$tag-$key" "$m" $args $more)
    fi
    fr=$(frames_of "$sum")
    local pfs
    pfs=$(awk -v f="$fr" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? f / w : 0) }')
    [ "$key" = base ] && base_pfs=$pfs
    [ "$key" = g1 ] && one_pfs=$pfs
    local vb="-" v1="-"
    [ "$base_pfs" != 0 ] && vb="$(ratio "$pfs" "$base_pfs")x"
    [ "$one_pfs" != 0 ] && v1="$(ratio "$pfs" "$one_pfs")x"
    local spread
    spread=$(grep -o 'rows per device: .*' "$RES/$tag-$key.err" | sed 's/rows per device: //; s/CUDA device //g')
    if [ "$rc" = skipped ]; then
      note "| $key ($args) SKIP (time budget: $SECONDS s of $BUDGET) | - | - | - | - | - | - | - | - |"
      continue
    fi
    # (--timings: the process's start and CUDA's initialisation before the run, 0.55-1.05 s on
    # the 4x H200 host whatever the way, and the run itself.)
    local before_s run_s
    before_s=$(sed -n 's/^vif: timings: before the run: \([0-9.]*\) s since.*/\1/p' "$RES/$tag-$key.err" 2>/dev/null | head -1)
    run_s=$(sed -n 's/^vif: timings: \([0-9.]*\) s in all.*/\1/p' "$RES/$tag-$key.err" 2>/dev/null | head -1)
    note "| $key ($args) rc=$rc | $wall | $cpu | $pfs | $vb | $v1 | ${spread:--} | ${before_s:--} | ${run_s:--} |"
    eval "${tag//[^A-Za-z0-9]/_}_${key}_pfs=$pfs ${tag//[^A-Za-z0-9]/_}_${key}_wall=$wall"
    [ "$rc" = 0 ] || { note "  $key exit $rc: $(tail -3 "$RES/$tag-$key.err" | tr '\n' ' ')"; check "$tag $key runs" "exit $rc" 0; }
  done
  note ""
  note "Where the time went ($tag; --timings of each run of this tree, GPU utilisation while it ran):"
  for w in "${ways[@]}"; do
    [[ ${w%%:*} == base* || ${w%%:*} == *proc ]] || timings "$tag-${w%%:*}"
  done
  for w in "${ways[@]}"; do
    grep '^vif: devices: ' "$RES/$tag-${w%%:*}.err" 2>/dev/null | sed "s/^vif: /    $tag-${w%%:*}: /" | tee -a "$SUMMARY"
  done
  for w in "${ways[@]}"; do
    local key=${w%%:*}
    if [ "$key" = g1 ] || [[ $key == *proc ]] || [ "$key" = base4 ] || [ ! -d "$WORK/$tag-$key" ]; then continue; fi
    local why
    why=$(same "$WORK/$tag-g1" "$WORK/$tag-$key")
    check "$tag outputs of $key = 1 GPU's" "summary.csv and JSON bytes but fps${why:+: $why}" "$([ -z "$why" ] && echo 1 || echo 0)"
  done
  local r
  if [ "$tag" = A ] && [ "$base_pfs" != 0 ]; then
    r=$(ratio "$one_pfs" "$base_pfs")
    check "A one GPU >= 1.5x baseline" "${r}x" "$(ge "$r" 1.5)"
  fi
  # The one-GPU run's time outside `vif batch`'s run (process start, CUDA's initialisation, the
  # manifest, the exit): what no number of GPUs shortens.
  if [ -f "$RES/$tag-g1.err" ]; then
    local inall
    inall=$(sed -n 's/^vif: timings: \([0-9.]*\) s in all.*/\1/p' "$RES/$tag-g1.err" | head -1)
    eval "${tag}_g1_inall=${inall:-0}"
    local before finding after
    before=$(sed -n 's/^vif: timings: before the run: \([0-9.-]*\) s since.*/\1/p' "$RES/$tag-g1.err" | head -1)
    finding=$(sed -n 's/.*(finding the devices \([0-9.]*\) s).*/\1/p' "$RES/$tag-g1.err" | head -1)
    after=$(sed -n 's/^vif: timings: after the run: .* in \([0-9.]*\) s$/\1/p' "$RES/$tag-g1.err" | head -1)
    note "$tag one GPU: $(eval echo "\${${tag}_g1_wall:-0}") s wall = ${inall:-?} s of run (--timings) + $(awk -v w="$(eval echo "\${${tag}_g1_wall:-0}")" -v r="${inall:-0}" 'BEGIN { printf "%.2f", w - r }') s outside it: ${before:-?} s before it (of which finding the devices, CUDA's initialisation: ${finding:-?} s), ${after:-?} s writing the summary and log, the rest the exit"
  fi
  # A: too short to pay for another device (its check comes after A10, whose second device's
  # start-up it uses). A10 and B: the targets. R: informational (no target).
  [ "$tag" = R ] && return
  # L: ladders (rows sharing a reference) decoded by NVDEC, the reference once for its rungs
  # (before: on the host, which more devices did not speed up; session 11 asked for four GPUs:
  # 0.64x and 0.81x of one). INFO: NVDEC against the host's decoding on as many GPUs (gNh);
  # checks: 2 GPUs at least 1.8x one (issue 25's target for the 1080p pairs), 4 GPUs at least
  # 3.4x where there are four.
  if [ "$tag" = L ]; then
    local g v h
    for g in 1 2 4; do
      v=$(eval echo "\${L_g${g}_pfs:-}") h=$(eval echo "\${L_g${g}h_pfs:-}")
      [ -n "$v" ] && [ -n "$h" ] && note "INFO L $g GPU(s): NVDEC groups $(ratio "$v" "$h")x the host-decoded groups (g${g}h)"
    done
    if [ -n "${L_g2_pfs:-}" ] && [ "$one_pfs" != 0 ]; then
      r=$(ratio "$L_g2_pfs" "$one_pfs")
      check "L 2 GPUs >= 1.8x one" "${r}x" "$(ge "$r" 1.8)"
    fi
    if [ -n "${L_g4_pfs:-}" ] && [ "$one_pfs" != 0 ]; then
      r=$(ratio "$L_g4_pfs" "$one_pfs")
      check "L 4 GPUs >= 3.4x one" "${r}x" "$(ge "$r" 3.4)"
    fi
    return
  fi
  [ "$tag" = A ] && return
  # The defaults before session 7 beside today's (one GPU then had 4 workers: half this host's
  # decoding on A10), for the record: INFO, no target.
  local old1 old2 old4
  old1=$(eval echo "\${${tag}_g1old_pfs:-0}") old2=$(eval echo "\${${tag}_g2old_pfs:-0}")
  old4=$(eval echo "\${${tag}_g4old_pfs:-0}")
  if [ "$old1" != 0 ]; then
    note "INFO $tag against one GPU as before session 7 (g1old): one GPU $(ratio "$one_pfs" "$old1")x, 2 GPUs $(ratio "$(eval echo "\${${tag}_g2_pfs:-0}")" "$old1")x$([ "$old2" != 0 ] && echo " (before: $(ratio "$old2" "$old1")x)")$([ "$ngpu" -ge 4 ] && echo ", 4 GPUs $(ratio "$(eval echo "\${${tag}_g4_pfs:-0}")" "$old1")x$([ "$old4" != 0 ] && echo " (before: $(ratio "$old4" "$old1")x)")")"
  fi
  # A10: the median of its REPS runs of each way is judged (and stands for the way below).
  if [ "$tag" = A10 ] && [ "$REPS" -gt 1 ]; then
    local g rep v vals line="INFO A10 pair-frames/s of each run (g1 g2 g4, run by run):"
    for g in 1 2 4; do
      [ "$g" -le "$ngpu" ] || continue
      vals=$(eval echo "\${A10_g${g}_pfs:-}")
      for rep in $(seq 2 "$REPS"); do vals="$vals $(eval echo "\${A10_g${g}r${rep}_pfs:-}")"; done
      # shellcheck disable=SC2086 # (the runs that ran: a skipped one has no value)
      v=$(median $vals)
      line="$line g$g: $vals (median $v);"
      eval "A10_g${g}_pfs=$v"
    done
    one_pfs=$(eval echo "\${A10_g1_pfs:-0}")
    note "$line"
  fi
  local g target
  for g in 2 4; do
    target=$([ "$g" = 2 ] && echo 1.8 || echo 3.4)
    if [ "$ngpu" -lt "$g" ]; then
      note "SKIP $tag $g GPUs >= ${target}x one ($ngpu GPU(s) here)"
      continue
    fi
    if [ -z "$(eval echo "\${${tag}_g${g}_pfs:-}")" ]; then
      note "SKIP $tag $g GPUs >= ${target}x one (g$g not run: its ways list, or the time budget)"
      continue
    fi
    r=$(ratio "$(eval echo "\${${tag}_g${g}_pfs:-0}")" "$one_pfs")
    if [ "$tag" = A10 ]; then
      # Host-bound (decoding on the host's cores): the target, or the other devices rightly
      # left out by the plan (every device started, gNall, is no faster: within 5%) and the run
      # never slower than one GPU (>= 0.95x).
      local all left=started ok=0
      all=$(ratio "$(eval echo "\${${tag}_g${g}all_pfs:-0}")" "$one_pfs")
      grep -q 'device 1 not started' "$RES/$tag-g$g.err" 2>/dev/null && left="left out"
      if [ "$(ge "$r" "$target")" = 1 ]; then ok=1
      elif [ "$left" = "left out" ] && [ "$(ge "$r" 0.95)" = 1 ] &&
        [ "$(ge "$(awk -v a="$r" 'BEGIN { print a * 1.05 }')" "$all")" = 1 ]; then ok=1; fi
      check "$tag $g GPUs >= ${target}x one, or the others rightly left out and never slower" \
        "${r}x (medians of $REPS runs), the other devices $left; every device started (g${g}all, one run): ${all}x" "$ok"
      check "$tag $g GPUs never slower than one (median of $REPS runs each >= 0.95x)" "${r}x" "$(ge "$r" 0.95)"
    else
      check "$tag $g GPUs >= ${target}x one" "${r}x" "$(ge "$r" "$target")"
    fi
  done
  # Workers a GPU on several GPUs (session 8: at most 4 each; gNw2: 2 each): INFO.
  for g in 2 4; do
    local w2
    w2=$(eval echo "\${${tag}_g${g}w2_pfs:-0}")
    [ "$w2" != 0 ] && note "INFO $tag $g GPUs with 2 workers a GPU (g${g}w2): $(ratio "$w2" "$one_pfs")x one GPU, against $(ratio "$(eval echo "\${${tag}_g${g}_pfs:-0}")" "$one_pfs")x by default"
  done
}

# A's 2-GPU check, after A10 (the second device's start-up as a run that starts it measured it):
# 1.8x, or the second device rightly not started (at best, started, it would not reach 1.8x: its
# start-up takes the first part of a run this short, and the time outside the run stays) and
# the run never slower than one GPU (>= 0.95x: the noise of a 1.6 s process).
check_a_two() {
  has A && [ "$ngpu" -ge 2 ] || return 0
  local r wall run outside ready best started=started
  r=$(ratio "${A_g2_pfs:-0}" "${A_g1_pfs:-0}")
  grep -q 'CUDA device 1 not started\|stand-in device 1 not started' "$RES/A-g2.err" 2>/dev/null && started="not started"
  wall=${A_g1_wall:-0} run=${A_g1_inall:-0}
  outside=$(awk -v w="$wall" -v r="$run" 'BEGIN { printf "%.3f", w - r }')
  # When the second device is ready, from the runs that started it (A10, B), else 0.3 s.
  ready=$(grep -ho 'device 1 [0-9.]* s (ready at [0-9.]* s)' "$RES"/A10-g2.err "$RES"/B-g2.err 2>/dev/null |
    sed 's/.*ready at \([0-9.]*\) s.*/\1/' | sort -n | head -1)
  ready=${ready:-0.3}
  best=$(awk -v o="$outside" -v r="$run" -v t="$ready" -v w="$wall" \
    'BEGIN { x = (r > t ? t + (r - t) / 2 : r); b = o + x; printf "%.2f", (b > 0 ? w / b : 0) }')
  note "A estimate: one GPU ${wall} s = ${run} s of run + ${outside} s outside it; the second device ready at ${ready} s at the soonest; two GPUs at the very best ${outside} + ${ready} + (${run} - ${ready}) / 2 s: ${best}x one (1.8x would need ${wall} / 1.8 = $(awk -v w="$wall" 'BEGIN { printf "%.2f", w / 1.8 }') s in all)"
  local ok=0
  if [ "$(ge "$r" 1.8)" = 1 ]; then ok=1
  elif [ "$started" = "not started" ] && [ "$(ge "$r" 0.95)" = 1 ] && [ "$(ge 1.8 "$best")" = 1 ]; then ok=1; fi
  check "A 2 GPUs >= 1.8x one, or the second device rightly not started and never slower" \
    "${r}x, second device $started, 1.8x out of reach at ${best}x at best" "$ok"
  [ "$ngpu" -ge 4 ] || note "SKIP A 4 GPUs (${ngpu} GPU(s) here)"
  if [ "$ngpu" -ge 4 ]; then
    r=$(ratio "${A_g4_pfs:-0}" "${A_g1_pfs:-0}")
    check "A 4 GPUs never slower than one (>= 0.95x)" "${r}x" "$(ge "$r" 0.95)"
  fi
}

# HOLD_GPUS=1: every run below with the GPUs kept initialised (start_holder), as on a host with
# persistence mode; the time before each run is then mostly the process's own start.
if [ "${HOLD_GPUS:-0}" = 1 ]; then
  start_holder "$WORK/hold.log"
  if grep -q holding "$WORK/hold.log"; then note "the GPUs kept initialised by another process for every run (HOLD_GPUS=1): $(tail -1 "$WORK/hold.log")"
  else note "FAIL HOLD_GPUS=1: no process could keep the GPUs initialised ($(tail -1 "$WORK/hold.log" 2>/dev/null))"; fails=$((fails + 1)); fi
fi

# ---- A. the compact catalogue ----
if has A || has A10 || has C || has D; then
  if [ -f "$COMPACT/m100.csv" ]; then
    cp "$COMPACT/m100.csv" "$WORK/m100.csv" && ln -sfn "$COMPACT/clips" "$WORK/clips"
  else
    note "FAIL compact catalogue missing: $COMPACT/m100.csv (make it with bench/batch/make_compact_clips.sh bench/batch/clips and carry bench/batch/clips)"
    fails=$((fails + 1))
    PARTS=${PARTS//A10/}; PARTS=${PARTS//A/}; PARTS=${PARTS//C/}; PARTS=${PARTS//D/}
  fi
fi
cd "$WORK" || exit 1
has A && catalogue A m100.csv

# ---- A10. the compact catalogue ten times over ----
make_m1000() {
  {
    echo "reference,distorted"
    for k in $(seq 0 9); do
      ln -sfn "$COMPACT/clips" "clips$k"
      tail -n +2 m100.csv | sed "s|clips/|clips$k/|g"
    done
  } > m1000.csv
}
if has A10; then
  make_m1000
  catalogue A10 m1000.csv
fi

# ---- R. raw input ----
if has R; then
  rows=${ROWS_RAW:-48} nraw=${RAW_FRAMES:-120}
  frame=$((1920 * 1080 * 3 / 2))
  mkdir -p rowsraw
  for f in ref dist; do
    [ "$(stat -c %s "rowsraw/$f.yuv" 2>/dev/null)" = $((frame * nraw)) ] ||
      head -c $((frame * nraw)) /dev/urandom > "rowsraw/$f.yuv"
  done
  {
    echo "reference,distorted,width,height,pixel_format,bitdepth"
    for i in $(seq 1 "$rows"); do
      ln -sfn ref.yuv "rowsraw/ref$i.yuv"
      ln -sfn dist.yuv "rowsraw/dist$i.yuv"
      echo "rowsraw/ref$i.yuv,rowsraw/dist$i.yuv,1920,1080,420,8"
    done
  } > mraw.csv
  # The reference every R and RX row is checked against (rows_vs_cpu): the pair scored once on
  # the CPU (no staging, copy threads, devices or open-ahead of the GPU path).
  head -2 mraw.csv > mraw1.csv
  rm -rf "$WORK/R-cpu"
  timeout "${RUN_TIMEOUT:-120}" "$NEW_VIF" batch mraw1.csv --out-dir "$WORK/R-cpu" --backend cpu \
    --precision max 2> "$RES/R-cpu.err"
  touch "$WORK/R-started" # R and RX ways made after it are this call's (rows_vs_cpu)
  catalogue R mraw.csv
fi

# ---- RX. R's outputs, repeated ----
if has RX && [ -f mraw.csv ] && [ -d "$WORK/R-g1" ]; then
  note ""
  note "### RX: R's outputs again against one GPU's (R-g1), each way several times"
  two=0,1
  [ "$ngpu" -ge 2 ] || two=0,0
  : > "$RES/RX-diffs.txt"
  rx_runs=0 rx_bad=0
  for rep in 1 2 3; do
    for w in "g2t8:--devices $two --threads 8" "g2:--devices $two" "g2t8na:--devices $two --threads 8" \
             "g2t8nm:--devices $two --threads 8 --no-mmap" "g1t8:--devices 0 --threads 8"; do
      key=${w%%:*} args=${w#*:} ahead=1
      [[ $key == *na ]] && ahead=0
      [ "$rep" -le 2 ] || [ "$key" = g2t8 ] || [ "$key" = g2 ] || continue
      # shellcheck disable=SC2086 # args are words
      read -r wall cpu rc < <(VIF_BATCH_OPEN_AHEAD=$ahead run "RX-$key-$rep" "$NEW_VIF" "$WORK/RX-$key-$rep" mraw.csv $args --timings)
      [ "$rc" = skipped ] && { note "RX $key #$rep SKIP (time budget)"; continue; }
      rx_runs=$((rx_runs + 1))
      differ=""
      cmp -s "$WORK/R-g1/summary.csv" "$WORK/RX-$key-$rep/summary.csv" || differ="summary.csv"
      for f in "$WORK/R-g1"/*.json; do
        b=$WORK/RX-$key-$rep/$(basename "$f")
        if ! cmp -s <(grep -v '"fps"' "$f") <(grep -v '"fps"' "$b" 2>/dev/null); then
          differ="$differ $(basename "$f")"
          { echo "== RX-$key-$rep $(basename "$f") (< one GPU, > this run)"
            diff <(grep -v '"fps"' "$f") <(grep -v '"fps"' "$b" 2>/dev/null) | head -16; } >> "$RES/RX-diffs.txt"
        fi
      done
      if [ -n "$differ" ]; then
        rx_bad=$((rx_bad + 1))
        { echo "== RX-$key-$rep summary.csv"; diff "$WORK/R-g1/summary.csv" "$WORK/RX-$key-$rep/summary.csv"; } >> "$RES/RX-diffs.txt"
        mkdir -p "$RES/RX-$key-$rep.out"
        for f in summary.csv $differ; do cp "$WORK/RX-$key-$rep/$f" "$RES/RX-$key-$rep.out/" 2>/dev/null; done
      fi
      note "RX $key ($args) #$rep: rc=$rc, ${wall} s, ${differ:-the same files}"
    done
  done
  check "RX every repeated run's outputs = one GPU's" "$rx_runs runs, $rx_bad differed (RX-diffs.txt)" "$([ "$rx_bad" = 0 ] && [ "$rx_runs" -gt 0 ] && echo 1 || echo 0)"
fi

# ---- R and RX: every row of every way against the CPU's row ----
# flat JSON: "frame N KEY VALUE" and "pooled METRIC STAT VALUE" lines (its "fps" left out).
flat() {
  awk '/"fps"/ { next }
       /"frameNum"/ { v = $2; gsub(/,/, "", v); ctx = "frame " v; next }
       /"pooled_metrics"/ { ctx = "pooled"; next }
       /: \{$/ && ctx ~ /^pooled/ { k = $1; gsub(/[":]/, "", k); ctx = "pooled " k; next }
       /": -?[0-9]/ { k = $1; v = $2; gsub(/[":]/, "", k); gsub(/,/, "", v); print ctx, k, v }' "$1"
}
# All rows are one pair: every way's every JSON (but "fps") and summary line (its columns from
# status to error) must be the CPU row's. The first bad row's per-frame diff goes to $RES/R-first-bad-row.diff.
if { has R || has RX; } && [ -f "$WORK/R-started" ]; then
  note ""
  note "### R/RX rows against one --backend cpu row (every row is the same pair)"
  cpu_json=$(ls "$WORK"/R-cpu/*.json 2>/dev/null | head -1)
  cpu_line=$(awk -F, 'NR == 2 { k = ""; for (i = 5; i < NF; i++) k = k "," $i; print k }' "$WORK/R-cpu/summary.csv" 2>/dev/null)
  if [ -z "$cpu_json" ] || [ -z "$cpu_line" ]; then
    check "R rows = the CPU row" "the CPU row was not scored: $(tail -2 "$RES/R-cpu.err" | tr '\n' ' ')" 0
  else
    rows_bad=0 rows_all=0 ways_bad=""
    rm -f "$RES/R-first-bad-row.diff"
    for d in $(find "$WORK" -maxdepth 1 -type d \( -name 'R-*' -o -name 'RX-*' \) -newer "$WORK/R-started" | sort); do
      [ "$d" = "$WORK/R-cpu" ] && continue
      n=0 bad=0
      for f in "$d"/*.json; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        cmp -s <(grep -v '"fps"' "$cpu_json") <(grep -v '"fps"' "$f") && continue
        bad=$((bad + 1))
        if [ ! -s "$RES/R-first-bad-row.diff" ]; then
          { echo "# $f against the CPU row $cpu_json (< CPU, > this row); frames differing:"
            diff <(flat "$cpu_json") <(flat "$f"); } > "$RES/R-first-bad-row.diff"
          note "  first bad row: $f: $(grep -c '^>' "$RES/R-first-bad-row.diff") values differ, frames $(grep '^> frame' "$RES/R-first-bad-row.diff" | awk '{ print $3 }' | sort -un | tr '\n' ' ')(R-first-bad-row.diff)"
        fi
      done
      lines=$(cat "$d"/summary.csv "$d"/summary.shard-*.csv 2>/dev/null | awk -F, -v want="$cpu_line" \
        '$1 != "row" { k = ""; for (i = 5; i < NF; i++) k = k "," $i; if (k != want) bad++; n++ } END { print n + 0, bad + 0 }')
      read -r ln lbad <<< "$lines"
      rows_all=$((rows_all + n))
      if [ "$bad" != 0 ] || [ "$lbad" != 0 ] || [ "$n" != "$(($(wc -l < mraw.csv) - 1))" ] || [ "$ln" != "$n" ]; then
        rows_bad=$((rows_bad + bad))
        ways_bad="$ways_bad ${d##*/}($bad of $n JSON, $lbad of $ln summary lines)"
      fi
    done
    [ -s "$RES/R-first-bad-row.diff" ] || rm -f "$RES/R-first-bad-row.diff"
    check "R rows = the CPU row" "$rows_all rows of every R/RX way, $rows_bad differ${ways_bad:+; ways with a bad, missing or extra row:$ways_bad}" "$([ -z "$ways_bad" ] && [ "$rows_all" -gt 0 ] && echo 1 || echo 0)"
  fi
fi

# ---- B. the 1080p H.264 catalogue ----
if has B; then
  if [ -f "$NVCLIPS/h264_src.mp4" ] && [ -f "$NVCLIPS/h264_enc.mkv" ]; then
    mkdir -p rows1080
    {
      echo "reference,distorted"
      for i in $(seq 1 "$ROWS_1080"); do
        ln -sfn "$NVCLIPS/h264_src.mp4" "rows1080/src$i.mp4"
        ln -sfn "$NVCLIPS/h264_enc.mkv" "rows1080/enc$i.mkv"
        echo "rows1080/src$i.mp4,rows1080/enc$i.mkv"
      done
    } > m1080.csv
    cat "$NVCLIPS"/h264_* > /dev/null
    # The GPUs' utilisation while the one-GPU run goes (part C's evidence).
    nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits -lms 250 \
      > "$RES/B-utilisation.csv" 2>/dev/null &
    smi=$!
    catalogue B m1080.csv
    kill "$smi" 2>/dev/null
  else
    note "FAIL 1080p clips missing in $NVCLIPS (h264_src.mp4, h264_enc.mkv: carry them)"
    fails=$((fails + 1))
  fi
fi

check_a_two

# ---- C. where one GPU's time goes ----
if has C; then
  note ""
  note "### C: one GPU, where the time goes"
  note "| compact catalogue, --devices 0 | wall s | CPU s | pair-frames/s |"
  note "|---|---|---|---|"
  for w in 1 2 4 8 16; do
    read -r wall cpu rc < <(run "C-w$w" "$NEW_VIF" "$WORK/C-w$w" m100.csv --devices 0 --workers "$w")
    note "| --workers $w (rc=$rc) | $wall | $cpu | $(awk -v f="$(frames_of "$WORK/C-w$w/summary.csv")" -v w="$wall" 'BEGIN { printf "%.0f", f / w }') |"
  done
  if [ -s "$RES/B-utilisation.csv" ]; then
    note "GPU utilisation during part B (mean of 250 ms samples, per GPU index): $(awk -F', ' '{ s[$1] += $2; n[$1]++ } END { for (g in s) printf "%s: %.0f%% ", g, s[g] / n[g] }' "$RES/B-utilisation.csv")"
  fi
  if [ -f m1080.csv ]; then
    src=rows1080/src1.mp4 enc=rows1080/enc1.mkv
    n=$(frames_of "$WORK/B-g1/summary.csv")
    n=$((n / ROWS_1080))
    [ "$n" -gt 0 ] || n=1200
    for way in "cpu-decode:--read-only --hwdec none" "cpu-decode+score:--hwdec none" \
               "nvdec+score:--hwdec cuda"; do
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086 # the options are words
      timeout "${RUN_TIMEOUT:-120}" "$NEW_VIF" -r $src -d $enc ${way#*:} --backend cuda \
        -o "$WORK/C-pair.json" > "$RES/C-${way%%:*}.out" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      note "1080p pair alone ($n frames), ${way%%:*} (${way#*:}): rc=$rc, $(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.2f s, %.0f pair-frames/s", b - a, n / (b - a) }')"
    done
  fi
fi

# ---- D. faults on the real GPUs ----
if has D; then
  note ""
  note "### D: device faults"
  # The failing device: on the catalogue ten times over, whose work pays for a second device
  # (and is said to be long: it is started, whatever the estimate), against one GPU's files.
  [ -f m1000.csv ] || make_m1000
  [ -d "$WORK/A10-g1" ] || run A10-g1 "$NEW_VIF" "$WORK/A10-g1" m1000.csv --devices 0 > /dev/null
  pair=0,1
  [ "$ngpu" -ge 2 ] || pair=0,0
  read -r wall cpu rc < <(VIF_TEST_BATCH_WORK_S=100 VIF_TEST_FAIL_DEVICE=1:2 run D-fail "$NEW_VIF" "$WORK/D-fail" m1000.csv --devices $pair)
  why=$(same "$WORK/A10-g1" "$WORK/D-fail")
  check "D a device failing after 2 rows: exit 0, the same outputs" "--devices $pair, rc=$rc${why:+, $why}" "$([ "$rc" = 0 ] && [ -z "$why" ] && echo 1 || echo 0)"
  check "D the re-run rows are named" "$(grep -o 'rows given to the other devices: .\{0,60\}' "$RES/D-fail.err" | head -1)" "$(grep -q 'rows given to the other devices: rows ' "$RES/D-fail.err" && echo 1 || echo 0)"
  read -r wall cpu rc < <(VIF_TEST_FAIL_DEVICE=0:3 run D-all "$NEW_VIF" "$WORK/D-all" m100.csv --devices 0)
  check "D every device failing: exit 1, no summary" "rc=$rc, $(grep -o 'every device failed.\{0,40\}' "$RES/D-all.err" | head -1)" "$([ "$rc" = 1 ] && [ ! -f "$WORK/D-all/summary.csv" ] && grep -q 'every device failed' "$RES/D-all.err" && echo 1 || echo 0)"
  read -r wall cpu rc < <(run D-missing "$NEW_VIF" "$WORK/D-missing" m100.csv --devices "$ngpu")
  check "D a missing device is named" "rc=$rc: $(head -1 "$RES/D-missing.err")" "$([ "$rc" = 2 ] && grep -q "there is no device $ngpu ($ngpu " "$RES/D-missing.err" && echo 1 || echo 0)"
  # NVDEC sessions: rows of testdata/encoded's H.264 and HEVC Main10 pairs (16 each, links, a
  # group each: decoded on the GPU, --hwdec cuda: short clips too) on one GPU against the same
  # rows decoded on the host: the same files; H.264: one session an input (the first-frame
  # probe's decoder goes on, none restarted); HEVC: decoders kept from row to row (`--timings`:
  # segment decoders ...; a worker's second row is opened while its first decodes, its third
  # takes the first's decoders).
  mkdir -p nvrows
  nvrows=16
  for codec in h264 hevc10; do
    {
      echo "reference,distorted"
      for i in $(seq 1 $nvrows); do
        ln -sfn "$ROOT/testdata/encoded/${codec}_ref.mp4" "nvrows/${codec}_ref$i.mp4"
        ln -sfn "$ROOT/testdata/encoded/${codec}_dist.mkv" "nvrows/${codec}_dist$i.mkv"
        echo "nvrows/${codec}_ref$i.mp4,nvrows/${codec}_dist$i.mkv"
      done
    } > "m_$codec.csv"
    # (4 workers: each scores 4 rows, so that a third row can take a first's decoders.)
    read -r wall cpu rc < <(run "D-$codec-nvdec" "$NEW_VIF" "$WORK/D-$codec-nvdec" "m_$codec.csv" --devices 0 --workers 4 --hwdec cuda --timings)
    read -r wall cpu rc2 < <(run "D-$codec-host" "$NEW_VIF" "$WORK/D-$codec-host" "m_$codec.csv" --devices 0 --hwdec none)
    why=$(same "$WORK/D-$codec-host" "$WORK/D-$codec-nvdec")
    sessions=$(grep -o 'segment decoders: .*' "$RES/D-$codec-nvdec.err" | head -1)
    check "D $codec rows on NVDEC = on the host" "rc=$rc/$rc2, $sessions${why:+, $why}" "$([ "$rc" = 0 ] && [ "$rc2" = 0 ] && [ -z "$why" ] && echo 1 || echo 0)"
    opened=$(sed -n 's/.*segment decoders: \([0-9]*\) opened, \([0-9]*\) kept.* \([0-9]*\) restarted.*/\1 \2 \3/p' "$RES/D-$codec-nvdec.err" | head -1)
    read -r o k f <<< "${opened:-0 0 0}"
    if [ "$codec" = h264 ]; then
      check "D h264: one NVDEC session an input" "$o opened for $((2 * nvrows)) inputs, $f restarted" "$([ "$f" = 0 ] && [ "$o" -le $((2 * nvrows)) ] && [ "$o" -gt 0 ] && echo 1 || echo 0)"
    else
      check "D hevc: decoders kept from row to row" "$o opened, $k kept, for $((2 * nvrows)) inputs" "$([ "$k" -gt 0 ] && [ $((o + k)) -ge $((2 * nvrows)) ] && echo 1 || echo 0)"
    fi
  done
fi

# ---- W. the GPUs kept initialised ----
# A process of its own initialises CUDA on every GPU and keeps them (primary contexts retained)
# while these runs go, as persistence mode would: each run's CUDA initialisation then finds them
# ready. INFO lines (the targets are the plain runs').
if has W; then
  note ""
  note "### W: the GPUs kept initialised by another process (INFO)"
  [ "${HOLD_GPUS:-0}" = 1 ] && cp "$WORK/hold.log" "$WORK/W-holder.log" || start_holder "$WORK/W-holder.log"
  if grep -q holding "$WORK/W-holder.log"; then
    for tm in "A:m100.csv" "A10:m1000.csv" "B:m1080.csv"; do
      t=${tm%%:*} m=${tm#*:}
      [ -f "$m" ] || continue
      one="" both=""
      for g in 1 2; do
        [ "$g" -le "$ngpu" ] || continue
        read -r wall cpu rc < <(run "W-$t-g$g" "$NEW_VIF" "$WORK/W-$t-g$g" "$m" --devices "$(devlist "$g")" --timings)
        [ "$rc" = skipped ] && continue
        before=$(sed -n 's/^vif: timings: before the run: \([0-9.-]*\) s since.*/\1/p' "$RES/W-$t-g$g.err" | head -1)
        inall=$(sed -n 's/^vif: timings: \([0-9.]*\) s in all.*/\1/p' "$RES/W-$t-g$g.err" | head -1)
        note "INFO W $t on $g GPU(s): rc=$rc, $wall s wall (before the run ${before:-?} s, run ${inall:-?} s)"
        [ "$g" = 1 ] && one=$wall
        [ "$g" = 2 ] && both=$wall
      done
      [ -n "$one" ] && [ -n "$both" ] && note "INFO W $t: 2 GPUs $(ratio "$one" "$both")x one (wall), the GPUs kept initialised"
    done
  else
    note "SKIP W: no process could keep the GPUs initialised ($(tail -1 "$WORK/W-holder.log" 2>/dev/null))"
  fi
  [ "${HOLD_GPUS:-0}" = 1 ] || stop_holder
fi

# ---- B64, B128, B256. part B's pair, 64, 128 and 256 rows ----
# A catalogue is thousands of rows: at 16 the fixed costs (CUDA's initialisation, the devices'
# start-ups, the first round's NVDEC sessions) take most of four GPUs' run. 64 rows of the same
# pair (each its own links: a group each), about 37 s on one H200 (0.9 s + 4 x B's 8.9 s run);
# 2 / 4 GPUs at 1.8x / 3.4x one; 128 and 256 rows: where the ratio goes as they amortise.
for n in 64 128 256; do
  has "B$n" || continue
  if [ -f "$NVCLIPS/h264_src.mp4" ] && [ -f "$NVCLIPS/h264_enc.mkv" ]; then
    mkdir -p rows1080
    {
      echo "reference,distorted"
      for i in $(seq 1 "$n"); do
        ln -sfn "$NVCLIPS/h264_src.mp4" "rows1080/src$i.mp4"
        ln -sfn "$NVCLIPS/h264_enc.mkv" "rows1080/enc$i.mkv"
        echo "rows1080/src$i.mp4,rows1080/enc$i.mkv"
      done
    } > "m1080r$n.csv"
    cat "$NVCLIPS"/h264_* > /dev/null
    catalogue "B$n" "m1080r$n.csv"
  else
    note "FAIL 1080p clips missing in $NVCLIPS (h264_src.mp4, h264_enc.mkv: carry them)"
    fails=$((fails + 1))
  fi
done

# ---- L. the 1080p pair as a catalogue of ladders (rows sharing a reference) ----
if has L; then
  if [ -f "$NVCLIPS/h264_src.mp4" ] && [ -f "$NVCLIPS/h264_enc.mkv" ]; then
    mkdir -p rowsL
    {
      echo "reference,distorted"
      for i in $(seq 1 "${L_SOURCES:-16}"); do
        ln -sfn "$NVCLIPS/h264_src.mp4" "rowsL/src$i.mp4"
        for r in $(seq 1 "${L_RUNGS:-4}"); do
          ln -sfn "$NVCLIPS/h264_enc.mkv" "rowsL/enc${i}_$r.mkv"
          echo "rowsL/src$i.mp4,rowsL/enc${i}_$r.mkv"
        done
      done
    } > mL.csv
    catalogue L mL.csv
  else
    note "FAIL 1080p clips missing in $NVCLIPS (h264_src.mp4, h264_enc.mkv: carry them)"
    fails=$((fails + 1))
  fi
fi

# ---- B32, last (the first to go when time runs short) ----
# B32: twice the rows (a catalogue's fixed costs -- the process's start, the devices'
# start-ups, the first rows' opening -- over more rows), one and two GPUs.
if has B32 && [ -f m1080.csv ]; then
  {
    echo "reference,distorted"
    for i in $(seq 1 $((2 * ROWS_1080))); do
      ln -sfn "$NVCLIPS/h264_src.mp4" "rows1080/src$i.mp4"
      ln -sfn "$NVCLIPS/h264_enc.mkv" "rows1080/enc$i.mkv"
      echo "rows1080/src$i.mp4,rows1080/enc$i.mkv"
    done
  } > m1080x2.csv
  catalogue B32 m1080x2.csv
fi

stop_holder
note ""
note "## multi_gpu.sh: $fails check(s) failed ($SECONDS s in all)"
[ "$fails" = 0 ]

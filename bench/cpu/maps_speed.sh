#!/usr/bin/env bash
# Issue 24's CPU speed goal for maps: a clip scored with `--map DIR --map-frames worst:10` takes
# at most 1.2x the time of the same run without maps. For each size (720p and 1080p by default)
# it makes a pair once (an FFmpeg test pattern, 8-bit gray Y4M, and its x264 encode at CRF 36
# decoded back; without FFmpeg, or with GEN=numpy, make_maps_clip.py's textured pan and its copy
# blurred by a radius drawn per frame), then times the whole `vif` process without maps and with worst:10 maps,
# alternating, best of REPS, and prints the ratio with PASS/FAIL.
#
#   bench/cpu/maps_speed.sh [VIF_BINARY]      (default build-cpu/tools/vif/vif)
#   env: DIR (clips and results, default /tmp/vif-maps-bench), FRAMES (default 250: 10 s at 25 fps), REPS (3),
#        SIZES ("1280x720 1920x1080"), VARIANTS ("integer float"), THREADS (0: all cores),
#        BACKEND (cpu),
#        METRIC (wall, or cpu: judge on user + system time, for a machine shared with other work),
#        GEN (ffmpeg, the default where it is installed, or numpy), PYTHON (python3, with numpy)
set -euo pipefail
VIF=${1:-build-cpu/tools/vif/vif}
DIR=${DIR:-/tmp/vif-maps-bench}
FRAMES=${FRAMES:-250}
REPS=${REPS:-3}
SIZES=${SIZES:-"1280x720 1920x1080"}
VARIANTS=${VARIANTS:-"integer float"}
THREADS=${THREADS:-0}
BACKEND=${BACKEND:-cpu} # the CPU's goal: never `auto`, which takes the GPU where there is one
METRIC=${METRIC:-wall}
[ -x "$VIF" ] || { echo "maps_speed: no vif binary at $VIF (build the vif_cli target)" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
GEN=${GEN:-ffmpeg}
command -v ffmpeg > /dev/null || GEN=numpy
if [ "$GEN" = numpy ] && ! "$PYTHON" -c "import numpy" 2> /dev/null; then
  echo "maps_speed: needs ffmpeg, or $PYTHON with numpy, to make the clips" >&2
  exit 2
fi
mkdir -p "$DIR"
F="ffmpeg -hide_banner -loglevel error -nostdin -y"

# "wall cpu" seconds of one whole run (cpu: user + system of the process).
# (bash's own `time`: /usr/bin/time is not on every machine)
run_time() {
  local t TIMEFORMAT='%R %U %S'
  t=$({ time "$@" > /dev/null 2>&1; } 2>&1)
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' <<< "$t"
}

min() { printf '%s\n' "$@" | sort -g | head -1; }

fail=0
for size in $SIZES; do
  ref=$DIR/ref_${GEN}_${size}_$FRAMES.y4m dis=$DIR/dis_${GEN}_${size}_$FRAMES.y4m
  if [ ! -s "$dis" ] && [ "$GEN" = numpy ]; then
    "$PYTHON" "$HERE/make_maps_clip.py" "$size" "$FRAMES" "$ref" "$dis"
  elif [ ! -s "$dis" ]; then
    $F -f lavfi -i "testsrc2=s=$size:r=25,noise=alls=8:allf=t" -frames:v "$FRAMES" -pix_fmt gray \
      -strict -1 "$ref"
    $F -i "$ref" -c:v libx264 -preset veryfast -crf 36 -pix_fmt yuv420p -threads 2 "$DIR/enc_${size}_$FRAMES.mkv"
    $F -i "$DIR/enc_${size}_$FRAMES.mkv" -pix_fmt gray -strict -1 "$dis"
  fi
  for variant in $VARIANTS; do
    plain_wall=() plain_cpu=() maps_wall=() maps_cpu=()
    for _ in $(seq "$REPS"); do
      read -r w c < <(run_time "$VIF" -r "$ref" -d "$dis" --variant "$variant" --threads "$THREADS" --backend "$BACKEND" \
        -q -o "$DIR/plain.json")
      plain_wall+=("$w") plain_cpu+=("$c")
      rm -rf "$DIR/maps"
      read -r w c < <(run_time "$VIF" -r "$ref" -d "$dis" --variant "$variant" --threads "$THREADS" --backend "$BACKEND" \
        -q -o "$DIR/maps.json" --map "$DIR/maps" --map-frames worst:10)
      maps_wall+=("$w") maps_cpu+=("$c")
      [ "$(find "$DIR/maps" -type f | wc -l)" -ge 10 ] || { echo "FAIL $size $variant: fewer than 10 map files"; fail=1; }
    done
    # The same scores with maps (the JSON's speed line aside).
    cmp -s <(grep -v '"fps"' "$DIR/plain.json") <(grep -v '"fps"' "$DIR/maps.json") ||
      { echo "FAIL $size $variant: scores differ with maps"; fail=1; }
    pw=$(min "${plain_wall[@]}") mw=$(min "${maps_wall[@]}")
    pc=$(min "${plain_cpu[@]}") mc=$(min "${maps_cpu[@]}")
    rw=$(awk -v a="$mw" -v b="$pw" 'BEGIN { print a / b }')
    rc=$(awk -v a="$mc" -v b="$pc" 'BEGIN { print a / b }')
    ratio=$rw
    [ "$METRIC" = cpu ] && ratio=$rc
    verdict=PASS
    if awk -v r="$ratio" 'BEGIN { exit !(r > 1.2) }'; then verdict=FAIL; fail=1; fi
    printf '%s %s %s, %s frames of %s clips (best of %s): no maps %.2f s wall %.2f s cpu, worst:10 %.2f s wall %.2f s cpu: %.3fx wall, %.3fx cpu (goal <= 1.2x, %s)\n' \
      "$verdict" "$size" "$variant" "$FRAMES" "$GEN" "$REPS" "$pw" "$pc" "$mw" "$mc" "$rw" "$rc" "$METRIC"
    # Where the time goes (one more run each, --verbose's timeline and bash's times): when the
    # last frame was scored, the worst 10 scored again with their local maps, the files'
    # writing, and the user and system CPU time (system time: page faults, thread wake-ups).
    for mode in plain worst; do
      extra=()
      [ "$mode" = worst ] && extra=(--map "$DIR/maps" --map-frames worst:10)
      rm -rf "$DIR/maps"
      t=$( { TIMEFORMAT='%R %U %S'; time "$VIF" -r "$ref" -d "$dis" --variant "$variant" --threads "$THREADS" \
        --backend "$BACKEND" -q -o "$DIR/$mode.json" --verbose "${extra[@]}" 2> "$DIR/$mode.verbose" > /dev/null; } 2>&1 )
      awk -v what="$size $variant $mode" -v t="$t" '
        / all frames scored / { at = $(NF - 1) }
        / worst frames scored again / { again = $(NF - 4) }
        / maps written / { written = $(NF - 4) }
        END { split(t, v, " ");
              printf "tail %s: every frame scored at %s ms", what, at
              if (again != "") printf ", the worst 10 scored again with maps %s ms, files written %s ms", again, written
              printf "; wall %s s, user %s s, sys %s s\n", v[1], v[2], v[3] }' "$DIR/$mode.verbose"
    done
  done
done
exit $fail

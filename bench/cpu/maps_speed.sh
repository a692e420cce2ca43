#!/usr/bin/env bash
# Issue 24's CPU speed goal for maps: a clip scored with `--map DIR --map-frames worst:10` takes
# at most 1.2x the time of the same run without maps. For each size (720p and 1080p by default)
# it makes a pair once (an FFmpeg test pattern, 8-bit gray Y4M, and its x264 encode at CRF 36
# decoded back; without FFmpeg, or with GEN=numpy, make_maps_clip.py's textured pan and its copy
# blurred by a radius drawn per frame), then times the whole `vif` process without maps and with
# worst:10 maps, alternating (plain, then each of MODES: the default, or another way: whether
# the worst so far are scored again while the last frames are, VIF_MAP_EARLY, in bands of rows,
# VIF_MAP_BANDS, tools/vif/maps/worst_pictures.hpp, how many contexts, VIF_MAP_CONTEXT_COUNT,
# tools/vif/maps/map_contexts.hpp, or on contexts made for a band, VIF_MAP_BAND_CONTEXTS, how
# many threads make the contexts, VIF_MAP_MAKERS; or PNG files; see mode_env below), best of
# REPS, and
# prints per mode the ratio with PASS/FAIL (the default mode, `clip`, decides the exit status)
# and where the time went in the best runs, from --verbose: the clip phase (process start to
# the last frame scored), the tail after it (the worst frames scored again, their local maps,
# the files, the exit), and the longest context's wait for maps and local-map time; and the
# steps after the last frame from the run's VIF_MAP_TRACE lines (steps_of).
#
#   bench/cpu/maps_speed.sh [VIF_BINARY]      (default build-cpu/tools/vif/vif)
#   env: DIR (clips and results, default /tmp/vif-maps-bench), FRAMES (default 250: 10 s at 25 fps), REPS (5),
#        SIZES ("1280x720 1920x1080"), VARIANTS ("integer float"), THREADS (0: all cores),
#        BACKEND (cpu), MODES ("clip clip-png": the default with pgm16 files, and with PNG
#        files; the first one decides; other ways in mode_env), GOAL (1.2),
#        METRIC (wall, or cpu: judge on user + system time, for a machine shared with other work),
#        GEN (ffmpeg, the default where it is installed, or numpy), PYTHON (python3, with numpy)
set -euo pipefail
VIF=${1:-build-cpu/tools/vif/vif}
DIR=${DIR:-/tmp/vif-maps-bench}
FRAMES=${FRAMES:-250}
REPS=${REPS:-5}
MODES=${MODES:-"clip clip-png"}
GOAL=${GOAL:-1.2}
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

# The ways of worst:10 compared (tools/vif/maps/map_contexts.hpp, worst_pictures.hpp):
# "VIF_MAP_EARLY VIF_MAP_BANDS VIF_MAP_CONTEXT_COUNT VIF_MAP_BAND_CONTEXTS VIF_MAP_MAKERS" of a
# mode (- : unset), and what it is. (Ways measured slower and settled, whose switches are gone since session 9:
# the contexts made before the first frame or after the last, their threads at idle priority,
# more contexts from the last frame on, the early start K frames before the last, a band taken
# only while a core is free; docs/journal/2026-11-26-vif-maps.md.)
mode_env() {
  case $1 in
    clip) echo "1 - - - -" ;;           # the default (2 bands on band contexts where a crop is at most 3/4 of the frame)
    clip-nobands) echo "1 0 - - -" ;;   # whole frames only (d6d48c2's default)
    clip-b2) echo "1 2 - - -" ;;        # every frame in 2 bands
    clip-cores) echo "1 - $(nproc) - -" ;; # a rescoring context a core (not one for 2 frames)
    clip-10) echo "1 - 10 - -" ;;       # a rescoring context a frame (affcd83's default)
    clip-noearly) echo "0 - - - -" ;;   # the worst scored again after the last frame only
    clip-bc3) echo "1 - - 3 -" ;;       # every frame in 3 bands on contexts made for a band, one for 2 bands
    clip-whole) echo "1 - - 1 -" ;;     # whole frames on contexts made for a frame (5 at worst:10)
    clip-c5) echo "1 - 5 2 -" ;;        # the default's 2 bands a frame on 5 band contexts (not 10): half their pages
    clip-c16) echo "1 - 16 2 -" ;;      # the default's 2 bands a frame on 16 band contexts (one a core at 16 cores): fewer bands a context after the last frame
    clip-m1) echo "1 - - - 1" ;;        # the default, its contexts and buffers made by 1 thread (not 2)
    clip-mall) echo "1 - - - 256" ;;    # the same, made by a thread each, all at once (the default before session 9's round 2)
    clip-png) echo "1 - - - -" ;;       # the default, colour PNG files (--map-format png)
    clip-png-w*) echo "1 - - - -" ;;    # the same, the files written by K threads (VIF_MAP_WRITERS=K; default one a core, up to 16)
    *) echo "1 - - - -" ;;
  esac
}
mode_says() {
  case $1 in
    clip) echo "(contexts made by 2 threads while the clip is scored, the worst so far scored again while the last frames are, each frame in 2 bands on contexts made for a band, one for 2 bands)" ;;
    clip-nobands) echo "(as clip, whole frames only)" ;;
    clip-b2) echo "(as clip, every frame in 2 bands)" ;;
    clip-cores) echo "(as clip, a rescoring context a core)" ;;
    clip-10) echo "(as clip, 10 rescoring contexts: one a frame)" ;;
    clip-noearly) echo "(contexts made while the clip is scored, the worst scored again after the last frame)" ;;
    clip-bc3) echo "(as clip, every frame in 3 bands on contexts made for a band's rows, one for every 2 bands)" ;;
    clip-whole) echo "(as clip, whole frames on contexts made for a frame, one for every 2 frames, bands of rows where workers are idle)" ;;
    clip-png) echo "(as clip, --map-format png)" ;;
    clip-png-w*) echo "(as clip, --map-format png, ${1#clip-png-w} writer threads)" ;;
    clip-c5) echo "(as clip, 5 band contexts: each scores 4 bands, half the pages made during the clip)" ;;
    clip-c16) echo "(as clip, 16 band contexts: most score 1 band, 1.6x the pages made during the clip)" ;;
    clip-m1) echo "(as clip, the contexts and buffers made one after the other on 1 thread)" ;;
    clip-mall) echo "(as clip, the contexts and buffers made by a thread each, all at once)" ;;
    *) echo "($1)" ;;
  esac
}
# The steps of worst:N's maps in a run's VIF_MAP_TRACE lines (tools/vif/maps/map_trace.hpp), in
# ms from the last frame scored: when the frames were scored again (the first started, the last
# ended) and the CPU that took (summed over threads), their local maps, the files, the commit.
steps_of() {
  awk -v what="$1" '
    / all frames scored / { at = $(NF - 1) + 0 }
    $2 == "trace" {
      t = $3 + 0; line = $0; sub(/^.* ms /, "", line); key = line; sub(/:[^:]*$/, "", key)
      if (line ~ /: scoring$/) { st[key] = t; if (first == "" || t < first) first = t; n++ }
      else if (line ~ /: scored/) { if (key in st) rs += t - st[key]; sc[key] = t; if (t > last_r) last_r = t }
      else if (line ~ /: local maps done$/) { if (key in sc) ls += t - sc[key]; if (t > last_l) last_l = t }
      else if (line ~ /^write .*: start$/) ws[key] = t
      else if (line ~ /^write .*: done$/) { if (key in ws) fs += t - ws[key]; files++; if (t > last_f) last_f = t }
      else if (line ~ /^commit: renamed$/) c = t
    }
    END {
      if (n == 0) { printf "steps %s: no trace (VIF_MAP_TRACE lines) in the run\n", what; exit }
      printf "steps %s: best run, ms from the last frame scored: scored again from %+.1f to %+.1f (%d frames or bands, %.1f ms of threads), local maps to %+.1f (%.1f ms), files to %+.1f (%d, %.1f ms), renamed %+.1f\n",
        what, first - at, last_r - at, n, rs, last_l - at, ls, last_f - at, files, fs, c - at
    }' "$2"
}

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
    # Every run with --verbose (its timeline costs nothing): "wall cpu clip_ms" per run, per mode.
    declare -A runs=()
    for rep in $(seq "$REPS"); do
      for mode in plain $MODES; do
        extra=()
        [ "$mode" != plain ] && extra=(--map "$DIR/maps" --map-frames worst:10)
        writers=
        case $mode in clip-png | clip-png-w*) extra+=(--map-format png) ;; esac # the others: pgm16, the default
        case $mode in clip-png-w*) writers=${mode#clip-png-w} ;; esac
        rm -rf "$DIR/maps"
        read -r early bands count bandctx makers <<< "$(mode_env "$mode")"
        [ "$bands" = - ] && bands=
        [ "$count" = - ] && count=
        [ "$bandctx" = - ] && bandctx=
        [ "$makers" = - ] && makers=
        t=$( { TIMEFORMAT='%R %U %S'; time VIF_MAP_EARLY=$early VIF_MAP_BANDS=$bands \
          VIF_MAP_CONTEXT_COUNT=$count VIF_MAP_BAND_CONTEXTS=$bandctx VIF_MAP_MAKERS=$makers VIF_MAP_WRITERS=$writers VIF_MAP_TRACE=1 "$VIF" -r "$ref" -d "$dis" --variant "$variant" \
          --threads "$THREADS" --backend "$BACKEND" -q -o "$DIR/$mode.json" --verbose "${extra[@]}" \
          2> "$DIR/$mode.$rep.verbose" > /dev/null; } 2>&1 )
        if [ "$mode" != plain ] && [ "$(find "$DIR/maps" -type f | wc -l)" -lt 10 ]; then
          echo "FAIL $size $variant $mode: fewer than 10 map files"; fail=1
        fi
        # wall, cpu (user + system), the clip phase (ms from the static start-up to the last
        # frame scored), the tail (from there to leaving main()), and the worst frames scored
        # again: how many early / after the last frame, and of those after it the longest
        # context's waits for maps, local maps and waits for the writers' queue.
        runs[$mode]+="$(awk -v t="$t" '
          / static start-up at / { t0 = $(NF - 2) }
          / leaving main\(\) at / { t1 = $(NF - 2) }
          / all frames scored / { at = $(NF - 1) }
          / worst frames. maps made / { made = $(NF - 4) }
          / scored again early / { early_n = $4 }
          / scored again after the last frame on / { late_n = $4 }
          / of those still among the worst, / { late_n = $(NF - 6) }
          / entered the worst while the last frames / { entered = $4 }
          / split into bands of rows/ { split_n = $4 }
          / scored again after the last frame on / { split($0, a, "longest waits for maps "); split(a[2], b, " ");
                              waits = b[1]; split($0, c, "local maps "); split(c[2], d, " "); lm = d[1]
                              split($0, e, "queue "); split(e[2], f, " "); q = f[1] }
          END { split(t, v, " "); printf "%s %.3f %.1f %.1f %s %s %s %s/%s %s %s %s\n", v[1], v[2] + v[3], at, (t1 - t0) * 1000 - at,
                waits == "" ? "-" : waits, lm == "" ? "-" : lm, q == "" ? "-" : q,
                early_n == "" ? 0 : early_n, (late_n == "" ? 0 : late_n) "/" (entered == "" ? 0 : entered), made == "" ? "-" : made,
                split_n == "" ? 0 : split_n, rep }' rep="$rep" "$DIR/$mode.$rep.verbose")
"
      done
    done
    # The same scores with maps (the JSON's speed line aside).
    for mode in $MODES; do
      cmp -s <(grep -v '"fps"' "$DIR/plain.json") <(grep -v '"fps"' "$DIR/$mode.json") ||
        { echo "FAIL $size $variant $mode: scores differ with maps"; fail=1; }
    done
    # best RUNS: the run with the least wall time, "wall cpu clip tail waits localmaps queue early/late made"
    best() { sort -g <<< "$1" | sed '/^$/d' | head -1; }
    median_clip() { awk 'NF { print $3 }' <<< "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    read -r pw pc pclip ptail _ _ _ _ _ _ <<< "$(best "${runs[plain]}")"
    pmed=$(median_clip "${runs[plain]}")
    first=1
    for mode in $MODES; do
      read -r mw mc mclip mtail waits lm q el made nsplit mrep <<< "$(best "${runs[$mode]}")"
      mmed=$(median_clip "${runs[$mode]}")
      rw=$(awk -v a="$mw" -v b="$pw" 'BEGIN { print a / b }')
      rc=$(awk -v a="$mc" -v b="$pc" 'BEGIN { print a / b }')
      ratio=$rw
      [ "$METRIC" = cpu ] && ratio=$rc
      verdict=PASS
      if awk -v r="$ratio" -v g="$GOAL" 'BEGIN { exit !(r > g) }'; then
        verdict=FAIL
        [ "$first" = 1 ] && fail=1
      fi
      role="decides"
      [ "$first" = 1 ] || role="compared"
      printf '%s %s %s worst:10 %s (%s), %s frames of %s clips (best of %s, alternating): no maps %.3f s wall %.2f s cpu, worst:10 %.3f s wall %.2f s cpu: %.3fx wall, %.3fx cpu (goal <= %sx, %s)\n' \
        "$verdict" "$size" "$variant" "$(mode_says "$mode")" "$role" "$FRAMES" "$GEN" "$REPS" "$pw" "$pc" "$mw" "$mc" "$rw" "$rc" "$GOAL" "$METRIC"
      # The spread of best-of-N between calls is ~5%: the median of the runs' own ratios (each
      # run against the no-maps run just before it) beside it.
      awk -v what="$size $variant $mode" '
        NR == FNR { if (NF) { pw[$NF] = $1; pc[$NF] = $2 }; next }
        NF && ($NF in pw) { n++; w[n] = $1 / pw[$NF]; c[n] = $2 / pc[$NF] }
        function med(a, n,   i, j, t) {
          for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
          return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        END { if (n) printf "medians %s: %.3fx wall, %.3fx cpu (the median of %d runs'"'"' ratios, each against the no-maps run before it)\n", what, med(w, n), med(c, n), n }' \
        <(printf '%s\n' "${runs[plain]}") <(printf '%s\n' "${runs[$mode]}")
      awk -v what="$size $variant $mode" -v ptail="$ptail" -v pclip="$pclip" -v pmed="$pmed" -v mtail="$mtail" \
        -v mclip="$mclip" -v mmed="$mmed" -v waits="$waits" -v lm="$lm" -v q="$q" -v el="$el" -v made="$made" -v nsplit="$nsplit" 'BEGIN {
          printf "tail %s: best runs: clip phase %.1f ms (no maps %.1f: %+.1f; medians %.1f vs %.1f: %+.1f", what, mclip, pclip, mclip - pclip, mmed, pmed, mmed - pmed
          if (made != "-") printf "; of it the rescoring contexts and buffers made before the first frame %s ms", made
          printf "), "
          split(el, n, "/")
          printf "from the last frame to leaving main() %.1f ms (no maps %.1f: %+.1f); worst frames scored again early %s (%s of them entered the worst while the last frames were scored), after the last frame %s", mtail, ptail, mtail - ptail, n[1], n[3], n[2]
          if (n[2] > 0) printf " (the longest context waited %s ms for maps, local maps %s ms, writers\047 queue %s ms)", waits, lm, q
          printf "; frames split into bands %s\n", nsplit }'
      steps_of "$size $variant $mode" "$DIR/$mode.$mrep.verbose"
      first=0
    done
    unset runs
  done
done
exit $fail

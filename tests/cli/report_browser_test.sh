#!/usr/bin/env bash
# `vif report` in a real browser: headless Chromium (Debian's `chromium`) loads the report of a
# testdata pair and of a two-rung ladder; the page's own check (#vif-report-check, written
# once the page has loaded: every chart has its lines and a size on the page, every picture
# decoded, no script error) must say ok, Chromium's log must have no console message (a
# blocked fetch, a script error), and a screenshot and a print (PDF) of each page are kept
# under the build folder as test artifacts (report-artifacts/; docs/images/ come from them).
#   tests/cli/report_browser_test.sh VIF_BINARY TESTDATA_DIR ARTIFACT_DIR
# Exit 77 (skipped) without chromium.
set -euo pipefail
vif=$1 data=$2 art=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
    echo "SKIP: no chromium (Debian's chromium package)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$art"
fail() { echo "FAIL: $*"; exit 1; }

raw=(-w 160 -h 90 -p 420 -b 8)
ref=$data/cases/src01_ref_160x90_yuv420p_48f.yuv
dis=$data/cases/src01_dis_160x90_yuv420p_48f.yuv
"$vif" -r "$ref" -d "$dis" "${raw[@]}" --debug-metrics -q -o "$work/pair.json"
"$vif" report "$work/pair.json" -r "$ref" -d "$dis" "${raw[@]}" --worst 2 \
    --title "VIF report: src01 (testdata)" -o "$work/pair.html"
# A ladder: the distorted clip and the reference itself as two rungs.
"$vif" -r "$ref" -d "$dis" -d "$ref" "${raw[@]}" -q -o "$work/ladder"
"$vif" report "$work/ladder" "${raw[@]}" --worst 1 --title "VIF report: a two-rung ladder" \
    -o "$work/ladder.html"

# Chromium as root needs --no-sandbox; its own profile in the work folder; no network at all.
run_chromium() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" --proxy-server=127.0.0.1:9 --enable-logging=stderr \
        --v=0 "$@"
}
for page in pair ladder; do
    start=$(date +%s.%N)
    run_chromium --dump-dom "file://$work/$page.html" >"$work/$page.dom" 2>"$work/$page.log" ||
        { tail -20 "$work/$page.log"; fail "$page: chromium --dump-dom"; }
    end=$(date +%s.%N)
    check=$(grep -o '<p id="vif-report-check"[^>]*>[^<]*' "$work/$page.dom" || true)
    echo "$page: $check (chromium $(awk "BEGIN{printf \"%.1f\", $end-$start}") s)"
    [[ $check == *'data-status="ok"'* ]] || fail "$page: the page's check did not pass: $check"
    charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<<"$check")
    [[ ${charts:-0} -ge 1 ]] || fail "$page: no charts"
    if grep -q 'CONSOLE' "$work/$page.log"; then
        grep 'CONSOLE' "$work/$page.log"
        fail "$page: console messages"
    fi
    run_chromium --hide-scrollbars --window-size=1000,1400 --screenshot="$art/$page.png" \
        "file://$work/$page.html" >/dev/null 2>"$work/$page.shot.log" ||
        { tail -20 "$work/$page.shot.log"; fail "$page: chromium --screenshot"; }
    [[ -s $art/$page.png ]] || fail "$page: no screenshot"
    echo "$page: screenshot $art/$page.png ($(stat -c %s "$art/$page.png") bytes)"
    # Printed (the page's print styles), kept beside the screenshot.
    run_chromium --no-pdf-header-footer --print-to-pdf="$art/$page.pdf" \
        "file://$work/$page.html" >/dev/null 2>"$work/$page.pdf.log" ||
        { tail -20 "$work/$page.pdf.log"; fail "$page: chromium --print-to-pdf"; }
    [[ $(head -c 5 "$art/$page.pdf") == %PDF- ]] || fail "$page: no PDF"
    echo "$page: printed $art/$page.pdf ($(stat -c %s "$art/$page.pdf") bytes)"
done
echo "PASS"

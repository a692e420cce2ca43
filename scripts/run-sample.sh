#!/usr/bin/env bash
# The main job on a bundled sample: set up and build, then score a testdata pair (Foreman CIF
# against its x264 CRF 35 encode, the frame kept in testdata/) with integer VIF and write
# libvmaf-style JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the CLI and what it needs: the tests and benchmarks are built by scripts/test.sh.
VIF_BUILD_TARGETS=vif_cli scripts/setup.sh build
out=${1:-build/sample.json}
build/tools/vif/vif -r testdata/cases/foreman_cif_352x288_2f.yuv \
                    -d testdata/cases/foreman_352x288_yuv420p_crf35.yuv \
                    -w 352 -h 288 -p 420 -b 8 --json -o "$out"
echo "scores written to $out"
cat "$out"

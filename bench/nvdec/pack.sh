#!/usr/bin/env bash
# Packs what bench/nvdec/gpu_run.sh needs on a GPU machine with no FFmpeg or build deps: the
# bench/nvdec scripts, the CLI built here (dist/bin/vif, static FFmpeg with NVDEC) with the
# shared libraries it needs (dist/lib), and the clips.
# Use: [CLIPS="a.mp4 b.mkv"] bench/nvdec/pack.sh BUILD_DIR DEST
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "$1"); dest=$2
rm -rf "$dest" && mkdir -p "$dest/dist/bin" "$dest/dist/lib" "$dest/bench/nvdec/clips"
# Only the scripts travel (the binaries are built here): the clips take most of the 64 MiB.
cp "$root"/bench/nvdec/*.sh "$dest/bench/nvdec/"
cp "$build/tools/vif/vif" "$dest/dist/bin/"
[[ -x $build/examples/vif_nvdec_decode_score ]] && cp "$build/examples/vif_nvdec_decode_score" "$dest/dist/bin/"
for l in $(ldd "$build/tools/vif/vif" | awk '/=>/{print $3}' | grep -E 'libvif|libfmt|libdav1d'); do
  cp -L "$l" "$dest/dist/lib/"
done
# CLIPS: which clips to take (default all)
for c in ${CLIPS:-$(ls "$root/bench/nvdec/clips")}; do cp "$root/bench/nvdec/clips/$c" "$dest/bench/nvdec/clips/"; done
strip "$dest"/dist/bin/* "$dest"/dist/lib/* 2>/dev/null || true
rm -f "$dest"/bench/nvdec/clips/*.tmp
du -sh "$dest"

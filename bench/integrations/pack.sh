#!/usr/bin/env bash
# Packs, on the development machine, everything bench/integrations/gpu_run.sh needs on a GPU
# machine into one folder to carry (the FFmpeg filter's and the GStreamer element's GPU runs in
# one call, inside the 64 MiB a call carries):
#   .integ-pack/clips/      bench/nvdec's 1080p H.264 and 2160p HEVC Main10 pairs, one copy for
#                           both runs (about 34 MiB; they are compressed video already)
#   .integ-pack/deps.tar.xz (about 12 MiB) unpacked there into the repository root:
#       .gst-pack/sysroot                    GStreamer 1.22 from Debian's packages
#                                            (bench/gstreamer/pack.sh, made when missing)
#       .gst-pack/sysroot/opt/ffmpeg-nvdec   the static FFmpeg with NVDEC the vif CLI is built
#                                            with (scripts/build-ffmpeg-nvdec.sh), inside the
#                                            sysroot so that pkg-config's sysroot keeps its paths
#       .gpu-deps/prefix                     CLI11, fmt, nlohmann-json (scripts/gpu-deps.sh)
#       .deps/ffmpeg-libvif-gpu/ffmpeg       ffmpeg with the libvif filter, the nvdec hwaccels
#                                            and the cuvid decoders (scripts/build-ffmpeg-libvif.sh
#                                            --ci where libffmpeg-nvenc-dev is installed)
#       .deps/ffmpeg-libvif-7.1/             FFmpeg 7.1's the same way (--ffmpeg 7.1), when
#         bin/ffmpeg, include/libavutil,     built (FFMPEG71, default .deps/ffmpeg-libvif-ci-7.1;
#         lib/libavutil.a                    FFMPEG71=none leaves it out), with the libavutil that
#                                            gpu_run.sh builds its vif_ffmpeg glue against
#                                            (scripts/build-vif-ffmpeg-glue.sh): about 4 MiB
#   .integ-pack/gst126.tar.xz               GStreamer 1.26 from Debian 13 (bench/gstreamer/pack126.sh,
#                                           made when missing; GST126=none leaves it out): about 8 MiB
#   bench/integrations/pack.sh [DEST]        DEST default .integ-pack (git-ignored)
# Environment: GST_PACK (.gst-pack), FFMPEG_NVDEC (.deps/ffmpeg-nvdec), GPU_DEPS
# (.gpu-deps/prefix), FFMPEG_BIN (.deps/ffmpeg-libvif-ci/bin/ffmpeg), FFMPEG71, GST126
# (.gst126-pack), CLIPS (bench/nvdec/clips).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
dest=$(realpath -m "${1:-.integ-pack}")
gst_pack=$(realpath -m "${GST_PACK:-.gst-pack}")
ff_nvdec=$(realpath -m "${FFMPEG_NVDEC:-.deps/ffmpeg-nvdec}")
gpu_deps=$(realpath -m "${GPU_DEPS:-.gpu-deps/prefix}")
ff_bin=$(realpath -m "${FFMPEG_BIN:-.deps/ffmpeg-libvif-ci/bin/ffmpeg}")
ff71=${FFMPEG71:-.deps/ffmpeg-libvif-ci-7.1}
[[ $ff71 == none ]] || ff71=$(realpath -m "$ff71")
clips=$(realpath -m "${CLIPS:-bench/nvdec/clips}")
gst126=${GST126:-.gst126-pack}
[[ $gst126 == none ]] || gst126=$(realpath -m "$gst126")
need() { [[ -e $1 ]] || { echo "integrations pack: $1 is missing ($2)" >&2; exit 1; }; }

[[ -d $gst_pack/sysroot ]] || bash bench/gstreamer/pack.sh "$gst_pack"
[[ $gst126 == none || -f $gst126/gst126.tar.xz ]] || bash bench/gstreamer/pack126.sh "$gst126"
need "$ff_nvdec/lib/pkgconfig" "scripts/build-ffmpeg-nvdec.sh"
need "$gpu_deps" "scripts/gpu-deps.sh"
need "$ff_bin" "scripts/build-ffmpeg-libvif.sh --ci, with libffmpeg-nvenc-dev installed"
gpu_ffmpeg() { # binary, how to build it
  local words w
  words=$(strings "$1") # (not piped into grep -q: pipefail would see strings' SIGPIPE)
  for w in libvif h264_cuvid hevc_cuvid h264_nvdec; do
    grep -qx "$w" <<< "$words" ||
      { echo "integrations pack: $1 has no $w (rebuild it: $2 with libffmpeg-nvenc-dev)" >&2; exit 1; }
  done
}
gpu_ffmpeg "$ff_bin" "scripts/build-ffmpeg-libvif.sh --ci"
if [[ $ff71 != none ]]; then
  need "$ff71/bin/ffmpeg" "scripts/build-ffmpeg-libvif.sh --ci --ffmpeg 7.1 $ff71, or FFMPEG71=none"
  need "$ff71/lib/libavutil.a" "a static FFmpeg 7.1 install"
  gpu_ffmpeg "$ff71/bin/ffmpeg" "scripts/build-ffmpeg-libvif.sh --ci --ffmpeg 7.1"
fi
pairs=(h264_src.mp4 h264_enc.mkv hevc_src.mp4 hevc_enc.mkv)
for c in "${pairs[@]}"; do [[ -s $clips/$c ]] || bash bench/nvdec/make_clips.sh; done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/.gst-pack" "$stage/.gpu-deps" "$stage/.deps/ffmpeg-libvif-gpu"
cp -a "$gst_pack/sysroot" "$stage/.gst-pack/"
mkdir -p "$stage/.gst-pack/sysroot/opt"
cp -a "$ff_nvdec" "$stage/.gst-pack/sysroot/opt/ffmpeg-nvdec"
rm -rf "$stage/.gst-pack/sysroot/opt/ffmpeg-nvdec"/{share,bin}
cp -a "$gpu_deps" "$stage/.gpu-deps/prefix"
cp "$ff_bin" "$stage/.deps/ffmpeg-libvif-gpu/ffmpeg"
strip "$stage/.deps/ffmpeg-libvif-gpu/ffmpeg"
if [[ $ff71 != none ]]; then
  s71=$stage/.deps/ffmpeg-libvif-7.1
  mkdir -p "$s71/bin" "$s71/include" "$s71/lib/pkgconfig"
  cp "$ff71/bin/ffmpeg" "$s71/bin/" && strip "$s71/bin/ffmpeg"
  cp -a "$ff71/include/libavutil" "$s71/include/"
  cp "$ff71/lib/libavutil.a" "$ff71/lib/pkgconfig/libavutil.pc" "$s71/lib/"
  mv "$s71/lib/libavutil.pc" "$s71/lib/pkgconfig/"
fi

rm -rf "$dest" && mkdir -p "$dest/clips"
for c in "${pairs[@]}"; do cp "$clips/$c" "$dest/clips/"; done
tar -C "$stage" -cf - .gst-pack .gpu-deps .deps | xz -T2 -6 > "$dest/deps.tar.xz"
[[ $gst126 == none ]] || cp "$gst126/gst126.tar.xz" "$dest/"
du -sh "$dest" "$dest/clips" "$dest/deps.tar.xz" "$dest"/gst126.tar.xz 2>/dev/null
total=$(du -sm "$dest" | cut -f1)
((total < 64)) || { echo "integrations pack: $total MiB, over the 64 MiB a call carries" >&2; exit 1; }

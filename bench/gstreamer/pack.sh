#!/usr/bin/env bash
# Packs, on the development machine (Debian 12), what bench/gstreamer/gpu_run.sh needs on a GPU
# machine that has no GStreamer: Debian's own packages, fetched with `apt-get download` and
# unpacked with `dpkg -x` into DEST/sysroot (the way the static FFmpeg travels for bench/nvdec):
#   - to build the element there: the GStreamer, GLib and GL headers and .pc files;
#   - to run it: gst-launch-1.0, gst-inspect-1.0, the plugin scanner, the plugins the pipelines
#     use (filesrc/tee/queue/fakesink, parsebin, typefind, qtdemux, matroskademux, h264parse,
#     nvh264dec/cudaupload from nvcodec, videotestsrc, videoconvert) and every shared library
#     they load, found with ldd and unpacked from the package that owns it (glibc, libstdc++
#     and libgcc are the GPU machine's own);
# and the bench/nvdec 1080p H.264 pair (bench/nvdec/make_clips.sh makes it when missing).
#   bench/gstreamer/pack.sh [DEST]      DEST default: .gst-pack (git-ignored); carry DEST.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(realpath -m "${1:-$root/.gst-pack}")
debs=$dest/debs
sys=$dest/sysroot
mkdir -p "$debs" "$dest/clips"
rm -rf "$sys" && mkdir -p "$sys"
arch=x86_64-linux-gnu
plugdir=/usr/lib/$arch/gstreamer-1.0

# Headers and .pc files for the build (gstreamer-1.0/-base/-video and their Requires.private
# chain; gst/cuda and GL/gl.h for the CUDA memory part).
dev=(libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
     libglib2.0-dev liborc-0.4-dev libunwind-dev libdw-dev libelf-dev libpcre2-dev libffi-dev
     zlib1g-dev liblzma-dev libbz2-dev libzstd-dev libgl-dev libglx-dev libegl-dev libgles-dev
     libglvnd-dev libmount-dev libselinux1-dev libblkid-dev libsepol-dev
     pkgconf pkgconf-bin libpkgconf3) # pkgconf: in case the GPU machine has no pkg-config
plugins=(libgstcoreelements libgstplayback libgsttypefindfunctions libgstvideoconvertscale
         libgstvideotestsrc libgstisomp4 libgstmatroska libgstvideoparsersbad libgstnvcodec)
elves=(/usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0
       "/usr/lib/$arch/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" "/usr/lib/$arch/libgstcuda-1.0.so.0")
for p in "${plugins[@]}"; do elves+=("$plugdir/$p.so"); done

# The packages owning each file and each library ldd resolves for it (all installed here: the
# same versions the debs carry).
skip='^(libc6|libstdc\+\+6|libgcc-s1):'
pkgs=("${dev[@]}")
for f in "${elves[@]}"; do
  [[ -e $f ]] || { echo "pack: $f is not installed here (scripts/setup.sh installs GStreamer)"; exit 1; }
  pkgs+=("$(dpkg -S "$f" | head -1 | cut -d: -f1)")
  while read -r lib; do
    owner=$(dpkg -S "$(realpath "$lib")" 2>/dev/null | head -1 || dpkg -S "$lib" 2>/dev/null | head -1 || true)
    [[ -z $owner ]] && owner=$(dpkg -S "$lib" 2>/dev/null | head -1 || true)
    [[ -n $owner && ! $owner =~ $skip ]] && pkgs+=("${owner%%:*}")
  done < <(ldd "$f" | awk '/=> \//{print $3}')
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sed 's/:.*//' | sort -u)
echo "pack: ${#pkgs[@]} packages"
(cd "$debs" && for p in "${pkgs[@]}"; do ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >/dev/null; done)
for d in "$debs"/*.deb; do dpkg -x "$d" "$sys"; done

# Keep what is used: the listed plugins only, no docs, locales or static libraries.
find "$sys$plugdir" -name '*.so' | while read -r so; do
  keep=0; for p in "${plugins[@]}"; do [[ $(basename "$so") == "$p.so" ]] && keep=1; done
  ((keep)) || rm -f "$so"
done
rm -rf "$sys"/usr/share/{doc,man,locale,info,lintian,bash-completion,gdb,gir-1.0,gettext,aclocal,glib-2.0/codegen}
find "$sys" -name '*.a' -delete
# Headers: only what the element includes (GStreamer core, base, video, cuda; GLib; GL for
# CUDA's cudaGL.h), to stay inside the 64 MiB a GPU call carries.
inc=$sys/usr/include
find "$inc" -mindepth 1 -maxdepth 1 ! -name gstreamer-1.0 ! -name glib-2.0 ! -name GL ! -name KHR \
  -exec rm -rf {} +
find "$inc/gstreamer-1.0/gst" -mindepth 1 -maxdepth 1 -type d ! -name base ! -name video ! -name cuda \
  -exec rm -rf {} +
# The folders the .pc files name must exist (CMake checks imported targets' include folders).
mkdir -p "$inc/x86_64-linux-gnu" "$inc/orc-0.4"

# The clips (one 1080p H.264 pair: source and encode of the same 1,200 frames).
for c in h264_src.mp4 h264_enc.mkv; do
  if [[ ! -s $root/bench/nvdec/clips/$c ]]; then bash "$root/bench/nvdec/make_clips.sh"; fi
  cp "$root/bench/nvdec/clips/$c" "$dest/clips/"
done
rm -rf "$debs"
du -sh "$dest" "$sys" "$dest/clips"

#!/usr/bin/env bash
# Packs GStreamer 1.26 from Debian 13 (trixie) for bench/gstreamer/gpu_run.sh's 1.26 mode
# (GST_SERIES=1.26) on a GPU machine, the way pack.sh packs Debian 12's 1.22:
#   - the packages come from a private apt state (.deps/apt-trixie-bin: its own sources list with
#     one trixie `deb` line, package lists and cache, none of the system's sources), fetched with
#     `apt-get download` and unpacked with `dpkg -x`; nothing is installed here;
#   - only what the element's pipelines load: gst-launch-1.0/gst-inspect-1.0, core (coreelements),
#     -base (app, playback/parsebin, typefindfunctions, videoconvertscale, videotestsrc), -good
#     (isomp4, matroska), -bad (nvcodec with libgstcuda, videoparsersbad/h264parse and the
#     codecparsers/codecs libraries) and every library they need, found by following DT_NEEDED
#     inside the unpacked tree (the list below; a missing one fails the pack);
#   - trixie's glibc, libstdc++ and libgcc_s too: 1.26's libraries need glibc >= 2.38, so the
#     GPU machine runs them through the carried loader (sysroot/usr/lib64/ld-linux-x86-64.so.2
#     --library-path ...), whatever its own glibc is; no host process sees these libraries;
#   - headers and .pc files to build the element against 1.26 (GStreamer core/base/video/cuda,
#     GLib, GL for CUDA's cudaGL.h); Requires.private lines are dropped from the .pc files (a
#     dynamic build does not read them), so their -dev packages need not travel.
# Why binaries: the source route (`apt-get source` of gstreamer1.0, gst-plugins-{base,good,bad}1.0
# and meson from trixie, as scripts/build-ffmpeg-libvif.sh --ffmpeg 7.1 does for FFmpeg) is not
# open from the development machine: the registry answers 404 for those source files (only
# some of them are served), while trixie's binary packages are. Debian builds nvcodec without
# NVIDIA's SDK (it loads libcuda/libnvcuvid at run time), so the binary plugin is the same one a
# source build would make.
#   bench/gstreamer/pack126.sh [DEST]    DEST default .gst126-pack (git-ignored): DEST/sysroot and
#                                        DEST/gst126.tar.xz (the sysroot, what travels; without
#                                        DEST also copied into .integ-pack when that exists)
# Environment: GST126_DEBS (downloaded .deb cache, default .deps/gst126-debs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(realpath -m "${1:-$root/.gst126-pack}")
debs=$(realpath -m "${GST126_DEBS:-$root/.deps/gst126-debs}")
sys=$dest/sysroot
arch=x86_64-linux-gnu
lib=$sys/usr/lib/$arch

# What runs (the DT_NEEDED closure of the tools and the plugins below, checked after unpacking),
# what builds (headers, .pc files and the .so links), and the C/C++ runtime with its loader.
run_pkgs=(gstreamer1.0-tools libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 gstreamer1.0-plugins-base
          gstreamer1.0-plugins-good gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-0
          libgstreamer-gl1.0-0 libglib2.0-0t64 liborc-0.4-0t64 zlib1g libbz2-1.0 libatomic1
          libpcre2-8-0 libffi8 libmount1 libblkid1 libselinux1 libcap2 libudev1 libgudev-1.0-0
          libgl1 libegl1 libglx0 libglvnd0 libgbm1 libdrm2 libexpat1 libwayland-client0
          libwayland-cursor0 libwayland-egl1 libx11-6 libx11-xcb1 libxcb1 libxau6 libxdmcp6)
dev_pkgs=(libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
          libgio-2.0-dev libgl-dev libegl-dev) # libgio-2.0-dev: all of GLib's headers and .pc files
libc_pkgs=(libc6 libstdc++6 libgcc-s1)
plugins=(coreelements app playback typefindfunctions videoconvertscale videotestsrc isomp4 matroska
         videoparsersbad nvcodec)

# ---- trixie's binary packages through a private apt state ------------------------------------
apt_dir=$root/.deps/apt-trixie-bin
trixie_apt() {
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' \
    >"$apt_dir/trixie.list"
  apt-get -qq -o Dir::Etc::SourceList="$apt_dir/trixie.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" \
    -o Dir::State::status=/dev/null -o APT::Architecture=amd64 "$@"
}
all=("${run_pkgs[@]}" "${dev_pkgs[@]}" "${libc_pkgs[@]}")
mkdir -p "$debs"
missing=()
for p in "${all[@]}"; do compgen -G "$debs/${p}_*.deb" >/dev/null || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "pack126: downloading ${#missing[@]} packages from Debian 13 (trixie) into $debs"
  [[ -f $apt_dir/lists/deb.debian.org_debian_dists_trixie_InRelease ]] || trixie_apt update
  # -o APT::Sandbox::User=root: the cache folder belongs to root, not to apt's _apt user.
  (cd "$debs" && trixie_apt -o APT::Sandbox::User=root download "${missing[@]}") ||
    { echo "pack126: apt-get download failed for: ${missing[*]}" >&2; exit 1; }
fi

rm -rf "$sys" && mkdir -p "$sys"
for p in "${all[@]}"; do
  d=$(find "$debs" -maxdepth 1 -name "${p}_*.deb" | sort -V | tail -1)
  dpkg -x "$d" "$sys"
done
version=$(sed -n 's/^Version: //p' "$lib/pkgconfig/gstreamer-1.0.pc")
[[ $version == 1.26* ]] || { echo "pack126: the unpacked GStreamer is $version, not 1.26" >&2; exit 1; }

# ---- keep what is used -------------------------------------------------------------------------
find "$lib/gstreamer-1.0" -name '*.so' | while read -r so; do
  n=$(basename "$so" .so); n=${n#libgst}
  [[ " ${plugins[*]} " == *" $n "* ]] || rm -f "$so"
done
for p in "${plugins[@]}"; do
  [[ -f $lib/gstreamer-1.0/libgst$p.so ]] || { echo "pack126: no plugin $p in the packages" >&2; exit 1; }
done
# The DT_NEEDED closure from the tools and the plugins; every shared library outside it goes
# (gst-plugins-bad's libraries for Vulkan, VA, WebRTC, ... and their missing dependencies).
declare -A keep=()
# glibc's and GCC's runtime whole: the element built on the GPU machine may need any of them.
for so in libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1 \
  libstdc++.so.6 libgcc_s.so.1; do keep[$so]=1; done
queue=("$sys/usr/bin/gst-launch-1.0" "$sys/usr/bin/gst-inspect-1.0" "$lib/gstreamer-1.0"/*.so)
lost=()
while ((${#queue[@]})); do
  f=${queue[0]}; queue=("${queue[@]:1}")
  for so in $(objdump -p "$f" | awk '/NEEDED/{print $2}'); do
    [[ -n ${keep[$so]:-} ]] && continue
    keep[$so]=1
    if [[ -e $lib/$so ]]; then queue+=("$(realpath "$lib/$so")")
    elif [[ ! -e $sys/usr/lib64/$so ]]; then lost+=("$so (for $(basename "$f"))"); fi
  done
done
((${#lost[@]} == 0)) || { echo "pack126: libraries missing from the package list: ${lost[*]}" >&2; exit 1; }
find "$lib" -maxdepth 1 -name '*.so.*' | while read -r f; do
  so=$(objdump -p "$f" 2>/dev/null | awk '/SONAME/{print $2}' || true)
  [[ -n $so && -n ${keep[$so]:-} ]] || rm -f "$f"
done
# Development links (.so) whose library went, and what no pipeline or build reads.
find "$lib" -maxdepth 1 -name '*.so' -xtype l -delete
rm -rf "${lib:?}"/{gconv,gio,audit,libc_malloc_debug*} "$lib"/gstreamer1.0 "${sys:?}"/{etc,var,sbin,bin,lib} \
  "${sys:?}"/usr/{share,libexec,sbin} "$sys"/usr/lib/{girepository-1.0,x86_64-linux-gnu/girepository-1.0}
find "$sys/usr/bin" -type f ! -name gst-launch-1.0 ! -name gst-inspect-1.0 -delete
find "$sys" -name '*.a' -delete
inc=$sys/usr/include
find "$inc" -mindepth 1 -maxdepth 1 ! -name gstreamer-1.0 ! -name glib-2.0 ! -name GL ! -name KHR \
  -exec rm -rf {} +
find "$inc/gstreamer-1.0/gst" -mindepth 1 -maxdepth 1 -type d ! -name base ! -name video ! -name cuda \
  -exec rm -rf {} +
# A dynamic link reads Requires, not Requires.private: dropping the latter spares their -dev
# packages (libunwind, libdw, orc, pcre2, libmount, ...).
sed -i '/^Requires.private:/d' "$lib"/pkgconfig/*.pc "$sys"/usr/share/pkgconfig/*.pc 2>/dev/null || true
# The folders the .pc files name must exist (CMake checks imported targets' include folders).
mkdir -p "$inc/$arch" "$inc/orc-0.4"

# ---- a smoke run here (Debian 12 has glibc 2.36: the carried loader runs 1.26 all the same) ----
loader=$sys/usr/lib64/ld-linux-x86-64.so.2
[[ -x $loader ]] || { echo "pack126: no loader at $loader" >&2; exit 1; }
reg=$(mktemp)
if ! GST_REGISTRY_1_0=$reg GST_REGISTRY_FORK=no GST_PLUGIN_SYSTEM_PATH_1_0=$lib/gstreamer-1.0 \
    GST_PLUGIN_PATH_1_0='' "$loader" --library-path "$lib" "$sys/usr/bin/gst-launch-1.0" -q \
    videotestsrc num-buffers=2 ! videoconvertscale ! fakesink >/dev/null 2>"$dest/smoke.log"; then
  rm -f "$reg"; cat "$dest/smoke.log" >&2; echo "pack126: the carried 1.26 does not run here" >&2; exit 1
fi
rm -f "$reg"
tar -C "$dest" -cf - sysroot | xz -T2 -6 >"$dest/gst126.tar.xz"
echo "pack126: GStreamer $version from Debian 13: $(du -sh "$sys" | cut -f1) unpacked," \
     "$(du -sh "$dest/gst126.tar.xz" | cut -f1) as $dest/gst126.tar.xz"
# Into the integrations pack when there is one (what bench/integrations/gpu_run.sh part gst126
# unpacks), so that one command readies the carry.
if [[ -z ${1:-} && -d $root/.integ-pack ]]; then
  cp "$dest/gst126.tar.xz" "$root/.integ-pack/"
  echo "pack126: copied into .integ-pack ($(du -sh "$root/.integ-pack" | cut -f1) in all; 64 MiB a call)"
fi

#!/usr/bin/env bash
# Checks that every CMakeLists.txt (and *.cmake) compiles only sources of its own folder tree: a
# component's code is built by that component's CMakeLists, never by path from another folder
# (docs/design.md, "a folder per layer"). Prints each violation and exits 1; exits 0 when clean.
#   scripts/check-source-layout.sh [SOURCE_ROOT]     (CTest: vif_source_layout)
# A source is any word ending in .c/.cc/.cpp/.cxx/.cu. Paths are resolved with the file's own
# set(VAR value) lines and CMake's source-dir variables; paths in the build tree (generated files)
# and words with variables it cannot resolve are left alone.
set -uo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd -P)
cd "$root" || exit 2

if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git -C "$root" ls-files -co --exclude-standard -- 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake')
else
  mapfile -t files < <(find . \( -name 'build*' -o -name '.deps' -o -name '.gpu-deps' -o -name '.git' \) -prune -o \
                         \( -name CMakeLists.txt -o -name '*.cmake' \) -type f -print | sed 's|^\./||')
fi
[[ ${#files[@]} -gt 0 ]] || { echo "check-source-layout: no CMakeLists.txt under $root" >&2; exit 2; }

bad=0
checked=0
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  dir=$(cd "$(dirname "$f")" && pwd -P)
  # The file without comments (a '#' at a line's start or after a blank; not inside "...#include").
  text=$(sed -E 's/(^|[[:space:]])#.*$//' "$f")
  declare -A vars=([PROJECT_SOURCE_DIR]=$root [CMAKE_SOURCE_DIR]=$root [libvif_SOURCE_DIR]=$root
                   [CMAKE_CURRENT_SOURCE_DIR]=$dir [CMAKE_CURRENT_LIST_DIR]=$dir
                   [CMAKE_BINARY_DIR]=@build [PROJECT_BINARY_DIR]=@build [CMAKE_CURRENT_BINARY_DIR]=@build)
  # One-word set()s of this file: set(_name value).
  while read -r name value; do
    [[ -n $name && -z ${vars[$name]+x} ]] && vars[$name]=$value
  done < <(grep -oE 'set\([A-Za-z_][A-Za-z0-9_]*[[:space:]]+[^[:space:]()"]+\)' <<< "$text" |
           sed -E 's/^set\(([A-Za-z0-9_]+)[[:space:]]+(.*)\)$/\1 \2/')
  while read -r word; do
    [[ -n $word ]] || continue
    path=$word
    for _ in 1 2 3 4; do # nested variables
      # shellcheck disable=SC2016 # a literal ${
      [[ $path == *'${'* ]] || break
      for name in "${!vars[@]}"; do path=${path//\$\{$name\}/${vars[$name]}}; done
    done
    [[ $path == *'$'* || $path == *@build* ]] && continue
    [[ $path == /* ]] || path=$dir/$path
    path=$(realpath -m "$path")
    checked=$((checked + 1))
    if [[ $path != "$dir"/* ]]; then
      echo "$f: compiles ${path#"$root"/} (\"$word\"), outside its folder ${dir#"$root"/}/"
      bad=1
    fi
  done < <(grep -oE '[^[:space:]()"]+\.(c|cc|cpp|cxx|cu)([[:space:])"]|$)' <<< "$text" | sed -E 's/[[:space:])"]$//')
  unset vars
done
if [[ $bad == 0 ]]; then
  echo "check-source-layout: ${#files[@]} CMake files, $checked source paths, each inside its own folder"
fi
exit $bad

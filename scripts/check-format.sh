#!/usr/bin/env bash
# Checks that every C, C++ and CUDA source tracked by git is formatted as .clang-format says.
#   scripts/check-format.sh          list the files that differ and exit 1 (CI)
#   scripts/check-format.sh --fix    reformat them in place
# Uses Debian's clang-format 14 (package clang-format-14), installed when missing; another major
# version may format differently, so the version is pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || true)
if [ -z "$cf" ]; then
  echo "check-format: installing clang-format-14"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends clang-format-14
  cf=$(command -v clang-format-14)
fi
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
if [ "${1:-}" = --fix ]; then
  "$cf" -i "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$cf" "$f" | cmp -s - "$f" || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted (run scripts/check-format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: all ${#files[@]} files formatted"

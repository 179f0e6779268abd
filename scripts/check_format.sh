#!/usr/bin/env bash
# Formatting check (a ctest in the `unit` label): every C++/CUDA source is as clang-format 14
# (Debian 12's clang-format-14, pinned: other versions format differently) formats it with the
# committed .clang-format. To fix: scripts/check_format.sh --fix
# Usage: check_format.sh [--fix] [ROOT]
set -u
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
cf=$(command -v clang-format-14) || {
  echo "clang-format-14 not found: install the Debian package clang-format-14 (scripts/bootstrap.sh does)"
  exit 1
}
# Every tracked source (benchmarks/ and test/ included); outside git, those of the folders.
mapfile -t files < <(git ls-files '*.hh' '*.cc' '*.cu' '*.h' 2>/dev/null ||
  find core rng io tally phantoms sources transport dose study validation app benchmarks test \
    \( -name '*.hh' -o -name '*.cc' -o -name '*.cu' -o -name '*.h' \) | sort)
if [ $fix -eq 1 ]; then
  "$cf" -i --style=file "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$cf" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "${#bad[@]} file(s) differ from clang-format-14's output; run scripts/check_format.sh --fix:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format OK (${#files[@]} files)"

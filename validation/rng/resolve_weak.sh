#!/usr/bin/env bash
# Re-run the tests that came out WEAK in the reduced battery with dieharder's
# "resolve ambiguity" mode (-Y 1: add p-samples until the result is PASSED or FAILED).
# Usage: validation/rng/resolve_weak.sh <mcdose executable> [output file]
set -euo pipefail
exe=${1:?usage: resolve_weak.sh <mcdose executable> [output file]}
out=${2:-$(dirname "$0")/results/dieharder_resolve_weak.txt}
echo "# dieharder -Y 1 re-runs of the WEAK results (seed 12345), $(date -u +%FT%TZ)" > "$out"
while read -r gen streams test; do
  echo "# $gen streams=$streams test $test" >> "$out"
  "$exe" rng dump -g "$gen" -s "$streams" --seed 12345 | dieharder -g 200 -d "$test" -Y 1 \
    | grep -E '^ *[a-z_0-9]+\|' | grep -v test_name >> "$out" || true
done <<'LIST'
hybrid-taus 4096 13
lagged-fibonacci 1 101
philox 4096 1
philox 4096 15
ran2 1 15
LIST
cat "$out"

#!/usr/bin/env bash
# Run a reduced dieharder battery on every generator, single stream and 4096
# interleaved streams (the order a warp consumes them), reading raw words from
# `mcdose rng dump` (dieharder -g 200 = raw binary on stdin).
#
# Usage: validation/rng/run_dieharder.sh <mcdose executable> [output dir] [tests...]
# Default tests: a subset of `dieharder -a` that runs in ~3 min per
# configuration on one CPU core (the full -a takes hours per configuration).
# Writes <out>/dieharder_<generator>_s<streams>.txt and appends PASSED/WEAK/FAILED
# counts to <out>/dieharder_summary.csv.
set -euo pipefail
exe=${1:?usage: run_dieharder.sh <mcdose executable> [output dir] [tests...]}
out=${2:-$(dirname "$0")/results}
shift $(( $# >= 2 ? 2 : 1 ))
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(0 1 2 3 8 10 13 15 100 101 202 203 204 205)
fi
seed=12345
mkdir -p "$out"
summary="$out/dieharder_summary.csv"
[ -f "$summary" ] || echo "generator,streams,tests,passed,weak,failed,seconds,date,mcdose_git" > "$summary"
git_rev=$("$exe" info --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["git"])' || echo unknown)
for gen in ${GENERATORS:-hybrid-taus lagged-fibonacci philox lcg ran2}; do
  for streams in ${STREAMS:-1 4096}; do
    log="$out/dieharder_${gen}_s${streams}.txt"
    {
      echo "# mcdose rng dump -g $gen -s $streams --seed $seed | dieharder -g 200 -d <test>"
      echo "# tests: ${tests[*]}   date: $(date -u +%FT%TZ)   mcdose: $git_rev"
    } > "$log"
    start=$(date +%s)
    for d in "${tests[@]}"; do
      "$exe" rng dump -g "$gen" -s "$streams" --seed "$seed" | dieharder -g 200 -d "$d" \
        | grep -E '^ *[a-z_0-9]+\|' | grep -v 'test_name' >> "$log" || true
    done
    secs=$(( $(date +%s) - start ))
    p=$(grep -c 'PASSED' "$log" || true); w=$(grep -c 'WEAK' "$log" || true); f=$(grep -c 'FAILED' "$log" || true)
    echo "$gen,$streams,${#tests[@]},$p,$w,$f,$secs,$(date -u +%F),$git_rev" >> "$summary"
    echo "$gen streams=$streams: PASSED $p WEAK $w FAILED $f (${secs}s)"
  done
done

#!/usr/bin/env bash
# GF(2) binary-matrix-rank test on every generator: 32x32 (5000 matrices) and
# 1024x1024 (100 matrices), single stream and 4096 interleaved streams.
# Usage: validation/rng/run_rank.sh <mcdose executable> [output dir]
set -euo pipefail
exe=${1:?usage: run_rank.sh <mcdose executable> [output dir]}
out=${2:-$(dirname "$0")/results}
mkdir -p "$out"
for s in 1 4096; do
  "$exe" rng rank -g all --seed 12345 --size 32 --matrices 5000 -s $s --json "$out/rank32_s$s.json"
  "$exe" rng rank -g all --seed 12345 --size 512 --matrices 100 -s $s --json "$out/rank512_s$s.json"
  "$exe" rng rank -g all --seed 12345 --size 1024 --matrices 100 -s $s --json "$out/rank1024_s$s.json"
done | tee "$out/rank_summary.txt"

#!/usr/bin/env bash
# Phase-space source throughput: particles read from an MCPL file per second against
# histories transported per second. Makes a large file by doubling the committed example
# (examples/phase_space_head.mcpl, mcpltool --merge) DOUBLINGS times, then
#  1. times `mcdose check` on a study reading it, less the same check on the small file:
#     the study reader's pass over the whole file (read + checks) -> particles/s read;
#  2. runs the study (a water cube of CUBE_CM cm, 1 cm voxels) with recycle 1 and with
#     recycle 10, each with the source's read_ahead on and off: the run reads each particle
#     once more, per batch; without read-ahead on the transport's thread before the batch
#     (the histories/s of recycle 1 include one read per history, those of recycle 10 one
#     read per 10 histories), with read-ahead on a thread while the batch before runs;
#     and with read-ahead on and one reading thread (read_threads 1) instead of the default
#     (each batch's particles read in parts by up to 16 threads, one per core).
# docs/performance.md holds the current figures.
#
# Usage: benchmarks/phase_space_throughput.sh [MCDOSE] [BACKEND] [DOUBLINGS]
#   MCDOSE     the executable (default build/ci/app/mcdose)
#   BACKEND    cpu | gpu (default cpu)
#   DOUBLINGS  the file holds 2^DOUBLINGS x the example's particles (default 10)
# Environment: OUT (work directory, default ./phase_space_throughput), THREADS (CPU threads),
#   HISTORIES (histories of each run, a multiple of 10; default: the whole file), CUBE_CM
#   (the phantom's side in cm, default 20; 1 makes transport cheap, so the read shows),
#   RUNS (default 1: the runs of step 2 repeated, interleaved).
set -eu
M=$(realpath "${1:-build/ci/app/mcdose}")
BACKEND=${2:-cpu}
DOUBLINGS=${3:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$PWD/phase_space_throughput}
THREADS=${THREADS:-0}
HISTORIES=${HISTORIES:-}
CUBE_CM=${CUBE_CM:-20}
mkdir -p "$OUT"
cp "$SRC/examples/phase_space_head.mcpl" "$OUT/small.mcpl"
cp "$OUT/small.mcpl" "$OUT/big.mcpl"
for ((i = 0; i < DOUBLINGS; ++i)); do
  mcpltool --merge "$OUT/twice.mcpl" "$OUT/big.mcpl" "$OUT/big.mcpl" > /dev/null
  mv "$OUT/twice.mcpl" "$OUT/big.mcpl"
done
particles=$(mcpltool -j "$OUT/big.mcpl" | sed -n 's/^ *No. of particles *: *//p')
echo "file: $OUT/big.mcpl, $particles particles, $(du -h "$OUT/big.mcpl" | cut -f1)"

study() { # $1 file, $2 recycle, $3 path, $4 read_ahead (true | false), $5 read_threads
  local half
  half=$(awk "BEGIN { print ($CUBE_CM - 1) / 2 }")
  cat > "$3" <<JSON
{
  "phantom": {"type": "shapes",
              "grid": {"dimensions": [$CUBE_CM, $CUBE_CM, $CUBE_CM], "spacing_cm": [1, 1, 1],
                       "origin_cm": [-$half, -$half, 0.5]},
              "background": {"material": "water"}},
  "sources": [{"type": "phase_space", "file": "$1", "translation_cm": [0, 0, -2],
               "recycle": $2, "read_ahead": ${4:-true}, "read_threads": ${5:-0}}],
  "physics": {"electron_cutoff_MeV": 0.2, "precision": "single"},
  "rng": {"generator": "philox", "seed": 1},
  "tally": {"method": "fx", "batches": 10},$([ -n "$HISTORIES" ] && echo "
  \"run\": {\"histories\": $HISTORIES},")
  "backend": "$BACKEND", "cpu_threads": $THREADS,
  "outputs": {"directory": "$OUT/results", "name": "r$2", "image_format": "none",
              "if_exists": "overwrite", "hdf5": false, "depth_dose": false}
}
JSON
}
study "$OUT/small.mcpl" 1 "$OUT/small.json"
for r in 1 10; do
  study "$OUT/big.mcpl" $r "$OUT/big$r.json" true
  study "$OUT/big.mcpl" $r "$OUT/big${r}_plain.json" false
  study "$OUT/big.mcpl" $r "$OUT/big${r}_one.json" true 1
done

# Arithmetic by awk (bc is missing on some GPU hosts).
calc() { awk "BEGIN { print $1 }"; }
wall() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); calc "$t1 - $t0"; }
"$M" check "$OUT/big1.json" > /dev/null # warm the page cache
t_small=$(wall "$M" check "$OUT/small.json")
t_big=$(wall "$M" check "$OUT/big1.json")
printf 'read + check: %s particles in %.3f s (check of the big file %.3f s, of the small one %.3f s): %.3g particles/s\n' \
  "$particles" "$(calc "$t_big - $t_small")" "$t_big" "$t_small" \
  "$(calc "$particles / ($t_big - $t_small)")"
for ((k = 0; k < ${RUNS:-1}; ++k)); do
  for r in 1 10; do
    for run in "big$r" "big${r}_plain" "big${r}_one"; do
      "$M" run "$OUT/$run.json" > "$OUT/$run.log" 2>&1 || { cat "$OUT/$run.log"; exit 1; }
      how="read-ahead on,  reading threads: default"
      [ "$run" = "big${r}_plain" ] && how="read-ahead off, reading threads: default"
      [ "$run" = "big${r}_one" ] && how="read-ahead on,  reading threads: 1      "
      printf 'recycle %2s, %s: %s | %s\n' "$r" "$how" \
        "$(grep -o 'histories  *: [0-9]*' "$OUT/$run.log")" "$(grep -o 'transport time.*' "$OUT/$run.log")"
    done
  done
done

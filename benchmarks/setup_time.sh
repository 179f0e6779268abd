#!/usr/bin/env bash
# Set-up time of `mcdose run` without and with the physics-table cache: for each study, RUNS runs
# with --no-table-cache, one run into an empty cache directory (builds and stores the tables),
# then RUNS runs that read them. Prints the run summary's "setup time" and "physics tables" lines
# and the process wall time (/usr/bin/time). docs/performance.md holds the current figures.
#
# Usage: benchmarks/setup_time.sh [MCDOSE] [BACKEND] [HISTORIES] [STUDY...]
#   MCDOSE     the executable (default build/ci/app/mcdose)
#   BACKEND    cpu | gpu (default cpu)
#   HISTORIES  default 1000 (the transport is not what is measured)
#   STUDY      default examples/slab_6MeV_photons.json examples/water_20MeV_electrons.json
# Environment: OUT (results and cache directory, default ./setup_time_results), RUNS (default 3).
set -u
M=${1:-build/ci/app/mcdose}
BACKEND=${2:-cpu}
HIST=${3:-1000}
shift $(( $# < 3 ? $# : 3 ))
STUDIES=("$@")
[ ${#STUDIES[@]} -eq 0 ] && STUDIES=(examples/slab_6MeV_photons.json examples/water_20MeV_electrons.json)
OUT=${OUT:-$PWD/setup_time_results}
RUNS=${RUNS:-3}
rm -rf "$OUT/cache"
mkdir -p "$OUT"

one_run() { # $1 study, $2 label, rest: extra options
  local study=$1 label=$2
  shift 2
  local log=$OUT/run.log
  /usr/bin/time -f "process wall %e s" "$M" run "$study" --backend "$BACKEND" --histories "$HIST" \
    --output-dir "$OUT/results" --if-exists overwrite --table-cache-dir "$OUT/cache" "$@" \
    > "$log" 2>&1 || { echo "run failed:"; cat "$log"; exit 1; }
  printf '%-34s %-10s %s | %s | %s\n' "$(basename "$study")" "$label" \
    "$(grep -o 'setup time *: [0-9.e+-]* s' "$log")" \
    "$(grep -o 'process wall [0-9.]* s' "$log")" \
    "$(sed -n 's/^ *physics tables *: //p' "$log")"
}

for study in "${STUDIES[@]}"; do
  for ((i = 0; i < RUNS; ++i)); do one_run "$study" "no cache" --no-table-cache; done
  one_run "$study" "cold"
  for ((i = 0; i < RUNS; ++i)); do one_run "$study" "warm"; done
done

#!/usr/bin/env bash
# Cost of a run against its grid size: a 20 MeV electron pencil beam on a 40 cm water cube
# (ARCHER test 2's phantom and beam) scored on N^3 voxels of 40/N cm, the same physics at every
# N (float transport, HB tally, Philox), HDF5 + MHA + depth dose + summary written.
# Per grid: transport time and wall time (the run summary), the whole process's wall time and
# its peak host RSS (/usr/bin/time -v). docs/performance.md holds the current figures.
#
# Usage: benchmarks/scale_grid.sh [MCDOSE] [BACKEND] [GRIDS] [HISTORIES] [BATCHES]
#   MCDOSE     the executable (default build/ci/app/mcdose, or bundle/bin/mcdose if present)
#   BACKEND    cpu | gpu (default gpu)
#   GRIDS      comma-separated N (default 100,200,300,400,512,1024)
#   HISTORIES  default 200000; BATCHES default: the study default (tally.batches omitted)
# Environment: OUT (results directory, default ./scale_grid_results), THREADS (CPU threads),
#   TIMEOUT_S (per run, default 600), UNCERTAINTY (tally.uncertainty: auto, batch or
#   history; default: the study default, auto).
# Output: one line per grid on stdout (markdown table row) and $OUT/scale_grid.json.
set -u
M=${1:-}
if [ -z "$M" ]; then
  if [ -x bundle/bin/mcdose ]; then M=bundle/bin/mcdose; else M=build/ci/app/mcdose; fi
fi
BACKEND=${2:-gpu}
GRIDS=${3:-100,200,300,400,512,1024}
HIST=${4:-200000}
BATCHES=${5:-}
OUT=${OUT:-$PWD/scale_grid_results}
TIMEOUT_S=${TIMEOUT_S:-600}
mkdir -p "$OUT"
threads_opt=()
[ -n "${THREADS:-}" ] && threads_opt=(--threads "$THREADS")
batches_json=""
[ -n "$BATCHES" ] && batches_json=", \"batches\": $BATCHES"
[ -n "${UNCERTAINTY:-}" ] && batches_json+=", \"uncertainty\": \"$UNCERTAINTY\""

echo "| grid | voxels | transport time [s] | run wall [s] | process wall [s] | peak RSS [GB] | status |"
echo "|---|---|---|---|---|---|---|"
json="["
for n in ${GRIDS//,/ }; do
  d=$OUT/n$n
  mkdir -p "$d"
  spacing=$(python3 -c "print(40.0/$n)")
  lower=$(python3 -c "print(-20.0 + 20.0/$n)")
  front=$(python3 -c "print(20.0/$n)")
  cat > "$d/study.json" <<JSON
{
  "description": "20 MeV electron pencil beam on 40 cm of water, ${n}^3 voxels",
  "phantom": {
    "type": "shapes",
    "grid": {"dimensions": [$n, $n, $n], "spacing_cm": [$spacing, $spacing, $spacing],
             "origin_cm": [$lower, $lower, $front]},
    "background": {"material": "water"}
  },
  "sources": [{"type": "pencil", "particle": "electron", "energy_MeV": 20,
               "position_cm": [0, 0, 0], "direction": [0, 0, 1]}],
  "physics": {"electron_cutoff_MeV": 0.2, "photon_cutoff_MeV": 0.01, "precision": "single"},
  "rng": {"generator": "philox", "seed": 12345},
  "tally": {"method": "hb"$batches_json},
  "run": {"histories": $HIST},
  "backend": "$BACKEND",
  "outputs": {"directory": "$d/out", "name": "dose", "image_format": "mha", "depth_axis": "z"}
}
JSON
  status=ok
  /usr/bin/time -v -o "$d/time.txt" timeout "$TIMEOUT_S" "$M" run "$d/study.json" \
      "${threads_opt[@]}" > "$d/run.log" 2>&1 || status="failed (see $d/run.log)"
  rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$d/time.txt" 2>/dev/null)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$d/time.txt" 2>/dev/null)
  read -r transport run_wall < <(python3 - "$d/out/dose_summary.json" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
    print(f"{s['transport_time_s']:.3g} {s['wall_time_s']:.3g}")
except Exception:
    print("- -")
PY
)
  rss_gb=$(python3 -c "print(f'{${rss_kb:-0}/1048576:.2f}')")
  echo "| ${n}^3 | $((n*n*n)) | $transport | $run_wall | $wall | $rss_gb | $status |"
  json+="{\"n\": $n, \"voxels\": $((n*n*n)), \"transport_time_s\": \"$transport\", \"run_wall_s\": \"$run_wall\", \"process_wall\": \"$wall\", \"peak_rss_kb\": \"${rss_kb:-}\", \"status\": \"$status\"},"
  cp "$d/out/dose_summary.json" "$d/summary.json" 2>/dev/null  # with the time per step
  rm -rf "$d/out"  # the dose files of large grids are large
done
echo "${json%,}]" > "$OUT/scale_grid.json"

#!/usr/bin/env bash
# Two builds of mcdose on the same study in interleaved rounds (base, new, base, new, ...), so
# that a machine's drift and its run-to-run spread fall on both alike: scale_grid.sh's study
# (a 20 MeV electron pencil beam on 40 cm of water scored on N^3 voxels, HDF5 + MHA + depth
# dose written). Per run: the process's wall time, the time outside the transport, the steps
# of the run summary, the time from the summary file to the process's end, the peak RSS and
# the sizes of the dose files; then, per build, the range and mean of the time outside the
# transport. docs/performance.md holds the current figures.
#
# Usage: benchmarks/compare_builds.sh BASE NEW [N] [ROUNDS] [HISTORIES]
#   BASE, NEW  the two mcdose executables
#   N          grid voxels a side (default 512); ROUNDS default 5; HISTORIES default 200000
# Environment: OUT (results directory, default ./compare_builds_results), BACKEND (gpu or cpu,
#   default gpu), THREADS (CPU threads).
set -u
if [ $# -lt 2 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BASE=$1
NEW=$2
N=${3:-512}
ROUNDS=${4:-5}
HIST=${5:-200000}
OUT=${OUT:-$PWD/compare_builds_results}
BACKEND=${BACKEND:-gpu}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
# The study (scale_grid.sh writes it and runs it once with NEW: the warm-up run, not counted).
OUT=$OUT/warmup bash "$here/scale_grid.sh" "$NEW" "$BACKEND" "$N" "$HIST" > /dev/null 2>&1
study=$OUT/warmup/n$N/study.json
[ -f "$study" ] || { echo "compare_builds.sh: no study written ($OUT/warmup)" >&2; exit 1; }
threads_opt=()
[ -n "${THREADS:-}" ] && threads_opt=(--threads "$THREADS")
out_dir=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['outputs']['directory'])" "$study")

one() {  # label executable
  rm -rf "$out_dir"
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$OUT/time.txt" "$2" run "$study" "${threads_opt[@]}" > "$OUT/$1.log" 2>&1
  t1=$(date +%s.%N)
  python3 - "$1" "$t0" "$t1" "$out_dir" "$OUT/time.txt" <<'PY'
import json, os, sys
label, t0, t1, out, timing = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
path = os.path.join(out, "dose_summary.json")
if not os.path.exists(path):
    print(f"{label}: failed (no summary; see its log)")
    sys.exit(0)
s = json.load(open(path))
steps = " ".join(f"{x['step']}={x['seconds']:.3f}" for x in s["timing"] if x["seconds"] >= 0.0005)
rss = [l.split(": ")[1].strip() for l in open(timing) if "Maximum resident" in l]
rss_gib = int(rss[0]) / 1048576 if rss else float("nan")
sizes = " ".join(f"{f}={os.path.getsize(os.path.join(out, f))}" for f in sorted(os.listdir(out))
                 if f.endswith((".h5", ".mha")))
end = t1 - os.path.getmtime(path)
print(f"{label}: process {t1 - t0:.3f} s, transport {s['transport_time_s']:.3f} s, "
      f"outside {t1 - t0 - s['transport_time_s']:.3f} s, end {end:.3f} s, "
      f"peak RSS {rss_gib:.2f} GiB; {steps}; {sizes}")
PY
}

{
  echo "base: $("$BASE" --version 2>&1 | head -1)"
  echo "new:  $("$NEW" --version 2>&1 | head -1)"
  echo "grid ${N}^3, $HIST histories, backend $BACKEND, $ROUNDS rounds, $(date -u '+%Y-%m-%d %H:%M UTC')"
  for r in $(seq 1 "$ROUNDS"); do
    one "base$r" "$BASE"
    one "new$r" "$NEW"
  done
} | tee "$OUT/runs.txt"
python3 - "$OUT/runs.txt" <<'PY'
import re, sys
outside = {"base": [], "new": []}
for line in open(sys.argv[1]):
    m = re.match(r"(base|new)\d+: .*outside ([0-9.]+) s", line)
    if m:
        outside[m.group(1)].append(float(m.group(2)))
for build, v in outside.items():
    if v:
        print(f"{build}: outside the transport {min(v):.2f}-{max(v):.2f} s, mean {sum(v) / len(v):.2f} s ({len(v)} runs)")
PY

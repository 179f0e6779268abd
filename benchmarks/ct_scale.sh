#!/usr/bin/env bash
# A run on a patient-size CT: where its set-up and its end go. A synthetic thorax-like CT of
# NX x NY x NZ voxels (a 41 cm field of view, 1 mm slices: an elliptic body of soft tissue with
# a lung and a spine, air around it, CT numbers with +-20 HU of noise) is written as a
# MetaImage, then a 6 MeV photon pencil beam is run on it with the built-in HU calibration and
# the body outlined from the CT. Prints the run summary's time per step, the process's wall
# time and its peak RSS. docs/benchmarks.md records the results.
#
# Usage: benchmarks/ct_scale.sh [MCDOSE] [BACKEND] [NX,NY,NZ] [HISTORIES]
#   MCDOSE    the executable (default build/ci/app/mcdose, or bundle/bin/mcdose if present)
#   BACKEND   cpu | gpu (default gpu); NX,NY,NZ default 512,512,300 (0.8 x 0.8 x 1 mm voxels);
#             HISTORIES default 100000
# Environment: OUT (results directory, default ./ct_scale_results), THREADS (CPU threads),
#   RUNS (runs of the same study, default 2: the first builds the physics-table cache),
#   PYTHON (a python3 with numpy, default python3).
# Writing the image needs numpy.
set -u
M=${1:-}
if [ -z "$M" ]; then
  if [ -x bundle/bin/mcdose ]; then M=bundle/bin/mcdose; else M=build/ci/app/mcdose; fi
fi
BACKEND=${2:-gpu}
DIMS=${3:-512,512,300}
HIST=${4:-100000}
OUT=${OUT:-$PWD/ct_scale_results}
RUNS=${RUNS:-2}
mkdir -p "$OUT"
"${PYTHON:-python3}" - "$OUT/ct.mha" "$DIMS" <<'PY' || { echo "ct_scale.sh: could not write the CT (needs python3 with numpy: set PYTHON)" >&2; exit 1; }
import sys
import numpy as np
path, dims = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
nx, ny, nz = dims
dx, dz = 409.6 / nx, 1.0  # mm: a 41 cm field of view, 1 mm slices
x = (np.arange(nx) - (nx - 1) / 2) * dx
y = (np.arange(ny) - (ny - 1) / 2) * dx
X, Y = np.meshgrid(x, y, indexing="xy")  # [j, i]
body = (X / 170.0) ** 2 + (Y / 120.0) ** 2 < 1
lung = ((X + 70.0) / 50.0) ** 2 + (Y / 70.0) ** 2 < 1
spine = (X / 18.0) ** 2 + ((Y - 90.0) / 18.0) ** 2 < 1
plane = np.full((ny, nx), -1000, dtype=np.int16)
plane[body] = 40
plane[lung] = -750
plane[spine] = 900
rng = np.random.default_rng(2026)
with open(path, "wb") as f:
    f.write((
        "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
        "CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\n"
        f"Offset = {x[0]:.4f} {y[0]:.4f} 0\nElementSpacing = {dx:.6f} {dx:.6f} {dz}\n"
        f"DimSize = {nx} {ny} {nz}\nElementType = MET_SHORT\nElementDataFile = LOCAL\n").encode())
    for k in range(nz):
        noisy = plane + rng.integers(-20, 21, size=plane.shape, dtype=np.int16)
        f.write(np.clip(noisy, -1000, 3000).astype("<i2").tobytes())
PY
cat > "$OUT/study.json" <<JSON
{
  "description": "6 MeV photon pencil beam on a synthetic ${DIMS//,/ x } CT (benchmarks/ct_scale.sh)",
  "phantom": {"type": "ct_image", "image": "ct.mha"},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 6,
               "position_cm": [0, -15, $(python3 -c "print(${DIMS##*,} * 0.05)")],
               "direction": [0, 1, 0]}],
  "rng": {"generator": "philox", "seed": 1},
  "run": {"histories": $HIST},
  "backend": "$BACKEND",
  "outputs": {"directory": "out", "name": "ct", "image_format": "mha"}
}
JSON
threads_opt=()
[ -n "${THREADS:-}" ] && threads_opt=(--threads "$THREADS")
for r in $(seq 1 "$RUNS"); do
  rm -rf "$OUT/out"
  /usr/bin/time -v -o "$OUT/time.txt" "$M" run "$OUT/study.json" "${threads_opt[@]}" \
      > "$OUT/run$r.log" 2>&1 || { echo "run $r failed: see $OUT/run$r.log"; continue; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$OUT/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.2f", $2 / 1048576}' "$OUT/time.txt")
  steps=$(grep "time per step" "$OUT/run$r.log" | sed 's/.*: //')
  echo "run $r: process wall $wall, peak RSS $rss GiB; $steps"
done

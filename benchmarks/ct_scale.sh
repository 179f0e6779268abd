#!/usr/bin/env bash
# A run on a patient-size CT: where its set-up and its end go. A synthetic thorax-like CT of
# NX x NY x NZ voxels (a 41 cm field of view, 1 mm slices: an elliptic body of soft tissue with
# a lung and a spine, air around it, CT numbers with +-20 HU of noise) is written as a
# MetaImage (or a DICOM series: FORMAT below), then a 6 MeV photon pencil beam is run on it with the built-in HU calibration and
# the body outlined from the CT. Prints the run summary's time per step, the process's wall
# time and its peak RSS. docs/performance.md holds the current figures.
#
# Usage: benchmarks/ct_scale.sh [MCDOSE] [BACKEND] [NX,NY,NZ] [HISTORIES]
#   MCDOSE    the executable (default build/ci/app/mcdose, or bundle/bin/mcdose if present)
#   BACKEND   cpu | gpu (default gpu); NX,NY,NZ default 512,512,300 (0.8 x 0.8 x 1 mm voxels);
#             HISTORIES default 100000
# Environment: OUT (results directory, default ./ct_scale_results), THREADS (CPU threads),
#   RUNS (runs of the same study, default 2: the first builds the physics-table cache),
#   PYTHON (a python3 with numpy, default python3), FORMAT (mha, default, or dicom: the CT as
#   a folder of DICOM CT slices, int16 with Rescale Intercept 0 and Slope 1, Implicit VR Little
#   Endian, written by this script from PS3.5's encoding).
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
FORMAT=${FORMAT:-mha}
case "$FORMAT" in
  mha) IMAGE=ct.mha ;;
  dicom) IMAGE=ct_dicom; rm -rf "$OUT/ct_dicom"; mkdir -p "$OUT/ct_dicom" ;;
  *) echo "ct_scale.sh: FORMAT is mha or dicom, not '$FORMAT'" >&2; exit 2 ;;
esac
"${PYTHON:-python3}" - "$OUT/$IMAGE" "$DIMS" "$FORMAT" <<'PY' || { echo "ct_scale.sh: could not write the CT (needs python3 with numpy: set PYTHON)" >&2; exit 1; }
import struct
import sys
import numpy as np
path, dims, fmt = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], sys.argv[3]
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
slices = (np.clip(plane + rng.integers(-20, 21, size=plane.shape, dtype=np.int16), -1000, 3000)
          .astype("<i2").tobytes() for k in range(nz))
if fmt == "mha":
    with open(path, "wb") as f:
        f.write((
            "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
            "CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\n"
            f"Offset = {x[0]:.4f} {y[0]:.4f} 0\nElementSpacing = {dx:.6f} {dx:.6f} {dz}\n"
            f"DimSize = {nx} {ny} {nz}\nElementType = MET_SHORT\nElementDataFile = LOCAL\n").encode())
        for pixels in slices:
            f.write(pixels)
    sys.exit(0)
# DICOM CT Image Storage, one file per slice: the file meta group in Explicit VR Little
# Endian, the data set in Implicit VR Little Endian (tag, 4-byte length, value padded to an
# even length), elements in ascending order.
def text(s, pad=b" "):
    b = s.encode()
    return b + pad if len(b) % 2 else b
def element(group, elem, value):
    return struct.pack("<HHI", group, elem, len(value)) + value
def meta(elem, vr, value):
    if vr == b"OB":  # 2 reserved bytes and a 4-byte length
        return struct.pack("<HH2sHI", 2, elem, vr, 0, len(value)) + value
    return struct.pack("<HH2sH", 2, elem, vr, len(value)) + value
us = lambda v: struct.pack("<H", v)
root = "2.25.2026112800"
study, series, frame = root + "1", root + "2", root + "3"
ct_class = "1.2.840.10008.5.1.4.1.1.2"
for k, pixels in enumerate(slices):
    instance = f"{root}4.{k + 1}"
    group = (meta(0x0001, b"OB", b"\0\1")
             + meta(0x0002, b"UI", text(ct_class, b"\0"))
             + meta(0x0003, b"UI", text(instance, b"\0"))
             + meta(0x0010, b"UI", text("1.2.840.10008.1.2", b"\0"))
             + meta(0x0012, b"UI", text(root + "9", b"\0")))
    empty = b""  # type 2 attributes: present, no value
    data = b"".join([
        element(0x0008, 0x0008, text("ORIGINAL\\PRIMARY\\AXIAL")),
        element(0x0008, 0x0016, text(ct_class, b"\0")),
        element(0x0008, 0x0018, text(instance, b"\0")),
        element(0x0008, 0x0020, empty), element(0x0008, 0x0030, empty),
        element(0x0008, 0x0050, empty),
        element(0x0008, 0x0060, text("CT")),
        element(0x0008, 0x0070, empty), element(0x0008, 0x0090, empty),
        element(0x0010, 0x0010, text("Benchmark^CT")),
        element(0x0010, 0x0020, text("CTSCALE")),
        element(0x0010, 0x0030, empty), element(0x0010, 0x0040, empty),
        element(0x0018, 0x0050, text(f"{dz:g}")),
        element(0x0018, 0x0060, empty),
        element(0x0018, 0x5100, text("HFS")),
        element(0x0020, 0x000D, text(study, b"\0")),
        element(0x0020, 0x000E, text(series, b"\0")),
        element(0x0020, 0x0010, empty),
        element(0x0020, 0x0011, text("1")),
        element(0x0020, 0x0012, empty),
        element(0x0020, 0x0013, text(str(k + 1))),
        element(0x0020, 0x0032, text(f"{x[0]:.4f}\\{y[0]:.4f}\\{k * dz:g}")),
        element(0x0020, 0x0037, text("1\\0\\0\\0\\1\\0")),
        element(0x0020, 0x0052, text(frame, b"\0")),
        element(0x0020, 0x0060, empty), element(0x0020, 0x1040, empty),
        element(0x0028, 0x0002, us(1)),
        element(0x0028, 0x0004, text("MONOCHROME2")),
        element(0x0028, 0x0010, us(ny)),
        element(0x0028, 0x0011, us(nx)),
        element(0x0028, 0x0030, text(f"{dx:.6f}\\{dx:.6f}")),
        element(0x0028, 0x0100, us(16)),
        element(0x0028, 0x0101, us(16)),
        element(0x0028, 0x0102, us(15)),
        element(0x0028, 0x0103, us(1)),
        element(0x0028, 0x1052, text("0")),
        element(0x0028, 0x1053, text("1")),
        element(0x7FE0, 0x0010, pixels)])
    with open(f"{path}/ct_{k:04d}.dcm", "wb") as f:
        f.write(b"\0" * 128 + b"DICM" + meta(0x0000, b"UL", struct.pack("<I", len(group)))
                + group + data)
PY
cat > "$OUT/study.json" <<JSON
{
  "description": "6 MeV photon pencil beam on a synthetic ${DIMS//,/ x } CT (benchmarks/ct_scale.sh)",
  "phantom": {"type": "ct_image", "image": "$IMAGE"},
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

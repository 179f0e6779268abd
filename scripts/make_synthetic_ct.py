#!/usr/bin/python3
"""Write a small synthetic CT-like image (MetaImage, int16 HU) for the examples.

A thorax-like cross-section extruded along z: an elliptical body of soft tissue
(40 HU) under a 1 cm fat layer (-100 HU), two lungs (-800 HU), a sternum and a
vertebral body of bone (700 HU, cortical rim 1200 HU), air outside (-1000 HU),
plus Gaussian noise (sigma 15 HU, fixed seed) as in a real scan. Values stay
inside the default HU calibration [-1024, 3071].

Geometry: 64 x 48 x 40 voxels of 5 mm (MetaImage lengths are in mm), origin
chosen so that the image is centred on (0, 0, 10 cm).

Usage: scripts/make_synthetic_ct.py [output.mha]   (default examples/synthetic_ct.mha)
"""
import sys
import zlib
from pathlib import Path

import numpy as np

NX, NY, NZ = 64, 48, 40
SPACING_MM = 5.0


def phantom_hu():
    # Voxel-centre coordinates in cm, centred on the image.
    x = (np.arange(NX) - (NX - 1) / 2) * SPACING_MM / 10
    y = (np.arange(NY) - (NY - 1) / 2) * SPACING_MM / 10
    xx, yy = np.meshgrid(x, y, indexing="xy")  # shape (NY, NX)

    def ellipse(cx, cy, a, b):
        return ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2 <= 1.0

    hu = np.full((NY, NX), -1000.0)
    hu[ellipse(0, 0, 15, 10)] = -100.0           # fat layer
    hu[ellipse(0, 0, 14, 9)] = 40.0              # soft tissue
    hu[ellipse(-6.5, -0.5, 4.5, 6.5)] = -800.0   # right lung
    hu[ellipse(6.5, -0.5, 4.5, 6.5)] = -800.0    # left lung
    hu[ellipse(0, 6.5, 2.0, 1.5)] = 1200.0       # vertebral body, cortical rim
    hu[ellipse(0, 6.5, 1.5, 1.0)] = 700.0        # cancellous interior
    hu[ellipse(0, -8.0, 1.5, 0.6)] = 900.0       # sternum
    volume = np.repeat(hu[np.newaxis, :, :], NZ, axis=0)  # (NZ, NY, NX), x fastest
    rng = np.random.default_rng(20001)
    volume += rng.normal(0.0, 15.0, volume.shape)
    return np.clip(np.rint(volume), -1024, 3071).astype("<i2")


def write_mha(path, volume):
    data = zlib.compress(volume.tobytes(order="C"), 9)
    origin = [-(NX - 1) / 2 * SPACING_MM, -(NY - 1) / 2 * SPACING_MM,
              100.0 - (NZ - 1) / 2 * SPACING_MM]
    header = (
        "ObjectType = Image\n"
        "NDims = 3\n"
        "BinaryData = True\n"
        "BinaryDataByteOrderMSB = False\n"
        "CompressedData = True\n"
        f"CompressedDataSize = {len(data)}\n"
        "TransformMatrix = 1 0 0 0 1 0 0 0 1\n"
        f"Offset = {origin[0]:g} {origin[1]:g} {origin[2]:g}\n"
        "CenterOfRotation = 0 0 0\n"
        "AnatomicalOrientation = RAI\n"
        f"ElementSpacing = {SPACING_MM:g} {SPACING_MM:g} {SPACING_MM:g}\n"
        f"DimSize = {NX} {NY} {NZ}\n"
        "ElementType = MET_SHORT\n"
        "ElementDataFile = LOCAL\n"
    )
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(data)
    tmp.replace(path)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parent.parent / "examples" / "synthetic_ct.mha"
    write_mha(out, phantom_hu())
    print(f"wrote {out} ({NX}x{NY}x{NZ} voxels of {SPACING_MM:g} mm)")


if __name__ == "__main__":
    main()

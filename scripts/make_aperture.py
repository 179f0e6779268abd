#!/usr/bin/env python3
"""Write an MLC-shaped aperture for a `beam` source: a 2D MetaImage of transmission at the
isocentre plane (x along IEC X_b, y along Y_b; pixel size and origin in mm, as on disk).

Usage: make_aperture.py [OUT.mha]   (default examples/beam_aperture.mha)

The field is that of 20 leaf pairs of 5 mm width (along Y_b) over 10 cm, each pair open
between its two leaf tips (along X_b): an irregular, roughly elliptical target 8 cm x 9 cm
with a 2 cm notch on the +X_b side, sampled on 2.5 mm pixels (transmission 1 open, 0 closed;
values between, e.g. 0.015, model leaf transmission).
"""
import sys

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "examples/beam_aperture.mha"
pixel_mm = 2.5
n = 40  # 10 cm
centres = (np.arange(n) - (n - 1) / 2) * pixel_mm  # pixel centres [mm], symmetric about 0
image = np.zeros((n, n), dtype="<f4")  # [row j (y), column i (x)]
for pair in range(20):
    y_lo, y_hi = -50 + 5 * pair, -45 + 5 * pair  # the leaf pair's strip [mm]
    yc = 0.5 * (y_lo + y_hi)
    half = 40 * np.sqrt(max(0.0, 1 - (yc / 45) ** 2))  # ellipse half-width [mm]
    x1, x2 = -half, half
    if -10 < yc < 10:
        x2 = min(x2, 20.0)  # the notch
    rows = (centres > y_lo) & (centres < y_hi)
    cols = (centres > x1) & (centres < x2)
    image[np.ix_(rows, cols)] = 1.0

header = (
    "ObjectType = Image\nNDims = 2\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
    "CompressedData = False\n"
    f"DimSize = {n} {n}\nElementSpacing = {pixel_mm} {pixel_mm}\n"
    f"Offset = {centres[0]} {centres[0]}\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n"
)
with open(out, "wb") as f:
    f.write(header.encode())
    f.write(image.tobytes())
print(f"{out}: {int(image.sum())} open pixels of {n * n}")

#!/usr/bin/python3
"""Time `mcdose compare` on two 256^3 dose grids (docs/performance.md, "Gamma index").

Two cases, each a reference and an evaluated MetaImage written here (float32):
- gaussian: a 3D Gaussian (sigma 50 mm) on 1 mm voxels; evaluated = shifted 1 mm along x and
  1 mm along z and scaled by 1.02: every voxel above 10 % of the maximum is compared (most of the
  grid), gamma mostly below 1;
- fields: two orthogonal 10 x 10 cm photon-like fields (error-function penumbra, sigma 3 mm;
  exponential fall-off with depth) on 2 mm voxels; evaluated = shifted 1 mm along x, scaled by
  1.01, with 2 % Gaussian noise (fixed seed) as a Monte Carlo dose has.

Usage: benchmarks/gamma_256.py MCDOSE WORK_DIR [THREADS]
"""
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

N = 256


def write_mha(path, values, spacing_mm):
    origin = -(N - 1) / 2 * spacing_mm
    header = (
        "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
        "CompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\n"
        f"Offset = {origin} {origin} {origin}\nElementSpacing = {spacing_mm} {spacing_mm} "
        f"{spacing_mm}\nDimSize = {N} {N} {N}\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n")
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(np.ascontiguousarray(values, dtype="<f4").tobytes())


def axis(spacing_mm):
    return (np.arange(N) - (N - 1) / 2) * spacing_mm


def gaussian_case(shift_mm, scale):
    x = axis(1.0)
    gx = np.exp(-0.5 * ((x - shift_mm) / 50.0) ** 2)
    gz = np.exp(-0.5 * ((x - shift_mm) / 50.0) ** 2)
    gy = np.exp(-0.5 * (x / 50.0) ** 2)
    # (z, y, x) array order: x fastest.
    return scale * gz[:, None, None] * gy[None, :, None] * gx[None, None, :]


def field_profile(x, half_width_mm=50.0, penumbra_mm=3.0):
    erf = np.vectorize(math.erf)
    s = penumbra_mm * math.sqrt(2)
    return 0.5 * (erf((x + half_width_mm) / s) - erf((x - half_width_mm) / s))


def fields_case(shift_mm, scale, noise, seed):
    x = axis(2.0)
    depth = x - x[0]
    pdd = np.exp(-depth / 200.0) * (1 - np.exp(-depth / 8.0))
    lat_x = field_profile(x - shift_mm)
    lat_z = field_profile(x)
    # Field 1 along +y: lateral in x and z.  Field 2 along +x: lateral in y and z.
    f1 = lat_z[:, None, None] * pdd[None, :, None] * lat_x[None, None, :]
    f2 = lat_z[:, None, None] * field_profile(x)[None, :, None] * \
        np.exp(-(x - shift_mm - x[0]) / 200.0)[None, None, :]
    dose = scale * (f1 + f2)
    if noise > 0:
        rng = np.random.default_rng(seed)
        dose *= 1 + noise * rng.standard_normal(dose.shape).astype(np.float32)
    return dose


def run(exe, a, b, threads, json_path):
    t0 = time.perf_counter()
    p = subprocess.run([exe, "compare", a, b, "--threads", str(threads), "--json", json_path],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(p.stdout + p.stderr)
    print(p.stdout, end="")
    return wall


def main():
    exe, work = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    os.makedirs(work, exist_ok=True)
    cases = {
        "gaussian": (gaussian_case(0, 1.0), gaussian_case(1.0, 1.02), 1.0),
        "fields": (fields_case(0, 1.0, 0, 0), fields_case(1.0, 1.01, 0.02, 12345), 2.0),
    }
    for name, (ref, ev, spacing) in cases.items():
        a = os.path.join(work, f"{name}_reference.mha")
        b = os.path.join(work, f"{name}_evaluated.mha")
        write_mha(a, ref, spacing)
        write_mha(b, ev, spacing)
        report = os.path.join(work, f"{name}.json")
        wall = run(exe, a, b, threads, report)
        with open(report) as f:
            r = json.load(f)
        rows = ", ".join(f"{g['criterion']}: {g['pass_rate_percent']:.2f} % of "
                         f"{g['evaluated']} in {g['time_s']:.1f} s" for g in r["gamma"])
        print(f"{name}: {N}^3, {threads} threads, process wall {wall:.1f} s; {rows}\n")


if __name__ == "__main__":
    main()

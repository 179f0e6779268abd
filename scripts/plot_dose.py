#!/usr/bin/python3
"""Plot an mcdose result file (HDF5): depth dose and dose slices to PNG.

Reads the stable names written by dose/DoseHdf5.cc: datasets
`dose` [Gy per source particle] (or `dose_Gy` with --gy), `dose_uncertainty`
[relative], shaped (nz, ny, nx), with attributes `spacing_cm` and
`origin_cm` in (x, y, z) order; `origin_cm` is the centre of voxel (0,0,0).

Writes <stem>_depth_dose.png (laterally integrated dose x mass, i.e. energy
per slab, along the chosen axis, with 1-sigma bands estimated from the
per-voxel uncertainties as an upper bound: the voxel estimates of a slab are
positively correlated in a Monte Carlo run, so the exact slab uncertainty
comes from the run's depth-dose CSV) and <stem>_slices.png (three orthogonal
dose slices through the maximum, with the uncertainty on the same slices).

Axes are the grid's index axes (i, j, k labelled x, y, z), which are the
physical axes unless the input image was oblique.

Usage: scripts/plot_dose.py result.h5 [--axis z] [--out stem] [--gy]
Needs Debian's python3-h5py, python3-numpy and python3-matplotlib.
"""
import argparse
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

AXES = "xyz"


def load(path, use_gy):
    with h5py.File(path, "r") as f:
        name = "dose_Gy" if use_gy else "dose"
        if name not in f:
            sys.exit(f"plot_dose: {path} has no dataset '{name}'"
                     + ("; the source gave no particle count, drop --gy" if use_gy else ""))
        dose = f[name][...]
        unc = f["dose_uncertainty"][...]
        spacing = np.asarray(f[name].attrs["spacing_cm"], dtype=float)
        origin = np.asarray(f[name].attrs["origin_cm"], dtype=float)
        density = f["density"][...].astype(float)
        units = f[name].attrs["units"]
        if isinstance(units, bytes):
            units = units.decode()
    return dose, unc, density, spacing, origin, units


def centres(origin, spacing, n, axis):
    return origin[axis] + spacing[axis] * np.arange(n)


def depth_dose(dose, unc, density, spacing, origin, axis):
    """Energy per slab [J per particle in units of Gy*g] = sum of dose x mass."""
    np_axis = 2 - axis  # arrays are (z, y, x)
    mass_g = density * float(np.prod(spacing))
    dm = dose * mass_g
    slab = dm.sum(axis=tuple(a for a in range(3) if a != np_axis))
    # Upper bound of the slab sigma: fully correlated voxel errors add linearly.
    sigma = (dm * np.where(dose > 0, unc, 0.0)).sum(axis=tuple(a for a in range(3) if a != np_axis))
    z = centres(origin, spacing, dose.shape[np_axis], axis)
    return z, slab, sigma


def plot_depth_dose(z, slab, sigma, axis, units, out):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    peak = slab.max() if slab.max() > 0 else 1.0
    ax.plot(z, 100 * slab / peak, color="C0", label="laterally integrated")
    ax.fill_between(z, 100 * (slab - sigma) / peak, 100 * (slab + sigma) / peak,
                    color="C0", alpha=0.25, lw=0, label="1 sigma (upper bound)")
    ax.set_xlabel(f"{AXES[axis]} / cm")
    ax.set_ylabel("integrated dose, % of maximum")
    ax.set_title(f"depth dose ({units} x mass, normalised)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_slices(dose, unc, spacing, origin, units, out):
    k, j, i = np.unravel_index(np.argmax(dose), dose.shape)
    nz, ny, nx = dose.shape
    x = centres(origin, spacing, nx, 0)
    y = centres(origin, spacing, ny, 1)
    z = centres(origin, spacing, nz, 2)
    views = [
        ("xy", dose[k, :, :], unc[k, :, :], x, y, f"z = {z[k]:.2f} cm"),
        ("xz", dose[:, j, :], unc[:, j, :], x, z, f"y = {y[j]:.2f} cm"),
        ("yz", dose[:, :, i], unc[:, :, i], y, z, f"x = {x[i]:.2f} cm"),
    ]
    fig, axs = plt.subplots(2, 3, figsize=(13, 7.5))
    vmax = dose.max() if dose.max() > 0 else 1.0
    for col, (plane, d, u, h, v, where) in enumerate(views):
        extent = [h[0] - 0.5 * (h[1] - h[0] if len(h) > 1 else 1), h[-1] + 0.5 * (h[1] - h[0] if len(h) > 1 else 1),
                  v[0] - 0.5 * (v[1] - v[0] if len(v) > 1 else 1), v[-1] + 0.5 * (v[1] - v[0] if len(v) > 1 else 1)]
        im = axs[0, col].imshow(d, origin="lower", extent=extent, aspect="equal",
                                vmin=0, vmax=vmax, cmap="inferno")
        axs[0, col].set_title(f"dose, {plane} plane at {where}", fontsize=9)
        axs[0, col].set_xlabel(f"{plane[0]} / cm")
        axs[0, col].set_ylabel(f"{plane[1]} / cm")
        fig.colorbar(im, ax=axs[0, col], label=units)
        im2 = axs[1, col].imshow(100 * u, origin="lower", extent=extent, aspect="equal",
                                 vmin=0, vmax=20, cmap="viridis")
        axs[1, col].set_title(f"relative uncertainty, {plane}", fontsize=9)
        axs[1, col].set_xlabel(f"{plane[0]} / cm")
        axs[1, col].set_ylabel(f"{plane[1]} / cm")
        fig.colorbar(im2, ax=axs[1, col], label="% (1 sigma)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result", help="mcdose HDF5 result file")
    p.add_argument("--axis", choices=list(AXES), default="z", help="depth axis (default z)")
    p.add_argument("--out", help="output stem (default: the result file without .h5)")
    p.add_argument("--gy", action="store_true", help="plot dose_Gy instead of Gy per particle")
    args = p.parse_args()
    stem = args.out or str(Path(args.result).with_suffix(""))
    dose, unc, density, spacing, origin, units = load(args.result, args.gy)
    axis = AXES.index(args.axis)
    z, slab, sigma = depth_dose(dose, unc, density, spacing, origin, axis)
    plot_depth_dose(z, slab, sigma, axis, units, stem + "_depth_dose.png")
    plot_slices(dose, unc, spacing, origin, units, stem + "_slices.png")
    print(f"wrote {stem}_depth_dose.png and {stem}_slices.png")


if __name__ == "__main__":
    main()

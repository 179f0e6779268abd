#!/usr/bin/python3
"""Plot an mcdose result file (HDF5) as a physicist reads it: depth dose, lateral
profiles, isodose lines over the phantom, and dose slices, to PNG.

Reads the stable names written by dose/DoseHdf5.cc: datasets `dose` [Gy per source
particle] (or `dose_Gy` [Gy] when the sources gave particles or monitor units),
`dose_uncertainty` [relative], `edep` [MeV per source particle], `density`, `material`
(attribute `names`), shaped (nz, ny, nx), with attributes `spacing_cm` and `origin_cm`
in (x, y, z) order (`origin_cm` the centre of voxel (0,0,0)); the root attribute
`dose_to` (medium or water); and the study echo `/input/study_json` for the beam.

Writes
  <stem>_depth_dose.png  broad beams (point, parallel): the central-axis depth dose, the
                         mean dose of the voxels whose centres lie within --axis-radius-cm
                         of the beam axis, in Gy (--gy), Gy per particle, or % of its
                         maximum (--percent); pencil beams: the laterally integrated curve,
                         labelled as what it is: energy deposited per slab [MeV per
                         particle per cm] (--integrated energy, the default) or the dose
                         integrated over the slab's area [Gy cm^2] (--integrated dose). A
                         pencil beam has no meaningful central-axis dose at voxel size.
                         1-sigma band from the voxel uncertainties; material boundaries
                         along the axis as dashed lines with the materials named.
  <stem>_profiles.png    lateral profiles across the beam axis at --depths-cm (default:
                         the depth of maximum dose and two deeper), dose in the same unit.
  <stem>_isodose.png     isodose lines (% of the maximum dose, --levels) over the phantom's
                         density in the plane through the beam axis (x-depth), with the
                         material boundaries.
  <stem>_slices.png      three orthogonal dose slices through the maximum with the
                         uncertainty.

Doses are in the run's unit: Gy when the sources gave a particle count or monitor units
(dataset `dose_Gy`), else Gy per source particle (--per-particle plots that one always).
Axes are the grid's index axes (i, j, k labelled x, y, z), which are the physical axes
unless the input image was oblique. The depth axis follows the beam: the run records its
first source's axis (`/run` attributes `beam_axis_point_cm`, `beam_axis_direction`) and the
index axis closest to it is taken, the plot running in the beam's direction (a beam along
-y, gantry 0 on a head-first-supine CT, has depth increasing as y decreases); --axis names
one instead. Sources without an axis (isotropic, volume, phase space) default to z.

Usage: scripts/plot_dose.py result.h5 [--axis auto|x|y|z] [--out stem] [--per-particle] [--percent]
         [--beam auto|broad|pencil] [--integrated energy|dose] [--depths-cm 1.5,5,10]
         [--levels 10,20,50,80,90,95] [--axis-radius-cm R]
Needs Debian's python3-h5py, python3-numpy and python3-matplotlib.
"""
import argparse
import json
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

AXES = "xyz"


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


class Result:
    """The arrays and facts of one result file."""

    def __init__(self, path, use_gy, per_particle=False):
        with h5py.File(path, "r") as f:
            name = "dose" if per_particle or (not use_gy and "dose_Gy" not in f) else "dose_Gy"
            if name not in f:
                sys.exit(f"plot_dose: {path} has no dataset '{name}'"
                         + ("; the sources gave no particle count or monitor units, drop --gy"
                            if use_gy else ""))
            self.dose = f[name][...]
            self.unc = f["dose_uncertainty"][...]
            self.edep = f["edep"][...]
            self.spacing = np.asarray(f[name].attrs["spacing_cm"], dtype=float)
            self.origin = np.asarray(f[name].attrs["origin_cm"], dtype=float)
            self.density = f["density"][...].astype(float)
            self.material = f["material"][...]
            self.names = [text(n) for n in f["material"].attrs["names"]]
            self.unit = text(f[name].attrs["units"])
            self.dose_to = text(f.attrs.get("dose_to", "medium"))
            self.study = json.loads(text(f["input/study_json"][()]))
            self.direction = np.asarray(f[name].attrs.get("direction", np.eye(3).ravel()),
                                        dtype=float).reshape(3, 3)
            run = f["run"].attrs if "run" in f else {}
            self.beam_point = (np.asarray(run["beam_axis_point_cm"], dtype=float)
                               if "beam_axis_point_cm" in run else None)
            self.beam_direction = (np.asarray(run["beam_axis_direction"], dtype=float)
                                   if "beam_axis_direction" in run else None)

    def centres(self, axis):
        n = self.dose.shape[2 - axis]
        return self.origin[axis] + self.spacing[axis] * np.arange(n)

    def quantity(self):
        return f"dose to {self.dose_to}"

    def to_index(self, point):
        """Physical coordinates [cm] in the index axes' frame (origin at the physical
        origin): the inverse of the grid's direction matrix (orthonormal) applied."""
        return self.direction.T @ np.asarray(point, dtype=float)

    def axis_in_index_frame(self):
        """(point, unit direction) of the run's beam axis in the index axes' frame, else
        of the first source's position and direction as the study gives them, else None."""
        point, direction = self.beam_point, self.beam_direction
        if point is None or direction is None:
            src = first_source(self.study)
            point, direction = src.get("position_cm"), src.get("direction")
        if point is None or direction is None:
            return None
        d = np.asarray(direction, dtype=float)
        if not np.linalg.norm(d) > 0:
            return None
        # The origin maps with the rest: origin_cm is the index frame's origin in physical
        # coordinates, so a point p sits at origin + D (p' - o') where primes are index.
        o = np.asarray(self.origin, dtype=float)
        p = self.to_index(np.asarray(point, dtype=float) - o) + o
        return p, self.to_index(d / np.linalg.norm(d))

    def beam_sign(self, axis):
        """+1 when the beam travels towards increasing coordinate along `axis`, else -1."""
        found = self.axis_in_index_frame()
        return -1 if found is not None and found[1][axis] < 0 else 1


def first_source(study):
    sources = study.get("sources") or [{}]
    return sources[0]


def default_axis(res):
    """The index axis closest to the beam's direction, else z."""
    found = res.axis_in_index_frame()
    return 2 if found is None else int(np.argmax(np.abs(found[1])))


def beam_axis(res, axis):
    """Lateral coordinates (per depth plane) of the beam's axis, or the dose maximum's when
    the run has no axis or it runs across the depth axis."""
    depth = res.centres(axis)
    lat = [a for a in range(3) if a != axis]
    found = res.axis_in_index_frame()
    if found is None or abs(found[1][axis]) < 1e-9:
        k, j, i = np.unravel_index(np.argmax(res.dose), res.dose.shape)
        ijk = (i, j, k)
        return {a: np.full(depth.shape, res.centres(a)[ijk[a]]) for a in lat}
    pos, d = found
    t = (depth - pos[axis]) / d[axis]
    return {a: pos[a] + t * d[a] for a in lat}


def depth_label(res, axis):
    """The depth axis' label; plots invert the axis for beams towards decreasing values."""
    if res.beam_sign(axis) > 0:
        return f"depth along {AXES[axis]} / cm"
    return f"{AXES[axis]} / cm (beam towards -{AXES[axis]}: depth increases to the right)"


def take_plane(arr, axis, k):
    """The 2D plane k along the depth axis, as (second lateral, first lateral)."""
    return np.take(arr, k, axis=2 - axis)


def central_axis(res, axis, radius):
    """Mean dose and its 1-sigma (voxels independent) within `radius` of the axis."""
    lat = [a for a in range(3) if a != axis]
    where = beam_axis(res, axis)
    ca, cb = res.centres(lat[0]), res.centres(lat[1])
    grid_b, grid_a = np.meshgrid(cb, ca, indexing="ij")  # plane arrays are (b, a)
    values, sigmas = [], []
    for k in range(len(res.centres(axis))):
        r2 = (grid_a - where[lat[0]][k]) ** 2 + (grid_b - where[lat[1]][k]) ** 2
        near = r2 <= radius * radius
        if not near.any():
            near = r2 == r2.min()
        d = take_plane(res.dose, axis, k)[near]
        u = take_plane(res.unc, axis, k)[near]
        values.append(d.mean())
        sigmas.append(np.sqrt(((d * u) ** 2).sum()) / d.size)
    return np.asarray(values), np.asarray(sigmas)


def integrated(res, axis, kind):
    """Laterally integrated curve: energy per slab per unit depth [MeV per particle per cm],
    or dose integrated over the slab's area [dose unit x cm^2]."""
    lat = tuple(2 - a for a in range(3) if a != axis)
    if kind == "energy":
        # The voxels' sigmas add in quadrature (voxels independent, as for the central
        # axis); a plain sum of sigmas would take every voxel of a slab as fully correlated,
        # about sqrt(voxels in the beam's spot) times too wide.
        e = res.edep.sum(axis=lat) / res.spacing[axis]
        s = np.sqrt(((res.edep * np.where(res.edep > 0, res.unc, 0.0)) ** 2).sum(axis=lat))
        return e, s / res.spacing[axis], "energy per unit depth / MeV cm$^{-1}$ per particle"
    area = np.prod([res.spacing[a] for a in range(3) if a != axis])
    d = res.dose.sum(axis=lat) * area
    s = np.sqrt(((res.dose * res.unc) ** 2).sum(axis=lat)) * area
    unit = "Gy cm$^2$ per particle" if res.unit == "Gy per source particle" else "Gy cm$^2$"
    return d, s, f"integrated {res.quantity()} / {unit}"


def material_boundaries(res, axis):
    """(depth of each change of material along the beam axis, material after it)."""
    depth = res.centres(axis)
    where = beam_axis(res, axis)
    lat = [a for a in range(3) if a != axis]
    mats = []
    for k in range(len(depth)):
        idx = []
        for a in lat:
            c = res.centres(a)
            idx.append(int(np.clip(np.argmin(np.abs(c - where[a][k])), 0, len(c) - 1)))
        plane = take_plane(res.material, axis, k)
        mats.append(int(plane[idx[1], idx[0]]))
    out = [(depth[0] - res.spacing[axis] / 2, mats[0])]
    for k in range(1, len(mats)):
        if mats[k] != mats[k - 1]:
            out.append((depth[k] - res.spacing[axis] / 2, mats[k]))
    return out


def mark_materials(ax, res, axis, vertical=True):
    bounds = material_boundaries(res, axis)
    for n, (z, m) in enumerate(bounds):
        if n > 0:
            (ax.axvline if vertical else ax.axhline)(z, color="0.4", ls="--", lw=0.8)
        if vertical:
            ax.text(z, 1.0, " " + res.names[m], transform=ax.get_xaxis_transform(),
                    fontsize=7, va="top", ha="left", color="0.3", rotation=90)


def dose_label(res, percent):
    return (f"{res.quantity()} / % of maximum" if percent
            else f"{res.quantity()} / {res.unit}")


def plot_depth_dose(res, axis, beam, kind, radius, percent, out):
    z = res.centres(axis)
    fig, ax = plt.subplots(figsize=(6.8, 4.4))
    if beam == "pencil":
        y, s, label = integrated(res, axis, kind)
        title = "pencil beam: laterally integrated depth curve"
    else:
        y, s = central_axis(res, axis, radius)
        label = dose_label(res, percent)
        title = f"central-axis depth dose (mean within {radius:g} cm of the axis)"
        if percent:
            peak = y.max() if y.max() > 0 else 1.0
            y, s = 100 * y / peak, 100 * s / peak
    ax.plot(z, y, color="C0", label="Monte Carlo")
    ax.fill_between(z, y - s, y + s, color="C0", alpha=0.25, lw=0, label="1 sigma")
    mark_materials(ax, res, axis)
    ax.set_xlabel(depth_label(res, axis))
    if res.beam_sign(axis) < 0:
        ax.invert_xaxis()
    ax.set_ylabel(label)
    ax.set_title(title, fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def default_depths(res, axis, radius):
    y, _ = central_axis(res, axis, radius)
    z = res.centres(axis)
    zmax = z[int(np.argmax(y))]
    sign = res.beam_sign(axis)
    deeper = [zmax + sign * step for step in (5, 10)]
    deeper = [d for d in deeper if z[0] <= d <= z[-1]]
    return [zmax] + deeper


def plot_profiles(res, axis, depths, percent, out):
    lat = [a for a in range(3) if a != axis]
    where = beam_axis(res, axis)
    z = res.centres(axis)
    fig, axs = plt.subplots(1, 2, figsize=(11, 4.2))
    peak = res.dose.max() if res.dose.max() > 0 else 1.0
    for col, a in enumerate(lat):
        other = lat[1 - col]
        c = res.centres(a)
        for depth in depths:
            k = int(np.argmin(np.abs(z - depth)))
            co = res.centres(other)
            o = int(np.argmin(np.abs(co - where[other][k])))
            plane = take_plane(res.dose, axis, k)  # (lat[1], lat[0])
            prof = plane[o, :] if col == 0 else plane[:, o]
            uplane = take_plane(res.unc, axis, k)
            unc = uplane[o, :] if col == 0 else uplane[:, o]
            scale = 100 / peak if percent else 1.0
            line, = axs[col].plot(c, prof * scale, label=f"depth {z[k]:.2f} cm")
            axs[col].fill_between(c, (prof - prof * unc) * scale, (prof + prof * unc) * scale,
                                  color=line.get_color(), alpha=0.2, lw=0)
        axs[col].set_xlabel(f"{AXES[a]} / cm")
        axs[col].set_ylabel(dose_label(res, percent))
        axs[col].set_title(f"lateral profile along {AXES[a]} through the beam axis", fontsize=10)
        axs[col].grid(alpha=0.3)
        axs[col].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_isodose(res, axis, levels, out):
    """Isodose lines (% of the maximum) over the density in the plane through the beam
    axis spanned by the first lateral axis and the depth axis."""
    lat = [a for a in range(3) if a != axis]
    where = beam_axis(res, axis)
    other = lat[1]
    c_other = res.centres(other)
    z = res.centres(axis)
    k_mid = len(z) // 2
    o = int(np.argmin(np.abs(c_other - where[other][k_mid])))
    np_other = 2 - other
    dose = np.take(res.dose, o, axis=np_other)
    dens = np.take(res.density, o, axis=np_other)
    mat = np.take(res.material, o, axis=np_other)
    # Rows along the depth axis, columns along the lateral one (the remaining numpy axes
    # keep their order: depth first when its numpy axis is the lower).
    lat_axis = lat[0]
    if (2 - axis) > (2 - lat_axis):
        dose, dens, mat = dose.T, dens.T, mat.T
    x = res.centres(lat_axis)
    fig, ax = plt.subplots(figsize=(7.5, 6))
    dx, dz = res.spacing[lat_axis], res.spacing[axis]
    extent = [x[0] - dx / 2, x[-1] + dx / 2, z[0] - dz / 2, z[-1] + dz / 2]
    im = ax.imshow(dens, origin="lower", extent=extent, cmap="gray", aspect="equal",
                   vmin=0, vmax=max(2.0, float(dens.max())))
    fig.colorbar(im, ax=ax, label="mass density / g cm$^{-3}$")
    peak = dose.max() if dose.max() > 0 else 1.0
    cs = ax.contour(x, z, 100 * dose / peak, levels=sorted(levels), cmap="jet", linewidths=1.2)
    ax.clabel(cs, fmt="%g %%", fontsize=7)
    if len(np.unique(mat)) > 1:
        ax.contour(x, z, mat, levels=np.unique(mat)[:-1] + 0.5, colors="w", linewidths=0.6,
                   linestyles="--")
    ax.set_xlabel(f"{AXES[lat_axis]} / cm")
    ax.set_ylabel(depth_label(res, axis))
    if res.beam_sign(axis) > 0:
        ax.invert_yaxis()  # the beam enters at the top
    ax.set_title(f"isodose lines, % of the maximum {res.quantity()} in this plane "
                 f"({AXES[other]} = {c_other[o]:.2f} cm); dashed: material boundaries",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_slices(res, out):
    dose, unc = res.dose, res.unc
    k, j, i = np.unravel_index(np.argmax(dose), dose.shape)
    nz, ny, nx = dose.shape
    x, y, z = res.centres(0), res.centres(1), res.centres(2)
    views = [
        ("xy", dose[k, :, :], unc[k, :, :], x, y, f"z = {z[k]:.2f} cm"),
        ("xz", dose[:, j, :], unc[:, j, :], x, z, f"y = {y[j]:.2f} cm"),
        ("yz", dose[:, :, i], unc[:, :, i], y, z, f"x = {x[i]:.2f} cm"),
    ]
    fig, axs = plt.subplots(2, 3, figsize=(13, 7.5))
    vmax = dose.max() if dose.max() > 0 else 1.0

    def half(v):
        return 0.5 * (v[1] - v[0]) if len(v) > 1 else 0.5

    for col, (plane, d, u, h, v, where) in enumerate(views):
        extent = [h[0] - half(h), h[-1] + half(h), v[0] - half(v), v[-1] + half(v)]
        im = axs[0, col].imshow(d, origin="lower", extent=extent, aspect="equal",
                                vmin=0, vmax=vmax, cmap="inferno")
        axs[0, col].set_title(f"{res.quantity()}, {plane} plane at {where}", fontsize=9)
        axs[0, col].set_xlabel(f"{plane[0]} / cm")
        axs[0, col].set_ylabel(f"{plane[1]} / cm")
        fig.colorbar(im, ax=axs[0, col], label=res.unit)
        im2 = axs[1, col].imshow(100 * u, origin="lower", extent=extent, aspect="equal",
                                 vmin=0, vmax=20, cmap="viridis")
        axs[1, col].set_title(f"relative uncertainty, {plane}", fontsize=9)
        axs[1, col].set_xlabel(f"{plane[0]} / cm")
        axs[1, col].set_ylabel(f"{plane[1]} / cm")
        fig.colorbar(im2, ax=axs[1, col], label="relative uncertainty / % (1 sigma)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def numbers(text_list):
    return [float(x) for x in text_list.split(",") if x.strip()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result", help="mcdose HDF5 result file")
    p.add_argument("--axis", choices=["auto"] + list(AXES), default="auto",
                   help="depth axis (default: the one along the run's beam, else z)")
    p.add_argument("--out", help="output stem (default: the result file without .h5)")
    p.add_argument("--gy", action="store_true",
                   help="require the dose in Gy (the default where the run has it)")
    p.add_argument("--per-particle", action="store_true",
                   help="plot the dose per source particle even where the run has Gy")
    p.add_argument("--percent", action="store_true",
                   help="broad beams: depth dose and profiles in %% of the maximum")
    p.add_argument("--beam", choices=["auto", "broad", "pencil"], default="auto",
                   help="auto: pencil when the first source is a pencil beam")
    p.add_argument("--integrated", choices=["energy", "dose"], default="energy",
                   help="pencil beams: energy per slab [MeV/cm] or area-integrated dose [Gy cm2]")
    p.add_argument("--depths-cm", help="profile depths, comma-separated (default: d_max, +5, +10)")
    p.add_argument("--levels", default="10,20,30,50,70,80,90,95",
                   help="isodose levels in %% of the maximum")
    p.add_argument("--axis-radius-cm", type=float,
                   help="central axis: mean over voxel centres within this distance "
                        "(default: the largest lateral voxel spacing)")
    args = p.parse_args()
    stem = args.out or str(Path(args.result).with_suffix(""))
    res = Result(args.result, args.gy, args.per_particle)
    axis = default_axis(res) if args.axis == "auto" else AXES.index(args.axis)
    beam = args.beam
    if beam == "auto":
        beam = "pencil" if first_source(res.study).get("type") == "pencil" else "broad"
    radius = args.axis_radius_cm or max(res.spacing[a] for a in range(3) if a != axis)
    plot_depth_dose(res, axis, beam, args.integrated, radius, args.percent,
                    stem + "_depth_dose.png")
    depths = numbers(args.depths_cm) if args.depths_cm else default_depths(res, axis, radius)
    plot_profiles(res, axis, depths, args.percent, stem + "_profiles.png")
    plot_isodose(res, axis, numbers(args.levels), stem + "_isodose.png")
    plot_slices(res, stem + "_slices.png")
    print(f"wrote {stem}_depth_dose.png, {stem}_profiles.png, {stem}_isodose.png and "
          f"{stem}_slices.png")


if __name__ == "__main__":
    main()

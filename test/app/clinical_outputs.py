#!/usr/bin/python3
"""Clinical outputs end to end, through the CLI: `mcdose calibrate` on a reference study,
a study in monitor units with that calibration and dose to water, the dose quantity and
unit in every output's metadata (HDF5, RT Dose read with pydicom, summary), and
scripts/plot_dose.py on the results (files written, axes labelled with quantity and unit,
material boundaries named, pencil beams labelled as laterally integrated).

Known answers: particles = MU x (D_ref/MU) / d_ref x (field area / reference area) from the
calibration file's own numbers; s_w,water = 1 exactly; dose_Gy = dose x particles.

Usage: clinical_outputs.py MCDOSE_EXE SOURCE_DIR WORK_DIR
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pydicom

MCDOSE, SOURCE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    r = subprocess.run([MCDOSE] + args, cwd=WORK, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(f"mcdose {' '.join(args)} failed with {r.returncode}")
    return r.stdout


PHANTOM = {"type": "shapes",
           "grid": {"dimensions": [10, 10, 14], "spacing_cm": [1.5, 1.5, 1], "origin_cm": [-6.75, -6.75, 0.5]},
           "background": {"material": "water"}}


def study(size, extra_source=None, outputs=None, slabs=False, kind="parallel"):
    src = {"type": kind, "particle": "photon", "energy_MeV": 6, "position_cm": [0, 0, -1],
           "direction": [0, 0, 1]}
    if kind == "parallel":
        src["field"] = {"shape": "rectangle", "size_cm": [size, size]}
    src.update(extra_source or {})
    phantom = json.loads(json.dumps(PHANTOM))
    if slabs:
        phantom["shapes"] = [
            {"type": "slab", "axis": "z", "from_cm": 3, "to_cm": 5, "material": "bone_cortical_icrp",
             "density_g_cm3": 1.85},
            {"type": "slab", "axis": "z", "from_cm": 5, "to_cm": 9, "material": "lung_icrp",
             "density_g_cm3": 0.26}]
    s = {"phantom": phantom, "sources": [src], "physics": {"electron_cutoff_MeV": 0.5},
         "tally": {"batches": 4}, "run": {"histories": 20000}, "backend": "cpu",
         "outputs": {"directory": "out", "image_format": "none"}}
    s["outputs"].update(outputs or {})
    return s


def write(name, obj):
    with open(os.path.join(WORK, name), "w") as f:
        json.dump(obj, f, indent=1)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# 1. The reference study: 10 x 10 cm2 parallel 6 MeV photons on water, point 2.5 cm deep.
write("ref.json", study(10, outputs={"name": "ref"}))
run(["calibrate", "ref.json", "--point-cm", "0", "0", "2.5", "--radius-cm", "1.6",
     "--condition", "10x10 cm2 parallel beam, 2.5 cm deep in water", "-o", "cal.json", "-q"])
cal = json.load(open(os.path.join(WORK, "cal.json")))
check(cal["format"] == "mcdose calibration", "calibration format")
check(cal["source_model"] == "parallel photon source, energy_MeV=6", cal["source_model"])
check(cal["emission_extent"] == {"value": 100.0, "unit": "cm^2"}, str(cal["emission_extent"]))
check(cal["reference"]["dose_per_monitor_unit_Gy"] == 0.01, "default 1 cGy/MU")
check(cal["reference"]["voxels"] == 4 * 3, f"voxels {cal['reference']['voxels']}")
check(cal["dose_per_particle_Gy"] > 0 and
      cal["dose_per_particle_sigma_Gy"] < 0.2 * cal["dose_per_particle_Gy"], "d_ref and sigma")
check(abs(cal["particles_per_monitor_unit"] - 0.01 / cal["dose_per_particle_Gy"])
      < 1e-12 * cal["particles_per_monitor_unit"], "particles per MU = (D/MU) / d_ref")
check(len(cal["physics_sha256"]) == 64 and cal["build"], "build and physics stamp")

# 2. 150 MU of a 6 x 6 field of that model on water/bone/lung, dose to water, RT Dose.
write("treat.json", study(6, {"monitor_units": 150, "calibration": "cal.json"},
                          {"name": "treat", "dose_to": "water", "rtdose": True}, slabs=True))
run(["run", "treat.json", "-q"])
expected_particles = 150 * cal["particles_per_monitor_unit"] * 36 / 100
with h5py.File(os.path.join(WORK, "out/treat.h5")) as f:
    check(f.attrs["dose_to"] == "water", "HDF5 dose_to")
    check(f.attrs["dose_unit"] == "Gy", "HDF5 dose_unit")
    check("Siebers" in f.attrs["dose_to_water_method"], "HDF5 method")
    particles = f["dose_Gy"].attrs["source_particles"]
    check(abs(particles - expected_particles) < 1e-9 * expected_particles,
          f"particles {particles} vs {expected_particles}")
    check(f["dose_Gy"].attrs["monitor_units"] == 150, "monitor_units attribute")
    check("150 MU" in f["dose_Gy"].attrs["source_particles_from"], "particles' origin")
    check(f["dose"].attrs["quantity"] == "dose to water", "dose quantity")
    names = [n.decode() if isinstance(n, bytes) else n for n in f["material"].attrs["names"]]
    ratios = dict(zip(names, f["material"].attrs["water_to_medium_stopping_power_ratio"]))
    check(ratios["water"] == 1.0, "s_w,water = 1 exactly")
    check(1.09 < ratios["bone_cortical_icrp"] < 1.14, f"s_w,bone {ratios}")
    dose_gy = f["dose_Gy"][...]
    check(np.allclose(dose_gy, f["dose"][...] * particles, rtol=1e-12, atol=0), "dose_Gy")
    mid = dose_gy[1, 4:6, 4:6].mean()
    # 150 MU at 1 cGy/MU in a smaller field: about 1.5 Gy near the reference depth.
    check(0.5 < mid < 3.0, f"dose near the surface {mid} Gy for 150 MU")
ds = pydicom.dcmread(os.path.join(WORK, "out/treat_dose.dcm"))
check(ds.DoseUnits == "GY", "RT Dose DoseUnits")
check("dose to water" in ds.DoseComment, f"RT Dose comment {ds.DoseComment}")
summary = json.load(open(os.path.join(WORK, "out/treat_summary.json")))
check(summary["dose_to"] == "water" and summary["dose_unit_of_outputs"] == "Gy", "summary unit")
check(summary["monitor_units"] == 150, "summary MU")
check(summary["dose_to_water"]["stopping_power_ratio_water_to_medium"]["water"] == 1.0, "summary s")

# 3. Plots, with the figures' labels captured before they are closed.
spec = importlib.util.spec_from_file_location("plot_dose", os.path.join(SOURCE, "scripts/plot_dose.py"))
plot_dose = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_dose)
figures = {}


def keep(fig):
    figures[getattr(fig, "_mcdose_name", len(figures))] = fig


original_savefig = plot_dose.plt.Figure.savefig


def savefig(fig, path, *a, **k):
    fig._mcdose_name = os.path.basename(str(path))
    return original_savefig(fig, path, *a, **k)


plot_dose.plt.Figure.savefig = savefig
plot_dose.plt.close = keep


def plot(args):
    figures.clear()
    sys.argv = ["plot_dose.py"] + args
    plot_dose.main()
    return dict(figures)


figs = plot([os.path.join(WORK, "out/treat.h5"), "--gy"])
for suffix in ("depth_dose", "profiles", "isodose", "slices"):
    path = os.path.join(WORK, f"out/treat_{suffix}.png")
    check(os.path.getsize(path) > 1000, f"{path} written")
dd = figs["treat_depth_dose.png"].axes[0]
check(dd.get_xlabel() == "depth along z / cm", dd.get_xlabel())
check(dd.get_ylabel() == "dose to water / Gy", dd.get_ylabel())
check("central-axis" in dd.get_title(), dd.get_title())
texts = [t.get_text().strip() for t in dd.texts]
check(texts == ["water", "bone_cortical_icrp", "lung_icrp", "water"], f"boundaries {texts}")
check(len(dd.lines) >= 4, "boundary lines drawn")
for ax in figs["treat_profiles.png"].axes:
    check(ax.get_xlabel() in ("x / cm", "y / cm") and ax.get_ylabel() == "dose to water / Gy",
          f"profile labels {ax.get_xlabel()} {ax.get_ylabel()}")
iso = figs["treat_isodose.png"].axes[0]
check(iso.get_xlabel() == "x / cm" and iso.get_ylabel() == "depth along z / cm", "isodose axes")
check("isodose" in iso.get_title() and "material boundaries" in iso.get_title(), iso.get_title())
figs = plot([os.path.join(WORK, "out/treat.h5"), "--percent"])
check(figs["treat_depth_dose.png"].axes[0].get_ylabel() == "dose to water / % of maximum",
      "percent label")

# A pencil beam: the laterally integrated curve, labelled as energy per depth or Gy cm^2.
write("pencil.json", study(0, outputs={"name": "pencil"}, kind="pencil"))
run(["run", "pencil.json", "-q"])
figs = plot([os.path.join(WORK, "out/pencil.h5")])
lab = figs["pencil_depth_dose.png"].axes[0].get_ylabel()
check(lab == "energy per unit depth / MeV cm$^{-1}$ per particle", lab)
check("laterally integrated" in figs["pencil_depth_dose.png"].axes[0].get_title(), "pencil title")
figs = plot([os.path.join(WORK, "out/pencil.h5"), "--integrated", "dose"])
lab = figs["pencil_depth_dose.png"].axes[0].get_ylabel()
check(lab == "integrated dose to medium / Gy cm$^2$ per particle", lab)
with h5py.File(os.path.join(WORK, "out/pencil.h5")) as f:
    check(f.attrs["dose_to"] == "medium" and f.attrs["dose_unit"] == "Gy per source particle",
          "per-particle metadata")
    # The curve's integral over depth is the energy deposited per particle.
    e = f["edep"][...].sum()
    dep = json.load(open(os.path.join(WORK, "out/pencil_summary.json")))
    check(abs(e - dep["energy_balance_MeV_per_particle"]["deposited"]) < 1e-9 * e, "edep sum")

# The pencil beam's band: the voxels' sigmas in quadrature, about the spread of the slab
# sums over batches (the depth-dose CSV's sigma), not a plain sum of sigmas (many times wider).
figs = plot([os.path.join(WORK, "out/pencil.h5")])
band = figs["pencil_depth_dose.png"].axes[0].collections[0].get_paths()[0].vertices[:, 1]
curve = figs["pencil_depth_dose.png"].axes[0].lines[0].get_ydata()
csv = np.genfromtxt(os.path.join(WORK, "out/pencil_depth_dose.csv"), delimiter=",", names=True)
peak = int(np.argmax(curve))
half_width = band.max() - curve.max()  # the band's top edge at its highest, less the curve's peak
csv_sigma = csv["edep_sigma_MeV"][peak] / (csv["z_hi_cm"][peak] - csv["z_lo_cm"][peak])
print(f"pencil peak: band half-width {half_width:.4g}, batch sigma {csv_sigma:.4g} MeV/cm")
check(0.3 < half_width / csv_sigma < 3, f"pencil band {half_width} against batch sigma {csv_sigma}")

# A gantry-0 beam on a head-first-supine phantom travels along +y: the plots follow it, in Gy.
write("gantry.json", {**study(0, outputs={"name": "gantry"}), "sources": [
    {"type": "beam", "particle": "photon", "energy_MeV": 6, "isocentre_cm": [0, 0, 7],
     "sad_cm": 100, "gantry_deg": 0, "jaws_cm": {"x1": -3, "x2": 3, "y1": -3, "y2": 3},
     "particles": 1e9}]})
run(["run", "gantry.json", "-q"])
with h5py.File(os.path.join(WORK, "out/gantry.h5")) as f:
    direction = f["run"].attrs["beam_axis_direction"]
    check(np.allclose(direction, [0, 1, 0], atol=1e-12), f"beam axis {direction}")
figs = plot([os.path.join(WORK, "out/gantry.h5")])
dd = figs["gantry_depth_dose.png"].axes[0]
check(dd.get_xlabel() == "depth along y / cm", dd.get_xlabel())
check(dd.get_ylabel() == "dose to medium / Gy", dd.get_ylabel())
figs = plot([os.path.join(WORK, "out/gantry.h5"), "--per-particle", "--axis", "z"])
dd = figs["gantry_depth_dose.png"].axes[0]
check(dd.get_xlabel() == "depth along z / cm", dd.get_xlabel())
check(dd.get_ylabel() == "dose to medium / Gy per source particle", dd.get_ylabel())

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("clinical outputs: all checks passed")

#!/usr/bin/env python3
"""Fano cavity test: run validation/fano/fano_<E>MeV.json with independent seeds and
compare the dose in the five slabs of the central box (water at 0.001 and 1 g/cm3,
alternating) with each other. Under the Fano conditions the dose is the same in every
slab; the script prints each slab's dose relative to the mean of the two dense slabs,
with its standard error over the runs, and fails when a low-density slab differs from
1 by more than TOLERANCE + 3 standard errors.

Usage: fano.py MCDOSE [--energies 0.5 1 10] [--runs 8] [--histories N]
                      [--backend cpu|gpu] [--tolerance 0.001] [--work DIR]
                      [--physics KEY=VALUE ...] [--two-materials]
Requires python3-numpy and python3-h5py."""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def slab_doses(h5_path, study):
    """Dose (MeV/g per source particle) in each of the five box slabs."""
    with h5py.File(h5_path, "r") as f:
        edep = f["edep"][...]        # (nz, ny, nx), MeV per source particle
        rho = f["density"][...].astype(np.float64)
    grid = study["phantom"]["grid"]
    n = grid["dimensions"][0]
    h = grid["spacing_cm"][0]
    doses = []
    for box in study["phantom"]["shapes"]:
        lo = [int(round(x / h + n / 2)) for x in box["lower_cm"]]
        hi = [int(round(x / h + n / 2)) for x in box["upper_cm"]]
        sl = (slice(lo[2], hi[2]), slice(lo[1], hi[1]), slice(lo[0], hi[0]))
        mass = rho[sl].sum() * h ** 3
        doses.append(edep[sl].sum() / mass)
    return doses


def run_energy(args, energy):
    with open(os.path.join(HERE, f"fano_{energy}MeV.json")) as f:
        study = json.load(f)
    ratios = []
    for k in range(args.runs):
        s = json.loads(json.dumps(study))
        s["rng"]["seed"] = study["rng"]["seed"] + 1000 * k
        s["outputs"]["summary"] = False
        if args.two_materials:
            # The light slabs as a second material of water's composition and I: the
            # same physics, but a material interface at every slab face.
            s["materials"] = [{"name": "water_copy", "density_g_cm3": 1.0,
                               "elements": {"H": 0.111894, "O": 0.888106},
                               "mean_excitation_energy_eV": 75.0,
                               "description": "liquid water, a second material"}]
            for shape in s["phantom"]["shapes"]:
                if shape["density_g_cm3"] < 0.5:
                    shape["material"] = "water_copy"
        for item in args.physics:
            key, value = item.split("=")
            s["physics"][key] = json.loads(value)
        d = os.path.join(args.work, f"{energy}MeV_{k}")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "study.json")
        with open(path, "w") as f:
            json.dump(s, f)
        cmd = [args.mcdose, "run", path, "--backend", args.backend, "--output-dir", d]
        if args.histories:
            cmd += ["--histories", str(args.histories)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            sys.exit(f"mcdose run failed for {energy} MeV")
        doses = slab_doses(os.path.join(d, s["outputs"]["name"] + ".h5"), s)
        dense = 0.5 * (doses[1] + doses[3])
        ratios.append([x / dense for x in doses])
    r = np.array(ratios)
    mean = r.mean(axis=0)
    sem = r.std(axis=0, ddof=1) / math.sqrt(len(r)) if len(r) > 1 else np.zeros(5)
    return mean, sem


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mcdose")
    p.add_argument("--energies", nargs="+", default=["0.5", "1", "10"])
    p.add_argument("--runs", type=int, default=8)
    p.add_argument("--histories", type=int, default=0, help="per run (default: the study's)")
    p.add_argument("--backend", default="cpu")
    p.add_argument("--tolerance", type=float, default=0.001)
    p.add_argument("--work", default="")
    p.add_argument("--physics", nargs="*", default=[],
                   help="physics options changed from the study, KEY=JSON (e.g. max_step_energy_loss=0.025)")
    p.add_argument("--two-materials", action="store_true",
                   help="the light slabs as a second material of water's composition (material "
                        "interfaces instead of density changes)")
    args = p.parse_args()
    own = not args.work
    args.work = args.work or tempfile.mkdtemp(prefix="mcdose_fano_")
    ok = True
    print("energy_MeV  slab  density  dose/dense  std.error")
    for e in args.energies:
        mean, sem = run_energy(args, e)
        for s in range(5):
            gas = s % 2 == 0
            print(f"{e:>10}  {s:>4}  {'0.001' if gas else '1':>7}  {mean[s]:.5f}  {sem[s]:.5f}")
            if gas and abs(mean[s] - 1) > args.tolerance + 3 * sem[s]:
                ok = False
                print(f"  FAIL: slab {s} differs from the dense slabs by {mean[s] - 1:+.5f}")
    if own:
        shutil.rmtree(args.work, ignore_errors=True)
    print("Fano test", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

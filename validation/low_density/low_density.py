#!/usr/bin/env python3
"""Does the electron dose in a low-density region depend on the transport parameters?

Runs validation/low_density/study.json (20 MeV electrons on water / lung at 0.26 g/cm3 /
water) once per variant below, each with the same seed and histories, and compares each
variant's laterally integrated depth dose with the finest run's (every limit tightened)
bin by bin: the largest difference in the lung and in the water just past it, in % of the
depth-dose maximum and in combined standard deviations. Prints a Markdown table
(docs/physics.md, "Low-density media").

Usage: low_density.py MCDOSE --out DIR [--backend gpu] [--histories N]
Requires python3-numpy."""
import argparse
import csv
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LUNG = (3.0, 9.0)
LUNG_DENSITY = 0.26
AFTER = (9.0, 11.0)

VARIANTS = {
    # name: physics options changed from the committed study
    "finest": {"max_step_energy_loss": 0.025, "max_step_transport_mfp": 0.05,
               "electron_cutoff_MeV": 0.05, "delta_ray_cut_MeV": 0.05, "brems_cut_MeV": 0.01},
    "default": {},
    "step 0.025": {"max_step_energy_loss": 0.025},
    "lambda1 0.05": {"max_step_transport_mfp": 0.05},
    "cut-offs 0.05": {"electron_cutoff_MeV": 0.05, "delta_ray_cut_MeV": 0.05},
    "W_cr 0.01": {"brems_cut_MeV": 0.01},
    "density effect nominal": {"density_effect": "nominal"},
}


def read_depth_dose(path):
    """Slab centres [cm] and laterally integrated dose with its sigma (MeV cm^2/g per
    history: slab energy over slab mass per unit area)."""
    with open(path) as f:
        rows = list(csv.reader(f))
    col = {name: i for i, name in enumerate(rows[0])}
    data = np.array([[float(r[col[c]]) for c in ("z_lo_cm", "z_hi_cm", "edep_MeV",
                                                   "edep_sigma_MeV")] for r in rows[1:] if r])
    z = 0.5 * (data[:, 0] + data[:, 1])
    rho = np.where((z > LUNG[0]) & (z < LUNG[1]), LUNG_DENSITY, 1.0)
    mass = rho * (data[:, 1] - data[:, 0])
    return z, data[:, 2] / mass, data[:, 3] / mass


def run(args):
    with open(os.path.join(HERE, "study.json")) as f:
        base = json.load(f)
    results = {}
    for name, change in VARIANTS.items():
        s = json.loads(json.dumps(base))
        s["physics"].update(change)
        tag = name.replace(" ", "_")
        d = os.path.join(args.out, tag)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "study.json")
        with open(path, "w") as f:
            json.dump(s, f, indent=1)
        cmd = [args.mcdose, "run", path, "--backend", args.backend, "--output-dir", d]
        if args.histories:
            cmd += ["--histories", str(args.histories)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        with open(os.path.join(d, "run.log"), "w") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode != 0:
            sys.exit(f"{name}: mcdose run failed:\n{r.stdout}{r.stderr}")
        results[name] = read_depth_dose(os.path.join(d, "low_density_depth_dose.csv"))
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mcdose")
    p.add_argument("--out", required=True)
    p.add_argument("--backend", default="gpu")
    p.add_argument("--histories", type=int, default=0)
    args = p.parse_args()
    results = run(args)
    z, ref, ref_s = results["finest"]
    dmax = ref.max()
    print("| variant | lung: max abs diff (% of max) | lung: mean diff (% of max) | lung: max diff / sigma | water 9-11 cm: max abs diff (% of max) |")
    print("|---|---|---|---|---|")
    for name, (_, d, s) in results.items():
        if name == "finest":
            continue
        diff = (d - ref) / dmax * 100
        sig = np.sqrt(s ** 2 + ref_s ** 2)
        lung = (z > LUNG[0]) & (z < LUNG[1])
        after = (z > AFTER[0]) & (z < AFTER[1])
        worst = np.max(np.abs(d - ref)[lung] / np.where(sig[lung] > 0, sig[lung], np.inf))
        print(f"| {name} | {np.max(np.abs(diff[lung])):.2f} | {np.mean(diff[lung]):+.2f} | "
              f"{worst:.1f} | {np.max(np.abs(diff[after])):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

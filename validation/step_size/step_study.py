#!/usr/bin/env python3
"""Step-size study of the condensed-history electron transport.

How the depth dose and the run time depend on `physics/max_step_energy_loss`
(the largest fraction of its energy a charged particle loses softly in one
step). Results and the choice of the default: docs/physics.md, "Step size".

  step_study.py make DIR [--losses 0.025,0.05,0.1,0.15,0.2]
      Writes into DIR one study per loss fraction of each validation case
      (validation/electron_20MeV_water, validation/photon_6MeV_water) and of
      ARCHER test 2 of Liu et al. 2018 (validation/archer_tests/test2.json):
      e20_<loss>.json, p6_<loss>.json, t2_<loss>.json. Everything else is the committed study.
  (run each e20/p6 study with `mcdose run STUDY --output-dir DIR/<name>`, and
   the t2 studies with `mcdose compare-tallies --study`; benchmarks/gpu_suite.sh
   steps does both on a GPU.)
  step_study.py analyze DIR
      Compares each run's depth dose with the smallest step's run of the same
      case (bin by bin, in % of the maximum and in combined standard
      deviations) and with the PENELOPE reference, and prints a Markdown table.

Needs numpy for `analyze` (Debian: python3-numpy); `make` needs only the
standard library.
"""
import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = {
    # name: (study, its reference CSV (validation/<case>/), bins compared with the
    # reference: z_hi <= this [cm], as in the case's case.json)
    "e20": ("validation/electron_20MeV_water/study.json",
            "validation/electron_20MeV_water/reference_penelope_idd.csv", 7.4),
    "p6": ("validation/photon_6MeV_water/study.json",
           "validation/photon_6MeV_water/reference_penelope_idd.csv", 1e30),
}
ARCHER_TEST2 = "validation/archer_tests/test2.json"


def make(out, losses):
    os.makedirs(out, exist_ok=True)
    sources = dict((k, v[0]) for k, v in CASES.items())
    sources["t2"] = ARCHER_TEST2
    for loss in losses:
        for name, path in sources.items():
            with open(os.path.join(ROOT, path)) as f:
                study = json.load(f)
            study.setdefault("physics", {})["max_step_energy_loss"] = loss
            with open(os.path.join(out, "%s_%g.json" % (name, loss)), "w") as f:
                json.dump(study, f, indent=1)
    print("wrote %d studies to %s" % (len(losses) * len(sources), out))


def read_csv(path):
    import numpy as np
    a = np.genfromtxt(path, delimiter=",", names=True)
    return a["z_hi_cm"], a["edep_MeV"], a["edep_sigma_MeV"]


def analyze(run_dir):
    import numpy as np
    rows = []
    for case, (_, ref_name, z_max) in CASES.items():
        runs = {}
        for d in glob.glob(os.path.join(run_dir, case + "_*" + os.sep)):
            csvs = glob.glob(os.path.join(d, "*_depth_dose.csv"))
            summaries = glob.glob(os.path.join(d, "*_summary.json"))
            if not csvs or not summaries:
                continue
            d = d.rstrip(os.sep)
            with open(summaries[0]) as f:
                summary = json.load(f)
            runs[float(os.path.basename(d)[len(case) + 1:])] = (read_csv(csvs[0]), summary)
        if not runs:
            continue
        finest = min(runs)
        (_, base, base_sigma), _ = runs[finest]
        ref = np.genfromtxt(os.path.join(ROOT, ref_name), delimiter=",",
                            names=True)
        for loss in sorted(runs):
            (z_hi, edep, sigma), summary = runs[loss]
            m = base.max()
            # Bins that carry dose: above 5 % of the maximum (the bremsstrahlung
            # tail beyond the electron range is left out: it is step-independent).
            sel = base > 0.05 * m
            diff = (edep - base)[sel] / m
            sig = np.sqrt(sigma ** 2 + base_sigma ** 2)[sel] / m
            with np.errstate(invalid="ignore", divide="ignore"):
                z = np.where(sig > 0, diff / sig, 0.0)
            cmp = z_hi <= z_max + 1e-9
            pen = np.abs(edep - ref["edep_MeV"])[cmp].max() / ref["edep_MeV"].max()
            rows.append((case, loss, summary.get("histories"), summary.get("transport_time_s"),
                         edep.sum(), 100 * np.abs(diff).max(), np.abs(z).max(),
                         float(np.mean(z ** 2)), 100 * pen))
    print("| case | loss | histories | transport s | MeV/history | max abs diff from the "
          "smallest loss, % of max | the same in sigma | chi2/bin | worst bin vs PENELOPE, "
          "% of max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %g | %s | %.3f | %.4f | %.2f | %.1f | %.2f | %.2f |" % r)
    # ARCHER test 2 (compare-tallies --json records, HB): transport seconds per precision.
    timings = []
    for path in glob.glob(os.path.join(run_dir, "t2_*.json")):
        loss = float(os.path.basename(path)[3:-5])
        with open(path) as f:
            records = json.load(f)
        t = dict((r["precision"], r["time_s"]) for r in records if r["method"] == "hb")
        timings.append((loss, t.get("double"), t.get("float")))
    if timings:
        print()
        print("| loss | ARCHER test 2, HB, double: transport s | float: transport s |")
        print("|---|---|---|")
        for loss, td, tf in sorted(timings):
            print("| %g | %s | %s |" % (loss, "%.3f" % td if td else "-", "%.3f" % tf if tf else "-"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("--losses", default="0.025,0.05,0.1,0.15,0.2")
    a = sub.add_parser("analyze")
    a.add_argument("dir")
    args = p.parse_args()
    if args.cmd == "make":
        losses = [float(x) for x in args.losses.split(",")]
        for x in losses:
            if not 0 < x <= 0.25:
                sys.exit("--losses: each must be in (0, 0.25] (the study's allowed range); got %g" % x)
        make(args.dir, losses)
    else:
        analyze(args.dir)


if __name__ == "__main__":
    main()

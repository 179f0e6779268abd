#!/usr/bin/env python3
"""Plot one validation case from its comparison CSV (written by `mcdose validate`).

plot_validation.py COMPARISON_CSV OUT_PNG [--title T] [--reference-label L] [--test-label M]
                   [--tolerance F]

Top: the reference and mcdose depth doses (energy deposited per slab per history) with
+-2 sigma bands. Bottom: their difference in % of the reference maximum, with the combined
+-2 sigma band and the case's tolerance (bin_of_max, without its sigma allowance); the bins
the case does not judge are greyed. Needs numpy and matplotlib (python3-matplotlib)."""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--title", default="")
    p.add_argument("--reference-label", default="reference")
    p.add_argument("--test-label", default="mcdose")
    p.add_argument("--tolerance", type=float, default=0.02)
    a = p.parse_args()
    d = read(a.csv)
    z = d["z_mid_cm"]
    fig, (top, bot) = plt.subplots(2, 1, figsize=(8, 7), sharex=True,
                                   gridspec_kw={"height_ratios": [2, 1]})
    for key, label, colour in (("reference", a.reference_label, "black"),
                               ("mcdose", a.test_label, "tab:red")):
        y, s = d[key + "_MeV"], d[key + "_sigma_MeV"]
        top.plot(z, y, color=colour, lw=1, label=label)
        top.fill_between(z, y - 2 * s, y + 2 * s, color=colour, alpha=0.25, lw=0)
    top.set_ylabel("energy deposited per slab per history [MeV]")
    top.set_title(a.title)
    top.legend(loc="best", fontsize=8)
    top.grid(alpha=0.3)
    diff = 100 * d["diff_of_max"]
    sig = 100 * d["sigma_of_max"]
    bot.plot(z, diff, color="tab:red", lw=1, label="mcdose - reference")
    bot.fill_between(z, -2 * sig, 2 * sig, color="grey", alpha=0.35, lw=0,
                     label="combined ±2σ")
    tol = 100 * a.tolerance
    bot.axhline(tol, color="tab:blue", ls="--", lw=0.8, label=f"±{tol:g} % of max")
    bot.axhline(-tol, color="tab:blue", ls="--", lw=0.8)
    judged = d["compared"] > 0.5
    label = "bins not judged"
    for lo, hi in zip(d["z_lo_cm"][~judged], d["z_hi_cm"][~judged]):
        bot.axvspan(lo, hi, color="#f3ead8", lw=0, zorder=0, label=label)
        label = None
    failed = d["passed"] < 0.5
    if failed.any():
        bot.plot(z[failed], diff[failed], "x", color="black", label="outside tolerance")
    bot.set_xlabel("depth z [cm]")
    bot.set_ylabel("difference [% of max]")
    lim = max(3 * tol, float(np.nanmax(np.abs(diff[judged]))) * 1.2 if judged.any() else 3 * tol)
    bot.set_ylim(-lim, lim)
    bot.legend(loc="lower left", fontsize=7, ncol=2)
    bot.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Plot the cumulative DVHs of an mcdose run (<name>_dvh.csv) to a PNG.

Reads the CSV written by dose/DvhCsv.cc: columns `structure`, `dose_Gy` (or
`dose_Gy_per_particle`), `volume_cm3`, `volume_percent`; one curve per
structure, volume in % of the structure against dose.

Usage: scripts/plot_dvh.py result_dvh.csv [--out dvh.png] [--structures PTV,Lung_L]
Needs Debian's python3-matplotlib.
"""
import argparse
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def read_curves(path):
    curves = {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header or header[0] != "structure" or len(header) != 4:
            sys.exit(f"plot_dvh: {path} is not an mcdose DVH CSV (header {header})")
        unit = header[1][len("dose_"):].replace("_", " ")
        for row in reader:
            name, dose, _, percent = row
            curves.setdefault(name, ([], []))
            curves[name][0].append(float(dose))
            curves[name][1].append(float(percent))
    return unit, curves


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--out", help="PNG path (default: <csv stem>.png)")
    ap.add_argument("--structures", help="comma-separated names to plot (default: all)")
    a = ap.parse_args()
    unit, curves = read_curves(a.csv)
    wanted = a.structures.split(",") if a.structures else list(curves)
    missing = [n for n in wanted if n not in curves]
    if missing:
        sys.exit(f"plot_dvh: {a.csv} has no structure {', '.join(missing)}; "
                 f"it has {', '.join(curves)}")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in wanted:
        dose, percent = curves[name]
        ax.plot(dose, percent, label=name)
    ax.set_xlabel(f"dose [{unit}]")
    ax.set_ylabel("volume receiving at least the dose [%]")
    ax.set_ylim(0, 102)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend()
    out = Path(a.out) if a.out else Path(a.csv).with_suffix(".png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Plot the cross-check study results (docs/crosscheck.md) to PNG.

Reads the JSON files written by `mcdose crosscheck gemm ... --json FILE` and
`mcdose crosscheck md ... --json FILE` and writes three figures:

  OUTDIR/crosscheck_gemm_error.png  MGEMM max abs error vs delta, per n, per matrix
                                    (SGEMM, TF32, 3xTF32 as horizontal reference lines)
  OUTDIR/crosscheck_gemm_speed.png  speed relative to DGEMM (DGEMM time / time) vs n
  OUTDIR/crosscheck_md.png          MD force error and force offset per method A-H

Usage:
  scripts/plot_crosscheck.py --gemm gemm_salted.json gemm_decaying.json gemm_salted_16384.json \
      --md md.json --out docs/img
Several GEMM files may be given; records are merged (keyed by matrix, n, method, delta).
"""
import argparse
import json
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BASELINES = [("sgemm", "SGEMM", "--"), ("tf32", "TF32", ":"), ("tf32x3", "3xTF32", "-.")]


def load_gemm(paths):
    recs = {}
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        for r in d["records"]:
            key = (r["matrix"], r["n"], r["method"], r.get("delta"))
            recs[key] = r
    return list(recs.values())


def plot_gemm_error(recs, out):
    matrices = [m for m in ("salted", "decaying") if any(r["matrix"] == m for r in recs)]
    fig, axes = plt.subplots(1, len(matrices), figsize=(6.2 * len(matrices), 4.8), squeeze=False)
    for ax, mat in zip(axes[0], matrices):
        rs = [r for r in recs if r["matrix"] == mat]
        sizes = sorted({r["n"] for r in rs})
        cmap = plt.get_cmap("viridis")
        for i, n in enumerate(sizes):
            col = cmap(i / max(1, len(sizes) - 1) * 0.9)
            mg = sorted((r for r in rs if r["n"] == n and r["method"] == "mgemm"),
                        key=lambda r: r["delta"])
            if mg:
                ax.plot([r["delta"] for r in mg], [r["max_abs_error"] for r in mg],
                        "o-", color=col, label=f"MGEMM n={n}")
            for meth, lab, ls in BASELINES:
                b = [r for r in rs if r["n"] == n and r["method"] == meth]
                if b:
                    ax.axhline(b[0]["max_abs_error"], color=col, ls=ls, lw=0.9, alpha=0.8)
        # legend entries for the line styles of the reference lines
        for meth, lab, ls in BASELINES:
            ax.plot([], [], color="gray", ls=ls, lw=0.9, label=f"{lab} (same colour = same n)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("δ (split threshold)")
        ax.set_ylabel("max abs error vs DGEMM")
        ax.set_title(f"{mat} matrices")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    dev = recs[0].get("backend", "")
    fig.suptitle(f"MGEMM error vs δ ({dev})", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def plot_gemm_speed(recs, out):
    matrices = [m for m in ("salted", "decaying") if any(r["matrix"] == m for r in recs)]
    fig, axes = plt.subplots(1, len(matrices), figsize=(6.2 * len(matrices), 4.8),
                             squeeze=False, sharey=True)
    for ax, mat in zip(axes[0], matrices):
        rs = [r for r in recs if r["matrix"] == mat]
        for meth, lab, mk in [("dgemm", "DGEMM", "s"), ("sgemm", "SGEMM", "o"),
                              ("tf32", "TF32", "^"), ("tf32x3", "3xTF32", "v")]:
            b = sorted((r for r in rs if r["method"] == meth), key=lambda r: r["n"])
            if b:
                ax.plot([r["n"] for r in b], [r["speedup_vs_dgemm"] for r in b],
                        mk + "-", label=lab)
        deltas = sorted({r["delta"] for r in rs if r["method"] == "mgemm"}, reverse=True)
        for d in deltas:
            b = sorted((r for r in rs if r["method"] == "mgemm" and r["delta"] == d),
                       key=lambda r: r["n"])
            ax.plot([r["n"] for r in b], [r["speedup_vs_dgemm"] for r in b],
                    "x--", label=f"MGEMM δ={d:g}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("DGEMM time / time")
        ax.set_title(f"{mat} matrices")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="center right")
    fig.suptitle("GEMM speed relative to DGEMM (>1: faster)", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def plot_md(path, out):
    with open(path) as f:
        d = json.load(f)
    recs = d["records"]
    groups = []
    for r in recs:
        g = (r["system"], r["exclusions"])
        if g not in groups:
            groups.append(g)
    methods = sorted({r["method"] for r in recs})
    allv = [r[k] for r in recs for k in ("avg_force_error", "force_offset") if r[k] > 0]
    floor = min(allv) / 10.0
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    width = 0.8 / len(groups)
    for ax, key, title in [(axes[0], "avg_force_error", "force error Σ|F−F_G| / Σ|F_G|"),
                           (axes[1], "force_offset", "force offset |ΣF| / Σ|F|")]:
        for gi, g in enumerate(groups):
            by = {r["method"]: r for r in recs if (r["system"], r["exclusions"]) == g}
            xs = [i + (gi - (len(groups) - 1) / 2) * width for i in range(len(methods))]
            vals = [by[m][key] if m in by else float("nan") for m in methods]
            n = by[methods[0]]["particles"] if methods[0] in by else ""
            lab = f"{g[0]} ({n})" + ("" if g[1] == "none" else f", {g[1]}")
            ax.bar(xs, [v if v > 0 else floor for v in vals], width, label=lab)
            for x, v in zip(xs, vals):
                if v == 0:
                    ax.text(x, floor * 1.3, "exactly 0", rotation=90, ha="center",
                            va="bottom", fontsize=6)
        ax.axhline(floor, color="k", lw=0.6)
        ax.set_yscale("log")
        ax.set_xticks(range(len(methods)))
        ax.set_xticklabels(methods)
        ax.set_xlabel("method")
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel(f"value (0 drawn at {floor:.0e})")
    axes[0].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"MD force accumulation ({d.get('device', d.get('backend', ''))})", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gemm", nargs="*", default=[], help="crosscheck gemm JSON files")
    ap.add_argument("--md", help="crosscheck md JSON file")
    ap.add_argument("--out", default="docs/img", help="output directory")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.gemm:
        recs = load_gemm(a.gemm)
        plot_gemm_error(recs, os.path.join(a.out, "crosscheck_gemm_error.png"))
        plot_gemm_speed(recs, os.path.join(a.out, "crosscheck_gemm_speed.png"))
    if a.md:
        plot_md(a.md, os.path.join(a.out, "crosscheck_md.png"))


if __name__ == "__main__":
    main()

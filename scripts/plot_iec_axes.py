#!/usr/bin/env python3
"""Draw the IEC 61217 axes that a `beam` source uses (docs/coordinates.md).

Usage: plot_iec_axes.py [OUT.png]   (default docs/img/iec_axes.png)

Three panels, all for a head-first-supine patient:
  a) seen from the foot of the couch, facing the gantry: X_f, Z_f, the gantry angle and the
     focal spot at gantry 0/90/180/270, the patient's left/right/anterior/posterior and the
     DICOM (LPS) x, y axes;
  b) seen from above: X_f, Y_f (towards the gantry), the couch angle, the patient's head and
     the DICOM x, z axes;
  c) the beam's eye view at gantry 0 (from the focal spot towards the isocentre): X_b, Y_b,
     the jaws X1, X2, Y1, Y2 and the collimator angle.
The positions drawn are computed with the same rotations as sources/BeamGeometry.cc.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Arc, Circle, Ellipse, FancyArrowPatch, Rectangle  # noqa: E402


def rot_y(v, deg):
    a = np.radians(deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]])


def arrow(ax, start, end, text, color="k", offset=(0.0, 0.0)):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14,
                                 color=color, lw=1.6))
    ax.text(end[0] + offset[0], end[1] + offset[1], text, color=color, fontsize=11,
            ha="center", va="center")


def curved(ax, centre, radius, start_deg, end_deg, text, color, where):
    ax.add_patch(Arc(centre, 2 * radius, 2 * radius, theta1=min(start_deg, end_deg),
                     theta2=max(start_deg, end_deg), color=color, lw=1.4))
    a = np.radians(end_deg)
    tip = (centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a))
    d = -1 if end_deg < start_deg else 1
    tangent = (-np.sin(a) * d, np.cos(a) * d)
    ax.add_patch(FancyArrowPatch((tip[0] - 0.15 * tangent[0], tip[1] - 0.15 * tangent[1]), tip,
                                 arrowstyle="-|>", mutation_scale=12, color=color))
    ax.text(where[0], where[1], text, color=color, fontsize=10, ha="center", va="center")


def panel_gantry(ax):
    ax.set_title("a) from the foot of the couch, facing the gantry", fontsize=11)
    ax.add_patch(Ellipse((0, 0), 1.6, 1.0, fc="#f2dcc9", ec="k"))
    ax.text(0, 0.15, "patient (HFS)", ha="center", fontsize=9)
    ax.text(0.95, 0, "L", fontsize=11, ha="center", va="center", weight="bold")
    ax.text(-0.95, 0, "R", fontsize=11, ha="center", va="center", weight="bold")
    ax.text(0, 0.62, "A", fontsize=11, ha="center", va="center", weight="bold")
    ax.text(0, -0.62, "P", fontsize=11, ha="center", va="center", weight="bold")
    ax.add_patch(Circle((0, 0), 2.0, fill=False, ls=":", ec="0.5"))
    for g in (0, 90, 180, 270):
        # The focal spot (0, 0, SAD) of the gantry system in fixed (X_f, Z_f).
        p = rot_y(np.array([0.0, 0.0, 2.0]), g)
        ax.add_patch(Circle((p[0], p[2]), 0.09, color="tab:red"))
        ax.text(p[0] * 1.2, p[2] * 1.2, f"G{g}", color="tab:red", ha="center", va="center")
    curved(ax, (0, 0), 2.35, 100, 55, "gantry +", "tab:red", (1.45, 2.25))
    arrow(ax, (0, 0), (1.3, 0), "$X_f$", offset=(0.05, 0.17))
    arrow(ax, (0, 0), (0, 1.3), "$Z_f$", offset=(0.2, 0.05))
    ax.text(-2.7, 2.55, r"$Y_f$ into the page (towards the gantry)", fontsize=8)
    arrow(ax, (-2.2, -2.0), (-1.5, -2.0), "x (L)", "tab:blue", offset=(0.25, 0.0))
    arrow(ax, (-2.2, -2.0), (-2.2, -2.7), "y (P)", "tab:blue", offset=(0.0, -0.15))
    ax.text(-2.2, -1.75, "DICOM", color="tab:blue", fontsize=9, ha="center")


def panel_couch(ax):
    ax.set_title("b) from above", fontsize=11)
    ax.add_patch(Rectangle((-1.2, 1.9), 2.4, 0.35, fc="0.8", ec="k"))
    ax.text(0, 2.07, "gantry stand", ha="center", va="center", fontsize=9)
    ax.add_patch(Rectangle((-0.45, -2.3), 0.9, 2.9, fc="#dfe8f5", ec="k"))
    ax.add_patch(Circle((0, 0.35), 0.18, fc="#f2dcc9", ec="k"))
    ax.text(0, -1.3, "couch\n(patient's\nhead first)", ha="center", fontsize=8)
    arrow(ax, (0, 0), (1.3, 0), "$X_f$", offset=(0.1, 0.17))
    arrow(ax, (0, 0), (0, 1.5), "$Y_f$", offset=(0.25, 0.0))
    ax.text(0.1, -0.25, r"$Z_f$ out of the page (up)", fontsize=8)
    curved(ax, (0, 0), 1.0, 235, 280, "couch +\n(counter-clockwise\nfrom above)", "tab:green",
           (1.3, -1.4))
    arrow(ax, (-2.2, -2.0), (-1.5, -2.0), "x (L)", "tab:blue", offset=(0.25, 0.0))
    arrow(ax, (-2.2, -2.0), (-2.2, -1.3), "z (S)", "tab:blue", offset=(0.0, 0.15))


def panel_bev(ax):
    ax.set_title("c) beam's eye view at gantry 0", fontsize=11)
    x1, x2, y1, y2 = -0.8, 1.3, -1.0, 0.7
    ax.add_patch(Rectangle((x1, y1), x2 - x1, y2 - y1, fc="#fff2a8", ec="k"))
    ax.plot([-2, 2], [0, 0], color="0.6", lw=0.8)
    ax.plot([0, 0], [-2, 2], color="0.6", lw=0.8)
    for x, lab in ((x1, "X1"), (x2, "X2")):
        ax.add_patch(Rectangle((x - (0.3 if lab == "X1" else 0), -1.8), 0.3, 3.6, fc="0.55"))
        ax.text(x + (-0.15 if lab == "X1" else 0.15), 1.95, lab, ha="center")
    for y, lab in ((y1, "Y1"), (y2, "Y2")):
        ax.add_patch(Rectangle((-1.8, y - (0.3 if lab == "Y1" else 0)), 3.6, 0.3, fc="0.35"))
        ax.text(2.05, y + (-0.15 if lab == "Y1" else 0.15), lab, va="center")
    arrow(ax, (0, 0), (1.0, 0), "$X_b$", "tab:purple", offset=(0.05, 0.18))
    arrow(ax, (0, 0), (0, 1.0), "$Y_b$", "tab:purple", offset=(0.25, 0.0))
    curved(ax, (0, 0), 0.55, 20, 70, "collimator +", "tab:purple", (0.75, -0.35))
    ax.text(0, -2.35, "jaw positions are $X_b$, $Y_b$ coordinates at the isocentre plane\n"
            "(x1 < x2, y1 < y2; here x1 < 0 < x2: an asymmetric field)", ha="center",
            fontsize=8)
    ax.text(-1.95, -1.95, "patient: x (L) right, z (S) up", fontsize=8, color="tab:blue")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "docs/img/iec_axes.png"
    fig, axes = plt.subplots(1, 3, figsize=(15, 5.4))
    for ax, draw in zip(axes, (panel_gantry, panel_couch, panel_bev)):
        draw(ax)
        ax.set_xlim(-2.8, 2.8)
        ax.set_ylim(-2.8, 2.8)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.suptitle("IEC 61217 axes of a beam source (patient head first supine)", fontsize=13)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()

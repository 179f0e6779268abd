#!/usr/bin/env python3
"""Transport throughput of spectrum and beam sources against a mono-energetic pencil beam of
the same mean energy (the acceptance: at most 3 % slower on the GPU), and which part of a
beam's cost is its field sampling and which the transport of a broad divergent field.

Studies on one 40 cm water cube (100^3 voxels of 0.4 cm, FX tally, single precision); the
photons enter the y = -20 cm face along +y, at the mean energy of examples/mohan6.spectrum
(1.8985 MeV, uniform within each bin) unless a spectrum is named:
  pencil_mono      a pencil beam into the centre of the face (the reference);
  pencil_spectrum  the same pencil with the Mohan 6 MV spectrum (EGSnrc file, alias table);
  beam_mono        a `beam` (gantry 0, SAD 100 cm, isocentre 10 cm deep, 10 x 10 cm2 jaws);
  beam_spectrum    the same beam with the spectrum;
  beam_1mm_mono    the same beam with 1 x 1 mm2 jaws: the beam's sampling code runs (alias
                   draw, rejection in the cell, aiming from the focal spot), but the
                   transport is that of a pencil;
  parallel_mono    a `parallel` source, 10 x 10 cm2 at the face, no divergence: a broad field
                   without the beam's sampling;
  point_mono       a `point` source at the beam's focal spot with a 10 x 10 cm2 field at
                   100 cm: the beam's divergent field, sampled by the simpler point source;
  pencil_far       the pencil started at the beam's focal spot (90 cm before the face): the
                   cost of a start far outside the grid;
  pencil_centre    the pencil moved 2 mm in x and z, onto the centre of a voxel column (the
                   reference pencil runs along the edge where four voxel columns meet);
  beam_1mm_centre  beam_1mm_mono with its isocentre moved the same 2 mm;
  pencil_tilted    pencil_centre aimed 0.3 mrad off the y axis in x and z (as far off as the
                   1 mm beam's edge rays): whether a direction along an axis is cheaper.
Any case name with `_inline` appended runs that case with `--sample-sources-inline`: each GPU
thread samples its history's source particle when it starts it, instead of a kernel sampling
a launch's particles ahead of the transport (the default with Philox); the same build, so
the two are compared within one call.
Each runs RUNS times (interleaved); the median histories/s of the run summary is compared with
pencil_mono. How to read the beam rows: beam_1mm_mono below pencil_mono is the sampling's
cost; parallel_mono (and point_mono) as far below pencil_mono as beam_mono is, the cost of
transporting a broad field. The spectrum runs transport a different mix of energies than the
mono-energetic run of the same mean, so their ratio measures the sampling and the physics
together.

Usage: benchmarks/source_throughput.py [MCDOSE] [BACKEND] [HISTORIES]
  MCDOSE     default bundle/bin/mcdose if present, else build/ci/app/mcdose;
  BACKEND    cpu | gpu (default gpu);  HISTORIES  default 1e7 (GPU); use ~2e4 on a small CPU.
Environment: OUT (default ./source_throughput_results), RUNS (default 3), THREADS (CPU only),
  CASES (comma-separated names from the list above; default all).
Writes OUT/source_throughput.json and prints a table.
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MEAN_MEV = 1.8985  # mean of examples/mohan6.spectrum, uniform within each 0.25 MeV bin


def study(name, source):
    return {
        "description": f"source throughput benchmark: {name}",
        "phantom": {
            "type": "shapes",
            "grid": {"dimensions": [100, 100, 100], "spacing_cm": [0.4, 0.4, 0.4],
                     "origin_cm": [-19.8, -19.8, -19.8]},
            "background": {"material": "water"},
        },
        "sources": [dict({"particle": "photon"}, **source)],
        "physics": {"photon_cutoff_MeV": 0.01, "electron_cutoff_MeV": 0.2,
                    "precision": "single"},
        "rng": {"generator": "philox", "seed": 23},
        "tally": {"method": "fx", "batches": 10},
        "run": {"histories": 1000000},
        "outputs": {"directory": "results", "name": name, "image_format": "none"},
    }


def cases_of(spectrum):
    """The studies' sources by name (see the module's text)."""
    pencil = {"type": "pencil", "position_cm": [0, -20.5, 0], "direction": [0, 1, 0]}
    beam = {"type": "beam", "isocentre_cm": [0, -10, 0], "sad_cm": 100, "gantry_deg": 0,
            "jaws_cm": {"x1": -5, "x2": 5, "y1": -5, "y2": 5}}
    beam_1mm = dict(beam, jaws_cm={"x1": -0.05, "x2": 0.05, "y1": -0.05, "y2": 0.05})
    parallel = {"type": "parallel", "position_cm": [0, -20.5, 0], "direction": [0, 1, 0],
                "field": {"shape": "rectangle", "size_cm": [10, 10]}}
    point = {"type": "point", "position_cm": [0, -110, 0], "direction": [0, 1, 0],
             "field": {"shape": "rectangle", "size_cm": [10, 10], "distance_cm": 100}}
    centre = 0.2  # half a voxel: from the edge of four voxel columns to a column's centre
    return {
        "pencil_mono": dict(pencil, energy_MeV=MEAN_MEV),
        "pencil_spectrum": dict(pencil, spectrum_file=spectrum),
        "beam_mono": dict(beam, energy_MeV=MEAN_MEV),
        "beam_spectrum": dict(beam, spectrum_file=spectrum),
        "beam_1mm_mono": dict(beam_1mm, energy_MeV=MEAN_MEV),
        "parallel_mono": dict(parallel, energy_MeV=MEAN_MEV),
        "point_mono": dict(point, energy_MeV=MEAN_MEV),
        "pencil_far": dict(pencil, position_cm=[0, -110, 0], energy_MeV=MEAN_MEV),
        "pencil_centre": dict(pencil, position_cm=[centre, -20.5, centre], energy_MeV=MEAN_MEV),
        "beam_1mm_centre": dict(beam_1mm, isocentre_cm=[centre, -10, centre],
                                energy_MeV=MEAN_MEV),
        "pencil_tilted": dict(pencil, position_cm=[centre, -20.5, centre],
                              direction=[3e-4, 1, 3e-4], energy_MeV=MEAN_MEV),
    }


def main():
    bundle = os.path.join(ROOT, "bundle", "bin", "mcdose")
    default = bundle if os.path.exists(bundle) else os.path.join(ROOT, "build/ci/app/mcdose")
    mcdose = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else default)
    backend = sys.argv[2] if len(sys.argv) > 2 else "gpu"
    histories = sys.argv[3] if len(sys.argv) > 3 else "1e7"
    out = os.path.abspath(os.environ.get("OUT", "source_throughput_results"))
    runs = int(os.environ.get("RUNS", "3"))
    os.makedirs(out, exist_ok=True)
    known = cases_of(os.path.join(ROOT, "examples", "mohan6.spectrum"))
    cases = dict(known)
    if os.environ.get("CASES"):
        names = os.environ["CASES"].split(",")
        unknown = [n for n in names if n.removesuffix("_inline") not in known]
        if unknown:
            sys.exit(f"CASES: unknown {', '.join(unknown)}; known: {', '.join(known)} "
                     "(each also with _inline)")
        cases = {n: known[n.removesuffix("_inline")] for n in ["pencil_mono"] + names}
    rates = {name: [] for name in cases}
    for name, source in cases.items():
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(study(name, source), f, indent=2)
    for r in range(runs):
        for name in cases:
            cmd = [mcdose, "run", os.path.join(out, name + ".json"), "--backend", backend,
                   "--histories", histories, "--if-exists", "overwrite",
                   "--output-dir", os.path.join(out, "results")]
            if backend == "cpu" and os.environ.get("THREADS"):
                cmd += ["--threads", os.environ["THREADS"]]
            if name.endswith("_inline"):
                cmd.append("--sample-sources-inline")
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{name}: mcdose failed:\n{done.stdout}{done.stderr}")
            with open(os.path.join(out, "results", name + "_summary.json")) as f:
                rates[name].append(json.load(f)["histories_per_s"])
            print(f"run {r + 1}/{runs} {name}: {rates[name][-1]:.4g} histories/s", flush=True)
    base = statistics.median(rates["pencil_mono"])
    result = {"backend": backend, "histories": histories, "runs": runs, "mean_MeV": MEAN_MEV,
              "cases": {}}
    print(f"\n{'case':<17}{'median histories/s':>20}{'ratio to pencil_mono':>22}"
          f"{'spread of runs':>16}")
    for name, values in rates.items():
        med = statistics.median(values)
        spread = (max(values) - min(values)) / med
        result["cases"][name] = {"histories_per_s": values, "median": med, "ratio": med / base}
        print(f"{name:<17}{med:>20.5g}{med / base:>22.4f}{spread:>15.1%}")
    with open(os.path.join(out, "source_throughput.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()

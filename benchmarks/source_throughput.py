#!/usr/bin/env python3
"""Transport throughput of spectrum and beam sources against a mono-energetic pencil beam of
the same mean energy (the acceptance: at most 3 % slower on the GPU).

Four studies on one 40 cm water cube (100^3 voxels of 0.4 cm, FX tally, single precision):
  pencil_mono      photons of the mean energy of examples/mohan6.spectrum (1.8985 MeV,
                   uniform within each bin) along +y into the centre of the y = -20 cm face;
  pencil_spectrum  the same pencil with the Mohan 6 MV spectrum (EGSnrc file, alias table);
  beam_mono        a `beam` (gantry 0, SAD 100 cm, isocentre 10 cm deep, 10 x 10 cm2 jaws),
                   mono-energetic at the mean energy;
  beam_spectrum    the same beam with the spectrum.
Each runs RUNS times (interleaved); the median histories/s of the run summary is compared with
pencil_mono. The spectrum runs transport a different mix of energies than the mono-energetic
run of the same mean, so their ratio measures the sampling and the physics together; the
beam_mono ratio isolates the field sampling.

Usage: benchmarks/source_throughput.py [MCDOSE] [BACKEND] [HISTORIES]
  MCDOSE     default build/ci/app/mcdose;  BACKEND cpu | gpu (default gpu);
  HISTORIES  default 1e7 (GPU); use ~2e4 on a small CPU.
Environment: OUT (default ./source_throughput_results), RUNS (default 3), THREADS (CPU only).
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


def main():
    mcdose = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/ci/app/mcdose")
    backend = sys.argv[2] if len(sys.argv) > 2 else "gpu"
    histories = sys.argv[3] if len(sys.argv) > 3 else "1e7"
    out = os.path.abspath(os.environ.get("OUT", "source_throughput_results"))
    runs = int(os.environ.get("RUNS", "3"))
    os.makedirs(out, exist_ok=True)
    spectrum = os.path.join(ROOT, "examples", "mohan6.spectrum")
    pencil = {"type": "pencil", "position_cm": [0, -20.5, 0], "direction": [0, 1, 0]}
    beam = {"type": "beam", "isocentre_cm": [0, -10, 0], "sad_cm": 100, "gantry_deg": 0,
            "jaws_cm": {"x1": -5, "x2": 5, "y1": -5, "y2": 5}}
    cases = {
        "pencil_mono": dict(pencil, energy_MeV=MEAN_MEV),
        "pencil_spectrum": dict(pencil, spectrum_file=spectrum),
        "beam_mono": dict(beam, energy_MeV=MEAN_MEV),
        "beam_spectrum": dict(beam, spectrum_file=spectrum),
    }
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
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{name}: mcdose failed:\n{done.stdout}{done.stderr}")
            with open(os.path.join(out, "results", name + "_summary.json")) as f:
                rates[name].append(json.load(f)["histories_per_s"])
            print(f"run {r + 1}/{runs} {name}: {rates[name][-1]:.4g} histories/s", flush=True)
    base = statistics.median(rates["pencil_mono"])
    result = {"backend": backend, "histories": histories, "runs": runs, "mean_MeV": MEAN_MEV,
              "cases": {}}
    print(f"\n{'case':<17}{'median histories/s':>20}{'ratio to pencil_mono':>22}")
    for name, values in rates.items():
        med = statistics.median(values)
        result["cases"][name] = {"histories_per_s": values, "median": med, "ratio": med / base}
        print(f"{name:<17}{med:>20.5g}{med / base:>22.4f}")
    with open(os.path.join(out, "source_throughput.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()

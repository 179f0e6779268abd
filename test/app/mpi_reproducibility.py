#!/usr/bin/python3
"""`mpirun -np 1/2/3 mcdose run` on a small CPU study gives bitwise-identical
FX dose datasets (edep, dose, dose_uncertainty), also with CPU worker groups
and when a 3-rank job resumes a 2-rank job's checkpoint; a failing rank ends
the job with `mcdose: error: rank N:` and no output file.

Usage: mpi_reproducibility.py MCDOSE_EXE WORK_DIR
Exit 77 (ctest SKIP_RETURN_CODE) when mpirun is missing or mcdose has no MPI.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

STUDY = """{
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [6, 6, 16], "spacing_cm": [2, 2, 1], "origin_cm": [0, 0, 0.5]},
    "background": {"material": "water"},
    "shapes": [{"type": "slab", "material": "bone_cortical_icrp", "axis": "z",
                "from_cm": 5, "to_cm": 8}]},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 6.0,
               "position_cm": [6, 6, -1], "direction": [0, 0, 1]}],
  "rng": {"generator": "philox", "seed": 77},
  "tally": {"method": "fx", "batches": 6},
  "run": {"histories": 24000},
  "backend": "cpu",
  "outputs": {"directory": "out", "name": "t", "image_format": "none"}
}
"""
DATASETS = ("edep", "dose", "dose_uncertainty")
SKIP = 77


def main():
    exe, work = sys.argv[1], sys.argv[2]
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("SKIP: mpirun not found (install openmpi-bin)")
        return SKIP
    info = subprocess.run([exe, "info", "--json"], capture_output=True, text=True).stdout
    if not json.loads(info).get("mpi", False):
        print("SKIP: mcdose was built without MPI")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    study = os.path.join(work, "study.json")
    with open(study, "w") as f:
        f.write(STUDY)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

    def run(np_, name, *extra, expect=0):
        out = os.path.join(work, name)
        cmd = [mpirun, "-np", str(np_), "--oversubscribe", exe, "-q", "run", study,
               "--threads", "1", "--output-dir", out, *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
        if expect is not None and p.returncode != expect:
            print(" ".join(cmd))
            print(p.stdout, p.stderr)
            raise SystemExit(f"FAIL: {name}: exit {p.returncode}, expected {expect}")
        return out, p

    def datasets(out):
        with h5py.File(os.path.join(out, "t.h5"), "r") as f:
            return {k: f[k][()] for k in DATASETS}

    ref_dir, _ = run(1, "np1")
    ref = datasets(ref_dir)
    assert ref["edep"].sum() > 0, "empty dose"
    runs = {"np2": run(2, "np2")[0], "np3": run(3, "np3")[0],
            "np2_groups3": run(2, "np2_groups3", "--cpu-groups", "3")[0]}
    # A 2-rank job checkpoints every batch; a 3-rank job resumes its final state.
    ck = os.path.join(work, "run.ckpt")
    run(2, "np2_ckpt", "--checkpoint", ck)
    runs["np3_resumed"] = run(3, "np3_resumed", "--resume", ck)[0]
    failed = []
    for name, out in runs.items():
        got = datasets(out)
        for k in DATASETS:
            a, b = ref[k], got[k]
            same = a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
            print(f"{name:12s} {k:17s} {'bitwise equal' if same else 'DIFFERENT'}")
            if not same:
                failed.append(f"{name}/{k} (max |diff| {np.max(np.abs(a - b))})")
        for other in os.listdir(out):
            # the run's files (t.h5, t_..., the manifest) and the directory's lock
            assert other.startswith("t") or other == ".mcdose.lock", \
                f"unexpected file {other} in {out}"

    # A failing rank: a resume of a checkpoint from other options is refused on
    # every rank, which aborts the job with the rank named and writes nothing.
    out, p = run(2, "bad_resume", "--resume", ck, "--histories", "30000", expect=None)
    if p.returncode == 0 or "mcdose: error: rank " not in p.stderr:
        failed.append(f"failing rank: exit {p.returncode}, stderr: {p.stderr[-500:]}")
    if os.path.exists(os.path.join(out, "t.h5")):
        failed.append("failing run left an output file")
    if failed:
        print("FAIL:", "; ".join(failed))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Every study in examples/ runs as shipped on the CPU: a broken example fails CI.

Each examples/*.json is run with `mcdose run --backend cpu --threads 2` into a folder of the
build tree. Studies with a fixed history count or a target uncertainty run with
--histories 2000, which changes nothing but their statistics; phase-space studies run
their own history count (their particles x recycle, a few thousand), so that the batches,
the recycling and the file reading are exercised exactly as a user meets them. A run
passes when it exits 0, its summary says complete, and every file it names exists.

Usage: examples_run.py MCDOSE_EXE SOURCE_DIR WORK_DIR
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

MCDOSE, SOURCE, WORK = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
# Histories for studies whose count only sets their statistics.
FEW_HISTORIES = "2000"



def histories_args(study):
    """No override for phase-space sources: their histories are the file's particles."""
    kinds = {s.get("type") for s in study.get("sources", [])}
    return [] if "phase_space" in kinds else ["--histories", FEW_HISTORIES]


def run_example(path, failures):
    study = json.loads(path.read_text())
    out = WORK / path.stem
    shutil.rmtree(out, ignore_errors=True)
    args = [MCDOSE, "run", str(path), "--backend", "cpu", "--threads", "2", "--output-dir",
            str(out), "-q"] + histories_args(study)
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{path.name}: exit {r.returncode}: {r.stderr.strip()[-600:]}")
        return
    written = [line for line in r.stdout.splitlines() if line.strip()]
    missing = [f for f in written if not Path(f).exists()]
    if missing or not written:
        failures.append(f"{path.name}: -q printed {written}, missing {missing}")
        return
    summaries = [f for f in written if f.endswith("_summary.json")]
    if summaries:
        summary = json.loads(Path(summaries[0]).read_text())
        if not summary.get("complete"):
            failures.append(f"{path.name}: the summary says incomplete")
    print(f"ok   {path.name} ({len(written)} files)")


def main():
    WORK.mkdir(parents=True, exist_ok=True)
    examples = sorted((SOURCE / "examples").glob("*.json"))
    if not examples:
        sys.exit(f"no examples found in {SOURCE / 'examples'}")
    failures = []
    for path in examples:
        run_example(path, failures)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(examples) - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

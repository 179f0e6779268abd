#!/usr/bin/env bash
# Do two builds of mcdose give the same dose, bit for bit? Runs each example study
# (examples/*.json) and each validation study (the cases of `mcdose validate`, from
# validation/*/case.json, then the other studies in validation/*/) in OLD and then in NEW. Both
# use one copy of the study: Philox generator, FX (fixed-point) tally, BACKEND (cpu with THREADS
# threads, or gpu), HISTORIES histories, input paths made absolute. Philox draws each history's numbers
# from that history's own counter, and FX adds deposits as integers. So the dose does not
# depend on which thread ran which history: any difference comes from the code.
# Compared bit for bit: every HDF5 dataset except the input echo (dtype, shape, bytes), /run's
# attributes that are not timings, the CSV, MHA and NRRD outputs, a phase-space output's
# particles, the manifest, and the summary's histories, maximum dose and uncertainty. The
# energy balance is the exception: each thread sums it in double, so with 2+ threads its last
# bits depend on scheduling. It must agree within BALANCE_TOL x the emitted energy (bit for bit
# with THREADS=1).
#
# Usage: benchmarks/same_dose.sh [--old-from DIR] OLD_MCDOSE NEW_MCDOSE [OUT_DIR]
#   OUT_DIR         default ./same_dose_results: studies/ (the copies), old/, new/ (outputs, logs)
#   --old-from DIR  take OLD's outputs from an earlier OUT_DIR instead of running OLD again
#                   (a case is run again if its study copy or options differ)
# Environment: HISTORIES (default 100000), BACKEND (cpu), THREADS (2), BALANCE_TOL (1e-10; 0 with THREADS=1),
#   TIMEOUT (seconds per run, 900), PYTHON (python3 with h5py and numpy, /usr/bin/python3).
# Prints one line per case: SAME, DIFFERENT (also a case that fails in one build only),
# FAILED-BOTH (with the error) or NOT-RUN (no study copy could be made). The last line is
# "N same, M different". Exits with 1 if any case is DIFFERENT or NOT-RUN.
set -u
old_from=
if [ "${1:-}" = --old-from ]; then old_from=$(cd "$2" && pwd) || exit 2; shift 2; fi
if [ $# -lt 2 ]; then awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 2; fi
OLD=$(realpath "$1"); NEW=$(realpath "$2"); OUT=$(realpath -m "${3:-same_dose_results}")
HIST=${HISTORIES:-100000}; THREADS=${THREADS:-2}; BACKEND=${BACKEND:-cpu}; PY=${PYTHON:-/usr/bin/python3}
TOL=${BALANCE_TOL:-$([ "$THREADS" = 1 ] && echo 0 || echo 1e-10)}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
"$PY" -c 'import h5py, numpy' ||
  { echo "same_dose.sh: $PY lacks h5py or numpy: set PYTHON" >&2; exit 2; }
mkdir -p "$OUT/studies" "$OUT/old" "$OUT/new" "$OUT/cache"

helper=$(cat <<'PY'
import glob, json, os, struct, sys
import h5py, numpy as np
PATH_KEYS = {"image", "material_image", "density_image", "file", "spectrum_file", "path",
             "activity_image", "calibration"}  # read relative to the study (io/InputPath.hh)

def cases():  # examples, then the cases of `mcdose validate`, then validation/'s other studies
    out = [("examples." + f[9:-5], f) for f in sorted(glob.glob("examples/*.json"))]
    seen = set()
    for c in sorted(glob.glob("validation/*/case.json")):
        study = os.path.normpath(os.path.join(os.path.dirname(c), json.load(open(c))["study"]))
        out.append(("validation." + os.path.basename(os.path.dirname(c)), study)); seen.add(study)
    for f in sorted(glob.glob("validation/*/*.json")):
        d = json.load(open(f))
        if f not in seen and isinstance(d, dict) and "phantom" in d and "sources" in d:
            out.append(("validation." + f[11:-5].replace("/", "."), f))
    for name, f in out: print(name, f)

def absolute(node, base):  # relative input paths -> absolute (not the outputs' directory)
    if isinstance(node, list):
        for x in node: absolute(x, base)
    elif isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, str) and k in PATH_KEYS and not os.path.isabs(v):
                node[k] = os.path.normpath(os.path.join(base, v))
            elif k != "outputs": absolute(v, base)

def prepare(study, copy, hist):  # writes the copy; prints the histories to run
    d = json.load(open(study)); absolute(d, os.path.dirname(os.path.abspath(study)))
    d.setdefault("rng", {})["generator"] = "philox"; d["rng"].setdefault("seed", 1)
    d.setdefault("tally", {})["method"] = "fx"
    o = d.setdefault("outputs", {}); o.pop("directory", None)
    o.update(hdf5=True, summary=True); o.setdefault("name", os.path.basename(study)[:-5])
    json.dump(d, open(copy, "w"), indent=1)
    hist = int(float(hist))
    for s in d["sources"]:  # a phase space: whole particles in equal batches, at most the file
        if s.get("type") == "phase_space":
            with open(s["file"], "rb") as f: n = struct.unpack("<Q", f.read(16)[8:])[0]
            step = s.get("recycle", 1) * d["tally"].get("batches", 100)
            hist = min(hist, n * s.get("recycle", 1)) // step * step
            if hist == 0: raise ValueError(f"{n} particles in {s['file']}: too few for {step}")
    print(hist)

def mcpl_particles(path):  # the particle block (the header names the study copy's path)
    b = open(path, "rb").read(); n = struct.unpack("<Q", b[8:16])[0]
    return b[len(b) - n * struct.unpack("<I", b[40:44])[0]:]

TIMED = {"version", "device", "started_utc", "wall_time_s", "transport_time_s", "histories_per_s"}

def h5_results(path):  # every dataset but the input echo; /run's attributes but TIMED
    found = {}
    def add(name, obj):
        if isinstance(obj, h5py.Dataset) and not name.startswith("input/"): found[name] = obj[()]
    with h5py.File(path, "r") as f:
        f.visititems(add)
        run = {k: v.item() if hasattr(v, "item") else v
               for k, v in f["run"].attrs.items() if k not in TIMED}
    return found, run

def compare(a, b, tol):  # prints the details of a case's line; exit 0 same, 1 different
    diffs, n, tol, worst = [], 0, float(tol), 0.0
    def balance(what, x, y, energy=lambda k: k.startswith("energy_")):  # the energies: within
        nonlocal worst                                  # tol x max(1, emitted MeV); the rest exact
        if set(x) != set(y): return diffs.append(f"{what}: {sorted(set(x) ^ set(y))} in one only")
        scale = max([1.0] + [abs(v) for k, v in x.items() if "emitted" in k])
        for k in sorted(x):
            if x[k] == y[k] or x[k] != x[k] and y[k] != y[k]: continue  # equal, or both NaN
            d = abs(x[k] - y[k]) / scale if energy(k) and isinstance(x[k], float) else float("inf")
            worst = max(worst, d)
            if d > tol: diffs.append(f"{what} {k}: {x[k]!r} vs {y[k]!r}")
    files = sorted(os.listdir(a))
    if files != sorted(os.listdir(b)):
        diffs.append(f"files {sorted(set(files) ^ set(os.listdir(b)))} in one only")
    h5 = [f for f in files if f.endswith(".h5")]
    if not h5: diffs.append("no HDF5 file in OLD's outputs")
    for name in h5:
        (x, rx), (y, ry) = h5_results(os.path.join(a, name)), h5_results(os.path.join(b, name))
        balance(f"{name} /run", rx, ry)
        if set(x) != set(y): diffs.append(f"{name}: datasets {sorted(set(x) ^ set(y))} in one only")
        for k in sorted(set(x) & set(y)):
            u, v = np.asarray(x[k]), np.asarray(y[k]); n += 1
            if u.dtype != v.dtype or u.shape != v.shape:
                diffs.append(f"{k}: {u.dtype}{u.shape} vs {v.dtype}{v.shape}")
            elif u.dtype == object:
                if u.tolist() != v.tolist(): diffs.append(f"{k}: differs")
            elif u.tobytes() != v.tobytes():  # bytes: NaN, -0 and +0 count as they are stored
                if u.dtype.kind not in "fiub": diffs.append(f"{k}: differs"); continue
                m = np.nanmax(np.abs(u.astype(float) - v.astype(float)))
                diffs.append(f"{k}: max |diff| {m:.3g}")
    raw = lambda f: open(f, "rb").read()  # (RT Dose files hold new UIDs and times: not compared)
    read = {".csv": raw, ".mha": raw, ".nrrd": raw, ".nii": raw, ".mcpl": mcpl_particles,
            ".json": lambda f: json.load(open(f))}
    for f in (f for f in files if f.endswith(tuple(read)) and os.path.exists(os.path.join(b, f))):
        p, q = os.path.join(a, f), os.path.join(b, f); n += 1
        if f.endswith("_summary.json"):
            s, t = json.load(open(p)), json.load(open(q))
            for k in ("histories", "max_dose_Gy_per_particle", "uncertainty", "stop_reason"):
                if s.get(k) != t.get(k): diffs.append(f"{f} {k}: {s.get(k)!r} vs {t.get(k)!r}")
            balance(f + " energy balance", s["energy_balance_MeV_per_particle"],
                    t["energy_balance_MeV_per_particle"], lambda k: True)
        elif read[os.path.splitext(f)[1]](p) != read[os.path.splitext(f)[1]](q):
            diffs.append(f"{f} differs")
    more = [f"+{len(diffs) - 6} more"] if len(diffs) > 6 else []
    diffs = [d if len(d) < 200 else d[:190] + " ..." for d in diffs[:6]] + more
    print("; ".join(diffs) if diffs else f"{n} datasets and files bit for bit, energy balance " +
          ("bit for bit" if worst == 0 else f"within {worst:.1e} of the emitted energy"))
    sys.exit(1 if diffs else 0)

try:
    {"cases": cases, "prepare": prepare, "compare": compare}[sys.argv[1]](*sys.argv[2:])
except Exception as e:  # one line for the case's report
    print(f"{sys.argv[1]} failed: {e!r}"); sys.exit(1)
PY
)

run_one() {  # which exe case study-copy histories
  local dir=$OUT/$1/$3
  rm -rf "$dir"
  timeout "${TIMEOUT:-900}" "$2" run "$4" --backend "$BACKEND" --threads "$THREADS" --histories "$5" \
    --output-dir "$dir" --table-cache-dir "$OUT/cache/$1" > "$OUT/$1/$3.log" 2>&1
  echo $? > "$OUT/$1/$3.rc"
}
error_of() { grep -i 'error' "$1" | tail -1 | cut -c1-300 | grep . || tail -1 "$1" | cut -c1-300; }

echo "old: $OLD ($("$OLD" --version 2>&1 | head -1))"
echo "new: $NEW ($("$NEW" --version 2>&1 | head -1))"
echo "histories $HIST (a phase space: whole particles in equal batches, at most the file)," \
  "threads $THREADS, energy balance tolerance $TOL, out $OUT"
old_root=$([ -n "$old_from" ] && cat "$old_from/studies/ROOT" 2>/dev/null)
echo "$root" > "$OUT/studies/ROOT"
t_start=$(date +%s); same=0; diff=0; both=0; not_run=0
while read -r case study; do
  copy=$OUT/studies/$case.json
  if ! hist=$("$PY" -c "$helper" prepare "$study" "$copy.tmp" "$HIST"); then
    echo "NOT-RUN     $case: could not prepare its study: $hist"; not_run=$((not_run + 1)); continue
  fi
  args="histories=$hist backend=$BACKEND threads=$THREADS"; echo "$args" > "$copy.args.tmp"
  t0=$(date +%s); prev=$old_from/studies/$case.json; reuse=
  # OLD's outputs are reused only if they came from the same study copy (up to the repository
  # its paths name) and the same options.
  if [ -n "$old_from" ] && [ -f "$old_from/old/$case.rc" ] &&
     cmp -s "$prev.args" "$copy.args.tmp" &&
     cmp -s <(sed "s|$old_root/|ROOT/|g" "$prev") <(sed "s|$root/|ROOT/|g" "$copy.tmp"); then
    reuse=1
  fi
  mv "$copy.tmp" "$copy"; mv "$copy.args.tmp" "$copy.args"
  if [ -z "$reuse" ]; then
    run_one old "$OLD" "$case" "$copy" "$hist"
  elif [ "$old_from" != "$OUT" ]; then
    rm -rf "$OUT/old/$case"; cp -r "$old_from/old/$case" "$old_from/old/$case".{log,rc} "$OUT/old/"
  fi
  run_one new "$NEW" "$case" "$copy" "$hist"
  rc_old=$(cat "$OUT/old/$case.rc"); rc_new=$(cat "$OUT/new/$case.rc"); secs=$(( $(date +%s) - t0 ))
  if [ "$rc_old" != 0 ] && [ "$rc_new" != 0 ]; then
    e_old=$(error_of "$OUT/old/$case.log"); e_new=$(error_of "$OUT/new/$case.log")
    [ "$e_old" != "$e_new" ] && e_old="OLD: $e_old | NEW: $e_new"
    echo "FAILED-BOTH $case ($args): $e_old"; both=$((both + 1))
  elif [ "$rc_old" != 0 ] || [ "$rc_new" != 0 ]; then
    which=old rc=$rc_old; [ "$rc_new" != 0 ] && which=new rc=$rc_new
    echo "DIFFERENT   $case ($args): fails in ${which^^} only (exit $rc):" \
      "$(error_of "$OUT/$which/$case.log")"
    diff=$((diff + 1))
  elif detail=$("$PY" -c "$helper" compare "$OUT/old/$case" "$OUT/new/$case" "$TOL"); then
    echo "SAME        $case ($args, ${secs} s): $detail"; same=$((same + 1))
  else
    echo "DIFFERENT   $case ($args): $detail"; diff=$((diff + 1))
  fi
done < <("$PY" -c "$helper" cases)
echo "sweep: $(( $(date +%s) - t_start )) s, $both failed in both builds, $not_run not run"
echo "$same same, $diff different"
[ "$diff" -eq 0 ] && [ "$not_run" -eq 0 ]

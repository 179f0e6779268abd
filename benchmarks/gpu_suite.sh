#!/usr/bin/env bash
# GPU checks and benchmarks, run from the repository root on the GPU machine with
# the relocatable bundle in bundle/ (scripts/bootstrap.sh bundle). Results go to
# $OUT (or ./gpu_results). Usage:
#   benchmarks/gpu_suite.sh tests|device-tests|rng|tally|tally-cas|transport|electrons|archer|archer-fast|steps|sweep|crosscheck|scale|stop|profile|sources|sources-beam|patient-scale ...
# (archer, archer-fast: the ARCHER tally tests of Liu et al. 2018; seed, seed-fast: their old
# names, still accepted.)
# scale: SCALE_HISTORIES (default 4e7) histories of ARCHER test 2 on 1, 2 and 4 GPUs
# (one process, --gpus N) and with one MPI rank per GPU, FX + Philox; times each and
# checks that the FX datasets are bitwise identical; writes $OUT/scale.json.
set -u
OUT=${OUT:-$PWD/gpu_results}
mkdir -p "$OUT"
M=$PWD/bundle/bin/mcdose
export MCDOSE_EXE=$M MCDOSE_SOURCE_DIR=$PWD
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

# Strong scaling of one study over GPUs. ARCHER test 2 is the 20 MeV electron
# pencil beam (examples/water_20MeV_electrons.json); if a build refuses electron
# sources, the 6 MeV photon pencil beam on the same phantom is used instead and
# scale.json says so. SCALE_HISTORIES must be an integer (e.g. 40000000).
scale_scale() {
  local n_gpu hist=${SCALE_HISTORIES:-40000000} study kind d
  n_gpu=$(nvidia-smi -L | wc -l)
  d=$OUT/scale; mkdir -p "$d"
  sed -e 's/"method": "wib"/"method": "fx"/' -e 's/"image_format": "mha"/"image_format": "none"/' \
      examples/water_20MeV_electrons.json > "$d/study_electrons.json"
  sed -e 's/"method": "hb"/"method": "fx"/' benchmarks/photon_pencil_6MeV_water.json > "$d/study_photons.json"
  log "scale: probe electron sources"
  if timeout 120 $M run "$d/study_electrons.json" --backend gpu --gpus 1 --histories 100000 \
       --if-exists overwrite --output-dir "$d/probe" > "$d/probe.log" 2>&1; then
    study=$d/study_electrons.json; kind="20 MeV electron pencil beam (ARCHER test 2)"
  else
    study=$d/study_photons.json; kind="6 MeV photon pencil beam (electron sources refused: see probe.log)"
  fi
  echo "$kind" > "$d/kind.txt"
  for n in 1 2 4; do
    [ "$n" -le "$n_gpu" ] || { echo "skip $n GPUs: only $n_gpu visible"; continue; }
    log "scale: $n GPU(s), $hist histories, one process"
    timeout 590 $M run "$study" --backend gpu --gpus "$n" --histories "$hist" \
      --if-exists overwrite --output-dir "$d/gpus$n" 2>&1 | tee "$d/gpus$n.log"
  done
  if command -v mpirun > /dev/null && [ "$n_gpu" -ge 2 ]; then
    log "scale: $n_gpu MPI ranks, one GPU each"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 590 \
      mpirun -np "$n_gpu" --bind-to none $M run "$study" --backend gpu --histories "$hist" \
      --if-exists overwrite --output-dir "$d/mpi$n_gpu" 2>&1 | tee "$d/mpi$n_gpu.log"
  fi
  /usr/bin/python3 - "$d" "$kind" "$hist" <<'PY'
import glob, json, os, sys
try:
    import h5py
except ImportError:  # device machines may lack h5py: compare the written CSVs instead
    h5py = None
d, kind, hist = sys.argv[1], sys.argv[2], int(float(sys.argv[3]))
runs = {}
for summary in sorted(glob.glob(os.path.join(d, "*", "*_summary.json"))):
    name = os.path.basename(os.path.dirname(summary))
    if name == "probe":
        continue
    with open(summary) as f:
        s = json.load(f)
    if h5py is not None:
        h5 = summary.replace("_summary.json", ".h5")
        with h5py.File(h5, "r") as f:
            data = {k: f[k][()].tobytes() for k in ("edep", "dose", "dose_uncertainty")}
    else:
        stem = summary.replace("_summary.json", "")
        data = {}
        for csv in sorted(glob.glob(stem + "_*.csv")):
            with open(csv, "rb") as f:
                data[csv[len(stem):]] = f.read()
    runs[name] = dict(summary=s, data=data)
ref = runs.get("gpus1")
rows = []
for name, r in runs.items():
    s = r["summary"]
    t = s.get("transport_time_s")
    n = int(name[4:]) if name.startswith("gpus") else int(name[3:])
    row = dict(run=name, gpus=n, histories=s.get("histories"), transport_time_s=t,
               histories_per_s=s.get("histories_per_s"), device=s.get("device"))
    if ref is not None:
        t1 = ref["summary"].get("transport_time_s")
        row["speedup"] = t1 / t if t else None
        row["efficiency"] = t1 / (n * t) if t else None
        row["fx_bitwise_equal_to_1_gpu"] = all(r["data"][k] == ref["data"][k] for k in r["data"])
    rows.append(row)
out = dict(study=kind, histories=hist, tally="fx", rng="philox", runs=rows)
with open(os.path.join(d, "..", "scale.json"), "w") as f:
    json.dump(out, f, indent=2)
print(kind)
for row in rows:
    print("{run:8s} {gpus} GPU(s): {transport_time_s:.3f} s, {histories_per_s:.4g} histories/s,"
          " efficiency {eff}, FX bitwise equal to 1 GPU: {eq}".format(
              eff="%.3f" % row["efficiency"] if row.get("efficiency") else "n/a",
              eq=row.get("fx_bitwise_equal_to_1_gpu"), **row))
PY
}
for part in "$@"; do
  case $part in
    tests|device-tests)
      # device-tests: only the tests that need a GPU (their names say Device/Gpu/GPU).
      filter='*'; [ "$part" = device-tests ] && filter='*Device*:*Gpu*:*GPU*'
      log info; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $M info
      for t in bundle/tests/test_*; do
        log "$t ($part)"; timeout 300 "$t" --gtest_brief=1 --gtest_filter="$filter" 2>&1 | tail -25
      done ;;
    patient-scale)
      # A run's cost against its grid and history count (docs/performance.md): the grid
      # sweep at 2e5 histories; 4e6 histories on 100^3 and 256^3 (histories/s); ARCHER
      # test 2's study with 2e5 and 1e7 histories (a short run against the kernel's rate),
      # one batch per launch against the default; a repeated run's set-up.
      log "patient-scale: grid sweep, 2e5 histories"
      OUT=$OUT/scale_grid TIMEOUT_S=${SCALE_TIMEOUT_S:-120} benchmarks/scale_grid.sh "$M" gpu \
        "${SCALE_GRIDS:-100,200,256,300,400,512,1024}" 200000
      log "patient-scale: 4e6 histories on 100^3 and 256^3"
      OUT=$OUT/scale_4e6 TIMEOUT_S=120 benchmarks/scale_grid.sh "$M" gpu 100,256 4000000
      for k in auto 1; do
        opt=(); [ "$k" = auto ] || opt=(--batches-per-launch "$k")
        for n in 200000 10000000; do
          log "patient-scale: ARCHER test 2 study, $n histories, batches per launch $k"
          timeout 120 $M run examples/water_20MeV_electrons.json --backend gpu --histories "$n" \
            "${opt[@]}" --if-exists overwrite --output-dir /tmp/small_run \
            | grep -E "transport time|setup|time  |histories/s|uncertainty from"
        done
      done
      log "patient-scale: set-up from the table cache, and the 6 MeV photon example end to end"
      OUT=$OUT/setup RUNS=2 benchmarks/setup_time.sh "$M" gpu 1000 examples/slab_6MeV_photons.json
      /usr/bin/time -f "process wall %e s" timeout 120 $M run examples/slab_6MeV_photons.json \
        --backend gpu --if-exists overwrite --output-dir /tmp/slab_run 2>&1 \
        | grep -E "transport time|setup|time  |process wall" ;;
    sources)
      # Spectrum and beam sources against a mono-energetic pencil of the same mean energy
      # (acceptance: at most 3 % slower); SOURCE_HISTORIES (default 1e7), RUNS (default 3).
      log "source throughput"
      OUT=$OUT/sources timeout 590 /usr/bin/python3 benchmarks/source_throughput.py "$M" gpu \
        "${SOURCE_HISTORIES:-1e7}" ;;
    sources-beam)
      # A beam's cost apart: field sampling (a 1 mm beam) against broad-field transport (a
      # parallel 10 x 10 field, a point source's divergent one), each against the pencil;
      # CASES picks others (benchmarks/source_throughput.py).
      log "beam cost: sampling against broad-field transport"
      OUT=$OUT/sources_beam CASES=${CASES:-beam_mono,beam_1mm_mono,parallel_mono,point_mono} timeout 590 \
        /usr/bin/python3 benchmarks/source_throughput.py "$M" gpu "${SOURCE_HISTORIES:-1e7}" ;;
    rng)
      log "rng bench"
      timeout 240 $M rng bench --backend gpu --threads 1e3,1e4,1e5,1e6,1e7 --words 4096 --repeats 5 --json "$OUT/rng_bench.json" ;;
    tally)
      # CAS and WAG with 8 bins take minutes at 1e7 (see docs/tally.md): run separately.
      log "tally bench 1e7"
      timeout 200 $M tally-bench --backend gpu --particles 1e7 --bins 8,1000,1000000 --methods fa,kas,hb,wib,fx --launch both --json "$OUT/tally_1e7.json"
      log "tally bench 3e9, 8 bins"
      timeout 200 $M tally-bench --backend gpu --particles 3e9 --bins 8 --methods fa,hb,wib,fx --launch both --json "$OUT/tally_3e9_8.json"
      log "tally bench 3e9, 1000 and 1e6 bins"
      timeout 200 $M tally-bench --backend gpu --particles 3e9 --bins 1000,1000000 --methods hb,fx,wib --launch both --json "$OUT/tally_3e9_bins.json" ;;
    transport|transport-single)
      precisions="double single"; [ "$part" = transport-single ] && precisions=single
      for E in 1.25 6; do
        for P in $precisions; do
          sed "s/\"precision\": \"double\"/\"precision\": \"$P\"/" benchmarks/photon_pencil_${E}MeV_water.json > /tmp/bench_${E}_${P}.json
          log "transport ${E} MeV $P"
          timeout 120 $M run /tmp/bench_${E}_${P}.json --backend gpu --histories 10000000 --if-exists overwrite --output-dir /tmp/bench_out
        done
      done
      [ "$part" = transport-single ] && continue
      log "validation photon 6 MeV (2e6 histories)"
      timeout 120 $M run validation/photon_6MeV_water/study.json --backend gpu --if-exists overwrite --output-dir "$OUT" ;;
    tally-cas)
      # The CAS-loop methods at 3e9 where contention allows (1000 and 1e6 bins).
      log "tally bench 3e9 cas/wag/kas, 1000 and 1e6 bins"
      timeout 280 $M tally-bench --backend gpu --particles 3e9 --bins 1000,1000000 --methods cas,wag,kas --launch both --json "$OUT/tally_3e9_cas.json" ;;
    electrons)
      log "validation electron 20 MeV (1e6 histories)"
      timeout 120 $M run validation/electron_20MeV_water/study.json --backend gpu --histories 1000000 --if-exists overwrite --output-dir "$OUT"
      log "validation photon 6 MeV (2e6 histories)"
      timeout 120 $M run validation/photon_6MeV_water/study.json --backend gpu --if-exists overwrite --output-dir "$OUT"
      for P in double single; do
        sed "s/\"precision\": \"single\"/\"precision\": \"$P\"/" examples/water_20MeV_electrons.json > /tmp/archer2_$P.json
        sed -i 's/"method": "wib"/"method": "hb"/' /tmp/archer2_$P.json
        log "ARCHER test 2 (4e6 histories, hb, $P)"
        timeout 120 $M run /tmp/archer2_$P.json --backend gpu --histories 4000000 --if-exists overwrite --output-dir /tmp/archer2_out
      done ;;
    archer|seed)
      log "compare-tallies test 2"; timeout 200 $M compare-tallies --test 2 --backend gpu --json "$OUT/test2_table.json"
      log "compare-tallies test 3"; timeout 200 $M compare-tallies --test 3 --backend gpu --json "$OUT/test3_table.json"
      log "compare-tallies test 4"; timeout 200 $M compare-tallies --test 4 --backend gpu --json "$OUT/test4_table.json" ;;
    archer-fast|seed-fast)
      # The ARCHER-test timings that track transport speed (HB, WIB, FX; both precisions).
      log "compare-tallies test 2 hb,wib,fx"; timeout 200 $M compare-tallies --test 2 --backend gpu --methods hb,wib,fx --json "$OUT/test2_fast.json"
      log "compare-tallies test 3 hb,fx"; timeout 120 $M compare-tallies --test 3 --backend gpu --methods hb,fx --json "$OUT/test3_fast.json" ;;
    tracking)
      # Woodcock against Siddon photon tracking: the photon benchmarks and
      # ARCHER test 2 (brems photons), HB, both precisions, same seeds.
      for E in 1.25 6; do
        for T in siddon woodcock; do
          for P in double single; do
            sed -e "s/\"precision\": \"double\"/\"precision\": \"$P\", \"photon_tracking\": \"$T\"/" \
              benchmarks/photon_pencil_${E}MeV_water.json > /tmp/trk_${E}_${T}_${P}.json
            log "tracking: ${E} MeV photons, $T, $P, 1e7 histories"
            timeout 120 $M run /tmp/trk_${E}_${T}_${P}.json --backend gpu --histories 10000000 \
              --if-exists overwrite --output-dir /tmp/trk_out | grep -E "transport|histories/s|energy balance"
          done
        done
      done
      for T in siddon woodcock; do
        sed -e "s/\"precision\": \"double\"/\"precision\": \"double\", \"photon_tracking\": \"$T\"/" \
          validation/archer_tests/test2.json > /tmp/test2_$T.json
        log "tracking: ARCHER test 2, $T"
        timeout 120 $M compare-tallies --study /tmp/test2_$T.json --backend gpu --methods hb --json "$OUT/test2_$T.json" | tail -3
      done ;;
    steps)
      # Step-size study (validation/step_size/step_study.py, docs/physics.md "Step size"):
      # the two validation cases at each loss fraction with STEP_HISTORIES (default 1e7)
      # histories, and ARCHER test 2 (HB, float and double). Depth doses and summaries go
      # to $OUT/steps.tgz (the device returns few files); analyse them with
      # `step_study.py analyze` where numpy is.
      d=/tmp/steps; rm -rf "$d"; mkdir -p "$d"
      /usr/bin/python3 validation/step_size/step_study.py make "$d/studies" --losses "${STEP_LOSSES:-0.025,0.05,0.1,0.15,0.2}"
      for f in "$d"/studies/e20_*.json "$d"/studies/p6_*.json; do
        n=$(basename "$f" .json); log "steps: $n"
        timeout 120 $M run "$f" --backend gpu --histories "${STEP_HISTORIES:-10000000}" --if-exists overwrite --output-dir "$d/$n" \
          | grep -E "transport time|deposited"
        rm -f "$d/$n"/*.h5
      done
      for f in "$d"/studies/t2_*.json; do
        n=$(basename "$f" .json); log "steps: $n (compare-tallies, hb)"
        timeout 120 $M compare-tallies --study "$f" --backend gpu --methods hb --precisions float,double \
          --json "$d/$n.json" | grep -E "^hb"
      done
      (cd "$d" && tar czf "$OUT/steps.tgz" --exclude=studies .) ;;
    sweep)
      log "sweep a"; timeout 200 $M compare-tallies --mode sweep --backend gpu --histories 4e6,8e6,1.6e7 --json "$OUT/sweep_a.json"
      log "sweep b"; timeout 200 $M compare-tallies --mode sweep --backend gpu --histories 3.2e7,6.4e7 --json "$OUT/sweep_b.json" ;;
    crosscheck)
      log "md"; timeout 240 $M crosscheck md --backend gpu --json "$OUT/md.json"
      log "rsqrt"; timeout 120 $M crosscheck rsqrt --backend gpu --json "$OUT/rsqrt.json"
      log "gemm"; timeout 240 $M crosscheck gemm --backend gpu --matrix salted --sizes 1024,2048,4096,8192 --json "$OUT/gemm_salted.json" ;;
    scale)
      scale_scale
      ;;
    stop)
      # A GPU run whose batch would take hours, interrupted by SIGINT after STOP_AFTER_S
      # (default 5) seconds of transport: how long the process takes to stop, its exit status
      # and the summary it writes ($OUT/stop.json).
      d=$OUT/stop; rm -rf "$d"; mkdir -p "$d"
      sed -e 's/"histories": [0-9e.]*/"histories": 400000000000000/' -e 's/"batches": 10/"batches": 2/' \
          -e 's/"image_format": "mha"/"image_format": "none"/' examples/water_20MeV_electrons.json > "$d/study.json"
      $M run "$d/study.json" --backend gpu --output-dir "$d/out" > "$d/run.log" 2>&1 &
      pid=$!
      until [ -e "$d/out/.mcdose.lock" ] || ! kill -0 $pid 2>/dev/null; do sleep 0.2; done
      sleep "${STOP_AFTER_S:-5}"
      t0=$(date +%s.%N); kill -INT $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
      python3 - "$d" "$rc" "$t0" "$t1" <<'PY'
import glob, json, sys
d, rc, t0, t1 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
summary = glob.glob(d + "/out/*_summary.json")
s = json.load(open(summary[0])) if summary else {}
r = dict(exit_status=rc, stop_s=round(t1 - t0, 3), complete=s.get("complete"),
         stop_reason=s.get("stop_reason"), histories=s.get("histories"))
print(r); json.dump(r, open(d + "/../stop.json", "w"), indent=1)
PY
      tail -5 "$d/run.log" ;;
    profile)
      # ARCHER test 2 (20 MeV electrons, 100^3 water, HB) under Nsight Compute: one
      # batch's transport kernel with the full section set, the summary page and the
      # per-SASS-line stall samples (needs the -lineinfo the build adds). PROFILE_PRECISION
      # (double|single) and PROFILE_HISTORIES (default 2000000, in 2 batches: the profiled
      # launch then gives each of the ~1e5 threads several histories) choose the run.
      P=${PROFILE_PRECISION:-double}; H=${PROFILE_HISTORIES:-2000000}
      sed -e "s/\"precision\": \"single\"/\"precision\": \"$P\"/" -e 's/"method": "wib"/"method": "hb"/' \
          -e 's/"batches": 10/"batches": 2/' -e 's/"image_format": "mha"/"image_format": "none"/' \
          examples/water_20MeV_electrons.json > /tmp/prof_$P.json
      log "resource usage of the transport kernels"
      cuobjdump --dump-resource-usage "$M" 2>/dev/null | grep -A1 -E "Function .*transport_kernel" \
        | grep -E "Function|REG" | paste - - | sed -E 's/Function ([^:]*):.*(REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+).*/\2 \1/' \
        | cut -c1-160 > "$OUT/resource_usage.txt"; head -5 "$OUT/resource_usage.txt"
      log "ncu $P $H histories"
      timeout 400 ncu --clock-control none --set full --import-source yes -k regex:transport_kernel -c 1 \
        -f -o /tmp/prof_$P $M run /tmp/prof_$P.json --backend gpu --histories "$H" --if-exists overwrite --output-dir /tmp/prof_out > "$OUT/ncu_$P.log" 2>&1
      tail -5 "$OUT/ncu_$P.log"
      ncu -i /tmp/prof_$P.ncu-rep --page details > "$OUT/ncu_details_$P.txt" 2>&1
      ncu -i /tmp/prof_$P.ncu-rep --page source --csv --print-source cuda,sass 2>&1 | gzip > "$OUT/ncu_source_$P.csv.gz"
      ls -la "$OUT" ;;
  esac
done

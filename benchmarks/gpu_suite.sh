#!/usr/bin/env bash
# GPU checks and benchmarks, run from the repository root on the GPU machine with
# the relocatable bundle in bundle/ (scripts/bootstrap.sh bundle). Results go to
# $OUT (or ./gpu_results). Usage:
#   benchmarks/gpu_suite.sh tests|rng|tally|tally-cas|transport|electrons|seed|sweep|crosscheck ...
set -u
OUT=${OUT:-$PWD/gpu_results}
mkdir -p "$OUT"
M=$PWD/bundle/bin/mcdose
export MCDOSE_EXE=$M MCDOSE_SOURCE_DIR=$PWD MCDOSE_REFDATA=$PWD/.refdata
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
for part in "$@"; do
  case $part in
    tests)
      log info; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $M info
      for t in bundle/tests/test_*; do
        log "$t"; timeout 300 "$t" --gtest_brief=1 2>&1 | tail -25
      done ;;
    rng)
      log "rng bench"
      timeout 240 $M rng bench --backend gpu --threads 1e3,1e4,1e5,1e6,1e7 --words 4096 --repeats 5 --json "$OUT/rng_bench.json" ;;
    tally)
      # CAS and WAG with 8 bins take minutes at 1e7 (see docs/benchmarks.md): run separately.
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
          timeout 120 $M run /tmp/bench_${E}_${P}.json --backend gpu --histories 10000000 --output-dir /tmp/bench_out
        done
      done
      [ "$part" = transport-single ] && continue
      log "validation photon 6 MeV (2e6 histories)"
      timeout 120 $M run validation/photon_6MeV_water/study.json --backend gpu --output-dir "$OUT" ;;
    tally-cas)
      # The CAS-loop methods at 3e9 where contention allows (1000 and 1e6 bins).
      log "tally bench 3e9 cas/wag/kas, 1000 and 1e6 bins"
      timeout 280 $M tally-bench --backend gpu --particles 3e9 --bins 1000,1000000 --methods cas,wag,kas --launch both --json "$OUT/tally_3e9_cas.json" ;;
    electrons)
      log "validation electron 20 MeV (1e6 histories)"
      timeout 120 $M run validation/electron_20MeV_water/study.json --backend gpu --histories 1000000 --output-dir "$OUT"
      log "validation photon 6 MeV (2e6 histories)"
      timeout 120 $M run validation/photon_6MeV_water/study.json --backend gpu --output-dir "$OUT"
      for P in double single; do
        sed "s/\"precision\": \"single\"/\"precision\": \"$P\"/" examples/water_20MeV_electrons.json > /tmp/seed2_$P.json
        sed -i 's/"method": "wib"/"method": "hb"/' /tmp/seed2_$P.json
        log "seed test 2 (4e6 histories, hb, $P)"
        timeout 120 $M run /tmp/seed2_$P.json --backend gpu --histories 4000000 --output-dir /tmp/seed2_out
      done ;;
    seed)
      log "compare-tallies test 2"; timeout 200 $M compare-tallies --test 2 --backend gpu --json "$OUT/test2_table.json"
      log "compare-tallies test 3"; timeout 200 $M compare-tallies --test 3 --backend gpu --json "$OUT/test3_table.json"
      log "compare-tallies test 4"; timeout 120 $M compare-tallies --test 4 --backend gpu --methods fa,hb,wib,fx --json "$OUT/test4_table.json"
      log "compare-tallies test 4 cas/wag/kas"; timeout 120 $M compare-tallies --test 4 --backend gpu --methods cas,wag,kas --histories 4e5 --json "$OUT/test4_cas.json" ;;
    sweep)
      log "sweep a"; timeout 200 $M compare-tallies --mode sweep --backend gpu --histories 4e6,8e6,1.6e7 --json "$OUT/sweep_a.json"
      log "sweep b"; timeout 200 $M compare-tallies --mode sweep --backend gpu --histories 3.2e7,6.4e7 --json "$OUT/sweep_b.json" ;;
    crosscheck)
      log "md"; timeout 240 $M crosscheck md --backend gpu --json "$OUT/md.json"
      log "rsqrt"; timeout 120 $M crosscheck rsqrt --backend gpu --json "$OUT/rsqrt.json"
      log "gemm"; timeout 240 $M crosscheck gemm --backend gpu --matrix salted --sizes 1024,2048,4096,8192 --json "$OUT/gemm_salted.json" ;;
  esac
done

#!/usr/bin/env bash
# The layering check must fail on a planted back-include (a lower layer including a higher
# one, and a sub-folder circle inside a layer), on a third-party header outside its adapter's
# folder, and pass on the tree as it is.
# Usage: layering_plant.sh SOURCE_ROOT
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in core rng io tally phantoms sources transport dose study validation app benchmarks test; do
  cp -r "$src/$d" "$tmp/$d"
done
check="$src/scripts/check_layering.sh"
"$check" "$tmp" >/dev/null || { echo "FAIL: the unplanted copy does not pass"; exit 1; }

expect_failure() {  # expect_failure FILE LINE WHAT
  cp "$tmp/$1" "$tmp/$1.orig"
  echo "$2" >>"$tmp/$1"
  if out=$("$check" "$tmp"); then
    echo "FAIL: $3 was not caught"; exit 1
  fi
  grep -q "^$1:" <<<"$out" || { echo "FAIL: $3: the message does not name $1"; echo "$out"; exit 1; }
  mv "$tmp/$1.orig" "$tmp/$1"
  echo "caught: $3"
}
expect_failure core/Assert.hh '#include "study/StudyInput.hh"' "core/ including study/"
expect_failure transport/engine/TransportThread.hh '#include "io/JsonInput.hh"' "transport/ including io/"
expect_failure dose/DoseData.hh '#include "transport/engine/TransportParams.hh"' "dose/ including transport/"
expect_failure transport/interactors/Interaction.hh '#include "transport/engine/HistoryTransport.hh"' \
  "a circle inside transport/"
expect_failure rng/Rng.hh '#if defined(__CUDA_ARCH__)' "a raw CUDA macro"
expect_failure test/core/DeviceSmoke.test.cu '#include "io/JsonInput.hh"' "a kernel source (a test's) reaching io/"
expect_failure app/main.cc '#include "benchmarks/dose_report.cc"' "app/ including benchmarks/"
expect_failure dose/DoseHdf5.cc '#include <H5Cpp.h>' "dose/ including an HDF5 header"
expect_failure study/StudyInput.hh '#include <hdf5.h>' "study/ including an HDF5 header"
expect_failure dose/RtDose.cc '#include <gdcmReader.h>' "dose/ including a GDCM header"
expect_failure benchmarks/dose_report.cc '#include <gdcmWriter.h>' "benchmarks/ including a GDCM header"
expect_failure transport/engine/TransportTables.cc '#include <xraylib.h>' \
  "transport/engine/ including xraylib"
"$check" "$tmp" >/dev/null || { echo "FAIL: restored copy does not pass"; exit 1; }
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# mcdose set-up on a fresh Debian 12 machine (with the CUDA toolkit if GPUs are to be used).
#   scripts/bootstrap.sh run     install what is missing, build (release), run the example study
#   scripts/bootstrap.sh test    install what is missing, build (CI preset), pass the test suite
#   scripts/bootstrap.sh bundle  build (release, sm_90) and make the relocatable bundle under bundle/
set -euo pipefail
mode=${1:-run}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)

# --- 1. Debian packages -------------------------------------------------------
packages=(build-essential cmake pkg-config git libgtest-dev libcli11-dev nlohmann-json3-dev
  libinsighttoolkit5-dev libhdf5-dev libxrl-dev librandom123-dev libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-h5py python3-matplotlib python3-jsonschema dieharder
  clang-format-14 universal-ctags libgdcm-dev python3-pydicom dicom3tools libmcpl-dev mcpl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- 2. CUDA toolkit (optional) ---------------------------------------------------
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
have_nvcc=0; command -v nvcc >/dev/null && have_nvcc=1

case "$mode" in
  test)
    preset=ci; [ $have_nvcc -eq 1 ] || preset=cpu-debug
    echo "== configure ($preset)"
    cmake --preset "$preset"
    echo "== build"
    cmake --build --preset "$preset" -j "$jobs"
    echo "== test"
    ctest --test-dir "build/$preset" --output-on-failure -j "$jobs" --timeout 600
    ;;
  run)
    echo "== configure (release; CUDA $([ $have_nvcc -eq 1 ] && echo ON || echo OFF))"
    cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DMCDOSE_BUILD_TESTS=OFF
    echo "== build"
    cmake --build build/release -j "$jobs"
    echo "== run"
    build/release/app/mcdose info
    # The example study: 6 MeV photons on a water-bone-lung-water slab phantom.
    # On a GPU it runs to its 1 % target uncertainty; on a CPU a shorter run.
    extra=()
    if ! build/release/app/mcdose info --json | grep -q '"name"'; then
      extra=(--histories 1000000)
      echo "(no GPU: CPU backend, 1e6 histories with condensed-history electrons, about 15 s on 2 cores)"
    fi
    build/release/app/mcdose run examples/slab_6MeV_photons.json --if-exists overwrite --output-dir results "${extra[@]}"
    /usr/bin/python3 scripts/plot_dose.py results/slab_6MeV_photons.h5
    ;;
  bundle)
    cmake --preset cuda-release -DMCDOSE_BUILD_TESTS=ON -DMCDOSE_INSTALL_TESTS=ON
    cmake --build --preset cuda-release -j "$jobs"
    rm -rf bundle && cmake --install build/cuda-release --prefix bundle --strip
    (cd build/cuda-release && cpack -G TGZ >/dev/null && ls -l ./*.tar.gz)
    du -sh bundle
    ;;
  *) echo "usage: $0 run|test|bundle" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# mcdose set-up on a fresh Debian 12 machine (with the CUDA toolkit if GPUs are to be used).
#   scripts/bootstrap.sh run [--mpi]  install what building and running need, build (Release),
#                                     run the example study and say where to look at the result
#   scripts/bootstrap.sh test         also install what the tests need, build (CI preset), pass
#                                     the test suite (what .ci/run does)
#   scripts/bootstrap.sh bundle       build (Release + tests) and make the relocatable bundle
#                                     under bundle/ (MCDOSE_CUDA_ARCHITECTURES=90 for one GPU
#                                     architecture instead of the default fat binary)
# --mpi: also install OpenMPI, so that the build can run one study over several ranks/nodes.
set -euo pipefail
mode=${1:-run}
with_mpi=0
[ "${2:-}" = "--mpi" ] && with_mpi=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
t_start=$(date +%s)

# --- 1. Debian packages -------------------------------------------------------
# Building and running: compilers, CMake, the libraries mcdose links (CLI11, JSON, ITK for the
# images, HDF5, xraylib, Random123, GDCM for DICOM, MCPL for phase-space files, zlib for the
# dose files and gzipped phase spaces) and what plots the results. Debian's libgdcm-dev exports
# CMake targets for GDCM's command-line tools (gdcmdump, gdcmscanner, ...), which ship in
# libgdcm-tools: without them every configure lists each tool as a missing file.
packages=(build-essential cmake pkg-config git libcli11-dev nlohmann-json3-dev
  libinsighttoolkit5-dev libhdf5-dev libxrl-dev librandom123-dev libgdcm-dev libgdcm-tools
  libmcpl-dev mcpl zlib1g-dev
  python3 python3-numpy python3-h5py python3-matplotlib)
# The tests: GoogleTest, MPI (the reproducibility test under mpirun), the format, layering and
# function-length checks, the study schema and the DICOM checks.
test_packages=(libgtest-dev libopenmpi-dev openmpi-bin python3-jsonschema clang-format-14
  universal-ctags python3-pydicom dicom3tools)
case "$mode" in
  test|bundle) packages+=("${test_packages[@]}") ;;
  run) if [ $with_mpi -eq 1 ]; then packages+=(libopenmpi-dev openmpi-bin); fi ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${#missing[@]} packages and their dependencies: ${missing[*]}"
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
    # CUDA: for the GPUs of this machine when it has nvcc and a GPU (the fastest GPU build).
    # Without a GPU the trial runs on the CPU, so the GPU code (the longest part of the build)
    # is left out unless MCDOSE_CUDA=on asks for it (then the default fat binary, Ampere to
    # Blackwell, e.g. to copy to a GPU machine; `bundle` does that too). MPI only with --mpi.
    cuda_opts=(-DMCDOSE_USE_CUDA=OFF)
    if [ $have_nvcc -eq 1 ] && nvidia-smi -L >/dev/null 2>&1; then
      cuda_opts=(-DMCDOSE_USE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native)
    elif [ $have_nvcc -eq 1 ] && [ "${MCDOSE_CUDA:-}" = on ]; then
      cuda_opts=(-DMCDOSE_USE_CUDA=ON)
    elif [ $have_nvcc -eq 1 ]; then
      echo "== nvcc found but no GPU: building for the CPU (MCDOSE_CUDA=on builds the GPU code too)"
    fi
    mpi_opt=(-DMCDOSE_USE_MPI=OFF); [ $with_mpi -eq 0 ] || mpi_opt=(-DMCDOSE_USE_MPI=ON)
    echo "== configure (Release; ${cuda_opts[*]} ${mpi_opt[*]})"
    if [ "${cuda_opts[0]}" = -DMCDOSE_USE_CUDA=ON ]; then
      echo "   (the CUDA transport kernels take most of the build: see docs/performance.md,"
      echo "    \"Build time and size\")"
    fi
    cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DMCDOSE_BUILD_TESTS=OFF \
      "${cuda_opts[@]}" "${mpi_opt[@]}"
    echo "== build"
    cmake --build build/release -j "$jobs"
    echo "== run ($(( $(date +%s) - t_start )) s so far)"
    build/release/app/mcdose info
    # The example study: 6 MeV photons on a water-bone-lung-water slab phantom.
    # On a GPU it runs to its 1 % target uncertainty; on a CPU 1e6 histories.
    extra=()
    if ! build/release/app/mcdose info --json | grep -q '"runs_this_build": true'; then
      extra=(--histories 1000000 --backend cpu)
      # The estimate is measured here: a pilot of 1e5 histories gives this machine's rate
      # and the fixed cost of a run (set-up, writing the outputs); it also fills the
      # physics-table cache that the run then reads.
      pilot=$(mktemp -d)
      t0=$(date +%s.%N)
      out=$(build/release/app/mcdose run examples/slab_6MeV_photons.json --backend cpu \
        --histories 100000 --output-dir "$pilot")
      wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
      rm -rf "$pilot"
      transport=$(sed -n 's/.*transport time *: *\([0-9.e+]*\) s (\([0-9.e+]*\) histories\/s).*/\1 \2/p' <<< "$out")
      est=$(awk -v w="$wall" -v t="$transport" 'BEGIN { split(t, a, " ");
        if (a[2] > 0) printf "about %.0f s", (w - a[1]) + 1e6 / a[2]; else print "a while" }')
      echo "(no usable GPU: CPU backend, 1e6 histories on $jobs cores: $est, from a pilot run"
      echo " of 1e5 histories here; progress is shown)"
    fi
    build/release/app/mcdose run examples/slab_6MeV_photons.json --if-exists overwrite \
      --output-dir results "${extra[@]}"
    /usr/bin/python3 scripts/plot_dose.py results/slab_6MeV_photons.h5
    cat <<EOF
== done in $(( $(date +%s) - t_start )) s. Look at the result:
   3D Slicer:  drag results/slab_6MeV_photons_dose.mha onto Slicer's window (File > Add Data);
               results/slab_6MeV_photons_uncertainty.mha is its relative 1-sigma uncertainty
   plots:      results/slab_6MeV_photons_depth_dose.png, results/slab_6MeV_photons_slices.png
   numbers:    results/slab_6MeV_photons_summary.json (histories/s, energy balance, uncertainty),
               results/slab_6MeV_photons_depth_dose.csv, results/slab_6MeV_photons.h5 (HDF5)
   next:       build/release/app/mcdose validate --quick   (the dose against PENELOPE, minutes)
               docs/getting-started.md (what each file is, how to write your own study)
EOF
    ;;
  bundle)
    arch_opt=()
    [ -z "${MCDOSE_CUDA_ARCHITECTURES:-}" ] ||
      arch_opt=(-DCMAKE_CUDA_ARCHITECTURES="$MCDOSE_CUDA_ARCHITECTURES")
    cmake --preset cuda-release -DMCDOSE_BUILD_TESTS=ON -DMCDOSE_INSTALL_TESTS=ON "${arch_opt[@]}"
    cmake --build --preset cuda-release -j "$jobs"
    rm -rf bundle && cmake --install build/cuda-release --prefix bundle --strip
    (cd build/cuda-release && cpack -G TGZ >/dev/null && ls -l ./*.tar.gz)
    du -sh bundle
    ;;
  *) echo "usage: $0 run|test|bundle" >&2; exit 2 ;;
esac

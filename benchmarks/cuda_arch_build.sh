#!/usr/bin/env bash
# Build time and object size of the transport-kernel translation units (one per precision and
# tally method: transport/engine/TransportKernelInstance.cu compiled for each) for each choice of CUDA
# architectures, and whether the sm_90 machine code of a fat build is the same as
# that of an sm_90-only build (if it is, an H100/H200 runs identical code from
# either binary, so the fat binary costs it nothing at run time).
#
#   benchmarks/cuda_arch_build.sh [--choice NAME=LIST]... [--out DIR] [--release|--ci]
#
#   NAME=LIST  a CMake CUDA_ARCHITECTURES list, e.g. sm90=90 or
#              fat="80-real;86-real;89-real;90-real;100-real;120" (the default build).
#              Default: the two of those. "native" is resolved with nvidia-smi.
#   --release  compile as the default Release build (-O3, contracts off; default)
#   --ci       compile as the ci preset (-O2 -g, MCDOSE_DEBUG contracts on)
#   --out DIR  where objects and results go (default: $OUT if set, else build/cuda_arch_build)
#
# Needs only nvcc (CUDA 13), a host C++ compiler and the Random123 headers (header-only;
# the kernels include Random123/philox.h): found in /usr/include, else in
# $RANDOM123_INCLUDE, else in .deps/include of the repository (copy /usr/include/Random123
# there on a machine without the Debian package). Everything else the kernel TUs include is
# the repository, the C/C++ standard library and the CUDA toolkit. The TUs compile in
# parallel (at most JOBS at once; default all), as `make -j` does; each nvcc uses --threads 0 (one thread per architecture) when
# it builds several, as CMakeLists.txt does. Prints a Markdown table; writes it to
# DIR/cuda_arch_build.md with the per-choice logs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/build/cuda_arch_build}
mode=release
choices=()
while [ $# -gt 0 ]; do
  case "$1" in
    --choice) choices+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --release) mode=release; shift ;;
    --ci) mode=ci; shift ;;
    -h|--help) sed -n 2,27p "$0"; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#choices[@]} -gt 0 ] || choices=("sm90=90" "fat=80-real;86-real;89-real;90-real;100-real;120")
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "nvcc not found (CUDA toolkit)" >&2; exit 1; }

r123=""
for d in /usr/include "${RANDOM123_INCLUDE:-}" "$root/.deps/include"; do
  [ -n "$d" ] && [ -f "$d/Random123/philox.h" ] && { r123=$d; break; }
done

[ -n "$r123" ] || { echo "Random123 headers not found: copy /usr/include/Random123 to $root/.deps/include/ (or set RANDOM123_INCLUDE)" >&2; exit 1; }

r123_flag=(); [ "$r123" = /usr/include ] || r123_flag=(-isystem "$r123")
mkdir -p "$out/generated/core"
# core/Config.hh as CMake generates it for a CUDA build (MPI does not reach the kernels).
debug=0; opt=(-O3 -DNDEBUG)
[ "$mode" = ci ] && { debug=1; opt=(-O2 -g -DNDEBUG); }
sed -e "s/@MCDOSE_USE_CUDA_01@/1/" -e "s/@MCDOSE_DEBUG_01@/$debug/" \
    -e "s/@MCDOSE_DEBUG_SYNC_01@/0/" -e "s/@MCDOSE_USE_MPI_01@/0/" \
    "$root/core/Config.hh.in" > "$out/generated/core/Config.hh"

# CMake list -> nvcc --generate-code flags (the same mapping CMake applies).
gencode() {
  local list=$1 flags=() n=0 a num
  if [ "$list" = native ]; then
    list=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d . | sort -u | sed 's/$/-real/' | paste -sd';')
  fi
  IFS=';' read -ra items <<< "$list"
  for a in "${items[@]}"; do
    num=${a%%-*}
    case "$a" in
      *-real) flags+=("--generate-code=arch=compute_$num,code=[sm_$num]") ;;
      *-virtual) flags+=("--generate-code=arch=compute_$num,code=[compute_$num]") ;;
      *) flags+=("--generate-code=arch=compute_$num,code=[compute_$num,sm_$num]") ;;
    esac
    n=$((n + 1))
  done
  [ $n -gt 1 ] && flags+=(--threads 0)
  echo "${flags[@]}"
}

# The translation units: the kernels of each precision and tally method, written as
# transport/CMakeLists.txt writes them (KERNEL_TUS overrides with paths in the repository,
# e.g. core/ArchProbe.cu to try the script).
if [ -n "${KERNEL_TUS:-}" ]; then
  read -ra tu_paths <<< "$KERNEL_TUS"
  for i in "${!tu_paths[@]}"; do tu_paths[$i]=$root/${tu_paths[$i]}; done
else
  tu_paths=()
  mkdir -p "$out/generated/transport/instances"
  for real in float double; do
    for policy in Fa Cas Wag Kas Hb Wib Fx; do
      f=$out/generated/transport/instances/TransportKernel_${real}_${policy}.cu
      printf '#define MCDOSE_TRANSPORT_REAL %s\n#define MCDOSE_TRANSPORT_POLICY %sPolicy\n#include "transport/engine/TransportKernelInstance.cu"\n' \
        "$real" "$policy" > "$f"
      tu_paths+=("$f")
    done
  done
fi
tus=(); for t in "${tu_paths[@]}"; do tus+=("$(basename "$t" .cu)"); done
# At most JOBS translation units at once (default: all, as `make -j` with enough cores).
max_jobs=${JOBS:-${#tus[@]}}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
nvcc_version=$(nvcc --version | tail -1)
cores=$(nproc)
table="$out/cuda_arch_build.md"
{
  printf '| choice | CMAKE_CUDA_ARCHITECTURES |'; for t in "${tus[@]}"; do printf ' %s [s] |' "$t"; done
  printf ' all in parallel [s] |'; for t in "${tus[@]}"; do printf ' %s object [MB] |' "$t"; done; echo
  printf '|---|---|'; for t in "${tus[@]}"; do printf -- '---|---|'; done; echo '---|' 
} > "$table"
for c in "${choices[@]}"; do
  name=${c%%=*}; list=${c#*=}
  flags=$(gencode "$list")
  rm -rf "${out:?}/$name"; mkdir -p "$out/$name"
  echo "== $name: $list ($mode flags; $flags)" >&2
  start=$(date +%s.%N)
  for i in "${!tus[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do wait -n; done
    (
      t=${tus[$i]}; mkdir -p "$out/$name/keep_$t"; s=$(date +%s.%N)
      # shellcheck disable=SC2086
      nvcc -forward-unknown-to-host-compiler -I"$root" -I"$out/generated" "${r123_flag[@]}" \
        --expt-relaxed-constexpr -Xcudafe --diag_suppress=esa_on_defaulted_function_ignored \
        -lineinfo --compress-mode=size "${opt[@]}" $flags --keep --keep-dir "$out/$name/keep_$t" -Xcompiler=-fPIC -std=c++17 -x cu -c \
        "${tu_paths[$i]}" -o "$out/$name/$t.o" \
        > "$out/$name/$t.log" 2>&1 || { echo "FAILED: see $out/$name/$t.log" >&2; exit 1; }
      elapsed "$s" "$(date +%s.%N)" > "$out/$name/$t.seconds"
    ) &
  done
  wait
  for t in "${tus[@]}"; do [ -f "$out/$name/$t.seconds" ] || exit 1; done
  all=$(elapsed "$start" "$(date +%s.%N)")
  row="| $name | \`$list\` |"
  for t in "${tus[@]}"; do row+=" $(cat "$out/$name/$t.seconds") |"; done
  row+=" $all |"
  for t in "${tus[@]}"; do
    row+=" $(awk -v b="$(stat -c %s "$out/$name/$t.o")" 'BEGIN { printf "%.2f", b / 1e6 }') |"
  done
  echo "$row" >> "$table"
  echo "$row" >> "$out/all_rows.md"
  sum=$(awk '{ s += $1 } END { printf "%.1f", s }' "$out/$name"/*.seconds)
  mb=$(for t in "${tus[@]}"; do stat -c %s "$out/$name/$t.o"; done | awk '{ s += $1 } END { printf "%.2f", s / 1e6 }')
  echo "$name: ${#tus[@]} translation units, $all s wall at most $max_jobs at once, $sum s summed over them, $mb MB of objects" | tee -a "$out/summary.txt"
done

# Is the sm_90 machine code the same in every choice that builds it? nvcc --keep leaves each
# architecture's cubin (ELF) in the keep folder; keep the sm_90 one and compare them byte for
# byte across every choice measured into this --out folder (this call's and earlier calls').
for c in "${choices[@]}"; do
  name=${c%%=*}
  for t in "${tus[@]}"; do
    f=$(ls "$out/$name/keep_$t"/*.compute_90.cubin "$out/$name/keep_$t"/*sm_90.cubin 2>/dev/null | head -1 || true)
    [ -z "$f" ] || cp "$f" "$out/$name/$t.sm_90.cubin"
    ls "$out/$name/keep_$t"/*.cubin 2>/dev/null | xargs -rn1 basename > "$out/$name/$t.cubins.txt"
  done
  rm -rf "$out/$name"/keep_*
done
same=""
for t in "${tus[@]}"; do
  line="$t sm_90 cubin sha256:"
  for f in "$out"/*/"$t".sm_90.cubin; do
    [ -f "$f" ] || continue
    line+=" $(basename "$(dirname "$f")") $(sha256sum "$f" | cut -c1-16) ($(stat -c %s "$f") B);"
  done
  same+="$line"$'\n'
done
{
  echo
  echo "nvcc: $nvcc_version; host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')); flags: $mode; $(date -u +%Y-%m-%d)"
  echo
  echo '```'
  printf '%s' "$same"
  echo '```'
} >> "$table"
cat "$table"

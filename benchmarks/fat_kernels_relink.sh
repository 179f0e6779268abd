#!/usr/bin/env bash
# An mcdose executable whose transport kernels (one translation unit per precision and tally
# method: nearly all of the GPU code) are compiled for another CUDA architecture list, everything else
# taken from an existing build. It answers "does the fat binary cost an H100 anything at run
# time?" without a second full build: time ARCHER test 2 with both executables on one GPU.
#
#   benchmarks/fat_kernels_relink.sh BUILD_DIR OUT_EXE [ARCH_LIST]
#
#   BUILD_DIR  a configured and built CUDA build (e.g. build/cuda-release with
#              CMAKE_CUDA_ARCHITECTURES=90), whose compile_commands.json gives the kernels' flags
#   OUT_EXE    the executable to write
#   ARCH_LIST  a CMake CUDA_ARCHITECTURES list (default: the default build's fat list
#              "80-real;86-real;89-real;90-real;100-real;120")
#
# The kernels are compiled with BUILD_DIR's flags, only the --generate-code flags replaced (and
# --threads 0, as CMakeLists.txt adds for several architectures); a copy of BUILD_DIR's
# transport library gets them in place of its own; mcdose is linked with BUILD_DIR's link line.
# The kernels are not separately compiled (CUDA_SEPARABLE_COMPILATION OFF), so no device link.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(realpath -m "$2")
list=${3:-"80-real;86-real;89-real;90-real;100-real;120"}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gencode=()
IFS=';' read -ra items <<< "$list"
for a in "${items[@]}"; do
  num=${a%%-*}
  case "$a" in
    *-real) gencode+=("--generate-code=arch=compute_$num,code=[sm_$num]") ;;
    *-virtual) gencode+=("--generate-code=arch=compute_$num,code=[compute_$num]") ;;
    *) gencode+=("--generate-code=arch=compute_$num,code=[compute_$num,sm_$num]") ;;
  esac
done
[ ${#items[@]} -gt 1 ] && gencode+=(--threads 0)

# The kernel compile commands (one per precision and tally method), with their directory,
# from compile_commands.json.
python3 - "$build/compile_commands.json" "$work" "${gencode[*]}" <<'PY'
import json, re, shlex, sys
db, work, gencode = sys.argv[1], sys.argv[2], sys.argv[3]
for e in json.load(open(db)):
    name = e["file"].rsplit("/", 1)[-1]
    if not re.fullmatch(r"TransportKernel_(float|double)_[A-Za-z]+\.cu", name):
        continue
    cmd = re.sub(r"--generate-code=\S+|--threads \d+", "", e["command"])
    cmd = re.sub(r" -o \S+", " -o " + shlex.quote(f"{work}/{name}.o"), cmd)
    cmd = cmd.replace(" -x cu ", " " + gencode + " -x cu ", 1)
    with open(f"{work}/{name}.sh", "w") as f:
        f.write(f"cd {shlex.quote(e['directory'])} && {cmd}\n")
PY
ls "$work"/*.sh >/dev/null
start=$(date +%s)
for s in "$work"/*.sh; do bash "$s" > "$s.log" 2>&1 & done
wait
for s in "$work"/*.sh; do
  [ -f "${s%.sh}.o" ] || { cat "$s.log" >&2; echo "kernel compile failed: $s" >&2; exit 1; }
done
echo "kernels compiled for $list in $(( $(date +%s) - start )) s"

lib=$(find "$build/transport" -maxdepth 1 -name 'libmcdose_transport.a' | head -1)
cp "$lib" "$work/libmcdose_transport.a"
for o in "$work"/TransportKernel_*.cu.o; do
  t=$(basename "$o" .cu.o)
  member=$(ar t "$lib" | grep -x "$t.cu.o")
  cp "$work/$t.cu.o" "$work/$member"
  (cd "$work" && ar r libmcdose_transport.a "$member")
done

link=$(cat "$build/app/CMakeFiles/mcdose.dir/link.txt")
link=${link//"../transport/libmcdose_transport.a"/"$work/libmcdose_transport.a"}
link=$(sed -E "s# -o [^ ]+# -o $out#" <<< "$link")
(cd "$build/app" && eval "$link")
echo "wrote $out"
cuobjdump --list-elf "$out" | sed -n 's/.*\.\(sm_[0-9]*\)\..*/\1/p' | sort | uniq -c

#!/usr/bin/env bash
# Layering check (a ctest in the `unit` label, so CI runs it); ARCHITECTURE.md draws the layers.
#
#   core <- {rng, io} <- {tally, phantoms} <- sources <- transport <- study <- validation <- app
#   dose/ on {tally, phantoms, io}, below study/
#   benchmarks/ at the top, beside app/: it may include anything below app/
#
# A file may include only headers of its own unit or of the units listed for it. Sub-folders
# are units too, ordered inside their layer (no circles inside a layer); a `detail/` folder
# belongs to its parent. Nothing reached from a `.cu` includes io/ (transport/ never does).
# Also: no raw CUDA annotations outside core/Macros.hh.
#
# Third-party headers stay behind their adapters, in the source folders and benchmarks/ (test/
# may include them: its tests read files back with the libraries themselves):
# - HDF5's (hdf5.h, H5*.h) and GDCM's (gdcm*.h) only in io/ (io/Hdf5File.hh,
#   io/DicomDataSet.hh and io/RtStructFile.cc are their adapters);
# - xraylib's (xraylib*.h) only in transport/physics/ (the physics tables) and
#   phantoms/materials/ (the element data, below transport/).
# ITK's headers are not checked here (today io/ alone includes them too).
#
# Usage: check_layering.sh [ROOT]   (exit 1 and a list of violations if any)
set -u
root=${1:-$(dirname "$0")/..}
exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
# unit -> units it may include (besides itself). Keep the lists transitive.
BELOW = {
    "core": [],
    "rng": ["core"],
    "rng/quality": ["core", "rng"],
    "rng/bench": ["core", "rng"],
    "io": ["core"],
    "tally/accum": ["core"],
    "tally": ["core", "rng", "tally/accum"],
    "tally/bench": ["core", "rng", "tally/accum", "tally"],
    "phantoms/materials": ["core"],
    "phantoms": ["core", "rng", "io", "phantoms/materials"],
    "sources": ["core", "rng", "io", "tally", "tally/accum", "phantoms", "phantoms/materials"],
    # transport/ sees no files (no io/): its kernels are built from it.
    "transport": ["core", "rng", "tally", "tally/accum", "phantoms", "phantoms/materials",
                  "sources"],
    "transport/geometry": ["core", "rng", "transport"],
    "transport/interactors": ["core", "rng", "transport", "transport/geometry"],
    "transport/physics": ["core", "rng", "phantoms/materials", "transport",
                          "transport/geometry", "transport/interactors"],
    "transport/engine": ["core", "rng", "tally", "tally/accum", "phantoms", "phantoms/materials",
                         "sources", "transport", "transport/geometry", "transport/interactors",
                         "transport/physics"],
    "dose": ["core", "rng", "io", "tally", "tally/accum", "phantoms", "phantoms/materials"],
}
lower_than_study = ["core", "rng", "rng/quality", "rng/bench", "io", "tally", "tally/accum",
                    "tally/bench", "phantoms", "phantoms/materials", "sources", "transport",
                    "transport/geometry", "transport/interactors", "transport/physics",
                    "transport/engine", "dose"]
BELOW["study"] = lower_than_study
BELOW["validation"] = lower_than_study + ["study"]
BELOW["validation/crosscheck"] = BELOW["validation"] + ["validation"]
BELOW["validation/archer_tests"] = BELOW["validation"] + ["validation"]
BELOW["app"] = BELOW["validation"] + ["validation", "validation/crosscheck",
                                      "validation/archer_tests"]
BELOW["benchmarks"] = list(BELOW["app"])
UNITS = sorted(BELOW, key=len, reverse=True)


def unit_of(path):
    """The deepest unit containing `path` (a `detail/` folder belongs to its parent)."""
    path = path.replace("/detail/", "/")
    for u in UNITS:
        if path.startswith(u + "/"):
            return u
    return None


include = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]')
# Third-party headers (by file name) and the units that may include them.
THIRD_PARTY = [
    ("an HDF5 header", re.compile(r"^(hdf5(_hl)?|H5\w*)\.h$"), ["io"]),
    ("a GDCM header", re.compile(r"^gdcm\w*\.h$"), ["io"]),
    ("an xraylib header", re.compile(r"^xraylib[\w-]*\.h$"),
     ["transport/physics", "phantoms/materials"]),
]
# Every source file once: its lines and the project files it includes.
texts, graph = {}, {}
for top in sorted({u.split("/")[0] for u in BELOW}) + ["test"]:
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for name in sorted(names):
            if not name.endswith((".hh", ".cc", ".cu", ".h", ".in")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                texts[rel] = f.read().splitlines()
            here = os.path.dirname(rel)
            graph[rel] = [i if os.path.exists(os.path.join(root, i)) else
                          os.path.normpath(os.path.join(here, i))
                          for i in (m.group(1) for m in map(include.match, texts[rel]) if m)]

problems = []
for rel, lines in texts.items():
    mine = unit_of(rel)
    if mine is None:  # test/: only the kernel rule below applies
        continue
    for lineno, line in enumerate(lines, 1):
        m = include.match(line)
        theirs = unit_of(m.group(1)) if m else None
        if theirs is not None and theirs != mine and theirs not in BELOW[mine]:
            problems.append(f"{rel}:{lineno}: {mine}/ includes {m.group(1)} "
                            f"({theirs}/ is not below {mine}/)")
        for what, name, allowed in THIRD_PARTY if m else []:
            if name.match(os.path.basename(m.group(1))) and mine not in allowed:
                problems.append(f"{rel}:{lineno}: {mine}/ includes {what}, {m.group(1)} "
                                f"(only {', '.join(u + '/' for u in allowed)} may: use its "
                                "adapter)")
        if rel != os.path.join("core", "Macros.hh") and \
                re.search(r"__CUDA_ARCH__|__host__\s+__device__", line):
            problems.append(f"{rel}:{lineno}: raw CUDA annotation outside core/Macros.hh "
                            "(use MCDOSE_FUNCTION / MCDOSE_DEVICE_COMPILE)")

# Nothing reached from a .cu includes io/ (files never see kernels), whatever its layer.
for cu in sorted(f for f in graph if f.endswith(".cu")):
    seen, stack = set(), [(cu, [cu])]
    while stack:
        f, chain = stack.pop()
        for i in graph.get(f, []):
            if i in seen or i not in graph:
                continue
            seen.add(i)
            if i.startswith("io/"):
                problems.append(f"{cu}: a kernel source reaches io/: {' -> '.join(chain + [i])}")
            else:
                stack.append((i, chain + [i]))

if problems:
    print("layering violations (see scripts/check_layering.sh for the rule):")
    print("\n".join(problems))
    sys.exit(1)
print("layering OK")
PY

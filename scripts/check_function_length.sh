#!/usr/bin/env bash
# Function-length check (a ctest in the `unit` label, next to the layering check).
#
# A function longer than MAX_LINES lines (default 120, from its first to its last line,
# lambdas included) does several things; split it into named steps. test/ is not checked.
# Universal Ctags (Debian package universal-ctags, installed by scripts/bootstrap.sh) finds
# the functions and their end lines. The source folders and benchmarks/ are checked.
#
# Usage: check_function_length.sh [ROOT [MAX_LINES]]   (exit 1 and a list if any is longer)
set -u
root=${1:-$(dirname "$0")/..}
max_lines=${2:-120}
folders="core rng io tally phantoms sources transport dose study validation app benchmarks"

if ! command -v ctags > /dev/null || ! ctags --version 2> /dev/null | grep -q "Universal Ctags"; then
    echo "check_function_length.sh: needs Universal Ctags (apt-get install universal-ctags)" >&2
    exit 2
fi
cd "$root" || exit 2
existing=()
for f in $folders; do
    [ -d "$f" ] && existing+=("$f")
done
# Headers, sources and kernels all parse as C++ (CUDA's launch syntax is not in a function
# body's line count); `end` needs the `e` field.
files=$(find "${existing[@]}" -type f \( -name '*.hh' -o -name '*.h' -o -name '*.cc' \
                                        -o -name '*.cu' \) | sort)
[ -n "$files" ] || { echo "function length OK (no sources)"; exit 0; }
echo "$files" | ctags --language-force=C++ --kinds-C++=f --fields=+ne --output-format=json \
                      --sort=no -L - -o - | python3 -c '
import json, re, sys
max_lines = int(sys.argv[1])
long = []
for line in sys.stdin:
    tag = json.loads(line)
    if tag.get("_type") != "tag" or "end" not in tag:
        continue
    n = tag["end"] - tag["line"] + 1
    if n > max_lines:
        name = tag["name"]
        scope = re.sub(r"__anon[0-9a-f]+", "(anonymous)", tag.get("scope", ""))
        if name.startswith("__anon"):  # ctags names lambdas __anon<hash>
            where = "a lambda in " + (scope or "file scope")
        else:
            where = scope + "::" + name if scope else name
        long.append((tag["path"], tag["line"], n, where))
if long:
    print(f"functions longer than {max_lines} lines (split them into named steps):")
    for path, line, n, where in sorted(long):
        print(f"{path}:{line}: {where}: {n} lines")
    sys.exit(1)
print(f"function length OK (none over {max_lines} lines)")
' "$max_lines"

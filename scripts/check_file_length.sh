#!/usr/bin/env bash
# File-length check (a ctest in the `unit` label, next to the function-length check).
#
# A source file (.cc, .hh, .cu, .h) of the source folders or benchmarks/ longer than
# MAX_LINES lines (default 800) holds several things: split it into files of one concern
# each. A file that is long for a reason says so in its header comment (the comment block it
# starts with): a line starting with `Length:` and the reason, e.g.
#   //! Length: one class template whose methods share its private state (...).
# test/ is not checked.
#
# Usage: check_file_length.sh [ROOT [MAX_LINES]]   (exit 1 and a list if any is longer)
set -u
root=${1:-$(dirname "$0")/..}
max_lines=${2:-800}
folders="core rng io tally phantoms sources transport dose study validation app benchmarks"
cd "$root" || exit 2
existing=()
for f in $folders; do
    [ -d "$f" ] && existing+=("$f")
done
[ ${#existing[@]} -gt 0 ] || { echo "file length OK (no sources)"; exit 0; }
find "${existing[@]}" -type f \( -name '*.hh' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' \) |
    sort | python3 -c '
import re, sys
max_lines = int(sys.argv[1])


def length_reason(lines):
    """The reason given by a `Length:` line of the leading comment block, or None."""
    in_block = False
    for line in lines:
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            body = text.split("*/")[0]
        elif text.startswith("//"):
            body = text
        elif text.startswith("/*"):
            in_block = "*/" not in text[2:]
            body = text.split("*/")[0] if not in_block else text
        elif not text:
            continue
        else:
            return None  # the first line of code: the header comment is over
        body = re.sub(r"^(//[/!]?|/\*[*!]?|\*)\s*", "", body)
        if re.match(r"Length:\s*\S", body):
            return body
    return None


long = []
for path in (p.rstrip("\n") for p in sys.stdin):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if len(lines) > max_lines and length_reason(lines) is None:
        long.append((path, len(lines)))
if long:
    print(f"files longer than {max_lines} lines without a `Length:` reason in their header "
          "comment (split them into files of one concern each, or give the reason):")
    for path, n in long:
        print(f"{path}: {n} lines")
    sys.exit(1)
print(f"file length OK (none over {max_lines} lines without a reason)")
' "$max_lines"

#!/usr/bin/env bash
# The docs check must fail on a planted lettered host label and on a planted commit list outside
# docs/history/, naming the file, and pass on the docs as they are, on the same plants inside
# docs/history/, and on what the rules allow (one commit per line, a hex constant, a C++ host
# compiler). The labels are assembled at run time so that this file passes the check itself.
# Usage: docs_plant.sh SOURCE_ROOT
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/docs" "$tmp/docs"
cp "$src/README.md" "$src/ARCHITECTURE.md" "$tmp/"
check="$src/scripts/check_docs.sh"
"$check" "$tmp" >/dev/null || { echo "FAIL: the unplanted copy does not pass"; "$check" "$tmp"; exit 1; }

word=host
h=$(printf '%s' "$word")
label=$(printf 'B%s' E)

expect_failure() {  # expect_failure FILE LINE WHAT
  cp "$tmp/$1" "$tmp/$1.orig"
  printf '%s\n' "$2" >>"$tmp/$1"
  if out=$("$check" "$tmp"); then
    echo "FAIL: $3 was not caught"; exit 1
  fi
  grep -q "^$1:" <<<"$out" || { echo "FAIL: $3: the message does not name $1"; echo "$out"; exit 1; }
  mv "$tmp/$1.orig" "$tmp/$1"
  echo "caught: $3"
}
expect_pass() {  # expect_pass FILE LINE WHAT
  cp "$tmp/$1" "$tmp/$1.orig"
  printf '%s\n' "$2" >>"$tmp/$1"
  out=$("$check" "$tmp") || { echo "FAIL: $3 was refused"; echo "$out"; exit 1; }
  mv "$tmp/$1.orig" "$tmp/$1"
  echo "passed: $3"
}

expect_failure docs/performance.md "Measured on the H200 $h $label (1.2 s)." "a lettered host label"
expect_failure docs/tally.md "On ${h}s $label and BF the fold took 3 ms." "a plural host label"
expect_failure docs/physics.md "$(printf 'The H100 %s\nAJ ran it.' "$h")" "a host label across a line end"
expect_failure docs/study.schema.json "Measured on H200 $h AJ." "a host label in a file other than Markdown"
expect_failure docs/performance.md "Builds 1f3b6b9, 2e4322a and 275ac2b were compared." "a commit list"
expect_failure docs/tally.md "| 0.324 | 1f3b6b9 | 5fe42df-dirty |" "a commit list in a table row"

expect_pass docs/history/benchmarks-2026.md "On the H200 $h $label: builds 1f3b6b9 and 2e4322a." \
  "the same plants in docs/history/"
expect_pass docs/performance.md "| ARCHER test 2 | 0.345 s | H100 | 2026-11-25 | 1f3b6b9 | mcdose |" \
  "one commit per row"
expect_pass docs/rng.md "The constants 0x9e3779b9 and 0x7f4a7c15, 1.161e10 and 3.2e-7." \
  "hex constants and numbers"
expect_pass docs/tally.md "SHA-256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of one file." \
  "a SHA-256 digest with one commit: 275ac2b"
expect_pass docs/getting-started.md "Needs a $h C++ compiler and the $h OS." "a host C++ compiler"

"$check" "$tmp" >/dev/null || { echo "FAIL: the restored copy does not pass"; exit 1; }
echo "11 passed, 0 failed"

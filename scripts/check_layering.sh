#!/usr/bin/env bash
# Layering: core <- rng <- {tally, phantoms} <- transport <- app.
# A lower layer never includes a higher one (validation/ and test/ may use all).
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
status=0
check() {  # check <dir> <forbidden regex>
  [ -d "$1" ] || return 0
  bad=$(grep -rEn "#include *[\"<]($2)/" "$1" 2>/dev/null)
  if [ -n "$bad" ]; then
    echo "layering violation: $1/ includes a higher layer:"; echo "$bad"; status=1
  fi
}
check core      "rng|tally|phantoms|transport|app|validation"
check rng       "tally|phantoms|transport|app|validation"
check tally     "phantoms|transport|app|validation"
check phantoms  "tally|transport|app|validation"
check transport "app|validation"
# No raw CUDA annotations outside the portability header.
raw=$(grep -rEn "__CUDA_ARCH__|__host__ +__device__" core rng tally phantoms transport app validation 2>/dev/null | grep -v "^core/Macros.hh:")
if [ -n "$raw" ]; then
  echo "raw CUDA macros outside core/Macros.hh (use MCDOSE_FUNCTION / MCDOSE_DEVICE_COMPILE):"; echo "$raw"; status=1
fi
[ $status -eq 0 ] && echo "layering OK"
exit $status

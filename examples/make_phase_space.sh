#!/usr/bin/env bash
# Make examples/phase_space_head.mcpl, the phase space examples/phase_space_water.json
# reads: run examples/phase_space_head.json (needs an mcdose built with MCPL) and keep
# the file it writes.
# Usage: examples/make_phase_space.sh [MCDOSE]   (default: build/ci/app/mcdose)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mcdose=${1:-$here/../build/ci/app/mcdose}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$mcdose" run "$here/phase_space_head.json" --backend cpu --output-dir "$out"
cp "$out/phase_space_head_phase_space.mcpl" "$here/phase_space_head.mcpl"
mcpltool -j "$here/phase_space_head.mcpl" 2>/dev/null || true

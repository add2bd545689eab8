#!/usr/bin/env bash
# Records the kernel symbols hipcc compiles from generated/hip/gfx1100: the
# list that runtime/bench/profile's TestIdentifyHipccNames maps back to
# forge's launchers (runtime/bench/profile/testdata/README.md).
#
#   scripts/hipcc-kernel-names.sh [OUT]
#
# OUT defaults to runtime/bench/profile/testdata/hipcc_gfx1100_kernels.txt.
# Needs hipcc (.ci/install-hipcc installs Debian's); compiles through
# .ci/hipcc-check, so the files must also pass its checks. CI runs the same
# compile in its hipcc step and points the test at the fresh list
# ($FORGE_HIPCC_KERNELS); run this after a new format, family or template
# change to bring the committed recording up to date.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/runtime/bench/profile/testdata/hipcc_gfx1100_kernels.txt}
syms=$(mktemp -d)
trap 'rm -rf "$syms"' EXIT
if ! HIPCC_CHECK_SYMBOLS=$syms bash "$root/.ci/hipcc-check" "$root/generated/hip" gfx1100 >"$syms/log" 2>&1; then
	cat "$syms/log" >&2
	exit 1
fi
grep "^== hipcc-check" "$syms/log" >&2
cp "$syms/gfx1100.txt" "$out"
echo "wrote $out: $(wc -l <"$out") kernels" >&2

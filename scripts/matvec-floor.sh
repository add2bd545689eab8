#!/bin/bash
# The floor of a rotated matvec at each format's bytes (docs/PERFORMANCE.md,
# "The floor"), on an NVIDIA GPU machine with nvcc (no Go needed): builds
# scripts/floor/floor.cu against generated/hip/sm_90/glue.hip (forge's x
# quantization) and prints, per format, what a bare read of its W
# (4096×14336) costs, alone and after the quantization.
#   OUT=/tmp/out bash scripts/matvec-floor.sh      # table in $OUT/floor.txt
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -arch=sm_90 -O3 -std=c++17 -x cu -o /tmp/forge-floor scripts/floor/floor.cu
# name, elements per block, bytes per block (specs/formats); W is 4096×14336.
args=()
while read -r name elems bytes; do
	args+=("$name:$((4096 * 14336 / elems * bytes))")
done <<'LIST'
F32 1 4
F16 1 2
Q4_0 32 18
Q4_1 32 20
Q5_0 32 22
Q5_1 32 24
Q8_0 32 34
Q2_K 256 84
Q3_K 256 110
Q5_K 256 176
Q6_K 256 210
Q8_K 256 292
IQ4_XS 256 136
TQ1_0 256 54
TQ2_0 256 66
Q1_0 128 18
Q2_0 64 18
MXFP6 32 25
LIST
/tmp/forge-floor "${args[@]}" | tee "$OUT/floor.txt"

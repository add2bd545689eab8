#!/bin/bash
# Capture forgebench profile's recordings on an NVIDIA GPU machine (H100) that
# has the CUDA toolkit (ncu, nsys) and no Go. Build forgebench on a Go
# machine first (it needs only libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
# then, in the repository root on the GPU machine, with the kernel library
# at build/libforge_sm_90.so (scripts/gpu-verify.sh builds it when missing):
#   OUT=/tmp/out bash scripts/gpu-profile.sh            # ncu and nsys
#   OUT=/tmp/out TOOLS=ncu bash scripts/gpu-profile.sh  # one tool
# Per tool it runs
#   forgebench profile --tool T --launches $LAUNCHES -- --backend cuda --lib L
#     --family dequant,matvec --format Q4_0,Q4_K,Q8_0
# and leaves in $OUT: <tool>_h100_dequant_matvec.csv (the tool's raw CSV:
# ncu's --log-file, nsys stats' cuda_gpu_kern_sum; commit them as
# runtime/bench/profile/testdata/, where the parser tests pick them up),
# <tool>_report.txt (forgebench's parsed table, the commands and exit
# status), <tool>_report.json, <tool>_run.json (the profiled run with the
# profile folded into its metrics) and <tool>_version.txt.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
L=$PWD/build/libforge_sm_90.so
[ -f "$L" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
FB=$PWD/out/forgebench
FILTER=(--backend cuda --lib "$L" --family dequant,matvec --format Q4_0,Q4_K,Q8_0)
for tool in ${TOOLS:-ncu nsys}; do
  t0=$(date +%s)
  dir=$(mktemp -d /tmp/forge-profile-$tool.XXXX)
  PATH=$PATH:/usr/local/cuda/bin "$tool" --version > "$OUT/${tool}_version.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version --format=csv >> "$OUT/${tool}_version.txt" 2>&1
  "$FB" profile --tool "$tool" --launches "${LAUNCHES:-10}" --out "$dir" --dry-run -- "${FILTER[@]}" > "$OUT/${tool}_report.txt" 2>&1
  "$FB" profile --tool "$tool" --launches "${LAUNCHES:-10}" --out "$dir" --json "$OUT/${tool}_report.json" -- "${FILTER[@]}" >> "$OUT/${tool}_report.txt" 2>&1
  echo "forgebench profile: exit $?, $(( $(date +%s) - t0 ))s" >> "$OUT/${tool}_report.txt"
  case $tool in
  ncu) cp "$dir/ncu.csv" "$OUT/ncu_h100_dequant_matvec.csv" ;;
  nsys) cp "$dir/nsys_cuda_gpu_kern_sum.csv" "$OUT/nsys_h100_dequant_matvec.csv" ;;
  esac
  cp "$dir/run-profiled.json" "$OUT/${tool}_run.json" 2>/dev/null
  rm -rf "$dir"
done
ls -l "$OUT"

#!/bin/bash
# The same-run table in one GPU call, as docs/PERFORMANCE.md records it:
# ggml's test-backend-ops builds in the background (scripts/llama-compare.sh
# build, ~190 s) while the kernel library builds (scripts/gpu-verify.sh)
# and the suites check it (CHECK, default 'MatMul|MatVec|Attention|Model',
# in at most CHECK_S seconds, default 150); then, once ggml has built (so
# that no timing runs beside the build: PyTorch's small products took up to
# 40% longer with it on the other cores), llama-compare.sh's forge, llama
# and compare steps.
# Build on a Go machine first (they need only libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
#   go test -c -o out/suites.test ./generated/suites
#   mkdir -p out/anchors && cp ../shared/anchors/ggml-*.tar.xz out/anchors/
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-table.sh
# MATMUL_TYPES, MATMUL_SHAPES, MATVEC_TYPES, MATVEC_SHAPES, COUNT and
# LAUNCHES are llama-compare.sh's (default here: every type test-backend-ops
# has, at 4096×14336 and 4096×4096, batch 16, 64 and 512, COUNT 5).
# MODEL=1 also runs the model suite afterwards (TTFT and decode:
# scripts/gpu-scenarios.sh model with COUNT=${MODEL_COUNT:-3}, at most
# MODEL_S seconds, default 150) into $OUT/model.
# Results in $OUT: llama-compare.sh's (compare.txt, compare.md,
# compare.json, ...), check.txt (the suites, with their exit status),
# times.txt (when each step ended) and ggml/ (the background build's log).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/ggml"
T0=$(date +%s)
stamp() { echo "$1 at $(( $(date +%s) - T0 ))s" >> "$OUT/times.txt"; }
export MATMUL_TYPES=${MATMUL_TYPES:-"f16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K mxfp4"}
export MATMUL_SHAPES=${MATMUL_SHAPES:-"4096x14336x16 4096x14336x64 4096x14336x512 4096x4096x16 4096x4096x64 4096x4096x512"}
export COUNT=${COUNT:-5}
# The background build leaves the kernel library to the foreground (its
# FORGE_LIB names a file that exists, so it builds none).
( setsid env FORGE_LIB=/bin/true OUT="$OUT/ggml" bash scripts/llama-compare.sh build > "$OUT/ggml/step.txt" 2>&1
  echo "exit $?" > "$OUT/ggml/done" ) &
SMOKE=0 OUT="$OUT" bash scripts/gpu-verify.sh > "$OUT/verify.txt" 2>&1
stamp library
timeout "${CHECK_S:-150}" ./out/suites.test -test.run "${CHECK:-MatMul|MatVec|Attention|Model}" -test.v -backend=cuda -lib="$PWD/build/libforge_sm_90.so" > "$OUT/check.txt" 2>&1
echo "suites.test: exit $?" >> "$OUT/check.txt"
stamp check
while [ ! -f "$OUT/ggml/done" ]; do sleep 2; done
stamp "ggml build ($(cat "$OUT/ggml/done"))"
for step in forge llama compare; do
  OUT="$OUT" bash scripts/llama-compare.sh $step > "$OUT/step_$step.txt" 2>&1
  stamp "$step (exit $?)"
done
if [ "${MODEL:-0}" = 1 ]; then
  OUT="$OUT/model" COUNT="${MODEL_COUNT:-3}" timeout "${MODEL_S:-150}" bash scripts/gpu-scenarios.sh model > "$OUT/model_log.txt" 2>&1
  stamp "model (exit $?)"
fi

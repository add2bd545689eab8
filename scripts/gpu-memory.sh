#!/bin/bash
# Run the memory suite (runtime/suite/memsuite: memory/kv_cache, memory/scratch,
# memory/allocator) on an NVIDIA GPU machine that has nvcc but no Go.
# Build the binaries on a Go machine first (they need only libc):
#   go test -c -o out/memsuite.test ./runtime/suite/memsuite
#   go build -o out/forgebench ./cmd/forgebench
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-memory.sh
# It builds build/libforge_sm_90.so with scripts/gpu-verify.sh when it is
# missing. Results: $OUT/memsuite_test.txt (TestGPU: the quick cases and the
# 1% agreement with the device's free-memory report), $OUT/memory.txt and
# $OUT/memory.json (forgebench run --suite memory: every case; COUNT sets
# --count, default 10).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
L=$PWD/build/libforge_sm_90.so
[ -f "$L" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
./out/memsuite.test -test.run 'TestGPU' -test.v -backend=cuda -lib=$L > $OUT/memsuite_test.txt 2>&1
echo "memsuite.test: exit $?" >> $OUT/memsuite_test.txt
./out/forgebench run --backend cuda --lib $L --suite memory --count ${COUNT:-10} --json $OUT/memory.json > $OUT/memory.txt 2>&1
echo "forgebench: exit $?" >> $OUT/memory.txt

#!/bin/bash
# Build the sm_90 kernel library with nvcc and run forge's GPU checks and
# benchmarks on it, on a GPU machine that has nvcc but no Go toolchain.
# Build the test binaries on a Go machine first (they need only libc):
#   go test -c -o out/suites.test ./generated/suites
#   go test -c -o out/gpubackend.test ./runtime/backend/gpu
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-verify.sh 'Dequant|Copy'
# Results: $OUT/{gpu,build,smoke,check,check_summary,bench}.txt. SMOKE=0 skips
# the correctness runs; BENCHTIME sets -test.benchtime (default 1s).
# (With Go on the GPU machine, docs/PERFORMANCE.md gives the plain commands.)
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p $OUT /tmp/obj build
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv > $OUT/gpu.txt 2>&1
t0=$(date +%s)
ls generated/hip/sm_90/*.hip | xargs -P "$(nproc)" -I{} sh -c 'nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu -c {} -o /tmp/obj/$(basename {} .hip).o 2>&1 || echo "FAIL {}"' > $OUT/build.txt
nvcc -shared -o build/libforge_sm_90.so /tmp/obj/*.o >> $OUT/build.txt 2>&1
echo "build: $(( $(date +%s) - t0 ))s" >> $OUT/build.txt
L=$PWD/build/libforge_sm_90.so
if [ -n "${SMOKE:-1}" ] && [ "${SMOKE:-1}" != 0 ]; then
  FORGE_LIB=$L ./out/gpubackend.test -test.run 'TestLibrary$' -test.v > $OUT/smoke.txt 2>&1
  ./out/suites.test -test.run Dequant -test.v -backend=cuda -lib=$L > $OUT/check.txt 2>&1
  grep -E "^(--- |ok|FAIL|PASS)" $OUT/check.txt | sort | uniq -c | sort -rn | head > $OUT/check_summary.txt
fi
B=${1:-}
if [ -n "$B" ]; then
  ./out/suites.test -test.run '^$' -test.bench "$B" -test.benchtime ${BENCHTIME:-1s} -test.timeout 30m -backend=cuda -lib=$L > $OUT/bench.txt 2>&1
fi

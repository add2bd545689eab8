#!/bin/bash
# Check and time matmul's wgmma products on an NVIDIA Hopper machine that has
# nvcc and no Go: F16's (sm_90's default at every batch, and with it the
# quantized formats' route through f16) against the mma.sync path it
# replaced, and the experimental quantized product that dequantizes W
# inside the wgmma kernel (-DFORGE_MM_WGMMA_Q) against the route.
# Build the binaries on a Go machine first (they need only libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
#   go test -c -o out/suites.test ./generated/suites
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-wgmma.sh
# It builds build/libforge_sm_90.so (scripts/gpu-verify.sh: -arch=sm_90a,
# wgmma on) when it is missing, and two variants of it in /tmp/wgmma:
# libforge_sm_90_mma.so (f16_matmul.hip with -DFORGE_NO_MM_WGMMA) and
# libforge_sm_90_q.so (every quantized *_matmul.hip with -DFORGE_MM_WGMMA_Q)
# and libforge_sm_90_q1.so (the same from batch 1 on,
# -DFORGE_MM_WGMMA_Q_MIN_BATCH=1, against the integer path at 16 and 64;
# its F16 file is built with -DFORGE_MM_WGMMA_MIN_BATCH=1, the default
# since f7de532).
# Results in $OUT: wgmma_check.txt and q_check.txt (suites.test -test.run
# MatMul on the default and the _q library: every format's matmul against
# the float64 reference, at batch 70 and 512 among others), mma, wgmma and
# q .json/.txt (forgebench run --family matmul --weights reuse; F16 and the
# route's formats at 4096×14336 and 4096×4096, batch 128, 256 and 512),
# small and q1 .json/.txt (the default and _q1 libraries at batch 16 and
# 64). FORMATS, SHAPES and SMALL_SHAPES override what is timed.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/wgmma/q
W=$PWD/build/libforge_sm_90.so
[ -f "$W" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
[ -d /tmp/obj ] || { echo "gpu-wgmma: no /tmp/obj (scripts/gpu-verify.sh leaves the objects there)" >&2; exit 1; }
NV="nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu"
L=/tmp/wgmma/libforge_sm_90_mma.so
$NV -DFORGE_NO_MM_WGMMA -c generated/hip/sm_90/f16_matmul.hip -o /tmp/wgmma/f16_matmul.o > "$OUT/mma_build.txt" 2>&1 &&
  nvcc -shared -o $L $(ls /tmp/obj/*.o | grep -v '/f16_matmul.o$') /tmp/wgmma/f16_matmul.o >> "$OUT/mma_build.txt" 2>&1
echo "build: exit $?" >> "$OUT/mma_build.txt"
Q=/tmp/wgmma/libforge_sm_90_q.so
ls generated/hip/sm_90/*_matmul.hip | grep -v '/f16_matmul.hip$' | xargs -P "$(nproc)" -I{} sh -c \
  "$NV -DFORGE_MM_WGMMA_Q -c {} -o /tmp/wgmma/q/\$(basename {} .hip).o 2>&1 || echo FAIL {}" > "$OUT/q_build.txt"
nvcc -shared -o $Q $(ls /tmp/obj/*.o | grep -v '_matmul.o$') /tmp/obj/f16_matmul.o /tmp/wgmma/q/*.o >> "$OUT/q_build.txt" 2>&1
echo "build: exit $?" >> "$OUT/q_build.txt"
Q1=/tmp/wgmma/libforge_sm_90_q1.so; mkdir -p /tmp/wgmma/q1
ls generated/hip/sm_90/*_matmul.hip | grep -v '/f16_matmul.hip$' | xargs -P "$(nproc)" -I{} sh -c \
  "$NV -DFORGE_MM_WGMMA_Q -DFORGE_MM_WGMMA_Q_MIN_BATCH=1 -c {} -o /tmp/wgmma/q1/\$(basename {} .hip).o 2>&1 || echo FAIL {}" > "$OUT/q1_build.txt"
$NV -DFORGE_MM_WGMMA_MIN_BATCH=1 -c generated/hip/sm_90/f16_matmul.hip -o /tmp/wgmma/q1/f16_matmul.o >> "$OUT/q1_build.txt" 2>&1
nvcc -shared -o $Q1 $(ls /tmp/obj/*.o | grep -v '_matmul.o$') /tmp/wgmma/q1/*.o >> "$OUT/q1_build.txt" 2>&1
echo "build: exit $?" >> "$OUT/q1_build.txt"
./out/suites.test -test.run MatMul -test.v -backend=cuda -lib=$W > "$OUT/wgmma_check.txt" 2>&1
echo "suites.test: exit $?" >> "$OUT/wgmma_check.txt"
[ -f $Q ] && { ./out/suites.test -test.run MatMul -test.v -backend=cuda -lib=$Q > "$OUT/q_check.txt" 2>&1; echo "suites.test: exit $?" >> "$OUT/q_check.txt"; }
[ -f $Q1 ] && { ./out/suites.test -test.run MatMul -test.v -backend=cuda -lib=$Q1 > "$OUT/q1_check.txt" 2>&1; echo "suites.test: exit $?" >> "$OUT/q1_check.txt"; }
FORMATS=${FORMATS:-F16,Q4_0,Q8_0,Q4_K,Q6_K}
SHAPES=${SHAPES:-4096x14336x128,4096x14336x256,4096x14336x512,4096x4096x512}
for v in mma wgmma q; do
  lib=$W; [ $v = mma ] && lib=$L; [ $v = q ] && lib=$Q
  [ -f $lib ] || continue
  ./out/forgebench run --backend cuda --lib $lib --family matmul --format "$FORMATS" --shape "$SHAPES" \
    --weights reuse --count 5 --launches-per-sample 20 --json "$OUT/$v.json" > "$OUT/$v.txt" 2>&1
done
SMALL_SHAPES=${SMALL_SHAPES:-4096x14336x16,4096x14336x64,4096x4096x16,4096x4096x64}
for v in small q1; do
  lib=$W; [ $v = q1 ] && lib=$Q1
  [ -f $lib ] || continue
  ./out/forgebench run --backend cuda --lib $lib --family matmul --format "$FORMATS" --shape "$SMALL_SHAPES" \
    --weights reuse --count 5 --launches-per-sample 20 --json "$OUT/$v.json" > "$OUT/$v.txt" 2>&1
done

#!/bin/bash
# Check and time matmul's wgmma products on an NVIDIA Hopper machine that has
# nvcc and no Go: F16's (sm_90's default at every batch, and with it the
# quantized formats' route through f16, fed by TMA) against its variants,
# each f16_matmul.hip built once more with a knob:
#   mma      -DFORGE_NO_MM_WGMMA          the mma.sync path wgmma replaced
#   cpasync  -DFORGE_MM_WGMMA_TMA=0       wgmma staged by cp.async (TMA's fallback)
#   cl2      -DFORGE_MM_WGMMA_CLUSTER=2   TMA in clusters of two sharing X's copies (experimental)
#   pdl      -DFORGE_MM_WGMMA_PDL=1       TMA as the dependent launch of X's conversion (experimental)
#   pdlc     -DFORGE_MM_WGMMA_PDL=2       the same, X published and copied a K chunk at a time
#   pdlc8    pdlc with units of 128 vectors (eight loads a thread) and FORGE_MM_XH_CARVEOUT=1
#   carve    -DFORGE_MM_XH_CARVEOUT=1     the default, X's conversion keeping the SMs' shared memory at its largest
# and, with Q=1, the experimental quantized product that dequantizes W
# inside the wgmma kernel (-DFORGE_MM_WGMMA_Q: every quantized *_matmul.hip,
# libforge_sm_90_q.so; from batch 1 with -DFORGE_MM_WGMMA_Q_MIN_BATCH=1,
# libforge_sm_90_q1.so) against the route and the integer path.
# Build the binaries on a Go machine first (they need only libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
#   go test -c -o out/suites.test ./generated/suites
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-wgmma.sh
# It builds build/libforge_sm_90.so (scripts/gpu-verify.sh: -arch=sm_90a)
# when it is missing and the variants in /tmp/wgmma (libforge_sm_90_<v>.so).
# VARIANTS (default "mma cpasync cl2 pdl") names the variants built and timed.
# Results in $OUT: <v>_build.txt; check.txt and <v>_check.txt
# (suites.test -test.run MatMul on the default and each variant, at most
# CHECK_S seconds each, default 120: a variant that hangs on the GPU is
# stopped and said so); wgmma and <v> .json/.txt (forgebench run --family
# matmul --weights reuse: FORMATS at SHAPES, default F16 and the route's
# Q4_0, Q8_0, Q4_K, Q6_K at 4096×14336 and 4096×4096, batch 128, 256 and
# 512), small and small_<v> .json/.txt (at SMALL_SHAPES, batch 16 and 64).
# A variant whose check failed is not timed.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/wgmma
W=$PWD/build/libforge_sm_90.so
[ -f "$W" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
[ -d /tmp/obj ] || { echo "gpu-wgmma: no /tmp/obj (scripts/gpu-verify.sh leaves the objects there)" >&2; exit 1; }
NV="nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu"
CHECK_S=${CHECK_S:-120}

# variant NAME FLAGS...: f16_matmul.hip with FLAGS, linked with the other objects.
variant() {
  local v=$1; shift
  mkdir -p /tmp/wgmma/$v
  { $NV "$@" -c generated/hip/sm_90/f16_matmul.hip -o /tmp/wgmma/$v/f16_matmul.o &&
    nvcc -shared -o /tmp/wgmma/libforge_sm_90_$v.so $(ls /tmp/obj/*.o | grep -v '/f16_matmul.o$') /tmp/wgmma/$v/f16_matmul.o
    echo "build: exit $?"; } > "$OUT/${v}_build.txt" 2>&1
}
VARIANTS=" ${VARIANTS:-mma cpasync cl2 pdl} "
want() { [[ "$VARIANTS" == *" $1 "* ]]; }
want mma && variant mma -DFORGE_NO_MM_WGMMA &
want cpasync && variant cpasync -DFORGE_MM_WGMMA_TMA=0 &
want cl2 && variant cl2 -DFORGE_MM_WGMMA_CLUSTER=2 &
want pdl && variant pdl -DFORGE_MM_WGMMA_PDL=1 &
want pdlc && variant pdlc -DFORGE_MM_WGMMA_PDL=2 &
want pdlc8 && variant pdlc8 -DFORGE_MM_WGMMA_PDL=2 -DFORGE_MM_XH_CHUNKS_VECS=128 -DFORGE_MM_XH_CARVEOUT=1 &
want carve && variant carve -DFORGE_MM_XH_CARVEOUT=1 &
if [ "${Q:-0}" = 1 ]; then
  mkdir -p /tmp/wgmma/q /tmp/wgmma/q1
  ls generated/hip/sm_90/*_matmul.hip | grep -v '/f16_matmul.hip$' | xargs -P "$(nproc)" -I{} sh -c \
    "$NV -DFORGE_MM_WGMMA_Q -c {} -o /tmp/wgmma/q/\$(basename {} .hip).o 2>&1 || echo FAIL {}" > "$OUT/q_build.txt"
  nvcc -shared -o /tmp/wgmma/libforge_sm_90_q.so $(ls /tmp/obj/*.o | grep -v '_matmul.o$') /tmp/obj/f16_matmul.o /tmp/wgmma/q/*.o >> "$OUT/q_build.txt" 2>&1
  echo "build: exit $?" >> "$OUT/q_build.txt"
  ls generated/hip/sm_90/*_matmul.hip | grep -v '/f16_matmul.hip$' | xargs -P "$(nproc)" -I{} sh -c \
    "$NV -DFORGE_MM_WGMMA_Q -DFORGE_MM_WGMMA_Q_MIN_BATCH=1 -c {} -o /tmp/wgmma/q1/\$(basename {} .hip).o 2>&1 || echo FAIL {}" > "$OUT/q1_build.txt"
  nvcc -shared -o /tmp/wgmma/libforge_sm_90_q1.so $(ls /tmp/obj/*.o | grep -v '_matmul.o$') /tmp/obj/f16_matmul.o /tmp/wgmma/q1/*.o >> "$OUT/q1_build.txt" 2>&1
  echo "build: exit $?" >> "$OUT/q1_build.txt"
fi
wait

# check NAME LIB: the MatMul suites on LIB, in a time limit.
check() {
  timeout "$CHECK_S" ./out/suites.test -test.run MatMul -test.v -backend=cuda -lib="$2" > "$OUT/$1.txt" 2>&1
  local rc=$?
  [ $rc = 124 ] && echo "suites.test: stopped after ${CHECK_S}s (a hang?)" >> "$OUT/$1.txt"
  echo "suites.test: exit $rc" >> "$OUT/$1.txt"
  return $rc
}
FORMATS=${FORMATS:-F16,Q4_0,Q8_0,Q4_K,Q6_K}
SHAPES=${SHAPES:-4096x14336x128,4096x14336x256,4096x14336x512,4096x4096x512}
SMALL_SHAPES=${SMALL_SHAPES:-4096x14336x16,4096x14336x64,4096x4096x16,4096x4096x64}
# timed NAME LIB SHAPES
timed() {
  ./out/forgebench run --backend cuda --lib "$2" --family matmul --format "$FORMATS" --shape "$3" \
    --weights reuse --count 5 --launches-per-sample 20 --json "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
}
check check "$W" && { timed wgmma "$W" "$SHAPES"; timed small "$W" "$SMALL_SHAPES"; }
for v in mma cpasync cl2 pdl pdlc pdlc8 carve q q1; do
  lib=/tmp/wgmma/libforge_sm_90_$v.so
  { want $v || [ "${Q:-0}" = 1 -a "${v:0:1}" = q ]; } && [ -f "$lib" ] || continue
  check ${v}_check "$lib" || continue
  timed $v "$lib" "$SHAPES"
  timed small_$v "$lib" "$SMALL_SHAPES"
done

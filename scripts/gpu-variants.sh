#!/bin/bash
# Time compile-time variants of generated kernel files against the committed
# library in one call, on an NVIDIA machine that has nvcc and no Go (what
# this session's matmul experiments did by hand). Build the binaries on a Go
# machine first (they need only libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
#   go test -c -o out/suites.test ./generated/suites
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out VARIANTS="h:-DFORGE_MM_INT_F16=1 k512:-DFORGE_TUNE_MATMUL_INT_UPTO16_TK=512" \
#     FILES="q3_k_matmul q4_0_matmul" FAMILY=matmul FORMATS=Q3_K,Q4_0 \
#     SHAPES=4096x14336x16,4096x4096x16 bash scripts/gpu-variants.sh
# VARIANTS: space-separated NAME:FLAGS items, FLAGS comma-separated -D
# options (no spaces). FILES: the generated/hip/sm_90 files (without .hip)
# each variant recompiles with its flags; the rest of the library is the
# committed build's (build/libforge_sm_90.so and /tmp/obj, made by
# scripts/gpu-verify.sh when missing). Each variant's library is checked
# first (suites.test -test.run "$CHECK", default MatMul, at most CHECK_S
# seconds; a failing variant is not timed), then the committed library
# ("base") and every variant are timed with forgebench run (--family
# FAMILY --format FORMATS --shape SHAPES --weights WEIGHTS, default reuse,
# --count COUNT, default 5, --launches-per-sample LAUNCHES, default 20),
# and each variant compared with base (forgebench compare, 5% threshold).
# SUITE (a scenario suite: attention/flash, model/small) times that suite
# instead of FAMILY, FORMATS and SHAPES (--count COUNT, and
# --launches-per-sample only where LAUNCHES is set), as the attention
# kernel's variants are timed:
#   OUT=/tmp/out VARIANTS="k64:-DFORGE_TUNE_ATTENTION_WGMMA_KEYS=64" FILES=attention \
#     SUITE=attention/flash CHECK=Attention bash scripts/gpu-variants.sh
# Results in $OUT: <v>_build.txt, <v>_check.txt, base.json/.txt,
# <v>.json/.txt and <v>_vs_base.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/variants
[ -n "${VARIANTS:-}" ] || { echo "gpu-variants: VARIANTS is empty (NAME:FLAGS ...)" >&2; exit 2; }
[ -n "${FILES:-}" ] || { echo "gpu-variants: FILES is empty (generated/hip/sm_90 file names without .hip)" >&2; exit 2; }
for f in $FILES; do
  [ -f "generated/hip/sm_90/$f.hip" ] || { echo "gpu-variants: no generated/hip/sm_90/$f.hip" >&2; exit 2; }
done
L=$PWD/build/libforge_sm_90.so
[ -f "$L" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
[ -d /tmp/obj ] || { echo "gpu-variants: no /tmp/obj (scripts/gpu-verify.sh leaves the objects there)" >&2; exit 1; }
NV="nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu"

# build NAME FLAGS: FILES recompiled with FLAGS, linked with the other objects.
build() {
  local v=$1 flags=${2//,/ } keep=() f
  mkdir -p "/tmp/variants/$v"
  {
    for f in $FILES; do
      $NV $flags -c "generated/hip/sm_90/$f.hip" -o "/tmp/variants/$v/$f.o" || echo "FAIL $f"
    done
    for o in /tmp/obj/*.o; do
      [ -f "/tmp/variants/$v/$(basename "$o")" ] || keep+=("$o")
    done
    nvcc -shared -o "/tmp/variants/libforge_sm_90_$v.so" "${keep[@]}" /tmp/variants/$v/*.o
    echo "build: exit $?"
  } > "$OUT/${v}_build.txt" 2>&1
}
names=()
for item in $VARIANTS; do
  v=${item%%:*}; flags=${item#*:}
  [ "$v" != "$item" ] && [ -n "$v" ] && [ "$v" != base ] || { echo "gpu-variants: $item: want NAME:FLAGS (NAME not base)" >&2; exit 2; }
  names+=("$v")
  build "$v" "$flags" &
done
wait

timed() { # NAME LIB
  if [ -n "${SUITE:-}" ]; then
    ./out/forgebench run --backend cuda --lib "$2" --suite "$SUITE" --count "${COUNT:-5}" ${LAUNCHES:+--launches-per-sample "$LAUNCHES"} \
      --json "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
  else
    ./out/forgebench run --backend cuda --lib "$2" --family "${FAMILY:-matmul}" --format "${FORMATS:-*}" --shape "${SHAPES:?SHAPES is empty}" \
      --weights "${WEIGHTS:-reuse}" --count "${COUNT:-5}" --launches-per-sample "${LAUNCHES:-20}" --json "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
  fi
}
timed base "$L"
for v in "${names[@]}"; do
  lib=/tmp/variants/libforge_sm_90_$v.so
  grep -q "build: exit 0" "$OUT/${v}_build.txt" && ! grep -q "^FAIL" "$OUT/${v}_build.txt" || { echo "$v: build failed" >> "$OUT/${v}_build.txt"; continue; }
  timeout "${CHECK_S:-120}" ./out/suites.test -test.run "${CHECK:-MatMul}" -backend=cuda -lib="$lib" > "$OUT/${v}_check.txt" 2>&1
  rc=$?; echo "suites.test: exit $rc" >> "$OUT/${v}_check.txt"
  [ $rc = 0 ] || continue
  timed "$v" "$lib"
  ./out/forgebench compare --baseline-file "$OUT/base.json" --run "$OUT/$v.json" --threshold 5% > "$OUT/${v}_vs_base.txt" 2>&1
done
ls -l "$OUT"

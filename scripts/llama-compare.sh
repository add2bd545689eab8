#!/bin/bash
# Time forge's matvec and matmul beside llama.cpp's CUDA kernels (ggml's
# test-backend-ops perf) in one run on an NVIDIA GPU machine that has nvcc
# and cmake but no Go and no network, and print the table
# "family/kernel, format, shape, forge µs, llama.cpp µs, ratio, winner"
# with forgebench compare-llama.
#
# On a Go machine first (forgebench needs only libc; the tarball is ggml's
# source at the commit of ../shared/vectors, see ../shared/anchors/README.md):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench
#   mkdir -p out/anchors && cp ../shared/anchors/ggml-d99724f.tar.xz out/anchors/
# then carry out/forgebench and out/anchors (git ignores out/) and, in the
# repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/llama-compare.sh build   # test-backend-ops (~190 s) and build/libforge_sm_90.so
#   OUT=/tmp/out bash scripts/llama-compare.sh         # build (skipped when built), llama, forge, compare
# Steps, in order (no argument: all four): build, llama, forge, compare. The
# build is skipped when $GGML_BUILD/bin/test-backend-ops exists and the kernel
# library when build/libforge_sm_90.so does (scripts/gpu-verify.sh builds it).
#
# The tarball: $GGML_TARBALL, else the newest out/anchors/ggml-*.tar.xz.
# What runs: test-backend-ops perf -o MUL_MAT -b CUDA0 --output sql (its
# --output csv has no timings) for every type of MATVEC_TYPES at every
# MATVEC_SHAPES (n = 1) and every type of MATMUL_TYPES at every MATMUL_SHAPES.
# Its own perf list has m=4096 k=14336 only, at n = 1, 2, 3, 4, 5, 8 and 512;
# a shape it lacks is run from a --test-file of generic MUL_MAT ops (the
# format test-export-graph-ops writes: op, type, ne, op_params, sources). Then
# forgebench run --weights reuse (one weight buffer, as test-backend-ops
# does) --family matvec (every matvec kernel) and --family matmul, one run per
# shape ($FORGE_BENCH_MATVEC / $FORGE_BENCH_MATMUL), COUNT samples (default
# 20) each the mean of LAUNCHES back-to-back launches (default 100), as
# test-backend-ops times its runs; the table compares forge's median sample
# with test-backend-ops' mean µs/run.
# Shapes are forge's: ROWSxCOLS (matvec), ROWSxCOLSxBATCH (matmul); ggml's
# m = rows, k = cols, n = batch.
#
# Results in $OUT: compare.txt, compare.md and compare.json (the table);
# llama.sql (test-backend-ops' built-in cases), llama-file.sql and
# llama-cases.txt (the shapes run from a test file), llama*.log (its stderr),
# forge-<family>-<shape>.{json,txt}, cublas.txt (PyTorch's f16 product at the
# matmul shapes, scripts/cublas_f16.py, when the machine has PyTorch: the
# table's cuBLAS columns), commands.txt (every command and its exit
# status), ggml-build.log, gpu.txt and the library's build.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
GGML_SRC=${GGML_SRC:-/tmp/ggml}
GGML_BUILD=${GGML_BUILD:-/tmp/ggml-build}
CUDA_ARCH=${CUDA_ARCH:-90}
TBO=$GGML_BUILD/bin/test-backend-ops
FB=$PWD/out/forgebench
L=${FORGE_LIB:-$PWD/build/libforge_sm_90.so}
MATVEC_TYPES=${MATVEC_TYPES:-f16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K mxfp4}
MATVEC_SHAPES=${MATVEC_SHAPES:-4096x14336}
MATMUL_TYPES=${MATMUL_TYPES:-f16 q4_0 q4_K q8_0}
MATMUL_SHAPES=${MATMUL_SHAPES:-4096x14336x16 4096x14336x64 4096x14336x512}
COUNT=${COUNT:-20}
LAUNCHES=${LAUNCHES:-100}

# log runs a command, recording it and its exit status in commands.txt.
log() {
  local t0=$SECONDS
  "$@"
  local rc=$?
  printf '%s\n  exit %d, %ds\n' "$*" "$rc" $((SECONDS - t0)) >> "$OUT/commands.txt"
  return $rc
}

die() { echo "llama-compare: $*" >&2; exit 1; }

tarball() {
  local t=${GGML_TARBALL:-}
  if [ -z "$t" ]; then
    # shellcheck disable=SC2012 # names are ggml-<commit>.tar.xz
    t=$(ls -t out/anchors/ggml-*.tar.xz 2>/dev/null | head -1)
  fi
  [ -f "$t" ] || die "no ggml tarball: set GGML_TARBALL or copy ../shared/anchors/ggml-*.tar.xz into out/anchors/ and carry out/anchors"
  echo "$t"
}

build() {
  if [ -x "$TBO" ]; then
    echo "llama-compare: reusing $TBO"
  else
    command -v cmake > /dev/null || die "cmake is not installed (test-backend-ops builds with cmake)"
    command -v nvcc > /dev/null || die "nvcc is not on PATH (looked in /usr/local/cuda/bin too)"
    local t gen=Ninja
    t=$(tarball) || exit 1
    command -v ninja > /dev/null || gen="Unix Makefiles"
    rm -rf "$GGML_SRC"
    mkdir -p "$GGML_SRC" || die "cannot create $GGML_SRC"
    log tar -xJf "$t" -C "$GGML_SRC" --strip-components=1 || die "cannot extract $t"
    log cmake -S "$GGML_SRC" -B "$GGML_BUILD" -G "$gen" -DCMAKE_BUILD_TYPE=Release \
      -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" -DGGML_NATIVE=OFF \
      -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DGGML_CUDA_FA=OFF \
      -DGGML_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF > "$OUT/ggml-build.log" 2>&1 || die "cmake failed: $OUT/ggml-build.log"
    log cmake --build "$GGML_BUILD" -j "$(nproc)" --target test-backend-ops >> "$OUT/ggml-build.log" 2>&1 || die "the test-backend-ops build failed: $OUT/ggml-build.log"
  fi
  if [ -f "$L" ]; then
    echo "llama-compare: reusing $L"
  else
    log env SMOKE=0 OUT="$OUT" bash scripts/gpu-verify.sh
    [ -f "$L" ] || die "no kernel library at $L after scripts/gpu-verify.sh: $OUT/build.txt"
  fi
}

# ggml_header prints ggml.h: from the extracted source, else the tarball.
ggml_header() {
  if [ -f "$GGML_SRC/include/ggml.h" ]; then
    cat "$GGML_SRC/include/ggml.h"
  else
    tar -xJOf "$(tarball)" --wildcards '*/include/ggml.h'
  fi
}

# wanted prints "type m n k" for every case to time, matvec (n = 1) first.
wanted() {
  local s t r c b
  for s in $MATVEC_SHAPES; do
    IFS=x read -r r c <<< "$s"
    for t in $MATVEC_TYPES; do echo "$t $r 1 $c"; done
  done
  for s in $MATMUL_SHAPES; do
    IFS=x read -r r c b <<< "$s"
    for t in $MATMUL_TYPES; do echo "$t $r $b $c"; done
  done
}

llama() {
  [ -x "$TBO" ] || die "no $TBO: run the build step first"
  local t m n k re="" hdr op id ty
  # One alternative per case: test_mul_mat::vars() of a plain product.
  while read -r t m n k; do
    re+="${re:+|}type_a=$t,type_b=f32,m=$m,n=$n,k=$k,bs=\\[1,1\\],nr=\\[1,1\\]"
  done < <(wanted)
  echo "$re" > "$OUT/llama-regex.txt"
  log "$TBO" perf -o MUL_MAT -b CUDA0 --output sql -p "$re" > "$OUT/llama.sql" 2> "$OUT/llama.log"

  # The shapes its perf list lacks: generic MUL_MAT ops from a test file
  # (make_test_cases_from_file): op type ne0..3 n_params [params] n_src,
  # per source type ne0..3 nb0..3 (nb 0: contiguous), then a name ("-":
  # none). The output is f32 [m, n]; A is type [k, m]; B is f32 [k, n].
  hdr=$(ggml_header) || die "cannot read ggml.h"
  op=$(awk '/enum ggml_op {/ {on = 1; n = -1; next}
    on && /};/ {exit}
    on { sub(/\/\/.*/, ""); if (match($0, /GGML_OP_[A-Z0-9_]+/)) { n++; if (substr($0, RSTART, RLENGTH) == "GGML_OP_MUL_MAT") { print n; exit } } }' <<< "$hdr")
  [ -n "$op" ] || die "GGML_OP_MUL_MAT not found in ggml.h's enum ggml_op"
  : > "$OUT/llama-cases.txt"
  while read -r t m n k; do
    grep -qF "type_a=$t,type_b=f32,m=$m,n=$n,k=$k,bs=[1,1],nr=[1,1]" "$OUT/llama.sql" && continue
    id=$(grep -oE "GGML_TYPE_${t^^} *= *[0-9]+" <<< "$hdr" | grep -oE '[0-9]+$')
    [ -n "$id" ] || die "GGML_TYPE_${t^^} not found in ggml.h"
    ty=$(grep -oE "GGML_TYPE_F32 *= *[0-9]+" <<< "$hdr" | grep -oE '[0-9]+$')
    echo "$op $ty $m $n 1 1 0 2 $id $k $m 1 1 0 0 0 0 $ty $k $n 1 1 0 0 0 0 -" >> "$OUT/llama-cases.txt"
  done < <(wanted)
  if [ -s "$OUT/llama-cases.txt" ]; then
    log "$TBO" perf -o MUL_MAT -b CUDA0 --output sql --test-file "$OUT/llama-cases.txt" > "$OUT/llama-file.sql" 2> "$OUT/llama-file.log"
  else
    rm -f "$OUT/llama-file.sql"
  fi
}

forge() {
  [ -x "$FB" ] || die "no $FB: build it on a Go machine (go build -o out/forgebench ./cmd/forgebench) and carry out/forgebench"
  [ -f "$L" ] || die "no kernel library at $L: run the build step first"
  local fam s types shapes var formats copy
  for fam in matvec matmul; do
    if [ $fam = matvec ]; then types=$MATVEC_TYPES shapes=$MATVEC_SHAPES var=FORGE_BENCH_MATVEC copy=0
    else types=$MATMUL_TYPES shapes=$MATMUL_SHAPES var=FORGE_BENCH_MATMUL copy=-1; fi
    formats=$(tr 'a-z ' 'A-Z,' <<< "$types")
    for s in $shapes; do
      # The copy roofline is measured once, in the matvec runs.
      log env "$var=$s" "$FB" run --backend cuda --lib "$L" --family $fam --format "$formats" \
        --weights reuse --count "$COUNT" --launches-per-sample "$LAUNCHES" --copy-bytes $copy \
        --json "$OUT/forge-$fam-$s.json" > "$OUT/forge-$fam-$s.txt" 2>&1
    done
  done
  # The vendor's f16 product at the matmul shapes (cuBLAS through PyTorch),
  # when this machine has PyTorch: the bar beside the matmul rows.
  if [ -n "${MATMUL_SHAPES// /}" ] && python3 -c 'import torch' 2> /dev/null; then
    log python3 scripts/cublas_f16.py --count "$COUNT" --reps "$LAUNCHES" $MATMUL_SHAPES > "$OUT/cublas.txt" 2> "$OUT/cublas.log" || rm -f "$OUT/cublas.txt"
  else
    rm -f "$OUT/cublas.txt"
  fi
}

compare() {
  local args=() f
  # A file without a single case (every shape came from the test file, or
  # none did) is left out: compare-llama refuses one, rightly, as the wrong input.
  for f in "$OUT"/llama.sql "$OUT"/llama-file.sql; do [ -f "$f" ] && grep -q '^INSERT' "$f" && args+=(--llama "$f"); done
  for f in "$OUT"/forge-matvec-*.json "$OUT"/forge-matmul-*.json; do [ -f "$f" ] && args+=(--run "$f"); done
  [ -s "$OUT/cublas.txt" ] && args+=(--cublas "$OUT/cublas.txt")
  log "$FB" compare-llama "${args[@]}" --json "$OUT/compare.json" > "$OUT/compare.txt" 2>&1
  log "$FB" compare-llama "${args[@]}" --md > "$OUT/compare.md" 2>&1
  cat "$OUT/compare.txt"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build llama forge compare)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv > "$OUT/gpu.txt" 2>&1
for step in "${steps[@]}"; do
  case $step in
  build | llama | forge | compare) "$step" ;;
  *) die "unknown step $step: want build, llama, forge or compare" ;;
  esac
done

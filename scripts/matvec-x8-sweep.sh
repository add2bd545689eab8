#!/bin/bash
# Sweep matvec_x8's threads and rows per workgroup on an NVIDIA GPU machine
# (nvcc, no Go): one kernel library per configuration
# (-DFORGE_TUNE_MATVEC_X8_THREADS, -DFORGE_TUNE_MATVEC_X8_ROWS), each format's
# matvec_x8 at 4096x14336 on one weight buffer. Until forgebench tune covers
# the kernel, templates/hip/matvec.hip.tmpl's defaults are read off this.
# Build forgebench on a Go machine first (go build -buildvcs=true -o
# out/forgebench ./cmd/forgebench), carry out/, then in the repository root:
#   OUT=/tmp/out bash scripts/matvec-x8-sweep.sh
# Results: $OUT/sw_<threads>_<rows>.txt (forgebench's table per library).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}
ARCH=${CUDA_ARCH:-sm_90}
mkdir -p "$OUT" /tmp/sw
for T in ${THREADS:-64 128 256}; do for R in ${ROWS:-1 2 4}; do
	d=/tmp/sw/o_${T}_$R
	mkdir -p "$d"
	ls generated/hip/$ARCH/*.hip | xargs -P "$(nproc)" -I{} sh -c "nvcc -arch=$ARCH -O3 --fmad=false -DFORGE_TUNE_MATVEC_X8_THREADS=$T -DFORGE_TUNE_MATVEC_X8_ROWS=$R -Xcompiler -fPIC -x cu -c {} -o $d/\$(basename {} .hip).o 2>&1 || echo FAIL {}" > "$OUT/sw_build_${T}_$R.txt"
	nvcc -shared -o "/tmp/sw/lib_${T}_$R.so" "$d"/*.o >> "$OUT/sw_build_${T}_$R.txt" 2>&1
done; done
for T in ${THREADS:-64 128 256}; do for R in ${ROWS:-1 2 4}; do
	FORGE_BENCH_MATVEC=${SHAPE:-4096x14336} ./out/forgebench run --backend cuda --lib "/tmp/sw/lib_${T}_$R.so" --suite matvec_x8 \
		--weights reuse --count 10 --launches-per-sample 100 --copy-bytes -1 > "$OUT/sw_${T}_$R.txt" 2>&1
done; done

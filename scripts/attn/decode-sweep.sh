#!/bin/bash
# Sweep the split-KV decode attention's knobs on an NVIDIA GPU machine with
# nvcc (no Go needed): builds the sm_90 library's other objects once, then one
# library per variant with attention.hip rebuilt under -DFORGE_TUNE_ATTENTION_*
# flags, and times forge_attention_f16_d128 at 32 heads over 8, seq_q 1 and 4,
# with scripts/attn/decode_bench.cu (K/V rotated past the L2, back-to-back
# calls and graph replay). In the repository root:
#   OUT=/tmp/out bash scripts/attn/decode-sweep.sh 'default:' 't64:-DFORGE_TUNE_ATTENTION_DECODE_THREADS=64' ...
# Each argument is NAME:FLAGS (space-separated flags). Results: $OUT/decode_sweep.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}; mkdir -p $OUT /tmp/dsobj /tmp/dsv
nvcc -O3 -o /tmp/dsv/decode_bench scripts/attn/decode_bench.cu -ldl || exit 1
ls generated/hip/sm_90/*.hip | grep -v /attention.hip | xargs -P "$(nproc)" -I{} sh -c \
  'nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu -c {} -o /tmp/dsobj/$(basename {} .hip).o || echo "FAIL {}"'
for v in "$@"; do
  n=${v%%:*}; flags=${v#*:}
  # shellcheck disable=SC2086
  nvcc -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu -c generated/hip/sm_90/attention.hip -o /tmp/dsv/$n.o $flags &&
    nvcc -shared -o /tmp/dsv/$n.so /tmp/dsobj/*.o /tmp/dsv/$n.o || { echo "$n: build failed"; continue; }
  echo "== $n ($flags)" >> $OUT/decode_sweep.txt
  /tmp/dsv/decode_bench /tmp/dsv/$n.so forge_attention_f16_d128 2 128 32 8 1 512 4096 32768 >> $OUT/decode_sweep.txt 2>&1
  /tmp/dsv/decode_bench /tmp/dsv/$n.so forge_attention_f16_d128 2 128 32 8 4 4096 32768 2>&1 | grep -v '^copy' >> $OUT/decode_sweep.txt
done
cat $OUT/decode_sweep.txt

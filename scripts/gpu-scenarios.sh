#!/bin/bash
# Run the scenario suites (memory, quantize, attention, model) on an NVIDIA
# GPU machine that has nvcc, PyTorch and no Go, as docs/PERFORMANCE.md
# records them. Build the binaries on a Go machine first (they need only
# libc):
#   go build -buildvcs=true -o out/forgebench ./cmd/forgebench  (stamps the revision runs record)
#   go test -c -o out/suites.test ./generated/suites
#   go test -c -o out/memsuite.test ./runtime/suite/memsuite
# then, in the repository root on the GPU machine:
#   OUT=/tmp/out bash scripts/gpu-scenarios.sh attention   # or: memory quantize model
# It builds build/libforge_sm_90.so with scripts/gpu-verify.sh when it is
# missing. Per suite: $OUT/<suite>.txt (forgebench's table) and
# $OUT/<suite>.json; attention also $OUT/attention_check.txt (the generated
# test: every variant on the GPU against the cpu reference) and
# $OUT/sdpa.txt (PyTorch's scaled_dot_product_attention on the same shapes);
# memory also $OUT/memsuite_test.txt (TestGPU: the 1% agreement with the
# device's free-memory report); model also $OUT/model_check.txt (the
# generated TestModel*: the small shape's GPU forward against the cpu's). COUNT sets --count (default 10).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
L=$PWD/build/libforge_sm_90.so
[ -f "$L" ] || SMOKE=0 OUT=$OUT bash scripts/gpu-verify.sh
for s in "$@"; do
  t0=$(date +%s)
  case $s in
  attention)
    FORGE_SCENARIO_FULL=0 ./out/suites.test -test.run 'TestAttention' -test.v -backend=cuda -lib=$L > $OUT/attention_check.txt 2>&1
    echo "suites.test: exit $?" >> $OUT/attention_check.txt
    python3 scripts/sdpa.py --both > $OUT/sdpa.txt 2>&1
    ;;
  model)
    ./out/suites.test -test.run 'TestModel' -test.v -backend=cuda -lib=$L > $OUT/model_check.txt 2>&1
    echo "suites.test: exit $?" >> $OUT/model_check.txt
    ;;
  memory)
    ./out/memsuite.test -test.run 'TestGPU' -test.v -backend=cuda -lib=$L > $OUT/memsuite_test.txt 2>&1
    echo "memsuite.test: exit $?" >> $OUT/memsuite_test.txt
    ;;
  esac
  ./out/forgebench run --backend cuda --lib $L --suite $s --count ${COUNT:-10} --json $OUT/$s.json > $OUT/$s.txt 2>&1
  echo "forgebench: exit $?, $(( $(date +%s) - t0 ))s" >> $OUT/$s.txt
done

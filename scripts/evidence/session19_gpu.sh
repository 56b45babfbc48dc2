#!/usr/bin/env bash
# Session 19's second call (issue 39): softmax's and cross_entropy's training rows beside two
# clean processes (their step peaks, now the allocator's own reading), then the GPU test that
# the clean step peak and the allocator's agree. Output: $OUT/training.{log,tar.gz}, $OUT/peak-test.log.
cd "$(dirname "$0")/../.."
CLEAN_RUNS=2 ROW_S=${ROW_S:-90} bash scripts/evidence/training_step_gpu.sh softmax cross_entropy
echo "== tests/gpu/test_step_peak_gpu.py"; date -u
timeout 150 python3 -m pytest -p no:cacheprovider -q -rfE --durations=5 tests/gpu/test_step_peak_gpu.py 2>&1 \
  | tail -15 | tee "$OUT/peak-test.log"

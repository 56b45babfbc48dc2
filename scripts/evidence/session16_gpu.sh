#!/usr/bin/env bash
# Session 16's one device call (issues 39 and 41), with time guards so it ends inside 600 s:
# the five training-step rows (fwd_bwd, two clean processes each), then while time is left the
# GEMM rows of issue 41 in fwd (the SM clock on every side), the allocator's step peak, and the
# training GPU test. Output: $OUT/training.{log,tar.gz}, $OUT/gemm.{log,tar.gz}, $OUT/tests.log.
cd "$(dirname "$0")/../.."
start=$SECONDS
ROW_S=${ROW_S:-100} bash scripts/evidence/training_step_gpu.sh "$@"
left() { echo $(( ${BUDGET_S:-585} - (SECONDS - start) )); }
if [ "$(left)" -gt 200 ]; then
  ROW_S=$(( $(left) / 2 - 20 )) ALLOC=1 ALLOC_BEFORE_S=$(( $(left) - 100 )) TAG=gemm \
    bash scripts/evidence/catalog_rows.sh swiglu_mlp gemm_epilogue
fi
if [ "$(left)" -gt 45 ]; then
  timeout $(( $(left) - 5 )) python3 -m pytest -p no:cacheprovider -q -rfE \
    tests/gpu/test_training_gpu.py > "$OUT/tests.log" 2>&1
  tail -4 "$OUT/tests.log"
fi
echo "elapsed $(( SECONDS - start )) s"

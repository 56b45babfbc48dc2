#!/usr/bin/env bash
# One device call for issues 49 and 50, most needed first, each step only while the call has
# time (LIMIT_S, default 540): the lab's clock against do_bench changing one thing at a time
# (timing_protocols.py, ROUNDS each), the what-if loop's stages on CUDA (benchmarks what-if),
# two identical fusion runs' --json in one data dir (the cache state beside each compile figure).
# Output under $OUT: protocols-*.jsonl, whatif.log, fusion-1.json, fusion-2.json, run.log.
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
export PYTHONUNBUFFERED=1
room() { [ $((SECONDS + $1)) -lt "${LIMIT_S:-540}" ]; }
quiet() { grep -v "USDT\|Warning\|_warn_once\|warnings.warn"; }
{
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader; date -u
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
for w in ${WORKLOADS:-matmul attention swiglu_mlp}; do
  room 60 || break
  echo "== timing protocols: $w"
  timeout 120 python3 -m scripts.evidence.timing_protocols "$w" "${ROUNDS:-2}" \
    > "$OUT/protocols-$w.jsonl" 2> "$OUT/protocols-$w.err"
  grep -v '^{' "$OUT/protocols-$w.jsonl"; tail -2 "$OUT/protocols-$w.err"
done
room 200 && { echo "== what-if on cuda"; date -u
  timeout 200 python3 -m benchmarks what-if --device cuda --set longest=5 2>&1 | quiet \
    > "$OUT/whatif.log"; grep -A12 "^== Run" "$OUT/whatif.log"; tail -3 "$OUT/whatif.log"; }
for i in 1 2; do
  room 70 || break
  echo "== fusion --json $i"; date -u
  timeout 70 python3 -m runtime_lab --data-dir /tmp/lab run fusion --device cuda \
    --shape 4096x4096 --json "$OUT/fusion-$i.json" 2>&1 | quiet | tail -6
done
date -u
} 2>&1 | tee "$OUT/run.log"

#!/usr/bin/env bash
# Issue 39's training step on a GPU: `bash scripts/evidence/training_step_gpu.sh [WORKLOAD…]`
# (default: the five of the issue) at their llama3-8b presets, bf16, fwd_bwd: the lab's fusion
# run (forward and backward kernels, time per step) beside clean processes timing the same step
# (plain torch.compile, do_bench, each call's peak memory), one catalog call per workload so a
# timeout costs one row; with ALLOC=1 then the allocator's eager vs compiled step peak for
# rms_norm. SM clocks logged throughout; everything lands in $OUT/training.tar.gz (the device
# tool brings back 8 files at most) and the log in $OUT/training.log.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
export PYTHONUNBUFFERED=1
work=/tmp/training && mkdir -p $work
names=${*:-rms_norm softmax cross_entropy swiglu_mlp transformer_block}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 250 > "$work/smi.csv" &
smi=$!
for name in $names; do
  echo "== $name fwd_bwd"; date -u
  timeout ${ROW_S:-150} python3 -m benchmarks catalog --device cuda --out "$work/$name" \
    --set workloads=$name --set pass=fwd_bwd --set clean_runs=2 2>&1 \
    | grep -v "Warning\|_warn_once\|cpp_extension\|USDT\|warnings.warn" | tail -12
done
if [ -n "$ALLOC" ]; then
  echo "== allocator: rms_norm llama3-8b-4k fwd_bwd, eager vs compiled step peak"; date -u
  timeout 90 python3 -m runtime_lab --data-dir /tmp/lab-alloc run allocator --device cuda \
    --workload rms_norm --shapes llama3-8b-4k --dtype bfloat16 --pass fwd_bwd \
    --scenarios sequence,compiled --json "$work/alloc-rms.json" 2>&1 \
    | grep -v "Warning\|_warn_once" | tail -14
fi
kill $smi
date -u
} 2>&1 | tee "$OUT/training.log"
tar czf "$OUT/training.tar.gz" -C /tmp training

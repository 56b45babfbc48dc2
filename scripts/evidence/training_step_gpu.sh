#!/usr/bin/env bash
# Issue 39's training step on a GPU (written in session 14; not yet run: no device time was
# left). Five workloads at their llama3-8b presets, bf16, fwd_bwd: the lab's fusion run
# (forward and backward kernels, time per step) beside clean processes timing the same step (plain torch.compile, do_bench, each
# call's peak memory), one catalog call per workload so a timeout costs one row; then the
# allocator's eager vs compiled step peak for rms_norm. SM clocks logged throughout.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv -lms 250 > "$OUT/smi.csv" &
smi=$!
for name in rms_norm softmax cross_entropy swiglu_mlp transformer_block; do
  echo "== $name fwd_bwd"; date -u
  timeout 150 python3 -m benchmarks catalog --device cuda --out "$OUT/$name" \
    --set workloads=$name --set pass=fwd_bwd --set clean_runs=2 2>&1 \
    | grep -v "Warning\|_warn_once\|cpp_extension\|USDT\|warnings.warn" | tail -9
done
echo "== allocator: rms_norm llama3-8b-4k fwd_bwd, eager vs compiled step peak"; date -u
timeout 90 python3 -m runtime_lab --data-dir /tmp/lab-alloc run allocator --device cuda \
  --workload rms_norm --shapes llama3-8b-4k --dtype bfloat16 --pass fwd_bwd \
  --scenarios sequence,compiled --json "$OUT/alloc-rms.json" 2>&1 | grep -v "Warning\|_warn_once" | tail -12
kill $smi
date -u

#!/usr/bin/env bash
# Issue 39's training step on a GPU: `ALLOC=1 bash scripts/evidence/training_step_gpu.sh [W…]`
# (default: the five workloads of the issue) at their llama3-8b presets, bf16, fwd_bwd: the
# lab's fusion run (forward and backward kernels, time per step) beside two clean processes
# timing the same step (plain torch.compile, do_bench, each call's peak memory); with ALLOC=1
# then the allocator's eager vs compiled step peak for rms_norm. Output: $OUT/training.{log,tar.gz}.
PASS=fwd_bwd TAG=training exec bash "$(dirname "$0")/catalog_rows.sh" \
  ${*:-rms_norm softmax cross_entropy swiglu_mlp transformer_block}

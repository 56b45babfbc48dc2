#!/usr/bin/env bash
# Every `gpu` test plus the allocator evidence and the reliability worker/history tests, in one
# device call (docs/evidence/gpu.md). Usage on a CUDA machine: OUT=dir bash scripts/gpu_check.sh
set -u
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0))"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "== gpu tests"
timeout 420 python3 -m pytest -q -p no:cacheprovider -m gpu tests -rfE 2>&1 | grep -v USDT | tail -25
echo "== reliability worker and history tests on the GPU machine"
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/integration/test_reliability_worker.py tests/integration/test_reliability_history.py 2>&1 | tail -4
echo "== allocator evidence"
OUT=$OUT/a PY=python3 LAB=/tmp/lab-alloc timeout 300 bash scripts/evidence/allocator_evidence.sh 2>&1 | grep -v USDT | sed -n '1,60p'

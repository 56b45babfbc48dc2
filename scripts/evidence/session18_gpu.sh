#!/usr/bin/env bash
# Session 18's host-bound check (issues 39 and 41): rms_norm's compiled training step, where
# the lab read 0.272 ms, two clean processes 0.195 and the host took 250 µs per call. Every
# clock on the step in one plain process with its kernels' own time (clock_probe, the flush
# told apart), the lab's fusion run with its JSON (host, events, profiled kernels), then the
# catalog row with its explanation. Output: $OUT/probe.log, $OUT/fusion-rms.json, $OUT/rms.log.
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
export PYTHONUNBUFFERED=1
{
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; date -u
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
echo "== probe rms_norm fwd_bwd"
timeout 90 python3 -m scripts.evidence.clock_probe rms_norm llama3-8b-4k bfloat16 fwd_bwd 2>&1 | grep '^{'
echo "== lab fusion rms_norm fwd_bwd"; date -u
timeout 90 python3 -m runtime_lab --data-dir /tmp/lab run fusion --workload rms_norm --pass fwd_bwd \
  --shape 4096x4096 --dtype bfloat16 --device cuda --modes eager,inductor \
  --json "$OUT/fusion-rms.json" 2>&1 | grep -v "Warning\|_warn_once\|warnings.warn" | head -30
} 2>&1 | tee "$OUT/probe.log"
# the catalog row only while the call has time for it (≤ 90 s more)
[ $SECONDS -lt ${ROW_BEFORE_S:-150} ] &&
  PASS=fwd_bwd CLEAN_RUNS=2 ROW_S=90 TAG=rms bash scripts/evidence/catalog_rows.sh rms_norm > /dev/null 2>&1

#!/usr/bin/env bash
# Session 19's one call (issue 39), most needed first, each step only while the call has time
# for it (LIMIT_S, default 470): rms_norm's compiled step's own kernel time (clock_probe, the
# flush told apart); softmax's and cross_entropy's training rows beside two clean processes
# (their step peaks); the lab's fusion JSON of rms_norm's step (kernel_us_per_call); the
# allocator's step peaks (the one definition the clean peaks now share); rms_norm's row.
# Output: $OUT/session19.log, $OUT/training.{log,tar.gz}, $OUT/peaks.log, $OUT/fusion-rms.json.
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
export PYTHONUNBUFFERED=1
room() { [ $((SECONDS + $1)) -lt "${LIMIT_S:-470}" ]; }
{
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; date -u
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
echo "== probe rms_norm fwd_bwd"
timeout 90 python3 -m scripts.evidence.clock_probe rms_norm llama3-8b-4k bfloat16 fwd_bwd 2>&1 | grep '^{'
} 2>&1 | tee "$OUT/session19.log"
room 190 && CLEAN_RUNS=2 ROW_S=90 bash scripts/evidence/training_step_gpu.sh softmax cross_entropy > /dev/null 2>&1
room 80 && {
echo "== lab fusion rms_norm fwd_bwd"; date -u
timeout 80 python3 -m runtime_lab --data-dir /tmp/lab run fusion --workload rms_norm --pass fwd_bwd \
  --shape 4096x4096 --dtype bfloat16 --device cuda --modes eager,inductor \
  --json "$OUT/fusion-rms.json" 2>&1 | grep -v "Warning\|_warn_once\|warnings.warn" | head -30
} 2>&1 | tee -a "$OUT/session19.log"
for name in rms_norm softmax cross_entropy swiglu_mlp transformer_block; do
  room 70 && PEAK_S=60 bash scripts/evidence/step_peaks_gpu.sh $name > /dev/null 2>&1 &&
    cat "$OUT/peaks.log" >> "$OUT/peaks-all.log"
done
room 90 && PASS=fwd_bwd CLEAN_RUNS=2 ROW_S=85 TAG=rms bash scripts/evidence/catalog_rows.sh rms_norm > /dev/null 2>&1
date -u >> "$OUT/session19.log"

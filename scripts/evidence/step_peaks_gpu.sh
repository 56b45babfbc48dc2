#!/usr/bin/env bash
# The allocator's training-step peak (eager vs compiled, above the inputs: the one definition the
# catalog's clean_peak_mib shares since session 19) for the issue's workloads at their
# llama3-8b presets, bf16: `bash scripts/evidence/step_peaks_gpu.sh [W…]`. Output: $OUT/peaks.log.
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
declare -A SHAPE=([rms_norm]=4096x4096 [softmax]=32768x4096 [cross_entropy]=4096x128256
  [swiglu_mlp]=4096x4096 [transformer_block]=1x2048x4096)
declare -A PARAMS=([swiglu_mlp]=intermediate=14336 [transformer_block]=heads=32,intermediate=14336)
{
for name in ${*:-swiglu_mlp transformer_block}; do
  echo "== allocator $name ${SHAPE[$name]} ${PARAMS[$name]} fwd_bwd"; date -u
  timeout ${PEAK_S:-100} python3 -m runtime_lab --data-dir /tmp/lab-peaks run allocator --device ${DEVICE:-cuda} \
    --workload $name --shapes ${SHAPE[$name]} --params "${PARAMS[$name]}" --dtype bfloat16 \
    --pass fwd_bwd --scenarios compiled --json /tmp/peak-$name.json > /tmp/peak-$name.log 2>&1
  grep "one call at\|above its inputs" /tmp/peak-$name.log | head -3
  python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['result']['peaks'][0]; M=2**20
print({k: p[k] and round(p[k]/M, 1) for k in ('input_bytes','eager_peak_bytes','compiled_peak_bytes')}, 'MiB')" /tmp/peak-$name.json
done
} 2>&1 | tee "$OUT/peaks.log"

#!/usr/bin/env bash
# Catalog rows on a GPU beside clean processes, one catalog call per workload so a timeout costs
# one row: `PASS=fwd CLEAN_RUNS=2 ROW_S=150 TAG=name bash scripts/evidence/catalog_rows.sh W…`
# (llama3-8b presets, bf16). nvidia-smi logs the SM clock, power and clock-event reasons every
# 250 ms beside them; everything lands in $OUT/$TAG.tar.gz (the device tool brings back 8 files
# at most) and the log in $OUT/$TAG.log.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
export PYTHONUNBUFFERED=1
tag=${TAG:-catalog}
work=/tmp/$tag && mkdir -p $work
{
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 250 > "$work/smi.csv" &
smi=$!
for name in "$@"; do
  echo "== $name ${PASS:-fwd}"; date -u
  timeout ${ROW_S:-150} python3 -m benchmarks catalog --device cuda --out "$work/$name" \
    --set workloads=$name --set pass=${PASS:-fwd} --set clean_runs=${CLEAN_RUNS:-2} 2>&1 \
    | grep -v "Warning\|_warn_once\|cpp_extension\|USDT\|warnings.warn" | tail -12
  tar czf "$OUT/$tag.tar.gz" -C /tmp $tag  # after each row: a call cut short keeps the rows done
done
if [ -n "$ALLOC" ] && [ $SECONDS -lt ${ALLOC_BEFORE_S:-9999} ]; then
  PEAK_S=90 bash "$(dirname "$0")/step_peaks_gpu.sh" rms_norm  # eager vs compiled step peak
fi
kill $smi
date -u
} 2>&1 | tee "$OUT/$tag.log"
tar czf "$OUT/$tag.tar.gz" -C /tmp $tag

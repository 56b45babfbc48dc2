python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
for w in rope rms_norm attention; do echo "== probe $w"; python3 -m scripts.evidence.clock_probe $w 2>/dev/null; done
echo "== rms_norm: 4 clean processes, each with empty compile caches"
for i in 1 2 3 4; do python3 -c "
from benchmarks import clean; import json
r = clean.reference('workload','rms_norm','4096x4096','bfloat16','0','{}')
print(json.dumps({k: r[k] for k in ('eager_ms','inductor_ms','inductor_kernels')}))"; done

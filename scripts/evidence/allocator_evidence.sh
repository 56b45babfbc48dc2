#!/usr/bin/env bash
# Allocator evidence on a GPU (docs/evidence/gpu.md): CLI runs, the gpu tests, memory_viz stats.
# Usage (repo root): OUT=/tmp/out bash scripts/evidence/allocator_evidence.sh   (PY=python3 by default)
set -euo pipefail
PY=${PY:-python3}
OUT=${OUT:-/tmp/allocator-evidence}
LAB=${LAB:-/tmp/lab}
mkdir -p "$OUT"
$PY -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0))"

echo "== 1. all scenarios, default sequence, compare at 8192² fp32"
$PY -m runtime_lab --data-dir "$LAB" run allocator --device cuda --dtype float32 \
  --compare-side 8192 --json "$OUT/allocator-all.json" >/dev/null || echo "CLI rc=$?"
$PY - "$OUT/allocator-all.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]; M = 2**20
print("status", d["status"], d.get("error") or "")
mib = lambda v: "—" if v is None else f"{v / M:,.0f} MiB"
print("step                               allocated   reserved     peak")
for r in s["steps"]:
    if r["scenario"] == "sequence":
        name = f"{r['label']} {r['event']}"
        print(f"{name:34s} {mib(r['allocated_bytes']):>10s} {mib(r['reserved_bytes']):>10s} {mib(r['peak_bytes']):>10s}")
c = s["compiled"]
print(f"8192² fp32 peak above inputs: eager {mib(c['eager_peak_bytes'])}, compiled {mib(c['compiled_peak_bytes'])}, delta {mib(c['delta_bytes'])}")
print(f"empty_cache every step: +{s['empty_cache_cost_ms']:.3f} ms/step (call alone {s['empty_cache_call_ms']:.3f} ms median)")
print("side stream:", s["side_stream"])
print("cudagraphs private pool:", mib(s["cudagraphs_private_pool_bytes"]))
print("retries", s["num_alloc_retries"], "ooms", s["num_ooms"], "baseline", s["baseline_allocated_bytes"], "final", s["final_allocated_bytes"])
print("errors", s["errors"], "skipped", s["skipped"])
print("snapshots", *s["snapshots"], sep="\n  ")
PY

echo "== 2. memory_viz stats on the exported sequence snapshot"
SNAP=$($PY -c "import json,sys; print([f for f in json.load(open(sys.argv[1]))['summary']['snapshots'] if f.endswith('-sequence.pickle')][0])" "$OUT/allocator-all.json")
cp "$SNAP" "$OUT/snapshot-sequence.pickle"
$PY -W ignore -m torch.cuda._memory_viz stats "$SNAP" 2>&1 | head -20 || true
$PY -W ignore -m torch.cuda._memory_viz trace "$SNAP" 2>&1 | tail -3 || true
SEG=$($PY -c "import json,sys; print(next((f for f in json.load(open(sys.argv[1]))['summary'].get('snapshots_before_empty_cache', []) if f.endswith('-sequence-before-empty-cache.pickle')), ''))" "$OUT/allocator-all.json")
if [ -n "$SEG" ]; then  # the end snapshot follows empty_cache(): this one still has segments
  echo "-- before the final empty_cache: $SEG"
  cp "$SEG" "$OUT/snapshot-sequence-before-empty-cache.pickle"
  $PY -W ignore -m torch.cuda._memory_viz stats "$SEG" 2>&1 | head -20 || true
fi

echo "== 3. the runtime-facts sequence, eager vs compiled only, bf16"
$PY -m runtime_lab --data-dir "$LAB" run allocator --device cuda --dtype bfloat16 \
  --scenarios sequence,compiled --json "$OUT/allocator-bf16.json" >/dev/null || echo "CLI rc=$?"
$PY -c "
import json,sys; s=json.load(open(sys.argv[1]))['summary']; M=2**20
print('bf16 peak', {k: v // M for k, v in s['peak_bytes'].items()}, 'MiB; compiled', {k: (v // M if v else v) for k, v in s['compiled'].items() if k.endswith('bytes')})
" "$OUT/allocator-bf16.json"

echo "== 4. gpu tests and the allocator's CPU tests"
$PY -m pytest -q -p no:cacheprovider tests/gpu/test_allocator_gpu.py tests/unit/test_allocator_memtrace.py 2>&1 | tail -4

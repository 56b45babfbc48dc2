#!/usr/bin/env bash
# GPU evidence for the Streams & events page (run on a CUDA machine; OUT=dir for the files).
set -u
OUT=${OUT:-/tmp/streams-evidence}
mkdir -p "$OUT"
lab() { python3 -m runtime_lab --data-dir "/tmp/lab-streams-$1" "${@:2}"; }
summary() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("status", d["status"], d.get("error") or "")
s = d.get("summary") or {}
print(json.dumps({k: s.get(k) for k in ("variant", "max_abs_diff", "mismatches", "trials", "lanes", "overlap_pct", "event_elapsed_ms_median", "host_us_median")}, indent=None))
for name, v in (s.get("variants") or {}).items():
    print(f"  {name:26s} wrong {v['mismatches']:3d}/{v['trials']}  max|diff| {v['max_abs_diff']:.3e}  reused {v['reused_block']}  lanes {v['lanes']}")
r = d.get("result") or {}
for c in r.get("overlap", []):
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"  overlap {c['label']:14s} {c['size']}²x{c['kernels_per_stream']}: one {med(c['serial_ms']):.3f} ms, two {med(c['concurrent_ms']):.3f} ms, overlap {c['overlap_pct']:.1f} %")
for t in r.get("timings", []):
    xs = sorted(t["device_ms"]); print(f"  {t['label']:24s} median {xs[len(xs)//2]:.4f} ms n={len(xs)}")
PY
}
timeout 900 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_streams.py 2>&1 | tail -15
lab all run streams --device cuda --shape 4096x4096 --trials 20 --repeat 50 --json "$OUT/streams-all-fp32.json" >/dev/null 2>"$OUT/err1.txt"; summary "$OUT/streams-all-fp32.json"
lab mpw run streams --device cuda --shape 4096x4096 --variant missing-producer-wait --trials 20 --json "$OUT/streams-mpw.json" >/dev/null 2>"$OUT/err2.txt"; summary "$OUT/streams-mpw.json"
lab bf16 run streams --device cuda --shape 2048x2048 --dtype bfloat16 --variant correct,missing-consumer-wait,early-free --trials 20 --delay-us 0 --overlap false --json "$OUT/streams-bf16-nodelay.json" >/dev/null 2>"$OUT/err3.txt"; summary "$OUT/streams-bf16-nodelay.json"
for run in all bf16; do gzip -9 -c /tmp/lab-streams-$run/traces/*-streams.json > "$OUT/streams-$run-trace.json.gz"; done
ls -la "$OUT"

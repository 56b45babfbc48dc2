python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
for w in rope rms_norm; do for v in plain fullgraph lab-copy lab-copy-meta experiment; do
  python3 -m scripts.evidence.clock_variants $w $v 2>/dev/null | sed "s/^/$w /"; done; done
echo "== the lab's CLI run (a worker): rope"
python3 -m runtime_lab run fusion --workload rope --shape llama3-8b-4k --dtype bfloat16 --device cuda --modes eager,inductor --json /tmp/rope.json > /dev/null 2>&1
python3 -c "
import json; d=json.load(open('/tmp/rope.json')); s=d['summary']; print(json.dumps(s['clocks']['inductor']), s['loop_us_per_call'])"

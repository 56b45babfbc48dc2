# Session 13's last device call: issue 40's kernel diff with autotune choices, the new GPU
# tests (autotune, training pass, tolerance), and the two GEMM rows of the catalog.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl || exit 1
L="python3 -m runtime_lab --data-dir /tmp/lab-autotune"
O="--workload swiglu_mlp --shape llama3-8b-4k --dtype bfloat16 --device cuda --compile-latency false"
echo "== swiglu_mlp llama3-8b-4k: inductor, then max-autotune"; date -u
timeout 200 $L run fusion $O --modes eager,inductor --json $OUT/sw-inductor.json 2>&1 | grep -v "Warning\|_warn_once" | tail -4
timeout 240 $L run fusion $O --modes eager,inductor-max-autotune-no-cudagraphs --json $OUT/sw-autotune.json 2>&1 | grep -v "Warning\|_warn_once" | tail -6
python3 -m scripts.evidence.autotune_choices $OUT/sw-autotune.json 2>&1 | head -60
A=$(python3 -c "import json;print(json.load(open('$OUT/sw-inductor.json'))['id'])")
B=$(python3 -c "import json;print(json.load(open('$OUT/sw-autotune.json'))['id'])")
$L compare $A $B --json $OUT/sw-diff.json 2>&1 | tail -40
echo "== GPU tests"; date -u
timeout 300 python3 -m pytest -p no:cacheprovider -q -rfE --durations=10 tests/gpu/test_fusion_autotune_gpu.py tests/gpu/test_training_gpu.py tests/gpu/test_fusion_tolerance_gpu.py 2>&1 | tail -25
date -u
echo "== catalog: the two GEMM workloads (their preset shapes were refused before this session's fix)"
timeout 150 python3 -m benchmarks catalog --device cuda --out $OUT --set workloads=matmul,gemm_epilogue 2>&1 | grep -v "Warning\|_warn_once\|cpp_extension" | tail -12

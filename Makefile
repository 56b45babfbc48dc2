# The two commands of README.md (app, test) set everything up first (idempotent, fast when done).
# (test-gpu-N is a pattern rule: not listed here, since make skips pattern rules for .PHONY)
.PHONY: app test check lint setup ray test-gpu

PYTEST = .venv/bin/python -m pytest -p no:cacheprovider

app:
	scripts/setup.sh app
	.venv/bin/python -m streamlit run app.py

# CI (.ci/run): setup, lint, then every tier (tests/gpu skips itself without CUDA): the unit
# tier on every core; the integration tier on two, a file per worker (a file's module fixtures
# start its workers once), the heaviest files first (tests/helpers/budgets.py, not xdist's
# order by test count); then the `serial` tests alone: bars in seconds, e2e, gpu. Each pytest
# call prints its 25 slowest and its wall time against the tier's budget (docs/testing.md);
# every call runs even when one before failed.
test:
	scripts/setup.sh test
	$(MAKE) --no-print-directory lint
	failed=0; \
	  $(PYTEST) -q -n auto --durations=25 tests/unit || failed=1; \
	  $(PYTEST) -q -n 2 --dist loadfile --no-loadscope-reorder --durations=25 -m "not serial" tests/integration || failed=1; \
	  $(PYTEST) -q --durations=25 -m serial tests/integration tests/e2e tests/gpu || failed=1; \
	  exit $$failed

# the fast loop: lint and the unit tier in parallel (no worker, process or compile starts there)
check:
	@test -x .venv/bin/python || scripts/setup.sh test
	$(MAKE) --no-print-directory lint
	$(PYTEST) -q -n auto --durations=10 tests/unit

# The gpu tier on a CUDA machine, in parts that each end within 8 min on one H200 (a file per
# part, the heavy compiles spread out; tests/unit/test_gpu_parts.py checks every file is in one).
# PY=python3 uses a Python that has a CUDA torch; GPU_PART_S stops a part that runs over.
PY ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
GPU_PART_S ?= 480
GPU_PARTS = 1 2 3 4 5
GPU_1 = tests/gpu/test_fusion_gpu.py tests/gpu/test_fusion_kernels_gpu.py tests/gpu/test_fusion_autotune_gpu.py
GPU_2 = tests/gpu/test_gpu.py tests/gpu/test_tool_order_gpu.py tests/gpu/test_fusion_tolerance_gpu.py
GPU_3 = tests/gpu/test_gpu_streams.py tests/gpu/test_streams_csan_gpu.py
GPU_4 = tests/gpu/test_allocator_gpu.py tests/gpu/test_allocator_ab_gpu.py tests/gpu/test_training_gpu.py tests/gpu/test_step_peak_gpu.py
GPU_5 = tests/gpu/test_recompiles_whatif_gpu.py tests/gpu/test_reliability_gpu.py tests/gpu/test_process_gpu.py

test-gpu-%:
	timeout -s INT $(GPU_PART_S) $(PY) -m pytest -p no:cacheprovider -q -rfE --durations=25 $(GPU_$*)

# every part, one pytest call each; a failed part does not stop the next
test-gpu:
	@failed=""; for part in $(GPU_PARTS); do \
	  $(MAKE) --no-print-directory test-gpu-$$part || failed="$$failed $$part"; done; \
	  if [ -n "$$failed" ]; then echo "test-gpu: failed parts:$$failed"; exit 1; fi

# the optional Ray backend (docs/cluster.md); not part of make app
ray:
	scripts/setup.sh app
	.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-ray.txt

lint:
	.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

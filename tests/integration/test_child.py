"""The fresh-process runner the sanitizer, allocator A/B, outside-memory and fusion children share."""

from runtime_lab.lab import child


def test_a_missing_module_is_its_last_stderr_line():
    doc, why = child.run_module("runtime_lab.no_such_child", {}, 60)
    assert doc is None and why.startswith("exit 1: ") and "No module named" in why


def test_the_childs_json_document_is_read():
    # the A/B child on a CPU-only machine: it cannot set a CUDA device and says so as JSON
    args = {"device": "cpu", "calls": [[[8, 8], "float32"]]}
    env = {"PYTORCH_ALLOC_CONF": "expandable_segments:True"}
    doc, why = child.run_module("runtime_lab.allocator.run.ab_child", args, 120, env)
    assert why is None and set(doc) == {"error"} and doc["error"]


def test_a_child_that_runs_past_its_time_is_stopped():
    doc, why = child.run_module("runtime_lab.allocator.run.ab_child", {}, 0.01)
    assert doc is None and why == "did not finish in 0.01 s"


def test_a_child_that_raises_without_json_errors_is_its_last_stderr_line():
    # fusion's fresh-process child leaves a crash to the parent: no device given, a KeyError
    doc, why = child.run_module("runtime_lab.fusion.run.fresh_child", {"role": "fresh"}, 120)
    assert doc is None and why.startswith("exit 1: KeyError") and "device" in why

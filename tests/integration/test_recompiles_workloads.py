"""Recompiles over catalog workloads through the real worker on CPU, the CLI and the page."""

import pytest
from apphelpers import open_page, poll_until, widget

from runtime_lab import registry, ui
from runtime_lab.registry import result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.workloads.sequence import starting_sequence
from tests.helpers.bundledata import cli

TOKENS = "128x1024,256x1024,512x1024,1024x1024"  # rms_norm: tokens grow, hidden stays
ROWS = "64x256,128x256,96x256,64x256"  # softmax: rows vary, one repeats
FAST = {"backend": "eager", "compile_trace": False}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs in one worker: rms_norm marking tokens, then hidden, and softmax."""
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("recompiles-workloads"), timeout_s=600)
    specs = {
        "rms_norm": {"workload": "rms_norm", "shapes": TOKENS, "graph_break": "off", **FAST},
        "hidden": {
            "workload": "rms_norm",
            "shapes": TOKENS,
            "dims": "hidden",
            "modes": "mark_dynamic",
            "bucket": "off",
            "graph_break": "off",
            **FAST,
        },
        "softmax": {"workload": "softmax", "shapes": ROWS, "bucket": "off", **FAST},
    }
    try:
        ids = {
            name: jobs.submit(
                build_spec("recompiles", None, device="cpu", warmup=1, repeat=3, options=options)
            )
            for name, options in specs.items()
        }
        found = {name: jobs.wait(job_id, 600).as_run() for name, job_id in ids.items()}
    finally:
        jobs.close()
    return found


def _result(run):
    assert run["status"] == "done", run.get("error")
    return result_from_record("recompiles", run["result"])


def _modes(result):
    return {m.mode: m for m in result.modes}


@pytest.mark.slow
def test_rms_norm_recompiles_along_tokens(runs):
    result = _result(runs["rms_norm"])
    assert result.workload == "rms_norm" and result.dim_names == ("tokens", "hidden")
    assert result.dims == (0,) and result.marked == "x dim 0"  # w (hidden) carries no tokens
    graphs = {name: m.unique_graphs for name, m in _modes(result).items()}
    assert graphs == {
        "dynamic=False": 4,  # one per token count
        "dynamic=None": 2,  # static 128, then tokens dynamic
        "dynamic=True": 1,
        "mark_dynamic": 1,  # tokens marked: no recompile
        "bucketed": 4,  # every token count is already a power of two
    }
    second = _modes(result)["dynamic=None"].calls[1]
    assert "tensor 'x' size mismatch at index 0. expected 128, actual 256" in second.reason
    assert all(c.eager_ms > 0 and c.steady_ms > 0 for c in _modes(result)["dynamic=False"].calls)
    report = registry.build_report(runs["rms_norm"])
    assert report.headline.startswith(
        "recompiles rms_norm (tokens × hidden) CPU eager, 4 calls along tokens: "
        "dynamic=False 4 graphs · dynamic=None 2 graphs"
    )
    said = "\n".join(report.notes)
    assert "call 2 made tokens dynamic, hidden stays static. As expected" in said
    assert summary(runs["rms_norm"])["marked_dims"] == ["tokens"]


@pytest.mark.slow
def test_marking_hidden_leaves_tokens_to_automatic_dynamic(runs):
    result = _result(runs["hidden"])
    assert result.marked == "x dim 1; w dim 0"  # hidden is x's second axis and all of w
    mode = _modes(result)["mark_dynamic"]
    assert [c.event for c in mode.calls] == ["compile", "recompile", "cache hit", "cache hit"]
    assert "size mismatch at index 0" in mode.calls[1].reason  # tokens: not marked
    said = "\n".join(registry.build_report(runs["hidden"]).notes)
    assert "call 2 changed a dim not marked (tokens 128 → 256)" in said
    assert "rms_norm under mark_dynamic: 2 compiles for 4 calls" in said and "As expected" in said


@pytest.mark.slow
def test_softmax_reuses_a_repeated_row_count_and_breaks_where_told(runs):
    result = _result(runs["softmax"])
    static = _modes(result)["dynamic=False"]
    assert [c.event for c in static.calls] == ["compile", "recompile", "recompile", "cache hit"]
    assert static.calls[-1].compile_id == "0/0"
    assert _modes(result)["dynamic=None"].unique_graphs == 2
    g = result.graph_break
    assert g.error is None and g.unique_graphs == 2 and g.graph_breaks == 1 and g.matches_eager
    assert "def item_branch(*inputs)" in g.source and "def softmax" in g.source


@pytest.mark.slow
def test_the_cli_runs_a_workload_and_refuses_a_sequence_of_the_wrong_dims(tmp_path):
    common = ["run", "recompiles", "--device", "cpu", "--workload", "rms_norm", "--warmup", "0"]
    common += ["--repeat", "2", "--backend", "eager", "--bucket", "off", "--graph-break", "off"]
    common += ["--modes", "dynamic=False,mark_dynamic", "--compile-trace", "false"]
    done = cli(tmp_path, *common, "--shapes", "64x128,128x128")
    assert done.returncode == 0, done.stderr
    assert "recompiles rms_norm (tokens × hidden) CPU eager, 2 calls along tokens" in done.stdout
    bad = cli(tmp_path / "bad", *common, "--shapes", "64x128,8x8x8")
    assert bad.returncode == 2, (bad.stdout, bad.stderr)
    assert "shape 2 ('8x8x8') has 3 dims; rms_norm takes 2 per shape: tokens × hidden" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "bad" / "history.sqlite3").exists()


def _open(at):
    return open_page(at, "app_pages/recompiles.py")


def test_choosing_a_workload_fills_the_sequence_and_offers_its_presets(app):
    at = _open(app)
    assert not [w for w in at.text_input if w.label == "Shape"]  # the sequence is what runs
    widget(at.selectbox, "Workload").set_value("rms_norm").run()
    assert not at.exception
    gpu = bool(ui.manager().env.get("gpus"))
    assert widget(at.text_area, "shapes").value == starting_sequence("rms_norm", gpu)
    presets = widget(at.selectbox, "Preset for shapes")
    assert [o.split(":")[0] for o in presets.options[1:3]] == ["growing-tokens", "varying-tokens"]
    presets.set_value("varying-tokens").run()
    assert widget(at.text_area, "shapes").value.split(",")[0] == (
        "2048x4096" if gpu else "512x1024"
    )
    widget(at.selectbox, "Workload").set_value("attention").run()
    assert widget(at.text_area, "shapes").value.startswith("1x4x" if not gpu else "1x32x")
    widget(at.text_area, "shapes").set_value("64x64")
    at.button[0].click()
    at.run()
    errors = [e.value for e in at.error]
    assert any("attention takes 4 per shape: batch × heads × seq × head_dim" in e for e in errors)
    assert ui.manager().history.list() == []


def test_run_submits_the_workload_and_its_dims(app):
    at = _open(app)
    widget(at.selectbox, "Workload").set_value("softmax").run()
    widget(at.text_input, "dims").set_value("rows")
    at.button[0].click()
    at.run()
    assert not at.exception
    assert at.query_params["workload"] == "softmax" and at.query_params["dims"] == "0"


@pytest.mark.slow
def test_a_cpu_run_of_a_workload_draws_its_report(worker_app):
    at = _open(worker_app)
    widget(at.selectbox, "Workload").set_value("rms_norm").run()
    widget(at.text_area, "shapes").set_value("64x128,128x128,64x128")
    widget(at.selectbox, "Device").set_value("cpu")
    widget(at.selectbox, "backend").set_value("eager")
    widget(at.selectbox, "graph_break").set_value("off")
    widget(at.number_input, "Timed calls").set_value(3)
    at.button[0].click()
    at.run()
    poll_until(at, lambda a: len(a.success) > 0)
    head = at.success[0].value
    assert head.startswith("recompiles rms_norm (tokens × hidden) CPU eager, 3 calls along tokens")
    assert "dynamic=False 2 graphs" in head and "mark_dynamic 1 graph" in head
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["workload · marked dims"] == "rms_norm"  # its dims below it, not cut off
    assert "(tokens × hidden; marked: tokens)" in [c.value for c in at.caption]

"""The recompiles what-ifs through the real worker: the new marks, the stances, reduce-overhead."""

from dataclasses import replace

import pytest
import torch

from runtime_lab.cli.main import build_parser
from runtime_lab.lab.base import Context
from runtime_lab.recompiles import cudagraph_calls as cg
from runtime_lab.recompiles.result import CallRecord
from runtime_lab.recompiles.run import cudagraphs as rg
from runtime_lab.recompiles.run import experiment as recompiles_run
from runtime_lab.registry import build_report, result_from_record, summary
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

SEQUENCE = "64x64,128x128,192x64,64x64"
FAST = {"backend": "eager", "bucket": "off", "graph_break": "off", "compile_trace": False}
RECOMPILE = "RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    manager = JobManager(data_dir=tmp_path_factory.mktemp("whatif"), timeout_s=600)
    yield manager
    manager.close()


def _run(jobs, device="cpu", **options):
    spec = build_spec("recompiles", "8", device=device, warmup=1, repeat=3, options=options)
    job = jobs.wait(jobs.submit(spec), 600)
    assert job.state == "done", job.error
    run = job.as_run()
    return run, result_from_record("recompiles", run["result"])


def _events(result) -> dict[str, list[str]]:
    return {m.mode: [c.event for c in m.calls] for m in result.modes}


@pytest.mark.slow
def test_the_marks_differ_on_size_one_dims_and_cudagraphs_need_cuda(jobs):
    modes = "dynamic=False,mark_dynamic,maybe_mark_dynamic,mark_unbacked"
    run, result = _run(jobs, shapes=SEQUENCE + ",1x64", modes=modes, cudagraphs=True, **FAST)
    assert _events(result) == {
        # one graph per distinct shape; the repeated 64² is the first frame's
        "dynamic=False": ["compile", "recompile", "recompile", "cache hit", "recompile"],
        # both marks compile one graph dynamic in dims 0 and 1 from the first call, so no size
        # change recompiles; a size of 1 is specialized all the same (0/1 specialization: a
        # backed size's hint of 1 becomes a constant) and gets a graph of its own. Nothing in
        # silu(x + y) * (x - y) specializes a marked size otherwise, so the hint holds and
        # maybe_mark_dynamic does what mark_dynamic does; mark_dynamic raising where code
        # specializes a marked dim would need such code
        "mark_dynamic": ["compile", "cache hit", "cache hit", "cache hit", "recompile"],
        "maybe_mark_dynamic": ["compile", "cache hit", "cache hit", "cache hit", "recompile"],
        # unbacked sizes have no hint to specialize on and no guards on them: one frame for all
        "mark_unbacked": ["compile", "cache hit", "cache hit", "cache hit", "cache hit"],
    }
    by = {m.mode: m for m in result.modes}
    unbacked = by["mark_unbacked"]
    assert {c.compile_id for c in unbacked.calls} == {"0/0"} and unbacked.unique_graphs == 1
    # the failing guard is the dynamic graph's lower bound, and torch names the way out
    for mode in ("mark_dynamic", "maybe_mark_dynamic"):
        reason = by[mode].calls[4].reason
        assert reason.startswith("0/0: 2 <= x.size()[0]") and "mark_unbacked" in reason
    assert not any(m.mode == cg.MODE for m in result.modes)  # no CUDA here: a note instead
    assert any("needs CUDA" in n for n in result.notes) and result.cudagraphs
    report = build_report(run)
    assert any("call(s) 5 with a size-1 dimension reused its frame" in n for n in report.notes)
    assert summary(run)["unique_graphs"]["mark_unbacked"] == 1


@pytest.mark.slow
def test_mark_unbacked_under_inductor_compiles_once(jobs):
    _, result = _run(
        jobs,
        shapes="64x64,128x128,64x64",
        modes="dynamic=False,mark_unbacked",
        backend="inductor",
        bucket="off",
        graph_break="off",
    )
    assert _events(result) == {
        "dynamic=False": ["compile", "recompile", "cache hit"],
        "mark_unbacked": ["compile", "cache hit", "cache hit"],  # Inductor's kernel takes sizes
    }
    assert all(c.steady_ms and c.eager_ms for m in result.modes for c in m.calls)


STANCES = {
    # the first call compiles under the default stance in every case (see run.run_mode)
    "eager_on_recompile": {
        # a size that would recompile runs eager; the cached 64² frame still serves call 4
        "dynamic=False": ["compile", "eager fallback", "eager fallback", "cache hit"],
        # automatic dynamic needs a recompile to turn dynamic: the stance never lets it
        "dynamic=None": ["compile", "eager fallback", "eager fallback", "cache hit"],
        "mark_unbacked": ["compile", "cache hit", "cache hit", "cache hit"],
    },
    "fail_on_recompile": {
        "dynamic=False": ["compile", "failed", "failed", "cache hit"],
        "dynamic=None": ["compile", "failed", "failed", "cache hit"],
        "mark_unbacked": ["compile", "cache hit", "cache hit", "cache hit"],
    },
    "force_eager": {  # torch.compile ignored: even the cached 64² runs eager
        "dynamic=False": ["compile", "eager fallback", "eager fallback", "eager fallback"],
        "dynamic=None": ["compile", "eager fallback", "eager fallback", "eager fallback"],
        "mark_unbacked": ["compile", "eager fallback", "eager fallback", "eager fallback"],
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("stance", list(STANCES))
def test_each_stance_after_the_first_call(jobs, stance):
    modes = "dynamic=False,dynamic=None,mark_unbacked"
    run, result = _run(jobs, shapes=SEQUENCE, modes=modes, stance=stance, **FAST)
    assert result.stance == stance and _events(result) == STANCES[stance]
    for m in result.modes:
        assert m.stance == stance and m.calls[0].stance is None  # call 1: the default stance
        turned = [c for c in m.calls if (c.reason or "").startswith(f"stance {stance}: ")]
        assert (m.stance_eager, m.stance_failed) == (
            sum(c.event == "eager fallback" for c in turned),
            sum(c.event == "failed" for c in turned),
        )
        # every later call that did not run a compiled frame did so because of the stance
        assert len(turned) == sum(e != "cache hit" for e in STANCES[stance][m.mode][1:])
    static = result.modes[0].calls[1]
    if stance == "fail_on_recompile":
        assert static.error.startswith(RECOMPILE)  # verbatim, with the guard that failed
        assert "size mismatch at index 0. expected 64, actual 128" in static.error
        assert static.steady_ms is None  # a call that raised has no steady state
    else:
        assert static.error is None and static.compile_id is None and static.steady_ms > 0
    if stance != "force_eager":
        assert (
            "(0/0: tensor 'x' size mismatch at index 0. expected 64, actual 128)" in static.reason
        )
    report = build_report(run)
    assert report.ok and not [w for w in report.warnings if "failed" in w]
    assert any(n.startswith(f"dynamic=False under stance {stance}") for n in report.notes)
    assert summary(run)["stance"]["stance"] == stance


@pytest.mark.slow
def test_the_stance_is_restored_for_the_next_job(jobs):
    _run(jobs, shapes="8x8,16x16", modes="dynamic=False", stance="fail_on_recompile", **FAST)
    _, after = _run(jobs, shapes="8x8,16x16", modes="dynamic=False", **FAST)
    assert _events(after)["dynamic=False"] == ["compile", "recompile"]


def test_the_stance_is_reset_in_process_even_when_a_mode_fails(monkeypatch):
    options = {**FAST, "shapes": "8x8,16x16", "modes": "dynamic=False", "stance": "force_eager"}
    spec = build_spec("recompiles", "8", device="cpu", warmup=1, repeat=3, options=options)
    boom = RuntimeError("steady-state timing broke")
    monkeypatch.setattr(recompiles_run, "steady_times", lambda *a: (_ for _ in ()).throw(boom))
    result = recompiles_run.run(spec, Context(torch.device("cpu"), lambda *a: None))
    assert result.modes[0].error == "RuntimeError: steady-state timing broke"
    assert torch._dynamo.eval_frame._stance.stance == "default"


def test_a_missing_mark_or_stance_is_said_not_crashed(monkeypatch):
    monkeypatch.delattr(torch._dynamo.decorators, "mark_unbacked")
    monkeypatch.delattr(torch.compiler, "set_stance")
    options = {**FAST, "shapes": "8x8", "modes": "mark_unbacked,dynamic=True"}
    options["stance"] = "fail_on_recompile"
    spec = build_spec("recompiles", "8", device="cpu", warmup=1, repeat=3, options=options)
    result = recompiles_run.run(spec, Context(torch.device("cpu"), lambda *a: None))
    by = {m.mode: m for m in result.modes}
    unbacked, dynamic = by["mark_unbacked"], by["dynamic=True"]
    expected = "needs a newer torch: torch._dynamo.decorators.mark_unbacked is missing"
    assert unbacked.error == expected and dynamic.error is None
    assert result.stance == "default" and dynamic.stance is None
    assert any(n.startswith("stance needs torch ≥ 2.6") for n in result.notes)


def test_the_cli_has_the_new_options():
    args = build_parser().parse_args(
        ["run", "recompiles", "--stance", "eager_on_recompile", "--cudagraphs", "true"]
    )
    assert args.opt_stance == "eager_on_recompile" and args.opt_cudagraphs == "true"
    from runtime_lab.cli.main import _spec_from

    spec = _spec_from(args)
    assert spec.option("stance") == "eager_on_recompile" and spec.option("cudagraphs") is True


def _record(**kw) -> CallRecord:
    base = dict(index=1, shape=(8, 8), requested_shape=(8, 8), dtype="float32", event="compile")
    return CallRecord(**(base | {"call_s": 0.1, "compile_id": "0/0"} | kw))


def test_the_watch_taps_the_tree_manager_and_puts_it_back(monkeypatch):
    """The watch on CPU, with the tree manager's three entries stubbed: what a GPU run feeds it."""
    from torch._dynamo.utils import counters
    from torch._inductor import cudagraph_trees as trees

    cls = trees.CUDAGraphTreeManager

    def record_function(self, inputs, function_id):
        self.current_node = type("Node", (), {"id": trees.GraphID(self.graphs)})()
        self.graphs += 1

    def execute_node(self, node, inputs):
        self.current_node = node

    def run_eager(self, inputs, function_id):
        self.current_node = type("Node", (), {"id": trees.GraphID(-1)})()

    stubs = {"record_function": record_function, "execute_node": execute_node}
    stubs["run_eager"] = run_eager
    for name, stub in stubs.items():
        monkeypatch.setattr(cls, name, stub)
    manager = type("Manager", (), {"current_node": None, "graphs": 0})()
    found = []
    with rg.Watch() as watch:
        for step in ("run_eager", "record_function", "execute_node", None, "skip"):
            watch.before()
            node = manager.current_node
            if step == "execute_node":
                cls.execute_node(manager, node, [])
            elif step == "skip":
                counters["inductor"]["cudagraph_skips"] += 1
            elif step:
                getattr(cls, step)(manager, [], None)
            found.append(watch.after(_record()))
    assert [(r.cudagraph, r.cudagraph_id) for r in found] == [
        ("warmup", None),
        ("recorded", 0),
        ("replayed", 0),
        ("skipped", None),
        ("skipped", None),
    ]
    assert found[3].cudagraph_reason == cg.QUIET_WHY
    assert "1 cudagraph skip(s)" in found[4].cudagraph_reason
    assert all(getattr(cls, name) is stub for name, stub in stubs.items())  # put back
    assert replace(found[0], cudagraph=None, cudagraph_reason=None) == _record()

"""Issue 49, speed: a fusion job whose spec differs from an earlier run's only in timing fields
takes that run's compile latency and evidence; which run lends them, and the result made whole."""

from __future__ import annotations

from dataclasses import replace

import fusiondata
import pytest

from runtime_lab import registry
from runtime_lab.compiler.log import CompileEvidence
from runtime_lab.fusion.report import reuse
from runtime_lab.fusion.report.compile_cache import FROM_RUN
from runtime_lab.fusion.report.figures import key_figures
from runtime_lab.fusion.result import OWN_FIRST_CALL, CompileLatency, FusionResult
from runtime_lab.record import Run
from runtime_lab.results import from_plain, to_plain
from runtime_lab.runner import devices
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import RunSpec, build_spec
from runtime_lab.store.history import History

MODES = "eager,inductor,inductor-reduce-overhead"  # fusiondata's three
ENV = {"hostname": "h200-host", "torch": "2.13.0", "triton": "3.5.0", "gpus": [{"name": "H200"}]}
NEW = "c" * 32  # the reusing job's cache token


def _spec(shape: str = "4096x4096", **changes) -> RunSpec:
    options = {"modes": MODES, **changes.pop("options", {})}
    return build_spec("fusion", shape, **{"device": "cuda", **changes}, options=options)


def _traced(result: FusionResult) -> FusionResult:
    """with_cache_states() with the evidence a compile_trace run records per compiled mode."""
    modes = tuple(
        replace(m, compile_evidence=CompileEvidence(note=f"{m.mode} traced"))
        if m.mode.startswith("inductor")
        else m
        for m in result.modes
    )
    return replace(result, modes=modes)


def _measured() -> FusionResult:
    return _traced(fusiondata.with_cache_states())


def _stored(history: History, result: FusionResult, spec: RunSpec | None = None, **run) -> int:
    at = 1.7e9 + len(history.list())  # 2023: a time a bundle accepts
    fields = {"status": "done", "env": ENV, "device": "cuda:0", **run}
    return history.add(
        Run(
            job_id=f"j{at}",
            experiment="fusion",
            spec=(spec or _spec()).to_dict(),
            result=to_plain(result),
            created_at=at,
            started_at=at,
            finished_at=at + 5,
            **fields,
        )
    )


@pytest.fixture
def history(tmp_path) -> History:
    return History(tmp_path / "history.sqlite3")


def _lent(history: History, spec: RunSpec, env=ENV) -> int | None:
    found = reuse.lender(spec, env, history)
    return None if found is None else found.id


def test_the_newest_run_with_the_same_compile_inputs_lends_whatever_its_timing_was(history):
    older = _stored(history, _measured(), _spec(repeat=50))
    newer = _stored(history, _measured(), _spec(repeat=20, warmup=3, seed=7, l2_flush=False))
    _stored(history, _measured(), _spec(options={"fullgraph": False}))  # compiles another graph
    assert _lent(history, _spec(repeat=40)) == newer
    history.delete(newer)
    assert _lent(history, _spec(repeat=40)) == older
    # "auto" on a GPU worker is the GPU the stored run resolved to; reuse_compile is no input
    assert _lent(history, _spec(device="auto", options={"reuse_compile": True})) == older
    assert _lent(history, _spec(device="cpu")) is None  # the CPU compiles other code


@pytest.mark.parametrize(
    "differs",
    [
        {"status": "failed"},
        {"origin": {"fingerprint": "f" * 16, "host": "elsewhere"}},  # imported: not this lab's
        {"env": {**ENV, "hostname": "other-host"}},
        {"env": {**ENV, "torch": "2.12.0"}},
        {"env": {**ENV, "triton": "3.4.0"}},
        {"env": {**ENV, "gpus": [{"name": "H100"}]}},
        {"spec": _spec(shape="4096x2048")},
        {"spec": _spec(dtype="bfloat16")},
        {"spec": _spec(options={"modes": "eager,inductor"})},
        {"spec": _spec(options={"dynamic": "true"})},
        {"spec": _spec(options={"workload": "softmax"})},
    ],
)
def test_a_run_that_is_not_done_here_on_this_machine_with_these_inputs_lends_nothing(
    history, differs
):
    _stored(history, _measured(), **differs)
    assert _lent(history, _spec(repeat=40)) is None


def _without(scenario: str) -> FusionResult:
    result = _measured()
    modes = tuple(
        replace(m, compile=tuple(c for c in m.compile if c.scenario != scenario))
        for m in result.modes
    )
    return replace(result, modes=modes)


@pytest.mark.parametrize(
    ("result", "options", "why"),
    [
        (fusiondata.with_cache_states(), {}, "no compile evidence, compile_trace asked for it"),
        (_without("warm-cache"), {}, "compile_latency asked for a warm-cache compile"),
        (_traced(fusiondata.with_clocks()), {}, "before issue 49: no first call of empty caches"),
        (
            _without("warm-cache"),
            {"compile_latency": False},
            "its compile left nothing in the persistent cache: the job would compile it again",
        ),
    ],
)
def test_a_run_without_what_its_spec_asked_for_lends_nothing(history, result, options, why):
    _stored(history, result, _spec(options=options))
    assert _lent(history, _spec(repeat=40, options=options)) is None, why


def test_what_a_spec_did_not_ask_for_is_not_needed_and_reuse_compile_off_takes_nothing(history):
    off = {"compile_trace": False}
    lender = _stored(history, fusiondata.with_cache_states(), _spec(options=off))
    assert _lent(history, _spec(options=off)) == lender
    assert _lent(history, _spec(options={**off, "reuse_compile": False})) is None
    assert _lent(history, _spec(options=off), env={}) is None  # no worker has said where it runs


def _reusing(from_run: int) -> FusionResult:
    """What the worker sends when lent run #from_run: the naive arm's own first call, with the
    persistent cache (warm from that run), no latency scenarios, no evidence."""
    own = fusiondata.cached(
        CompileLatency(OWN_FIRST_CALL, 0.3, 0.25, 0.1, fx_cache_hits=1, compiles=1),
        "persistent",
        5,
        writers=(fusiondata.OWN,),
        runs=(from_run,),
    )
    base = fusiondata.with_cache_states()
    modes = tuple(replace(m, compile=(own,)) if m.mode == "inductor" else m for m in base.modes)
    return replace(base, modes=modes, cache_token=NEW, compile_from_run=from_run)


def _merged(history: History, lender: int, result: FusionResult) -> FusionResult:
    whole = reuse.merged(to_plain(result), history.get(lender))
    return from_plain(FusionResult, whole)


def test_the_result_is_made_whole_from_the_lender_each_record_naming_it(history):
    measured = _measured()
    lender = _stored(history, measured)
    whole = _merged(history, lender, _reusing(lender))
    by = {m.mode: m for m in whole.modes}
    taken = by["inductor"].compile[:-1]
    before = next(m for m in measured.modes if m.mode == "inductor").compile
    assert [c.scenario for c in taken] == [c.scenario for c in before]
    assert all(c.measured_in_run == lender for c in taken)
    assert [c.first_call_s for c in taken] == [c.first_call_s for c in before]
    own = by["inductor"].compile[-1]
    assert (own.scenario, own.measured_in_run, own.first_call_s) == (OWN_FIRST_CALL, None, 0.3)
    assert by["inductor"].compile_evidence.note == "inductor traced"
    assert by["inductor-reduce-overhead"].compile_evidence.note == "inductor-reduce-overhead traced"
    assert by["eager"].compile_evidence is None
    # the figures are the lender's, each state as the lender said it, "this run" now its number
    then, now = key_figures(measured), key_figures(whole)
    for name in ("cold_compile_s", "warm_cache_compile_s", "warm_process_s", "fresh_process_s"):
        assert now[name] == then[name], name
        assert now[reuse_state(name)] == then[reuse_state(name)], name
    assert then["mega_cache_cache_state"] == "warm from this run"
    assert now["mega_cache_cache_state"] == f"warm from run #{lender}"
    assert now["naive_speedup_cache_state"] == "empty" and now["compile_from_run"] == lender
    # the first call in this job is its own, warm from the lender's entries
    assert now["first_call_s"]["inductor"] == 0.3
    assert now["first_call_cache_state"]["inductor"] == f"warm from run #{lender}"
    assert "compile_from_run" not in then


def reuse_state(name: str) -> str:
    return f"{name.removesuffix('_s')}_cache_state"


def test_a_lender_that_took_its_own_from_another_passes_on_the_one_that_measured(history):
    first = _stored(history, _measured())
    second = _stored(history, _merged(history, first, _reusing(first)))
    assert reuse.lent(history.get(second)) == {"compile_from_run": first}
    whole = _merged(history, second, _reusing(first))
    inductor = next(m for m in whole.modes if m.mode == "inductor")
    assert [c.scenario for c in inductor.compile].count(OWN_FIRST_CALL) == 1  # second's is not
    assert {c.measured_in_run for c in inductor.compile[:-1]} == {first}
    assert inductor.compile[-1].first_call_s == 0.3


def test_a_result_that_measured_its_own_is_left_as_it_is(history):
    lender = _stored(history, _measured())
    own = to_plain(replace(_measured(), cache_token=NEW))
    assert reuse.merged(own, history.get(lender)) == own


def test_the_report_says_where_the_compile_figures_came_from_in_one_line(history):
    lender = _stored(history, _measured())
    whole = _merged(history, lender, _reusing(lender))
    rep = registry.build_report(fusiondata.run(whole))
    line = FROM_RUN.format(lender)
    assert line == (
        f"Compile latency and compile evidence: from run #{lender} (same compile inputs; this "
        "run changed only warm-up/timed calls/flush/seed)"
    )
    assert line in rep.notes and line in rep.summary.prose
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["cold compile"] == f"10 s (measured in run #{lender}; compile cache empty)"
    measured = registry.build_report(fusiondata.run(_measured()))
    assert not [n for n in measured.notes if n.startswith("Compile latency and compile evidence")]
    assert {m.label: m.value for m in measured.metrics}[
        "cold compile"
    ] == "10 s (compile cache empty)"


def _outcome(result: FusionResult) -> dict:
    return {"state": "done", "result": to_plain(result), "device": "cuda:0", "worker": {}}


def test_the_job_table_lends_at_dispatch_and_stores_the_run_whole(tmp_path):
    jobs = JobManager(data_dir=tmp_path, start=False, spare=False, plans=devices.local_plan(1, 1))
    try:
        lender = _stored(jobs.history, _measured())
        job = jobs.submit(_spec(repeat=40))
        assert jobs.lend(job, ENV) == {"compile_from_run": lender}
        jobs.update(job, phase="headline", partial=to_plain(_reusing(lender)))
        partial = from_plain(FusionResult, jobs.get(job).partial)
        assert any(c.measured_in_run == lender for m in partial.modes for c in m.compile)
        lane = next(lane for lane in jobs.lanes if lane.name == jobs.get(job).lane)
        jobs.settle(job, lane, _outcome(_reusing(lender)))
        stored = jobs.history.get(jobs.get(job).run_id)
        figures = key_figures(from_plain(FusionResult, stored.result))
        assert figures["cold_compile_s"] == 10.0 and figures["compile_from_run"] == lender
        again = jobs.submit(_spec(repeat=40), reuse=False)  # Measure again: all of it
        assert jobs.get(again).may_reuse is False and jobs.lend(again, ENV) == {}
    finally:
        jobs.close()


def test_a_stored_run_that_took_its_compile_figures_exports_imports_and_compares(tmp_path):
    from runtime_lab.compare import comparison
    from runtime_lab.store import bundle

    history = History(tmp_path / "history.sqlite3")
    lender = _stored(history, _measured())
    taker = _stored(history, fusiondata.with_reused_compile(lender), _spec(repeat=40))
    (tmp_path / "other").mkdir()
    elsewhere = History(tmp_path / "other" / "history.sqlite3")
    [moved] = bundle.import_bytes(
        bundle.export_runs(history, [taker], tmp_path), elsewhere, tmp_path / "other"
    )
    copy = elsewhere.get(moved)  # one run, whole on its own: its lender did not travel
    assert copy.result == history.get(taker).result
    assert key_figures(registry.load(copy))["cold_compile_s"] == 10.0
    found = comparison.build([history.get(lender), history.get(taker)])
    assert "compile_from_run" not in set(found.figures["key"])  # a run's number, no figure
    assert reuse.lender(_spec(), ENV, elsewhere) is None  # an imported run lends nothing

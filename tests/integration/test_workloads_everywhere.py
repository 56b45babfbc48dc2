"""Every workload of the catalog through Shapes & recompiles, Allocator and Streams on CPU, in
one worker: each run finishes, names its workload and draws (fusion's own test covers fusion)."""

import pytest
from catalogdata import along, text

from runtime_lab import registry
from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec
from runtime_lab.workloads.fit import params_text
from runtime_lab.workloads.registry import NAMES, WORKLOADS

pytestmark = pytest.mark.slow  # ~40 small jobs; recompiles with Dynamo only (backend eager)

RECOMPILES = {
    "modes": "dynamic=False,dynamic=None",
    "backend": "eager",
    "bucket": "off",
    "graph_break": "off",
    "compile_trace": False,
}


def _specs(name: str) -> dict:
    work = WORKLOADS[name]
    small, half = along(name, 4), along(name, 8)
    params = {"workload": name, "params": params_text(dict(work.cpu_params))}
    sequence = f"{text(half)},{text(small)},{text(half)}"
    common = {"device": "cpu", "warmup": 1, "repeat": 3}
    streams_shape = "64x64" if name == "matmul" else text(small)  # matmul keeps its own shape
    return {
        "recompiles": build_spec(
            "recompiles", None, **common, options=params | RECOMPILES | {"shapes": sequence}
        ),
        "allocator": build_spec(
            "allocator",
            None,
            **common,
            options=params | {"shapes": sequence, "scenarios": "sequence"},
        ),
        "streams": build_spec(
            "streams", streams_shape, **common, options=params | {"trials": 2, "overlap": False}
        ),
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = JobManager(data_dir=tmp_path_factory.mktemp("everywhere"), timeout_s=600)
    try:
        ids = {(n, e): jobs.submit(s) for n in NAMES for e, s in _specs(n).items()}
        return {key: jobs.wait(job_id, 900).as_run() for key, job_id in ids.items()}
    finally:
        jobs.close()


@pytest.mark.parametrize("experiment", ["recompiles", "allocator", "streams"])
@pytest.mark.parametrize("name", NAMES)
def test_every_workload_runs_in_every_experiment(runs, name, experiment):
    run = runs[(name, experiment)]
    assert run["status"] == "done", run.get("error")
    result = result_from_record(experiment, run["result"])
    assert result.workload == name
    report = registry.build_report(run)
    if (experiment, name) != ("streams", "matmul"):  # streams' own op keeps the seed's headline
        assert name in report.headline, report.headline
    if experiment == "recompiles":
        modes = {m.mode: m for m in result.modes}
        assert not any(m.error for m in modes.values()), [m.error for m in modes.values()]
        # static shapes compile once per distinct shape: two here
        assert modes["dynamic=False"].unique_graphs == 2, modes["dynamic=False"]
    if experiment == "streams":
        assert result.tolerance_passed

"""Device-aware form defaults and the Run estimate: from history first, else a measured default."""

import dataclasses

import pytest

from runtime_lab import registry
from runtime_lab.options import COMMON_DEFAULTS, form_defaults
from runtime_lab.record import Run
from runtime_lab.spec import RunSpec, build_spec
from runtime_lab.store.estimate import estimate
from runtime_lab.store.history import History


def _spec(info, values):
    values = dict(values)
    shape, warmup, repeat = values.pop("shape"), values.pop("warmup"), values.pop("repeat")
    return build_spec(info.name, shape, warmup=warmup, repeat=repeat, options=values)


def test_common_defaults_are_the_specs():
    fields = {f.name: f.default for f in dataclasses.fields(RunSpec)}
    assert {k: fields[k] for k in COMMON_DEFAULTS} == COMMON_DEFAULTS


@pytest.mark.parametrize("name", [n for n in registry.NAMES if not registry.EXPERIMENTS[n].hidden])
def test_cpu_defaults_are_valid_and_smaller(name):
    info = registry.EXPERIMENTS[name]
    unknown = set(info.cpu_defaults) - {"shape", *COMMON_DEFAULTS, *info.options}
    assert not unknown
    cpu, gpu = form_defaults(info, gpu=False), form_defaults(info, gpu=True)
    cpu_spec, gpu_spec = _spec(info, cpu), _spec(info, gpu)  # both valid: no SpecError
    if info.cpu_defaults:
        assert cpu_spec != gpu_spec and info.cpu_defaults_why
    assert (
        info.default_run_s.get("cpu") and info.default_run_s.get("cuda") and info.default_run_basis
    )
    assert info.default_run_s["cpu"] < 60 and info.default_run_s["cuda"] < 20  # issue 18 bars


def _run(spec: RunSpec, seconds: float, device="cpu", status="done", host="here"):
    return Run(
        job_id="j",
        experiment=spec.experiment,
        device=device,
        status=status,
        label=spec.label,
        spec=spec.to_dict(),
        env={"hostname": host},
        created_at=0.0,
        started_at=100.0,
        finished_at=100.0 + seconds,
    )


def test_estimate_uses_the_same_spec_from_history(tmp_path):
    info = registry.EXPERIMENTS["fusion"]
    history = History(tmp_path / "h.sqlite3")
    spec = build_spec("fusion", "64x64", options={"modes": "eager"})
    other = build_spec("fusion", "128x128", options={"modes": "eager"})
    for seconds in (10.0, 14.0, 30.0):
        history.add(_run(spec, seconds))
    history.add(_run(other, 99.0))
    history.add(_run(spec, 500.0, status="failed"))
    history.add(_run(spec, 700.0, device="cuda:0"))
    history.add(_run(spec, 900.0, host="elsewhere"))
    past = history.durations("fusion")
    seed_differs = dataclasses.replace(spec, seed=5).to_dict()
    found = estimate(info, seed_differs, "cpu", past, host="here")
    assert found.seconds == 14.0 and (found.low_s, found.high_s) == (10.0, 30.0)
    assert "3 earlier runs of this spec" in found.text() and "about 14 s" in found.text()
    on_gpu = estimate(info, spec.to_dict(), "cuda", past, host="here")
    assert on_gpu.seconds == 700.0
    unseen = build_spec("fusion", "256x256", options={"modes": "eager"}).to_dict()
    broad = estimate(info, unseen, "cpu", past, host="here")
    assert broad.seconds == 22.0 and "other specs" in broad.basis  # median of 10, 14, 30, 99


def test_estimate_of_the_defaults_without_history_is_the_measured_figure():
    info = registry.EXPERIMENTS["fusion"]
    defaults = _spec(info, form_defaults(info, gpu=False)).to_dict()
    found = estimate(info, defaults, "cpu", [])
    assert found.seconds == info.default_run_s["cpu"] and found.basis == info.default_run_basis
    changed = build_spec("fusion", "96x96").to_dict()
    assert estimate(info, changed, "cpu", []) is None  # nothing known: no figure made up

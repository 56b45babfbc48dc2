"""The glossary of figures: every key a recorded run's key figures emit is defined once, with
words, a unit, a direction, how it is measured and when not to trust it; compare and the
report tooltips read it."""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from pathlib import Path
from typing import Any

import allocatordata
import fusiondata
import pytest
import recompilesdata
from comparedata import CPU_FUSION, H200_STREAMS, legacy_runs

from runtime_lab import registry
from runtime_lab.allocator.result import ScenarioError
from runtime_lab.fusion.result import Autotune, CompileLatency
from runtime_lab.glossary import ratio, units
from runtime_lab.glossary import registry as glossary
from runtime_lab.glossary.figure import NUMERIC_UNITS, Figure

ROOT = Path(__file__).resolve().parents[2]
RUNS = legacy_runs()
WITH_FIGURES = [name for name in registry.NAMES if registry.glossary(name)]


def _leaves(figures: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every path of key_figures down to a value that is not a dict with entries; an empty
    dict or a None stands for the section it would hold."""
    found: dict[str, Any] = {}
    for key, value in figures.items():
        path = f"{prefix}{key}"
        found |= _leaves(value, f"{path}.") if isinstance(value, dict) and value else {path: value}
    return found


def _mega_cache() -> Any:
    """The CUDA-like fusion result with a mega-cache record on its inductor mode."""
    mega = CompileLatency("mega-cache", 6.5, compiles=1, artifact_bytes=157_193)
    result = fusiondata.result()
    modes = tuple(
        dataclasses.replace(m, compile=(*m.compile, mega)) if m.mode == "inductor" else m
        for m in result.modes
    )
    return dataclasses.replace(result, modes=modes)


def _streams_with_workload() -> Any:
    """The H200 streams run as if it ran a catalog op with the hidden-dependency case."""
    result = registry.load(RUNS[H200_STREAMS])
    hidden = dataclasses.replace(result.overlap[0], hidden_dependency=True)
    return dataclasses.replace(result, workload="rms_norm", overlap=(*result.overlap, hidden))


def _failed_parts() -> list[tuple[str, Any]]:
    """Results whose scenario or mode failed, and a workload with parameters."""
    allocator = dataclasses.replace(
        allocatordata.workload_result(),
        errors=(ScenarioError("compiled", "RuntimeError: boom"),),
        params=(("intermediate", 64),),
    )
    recompiles = recompilesdata.result()
    failed = dataclasses.replace(recompiles.modes[0], error="RuntimeError: boom")
    recompiles = dataclasses.replace(recompiles, modes=(failed, *recompiles.modes[1:]))
    return [("allocator", allocator), ("recompiles", recompiles)]


def _recorded() -> list[tuple[str, dict[str, Any]]]:
    """(experiment, key figures) of every recorded run and test result at hand."""
    found = [
        (run.spec["experiment"], registry.summary(run))
        for run in RUNS.values()
        if run.status == "done" and registry.glossary(run.spec["experiment"])
    ]
    results = {
        "fusion": [
            fusiondata.result(),
            fusiondata.with_clocks(),
            fusiondata.with_resources(),
            fusiondata.with_catalog(),
            fusiondata.with_tolerance(),
            fusiondata.with_training(),
            fusiondata.with_gpu_clock(),
            _mega_cache(),
            fusiondata.with_autotune(),
            fusiondata.with_autotune(Autotune(note="from cache")),
            fusiondata.with_cache_states(),
            fusiondata.with_reused_compile(),
        ],
        "allocator": [
            allocatordata.result(),
            allocatordata.workload_result(),
            allocatordata.workload_result(False),
        ],
        "recompiles": [
            recompilesdata.result(),
            recompilesdata.whatif(),
            recompilesdata.rms_norm_result(),
        ],
        "streams": [_streams_with_workload()],
    }
    for name, typed in results.items():
        stage = importlib.import_module(f"runtime_lab.{name}.{registry.STAGES['figures']}")
        found += [(name, stage.key_figures(r)) for r in typed]
    return found + [(name, registry.summary(_done(name, r), r)) for name, r in _failed_parts()]


def _done(experiment: str, result: Any) -> dict[str, Any]:
    return {"status": "done", "spec": {"experiment": experiment}, "result": {}}


RECORDED = _recorded()
PATHS = sorted({(name, path) for name, figures in RECORDED for path in _leaves(figures)})


def test_the_recorded_runs_cover_every_experiment_with_figures():
    assert (
        {name for name, _ in RECORDED}
        == set(WITH_FIGURES)
        == {
            "fusion",
            "recompiles",
            "streams",
            "allocator",
        }
    )
    # and every entry is a key some run emits: none describes a figure no code makes
    used = {
        (n, f.key) for n, path in PATHS for f in glossary.figures(n) if f.names(path) is not None
    }
    assert [f.key for f in glossary.figures() if (f.experiment, f.key) not in used] == []


def test_every_key_a_recorded_run_emits_is_in_the_glossary():
    missing = [(name, path) for name, path in PATHS if not glossary.covers(name, path)]
    assert not missing


def test_each_path_has_one_entry_whose_unit_fits_its_value():
    for name, figures in RECORDED:
        for path, value in _leaves(figures).items():
            matching = [f for f in glossary.figures(name) if f.names(path) is not None]
            if value is None or value == {}:
                continue  # a section or a figure this run has not: its entries are below
            assert len(matching) == 1, (name, path, [f.key for f in matching])
            unit = matching[0].unit
            if isinstance(value, bool):
                assert unit == "flag", (name, path)
            elif isinstance(value, int | float):
                assert unit in NUMERIC_UNITS, (name, path, unit)
            else:
                assert unit == ("list" if isinstance(value, list) else "text"), (name, path)


def test_keys_are_unique_within_an_experiment_and_every_entry_is_complete():
    for name in WITH_FIGURES:
        keys = Counter(f.key for f in glossary.figures(name))
        assert [k for k, n in keys.items() if n > 1] == [], name
    for figure in glossary.figures():
        assert figure.experiment in WITH_FIGURES
        assert figure.label and figure.unit and figure.better and figure.how and figure.trust


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"unit": "MB"}, "unit 'MB'"),
        ({"better": "faster"}, "better 'faster'"),
        ({"label": "steady-state time"}, "one {} per *"),
        ({"trust": ""}, "required"),
    ],
)
def test_an_incomplete_entry_is_refused(changes, message):
    fields = {
        "experiment": "fusion",
        "key": "steady_state_ms.*",
        "label": "{} steady-state time",
        "unit": "ms",
        "better": "lower",
        "how": "median of the timed calls",
        "trust": "a noisy run",
    }
    Figure(**fields)
    with pytest.raises(ValueError, match=message):
        Figure(**(fields | changes))


def test_a_label_takes_the_names_its_key_stands_for():
    assert glossary.label("fusion", "steady_state_ms.inductor") == "inductor steady-state time"
    # a clock's name has dots of its own: the last * takes the rest of the path
    clock = "clocks.eager.torch.utils.benchmark"
    assert glossary.label("fusion", clock) == "eager median under torch.utils.benchmark"
    assert (
        glossary.label("streams", "variants.early-free.mismatches") == "early-free: wrong results"
    )
    assert glossary.unit("allocator", "call_peak_bytes.1024x32000.eager") == "bytes"
    # a key the glossary has not (a run stored by other code) still reads from its path
    assert glossary.label("fusion", "new_figure_us.eager") == "eager new figure us"
    assert glossary.unit("fusion", "new_figure_us.eager") == "us"
    assert glossary.find("fusion", "new_figure_us.eager") is None


def test_values_read_together_share_one_unit_and_bytes_are_binary():
    row = units.scale("ms", [0.9, 3.2])
    assert [units.show("ms", v, row) for v in (0.9, 3.2)] == ["0.9 ms", "3.2 ms"]
    assert units.show("ms", 0.0009) == "900 ns" and units.show("us", 2500.0) == "2.5 ms"
    assert units.show("s", 0.25) == "250 ms"
    assert (
        units.show("bytes", 1.5 * 2**30) == "1.5 GiB" and units.show("bytes", 3 * 2**10) == "3 KiB"
    )
    assert units.show("GB/s", 4281.3) == "4,281 GB/s" and units.show("%", 85.25) == "85.2 %"
    assert units.show("count", 1200) == "1,200" and units.show("x", 2.1) == "2.1×"
    assert units.show("ms", None) == "—"


@pytest.mark.parametrize(
    ("value", "unit", "better", "said"),
    [
        (2.0, "ms", "lower", "2× slower"),
        (0.25, "s", "lower", "4× faster"),
        (0.5, "GB/s", "higher", "2× lower (worse)"),
        (1.3, "bytes", "lower", "1.3× more bytes (worse)"),
        (0.5, "count", "lower", "2× fewer (better)"),
        (3.0, "ms", "neither", "3× longer"),
        (1.0004, "x", "higher", "1×"),
        (None, "ms", "lower", "—"),
    ],
)
def test_a_ratio_says_its_direction_in_words(value, unit, better, said):
    assert ratio.words(value, unit, better) == said


@pytest.mark.parametrize(
    ("values", "said"),
    [([0.75, 0.7512], "0.75×"), ([1.1, 1.12, 1.13], "1.1×"), ([0.9, 0.75], "0.75×–0.9×")],
)
def test_a_range_of_ratios_is_one_figure_when_its_ends_read_the_same(values, said):
    assert ratio.span(values) == said  # never "0.75×–0.75×"


def test_compare_takes_labels_units_and_direction_from_the_glossary():
    from runtime_lab.compare import comparison

    other = dataclasses.replace(RUNS[CPU_FUSION], id=2)
    long = comparison.figures([RUNS[CPU_FUSION], other])
    row = long[long["key"] == "achieved_gbps.eager"].iloc[0]
    found = glossary.find("fusion", "achieved_gbps.eager")
    assert (row["figure"], row["unit"], row["better"]) == (
        found.label_of("achieved_gbps.eager"),
        "GB/s",
        "higher",
    )


def test_report_tooltips_come_from_the_glossary():
    rep = registry.build_report(fusiondata.run(fusiondata.with_clocks()))
    help_of = {m.label: m.help for m in rep.metrics}
    for label, key in (
        ("cold compile", "cold_compile_s"),
        ("copy ceiling", "copy_ceiling_gbps"),
        ("best % of ceiling", "max_ceiling_pct"),
    ):
        # the glossary's words first; a run may add its own after them (why above a ceiling)
        assert help_of[label].startswith(glossary.find("fusion", key).help), label
    assert "When not to trust it:" in help_of["ceiling (best measured)"]
    assert help_of["ceiling (best measured)"].endswith("uses the better of the two.")


def test_the_docs_name_the_glossary_and_its_command():
    measurement = (ROOT / "docs" / "measurement.md").read_text()
    assert "## The figures" in measurement
    assert "python -m runtime_lab figures" in measurement
    assert "runtime_lab figures" in (ROOT / "docs" / "cli.md").read_text()

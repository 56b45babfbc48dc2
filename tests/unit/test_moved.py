"""What moved since an earlier run: changed fields, the headline figure's move and its noise."""

from __future__ import annotations

import copy

from comparedata import CPU_FUSION, CPU_RECOMPILES, legacy_runs, numbered

from runtime_lab.compare import comparison
from runtime_lab.compare.comparison import BEYOND, WITHIN
from runtime_lab.compare.moved import comparable

RUNS = legacy_runs()


def _fusion(run_id: int, eager=None, repeat=None):
    run = numbered(RUNS[CPU_FUSION], run_id)
    if repeat is not None:
        run["spec"]["repeat"] = repeat
    for mode in run["result"]["modes"]:
        if mode["mode"] == "eager" and eager is not None:
            mode["timing"]["host_ms"] = list(eager)
    return run


def _samples(mode: str) -> list[float]:
    found = next(m for m in RUNS[CPU_FUSION]["result"]["modes"] if m["mode"] == mode)
    return found["timing"]["host_ms"]


def test_a_changed_repeat_is_named_with_both_values_and_the_speedup_is_judged():
    before = _fusion(6, repeat=50)
    after = _fusion(7, eager=[t * 3 for t in _samples("eager")], repeat=100)
    moved = comparison.since(before, after)
    assert moved.changed == (("repeat", "50", "100"),)
    (move,) = moved.moves
    assert move.figure == "measured speed-up (eager ÷ compiled)"
    assert move.verdict == BEYOND  # eager 3× slower: the speed-up's IQR ranges part
    text = moved.text()
    assert text.startswith("Since run #6: repeat 50 → 100 · measured speed-up")
    assert f"{move.before} → {move.after}" in text and "beyond noise" in text


def test_halves_of_one_runs_samples_move_the_speedup_within_noise():
    eager = _samples("eager")
    moved = comparison.since(_fusion(1, eager=eager[0::2]), _fusion(2, eager=eager[1::2]))
    assert moved.changed == ()
    assert moved.moves[0].verdict == WITHIN
    assert moved.text().startswith("Since run #1: the same spec · ")


def test_recompiles_headline_moves_per_mode():
    before = numbered(RUNS[CPU_RECOMPILES], 3)
    after = numbered(copy.deepcopy(RUNS[CPU_RECOMPILES]), 4)
    moved = comparison.since(before, after)
    assert moved.moves and all(m.before == m.after for m in moved.moves)
    assert all(m.change == "1×" for m in moved.moves)


def test_only_runs_of_one_experiment_and_workload_follow_each_other():
    fusion = RUNS[CPU_FUSION].spec
    other = copy.deepcopy(fusion)
    other["options"]["workload"] = "rms_norm"
    assert comparable(fusion, copy.deepcopy(fusion))
    assert not comparable(fusion, other)
    assert not comparable(fusion, RUNS[CPU_RECOMPILES].spec)


def test_a_comparison_leads_with_the_headline_figure():
    after = _fusion(2, eager=[t * 3 for t in _samples("eager")], repeat=100)
    view = comparison.build([_fusion(1, repeat=50), after])
    assert view.headline.startswith("measured speed-up (eager ÷ compiled) ")
    assert "in #1 → " in view.headline and "in #2: " in view.headline
    assert view.table["figure"].iloc[0] == "measured speed-up (eager ÷ compiled)"  # first row

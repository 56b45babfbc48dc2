"""Text that fits what ran: the cache statement beside a ceiling, controls that do nothing here,
History labels that tell runs apart, compare's better / worse."""

import dataclasses

import comparedata
import fusiondata
import pandas as pd
import pytest

from runtime_lab import registry
from runtime_lab.compare import labels
from runtime_lab.compare import table as compare_table
from runtime_lab.env import llc_bytes
from runtime_lab.fusion.report import notes as fusion_notes
from runtime_lab.fusion.report.cache import WorkingSet, working_set
from runtime_lab.options import choices_here, inactive
from runtime_lab.registry import EXPERIMENTS
from runtime_lab.report import CONTENDED
from runtime_lab.runner import probe

MIB = 2**20
RUNS = comparedata.legacy_runs()


def test_a_working_set_in_cache_says_so_with_both_sizes():
    fits = WorkingSet(12 * MIB, 32 * MIB, "LLC")
    assert fits.fits and fits.over_ceiling() == (
        "the working set fits in cache (12 MiB vs LLC 32 MiB): a figure above the memory "
        "ceiling is cache bandwidth, not DRAM's"
    )
    big = WorkingSet(192 * MIB, 50 * MIB, "L2")
    assert big.fits is False and "is larger than the L2 (50 MiB)" in big.over_ceiling()
    unknown = WorkingSet(12 * MIB, None, "LLC")
    assert unknown.fits is None and "may fit in the LLC (its size was not recorded)" in (
        unknown.over_ceiling()
    )


def test_the_working_set_is_the_fused_bytes_and_the_cache_the_devices():
    result = fusiondata.result()  # 4096² float32 on CUDA: x, y and the output, 192 MiB
    env = {"gpus": [{"l2_cache_bytes": 50 * MIB}], "host_llc_bytes": 32 * MIB}
    ws = working_set(result, env)
    assert (ws.bytes, ws.cache_bytes, ws.cache_name) == (192 * MIB, 50 * MIB, "L2")
    cpu = working_set(dataclasses.replace(result, device="cpu"), env)
    assert (cpu.cache_bytes, cpu.cache_name) == (32 * MIB, "LLC")


def test_a_cpu_run_over_the_ceiling_says_the_cache_in_its_warning_chart_and_metric():
    # 256² float32 fits any LLC: eager's bytes model at 155 % of the ceiling is cache
    run = RUNS[comparedata.CPU_FUSION]
    run = dataclasses.replace(run, env={**run.env, "host_llc_bytes": 32 * MIB})
    result = registry.load(run)
    result = dataclasses.replace(result, copy_ceiling_gbps=result.copy_ceiling_gbps / 4)
    rep = registry.build_report(dataclasses.replace(run, result=_plain(result)))
    best = next(m for m in rep.metrics if m.label == "best % of ceiling")
    assert best.value.endswith("(eager · above the ceiling: cache)")
    assert "the working set fits in cache (768 KiB vs LLC 32 MiB)" in best.help
    bandwidth = dict(rep.charts)["Bandwidth: achieved GB/s against the copy ceiling"].to_dict()
    assert bandwidth["title"]["text"].startswith("Above the ceiling: the working set fits in")


def _plain(result):
    from runtime_lab.results import to_plain

    return to_plain(result)


def test_the_cpu_note_names_no_seed_op_count():
    assert "four" not in fusion_notes.CPU_NOTE and "aten ops" in fusion_notes.CPU_NOTE


def test_the_host_llc_is_read_from_sysfs(tmp_path):
    for index, (level, kind, size) in enumerate(
        [
            (1, "Data", "32K"),
            (1, "Instruction", "32K"),
            (2, "Unified", "1024K"),
            (3, "Unified", "32768K"),
        ]
    ):
        entry = tmp_path / f"index{index}"
        entry.mkdir()
        (entry / "level").write_text(f"{level}\n")
        (entry / "type").write_text(f"{kind}\n")
        (entry / "size").write_text(f"{size}\n")
    assert llc_bytes(str(tmp_path)) == 32 * MIB
    assert llc_bytes(str(tmp_path / "missing")) is None


@pytest.mark.parametrize(
    ("experiment", "name", "gpu", "workload", "why"),
    [
        ("streams", "sanitizer", False, None, "needs CUDA"),
        ("streams", "sanitizer", True, None, None),
        ("allocator", "alloc_ab", False, "pointwise", "needs CUDA"),
        ("recompiles", "cudagraphs", False, "pointwise", "needs CUDA"),
        ("fusion", "fresh_process", True, "rms_norm", "acts on pointwise only"),
        ("fusion", "fresh_process", False, "pointwise", None),  # a CPU compile too
        ("fusion", "modes", False, "pointwise", None),  # some of its choices act on the CPU
    ],
)
def test_a_control_that_does_nothing_here_says_why(experiment, name, gpu, workload, why):
    found = inactive(EXPERIMENTS[experiment].options[name], gpu, workload)
    assert (found is None) if why is None else why in found


def test_choices_that_need_cuda_are_not_offered_without_a_gpu():
    modes = EXPERIMENTS["fusion"].options["modes"]
    assert "cuda-graph" not in choices_here(modes, gpu=False)
    assert "inductor" in choices_here(modes, gpu=False)
    assert choices_here(modes, gpu=True) == modes.choices


def test_history_labels_name_the_experiment_workload_what_differs_and_the_figure():
    fusion = RUNS[comparedata.CPU_FUSION]
    other = comparedata.with_workload(fusion, "rms_norm")
    rows = [
        {"id": 1, "experiment": "fusion", "spec": fusion.spec, "label": fusion.label},
        {"id": 2, "experiment": "fusion", "spec": other.spec, "label": "my rms run"},
        {"id": 3, "experiment": "streams", "spec": RUNS[2].spec, "label": RUNS[2].label},
    ]
    rows[0]["figure"] = labels.headline_figure("fusion", registry.summary(fusion))
    found = labels.labels(rows)
    # the workload differs, not the rest of the spec; the figure with its glossary label
    assert found[1] == "fusion · pointwise · 256x256 · measured speed-up (eager ÷ compiled) 0.46×"
    assert found[2] == "fusion · rms_norm · 256x256 · “my rms run”"  # a given label, quoted
    assert found[3] == "streams · matmul · 256x256"  # alone of its experiment: nothing differs


def test_history_labels_list_every_spec_field_that_differs():
    fusion = RUNS[comparedata.CPU_FUSION]
    changed = comparedata.stored(fusion)
    changed.spec["dtype"] = "bfloat16"
    changed.spec["options"]["modes"] = "eager,inductor"
    rows = [
        {"id": i, "experiment": "fusion", "spec": r.spec} for i, r in ((1, fusion), (2, changed))
    ]
    found = labels.labels(rows)
    assert found[1] == (
        "fusion · pointwise · 256x256 · dtype=float32 · modes=eager,inductor,dynamo-eager"
    )
    assert found[2] == "fusion · pointwise · 256x256 · dtype=bfloat16 · modes=eager,inductor"


def test_history_labels_say_a_status_other_than_done():
    fusion = RUNS[comparedata.CPU_FUSION]
    rows = [
        {"id": i, "experiment": "fusion", "spec": fusion.spec, "status": status}
        for i, status in enumerate(("done", "cancelled", "failed", None), 1)
    ]
    rows[2]["label"] = "my run"
    found = labels.labels(rows)
    assert found[1] == found[4] == "fusion · pointwise · 256x256"  # done, or not said
    assert found[2] == "fusion · pointwise · 256x256 · cancelled"
    assert found[3] == "fusion · pointwise · 256x256 · failed · “my run”"  # before a given label


def test_a_headline_figure_of_several_modes_names_a_few():
    said = labels.headline_figure("recompiles", registry.summary(RUNS[3]))
    assert said.startswith("graphs: dynamic=False 3 · dynamic=None 3 · dynamic=True 2")
    assert said.endswith("· …")


def test_beyond_noise_is_judged_better_or_worse_by_the_glossarys_direction():
    assert compare_table.judgement(2.0, "higher") == "better"
    assert compare_table.judgement(2.0, "lower") == "worse"
    assert compare_table.judgement(0.5, "lower") == "better"
    assert compare_table.judgement(2.0, "neither") == ""
    long = pd.DataFrame(
        {
            "key": ["t", "t", "b", "b"],
            "run": ["#1", "#2", "#1", "#2"],
            "ratio": [1.0, 0.5, 1.0, 3.0],
            "better": ["lower", "lower", "higher", "higher"],
        }
    )
    judged = compare_table.judgements(long, ["#1", "#2"])
    assert list(judged["#2 noise"]) == ["better", "better"]


def test_a_contended_host_the_verdict_states_stays_out_of_the_summary():
    assert probe.CONTENDED == CONTENDED  # the probe's name for the verdict's state


def test_compare_colours_beyond_noise_green_where_better_red_where_worse():
    from runtime_lab.compare.comparison import BEYOND, WITHIN
    from runtime_lab.ui.compare import verdict_styles

    table = pd.DataFrame({"figure": ["t", "b", "c"], "#2 noise": [BEYOND, BEYOND, WITHIN]})
    judged = pd.DataFrame({"#2 noise": ["better", "worse", ""]})
    html = verdict_styles(table, judged).to_html()
    assert "rgba(84, 162, 75, 0.25)" in html and "rgba(228, 87, 86, 0.25)" in html


def test_a_text_column_is_as_wide_as_its_longest_value_not_its_header():
    from runtime_lab.ui.report import text_widths

    frame = pd.DataFrame(
        {"scenario": ["cold", "warm-cache"], "mode": ["inductor", "eager"], "s": [1.0, 2.0]}
    )
    widths = text_widths(frame)
    assert set(widths) == {"scenario", "mode"}  # "warm-cache" under "scenario" read "warm-cac"
    assert widths["scenario"]["width"] >= 10 * 8

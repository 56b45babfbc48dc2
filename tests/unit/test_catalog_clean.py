"""The catalog's clean-process column: which lab figures it judges, and what it says differs."""

from benchmarks.recipes.catalog import versus

KERNEL = [{"name": "triton_red_fused_0", "config": "XBLOCK=1, R0_BLOCK=2048"}]
OTHER = "triton_red_fused_0: XBLOCK=1, R0_BLOCK=4096"


def clean(eager=(0.28, 0.28), inductor=(0.028, 0.028), configs=None):
    return {
        "runs": 2,
        "eager_ms": sum(eager) / 2,
        "eager_ms_range": eager,
        "inductor_ms": sum(inductor) / 2,
        "inductor_ms_range": inductor,
        "inductor_kernels": KERNEL,
        "configs": configs or ["triton_red_fused_0: XBLOCK=1, R0_BLOCK=2048"],
    }


def lab(host_us=None):
    return {"kernels": KERNEL, "host_us": host_us or {"eager": 10.0, "inductor": 10.0}}


def test_a_figure_inside_the_clean_processes_range_plus_two_percent_is_not_a_difference():
    row = {"eager_ms": 0.2850, "inductor_ms": 0.0270}
    found = versus(row, clean(inductor=(0.0274, 0.0288)), lab())
    assert found["difference"] is None
    assert abs(found["lab_vs_clean"]["inductor"] - 0.0270 / 0.0281) < 1e-9
    assert found["clean_ms_range"]["inductor"] == (0.0274, 0.0288)


def test_a_different_autotuned_config_is_named_with_both_sides():
    row = {"eager_ms": 0.28, "inductor_ms": 0.0262}
    found = versus(row, clean(configs=[OTHER]), lab())
    assert found["difference"].startswith("inductor: lab ÷ clean 0.936")
    assert (
        "configs differ: lab [triton_red_fused_0: XBLOCK=1, R0_BLOCK=2048]" in found["difference"]
    )
    assert OTHER in found["difference"]


def test_a_launch_bound_call_says_the_host_issue_time_and_the_same_config_says_so():
    row = {"eager_ms": 0.28, "inductor_ms": 0.0262}
    found = versus(row, clean(), lab({"eager": 10.0, "inductor": 74.0}))
    assert (
        "launch-bound: the host takes 74 µs to issue a call the GPU runs in 28 µs"
        in (found["difference"])
    )
    assert found["difference"].endswith("same kernels and configs")


def test_a_launch_bound_call_sets_the_host_beside_the_kernels_own_time_where_profiled():
    """H100, rms_norm's compiled training step (session 18): the host took 250 µs to issue a
    call, two clean processes read 195 µs, the lab 272 µs: neither is the GPU's time."""
    row = {"eager_ms": 0.936, "inductor_ms": 0.272}
    side = lab({"eager": 742.0, "inductor": 250.0}) | {"kernel_us": {"inductor": 80.0}}
    found = versus(row, clean(eager=(0.933, 0.936), inductor=(0.1944, 0.1947)), side)
    assert found["difference"].startswith("inductor: lab ÷ clean 1.398")
    assert (
        "launch-bound: the host takes 250 µs to issue a call whose kernels run 80 µs"
        in found["difference"]
    )
    assert found["lab_kernel_us"] == {"inductor": 80.0}
    assert "eager" not in found["difference"]  # inside the clean range: nothing to explain


def test_a_lab_config_that_one_clean_process_picked_too_is_not_called_different():
    """H100, rms_norm's compiled step (session 18): one clean process autotuned the lab's
    R0_BLOCK=4096, the other 2048, and both read 0.1944-0.1947 ms."""
    row = {"eager_ms": 0.28, "inductor_ms": 0.0262}
    configs = sorted([OTHER, "triton_red_fused_0: XBLOCK=1, R0_BLOCK=2048"])
    found = versus(row, clean(inductor=(0.0280, 0.0281), configs=configs), lab())
    assert found["difference"].endswith(
        "the lab's configs are one clean process's (2 sets among them, their figures 0.4 % apart)"
    )
    assert "configs differ" not in found["difference"]


def test_calls_under_twenty_microseconds_are_shown_but_not_judged():
    row = {"eager_ms": 0.28, "inductor_ms": 0.0050}
    found = versus(row, clean(inductor=(0.0060, 0.0061)), lab())
    assert found["difference"] == "inductor: 6.0 µs per call, under the judged 20 µs"
    assert found["lab_vs_clean"]["inductor"] < 0.9  # the ratio is still there to read


def test_the_clean_peaks_travel_with_the_row_and_a_fwd_run_has_no_per_pass_kernels():
    from types import SimpleNamespace

    from benchmarks.recipes.catalog import RECIPE, _per_mode

    found = versus(
        {"eager_ms": 0.28, "inductor_ms": 0.028}, clean() | {"inductor_peak_mib": 96.0}, lab()
    )
    assert found["clean_peak_mib"] == {"eager": None, "inductor": 96.0}
    assert RECIPE.settings["pass"].default == "fwd"
    fwd = {
        "eager": SimpleNamespace(forward_kernels=None),
        "inductor": SimpleNamespace(forward_kernels=None),
    }
    assert _per_mode(fwd, "forward_kernels") is None
    step = {
        "eager": SimpleNamespace(forward_kernels=14.0),
        "inductor": SimpleNamespace(forward_kernels=1.0),
    }
    assert _per_mode(step, "forward_kernels") == {"eager": 14.0, "inductor": 1.0}


def test_the_table_shows_whole_kernel_counts_per_mode_and_the_clean_step_peaks():
    """The catalog's tables read "eager 15 · inductor 1", never a dict's repr nor 15.000, and
    the side-by-side table carries the clean step peaks where CUDA read them."""
    from types import SimpleNamespace

    from benchmarks.recipes.catalog import _per_mode, versus_rows
    from benchmarks.table import render

    step = {
        "eager": SimpleNamespace(forward_kernels=15.0),
        "inductor": SimpleNamespace(forward_kernels=1.5),  # calls that launched unevenly
    }
    counts = _per_mode(step, "forward_kernels")
    assert type(counts["eager"]) is int and counts["inductor"] == 1.5
    table = render("rows", [{"workload": "rms_norm", "forward_kernels": counts}])
    assert "eager 15 · inductor 1.500" in table and "{" not in table
    row = {"workload": "rms_norm", "clean_peak_mib": {"eager": 448.0, "inductor": 128.0}}
    assert versus_rows([row])[0]["clean_peak_mib"] == {"eager": 448.0, "inductor": 128.0}
    cpu = {"workload": "rms_norm", "clean_peak_mib": {"eager": None, "inductor": None}}
    assert "clean_peak_mib" not in versus_rows([cpu])[0]


def test_a_run_without_a_compared_mode_gets_no_clean_process_and_says_why():
    from benchmarks.recipes.catalog import _clean
    from runtime_lab.spec import build_spec

    spec = build_spec(
        "fusion", "64x64", device="cpu", options={"workload": "rms_norm", "modes": "dynamo-eager"}
    )
    assert _clean(spec, 1) == {
        "error": "no mode to compare: the run's modes have none of eager, inductor"
    }


def test_on_a_cpu_the_labs_own_timer_clock_is_set_beside_the_clean_timer():
    """The lab's harness flushes the caches between calls; torch.utils.benchmark does not: on
    a CPU the row compares the lab's Timer clock with the clean process's, and says no GPU
    words (launch-bound, Triton configs) about it."""
    row = {
        "eager_ms": 1.59,
        "inductor_ms": 0.69,
        "lab_timer_ms": {"eager": 0.72, "inductor": 0.325},
    }
    ref = clean(eager=(7.6, 7.6), inductor=(0.32, 0.32)) | {"clock": "torch.utils.benchmark"}
    found = versus(row, ref, lab({"eager": 900.0, "inductor": 900.0}))
    assert found["lab_clock_compared"] == "torch.utils.benchmark"
    assert abs(found["lab_vs_clean"]["inductor"] - 0.325 / 0.32) < 1e-9
    assert found["difference"] == "eager: lab ÷ clean 0.095"


def test_the_side_by_side_table_names_its_clock_and_is_absent_without_clean_processes():
    """`--set clean=no` ended in an UnboundLocalError (the table's clock was set only when
    clean processes ran, the table drawn either way)."""
    from types import SimpleNamespace

    from benchmarks.recipes.catalog import show_versus

    shown = []
    rows = [{"workload": "pointwise", "eager_ms": 1.0, "clean_eager_ms": 1.0}]
    for device, cleaned in (("cpu", False), ("cpu", True), ("cuda", True)):
        bench = SimpleNamespace(device=device, show=lambda title, table: shown.append(title))
        show_versus(bench, rows, cleaned)
    assert shown == [
        "The lab beside a clean process (ms per call, torch.utils.benchmark)",
        "The lab beside a clean process (ms per call, do_bench)",
    ]


def test_the_clean_peak_reads_one_fresh_training_step_as_the_allocator_does():
    from types import SimpleNamespace

    import torch

    from benchmarks import clean

    x = torch.ones(4)
    seen = []

    def forward(t):
        seen.append(t)
        return (t * 2).sum()

    work = SimpleNamespace(module=None, inputs=(x,))
    clean._peak_call(forward, work, "fwd")()
    assert seen[-1] is x  # the forward alone, on the inputs themselves
    clean._peak_call(forward, work, "bwd")()
    # a backward pass reads one whole step from a fresh leaf: its gradient is made inside the
    # call (and counts), nothing a timed call left on the inputs is held before it
    leaf = seen[-1]
    assert leaf is not x and leaf.requires_grad and x.grad is None
    assert torch.equal(leaf.grad, torch.full((4,), 2.0))

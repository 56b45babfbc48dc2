"""The GPU's clock and power over a timed phase: NVML's counters read into a GpuState, and where
the lab says two figures were timed at different clocks (catalog, fusion verdict, clocks)."""

from types import SimpleNamespace

from benchmarks.recipes.catalog import clock_note, versus
from runtime_lab.fusion.report.clocks import clock_warning
from runtime_lab.fusion.report.verdict import clock_doubt
from runtime_lab.lab import gpu_state
from runtime_lab.results import GpuState, from_plain, to_plain


def ends(wall_s=2.0, energy_j=1200.0, power_s=1.5, thermal_s=0.0):
    start = {"t": 10.0, "energy_mj": 5_000_000, "power_ns": 7e9, "thermal_ns": 3e9}
    end = {
        "t": 10.0 + wall_s,
        "energy_mj": 5_000_000 + energy_j * 1e3,
        "power_ns": 7e9 + power_s * 1e9,
        "thermal_ns": 3e9 + thermal_s * 1e9,
    }
    return start, end


def test_the_counters_give_average_power_and_the_share_of_the_phase_under_each_cap():
    start, end = ends()
    found = gpu_state.state(start, end, (1980.0, 1650.0, 1620.0), (1980.0, 700.0))
    assert found.power_w == 600.0  # 1200 J over 2 s
    assert found.power_capped_pct == 75.0  # 1.5 s of 2 s
    assert found.thermal_capped_pct == 0.0
    assert found.median_clock_mhz == 1650.0
    assert abs(found.clock_fraction - 1650 / 1980) < 1e-9
    assert from_plain(GpuState, to_plain(found)) == found  # it travels as JSON and back


def test_readings_the_card_does_not_give_are_none_and_nothing_at_all_is_no_state():
    start, end = ends()
    for side in (start, end):
        side.update(energy_mj=None, power_ns=None, thermal_ns=None)
    only_clock = gpu_state.state(start, end, (1755.0,), (None, None))
    assert only_clock.power_w is None and only_clock.power_capped_pct is None
    assert only_clock.clock_fraction is None  # no maximum to read it against
    assert gpu_state.state(start, end, (), (None, None)) is None


def test_no_watch_off_cuda_or_without_nvml():
    assert gpu_state.GpuWatch.start(SimpleNamespace(type="cpu")) is None


def state(mhz, capped=None):
    return GpuState((mhz, mhz), 1980.0, 600.0, 700.0, capped, 0.0)


def test_the_catalog_names_the_clocks_only_where_they_differ():
    assert clock_note(state(1980.0), [state(1975.0), state(1985.0)]) is None
    said = clock_note(state(1620.0, capped=80.0), [state(1980.0), state(1960.0)])
    assert said == "SM clock lab 1620 vs clean 1970 MHz (lab power-capped 80 % of its timing)"
    assert clock_note(None, [state(1980.0)]) is None


def test_a_catalog_difference_carries_the_clock_and_the_row_the_clocks():
    row = {"eager_ms": 2.156, "inductor_ms": 2.16}
    ref = {
        "runs": 2,
        "eager_ms": 1.995,
        "eager_ms_range": (1.99, 2.0),
        "inductor_ms": 2.16,
        "inductor_ms_range": (2.15, 2.17),
        "eager_gpu": [state(1980.0), state(1980.0)],
        "configs": ["none seen"],
    }
    lab = {"kernels": [], "host_us": {}, "gpu": {"eager": state(1650.0, capped=90.0)}}
    found = versus(row, ref, lab)
    assert found["difference"].startswith("eager: lab ÷ clean 1.081; SM clock lab 1650 vs")
    assert found["sm_clock_mhz"]["eager"] == {"lab": 1650, "clean": 1980}
    assert found["sm_clock_mhz"]["inductor"] == {"lab": None, "clean": None}


def mode(name, gpu):
    return SimpleNamespace(mode=name, timing=SimpleNamespace(gpu=gpu))


def test_the_verdict_doubts_a_speed_up_whose_arms_ran_at_different_clocks():
    same = {"eager": mode("eager", state(1980.0)), "inductor": mode("inductor", state(1960.0))}
    assert clock_doubt(same, ("eager", "inductor")) is None
    apart = {
        "eager": mode("eager", state(1600.0, 85.0)),
        "inductor": mode("inductor", state(1980.0)),
    }
    assert clock_doubt(apart, ("eager", "inductor")) == (
        "GPU clock differed between the arms (eager 1600 MHz, power-capped 85 % of its timing; "
        "inductor 1980 MHz)"
    )
    assert clock_doubt({"eager": mode("eager", None), **apart}, ("eager", "inductor"))
    assert clock_doubt({"eager": mode("eager", None)}, ("eager", "inductor")) is None


def test_a_flagged_clock_says_the_sm_clock_it_ran_at_beside_the_labs():
    lab = {"mode": "eager", "clock": "lab", "flagged": False, "detail": "the lab's harness: x"}
    lab |= {"sm_clock_mhz": 1980.0, "power_capped_pct": 0.0}
    bench = {"mode": "eager", "clock": "triton.do_bench", "flagged": True, "ratio_to_lab": 1.18}
    bench |= {"allowed_pct": 5.0, "sm_clock_mhz": 1600.0, "power_capped_pct": 70.0}
    said = clock_warning([lab, bench])
    assert (
        "eager · triton.do_bench 1.180× (allowed ±5.0 %, at SM 1600 MHz, power-capped 70 % of "
        "it against the lab's 1980)" in said
    )
    bench["sm_clock_mhz"] = 1975.0
    assert "(allowed ±5.0 %)" in clock_warning([lab, bench])


def test_a_run_timed_at_two_clocks_says_so_in_its_figures_and_its_verdict():
    import fusiondata

    from runtime_lab.fusion.report.figures import figures, key_figures
    from runtime_lab.fusion.report.verdict import verdict

    result = fusiondata.with_gpu_clock()
    key = key_figures(result)
    assert key["sm_clock_mhz"] == {"eager": 1650.0, "inductor": 1980.0}
    assert key["power_capped_pct"] == {"eager": 85.0, "inductor": None}
    found = verdict(result, figures(result))
    assert not found.ok
    assert "GPU clock differed between the arms (eager 1650 MHz, power-capped 85 %" in found.doubt
    assert "sm_clock_mhz" not in key_figures(fusiondata.with_clocks())  # no NVML, no figure


def test_the_catalog_table_shows_both_sides_clocks_only_where_nvml_read_them():
    from benchmarks.recipes.catalog import versus_rows

    row = {"workload": "swiglu_mlp", "eager_ms": 2.1, "clean_eager_ms": 2.0}
    row["sm_clock_mhz"] = {
        "eager": {"lab": 1650, "clean": 1980},
        "inductor": {"lab": 1980, "clean": None},
    }
    assert versus_rows([row])[0]["sm_mhz_lab/clean"] == "eager 1650/1980 · inductor 1980/-"
    row["sm_clock_mhz"] = {"eager": {"lab": None, "clean": None}}
    assert "sm_mhz_lab/clean" not in versus_rows([row])[0]

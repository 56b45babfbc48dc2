"""Issue 49: the compile-cache state of each first call and compile, read (entries, Inductor's
lookups, the lab's record of writers, history) and said (labels, key figures, the report)."""

import json
import logging
from dataclasses import replace

import fusiondata
import pytest

from runtime_lab import registry
from runtime_lab.fusion.report import compile_cache as cache
from runtime_lab.fusion.report.figures import key_figures
from runtime_lab.lab import cache_env
from runtime_lab.record import Run
from runtime_lab.results import CompileLatency
from runtime_lab.store.history import History

OWN, EARLIER = fusiondata.OWN, fusiondata.EARLIER


def _record(**fields) -> CompileLatency:
    return CompileLatency("first call", 1.0, compiles=1, cache_dirs="persistent", **fields)


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"fx_cache_misses": 1, "cache_entries_before": 0}, "empty"),
        ({"fx_cache_misses": 1, "cache_entries_before": 4}, "cold"),
        (
            {"fx_cache_hits": 1, "cache_writers": (EARLIER,), "warm_from_runs": (6,)},
            "warm from run #6",
        ),
        ({"fx_cache_hits": 1, "cache_writers": (OWN,)}, "warm from this run"),
        ({"fx_cache_hits": 1, "cache_writers": ("",)}, f"warm from {cache.UNNAMED}"),
        ({"fx_cache_hits": 1, "cache_writers": (EARLIER,)}, f"warm from {cache.UNNAMED}"),
        ({"fx_cache_hits": 1}, f"warm from {cache.PENDING}"),  # writers not read yet
        (
            {
                "fx_cache_hits": 1,
                "fx_cache_misses": 1,
                "cache_writers": (EARLIER,),
                "warm_from_runs": (3,),
            },
            "partly warm from run #3",
        ),
        ({"compiles": 0}, "warm in this worker"),
        ({}, "no Inductor cache"),  # backend="eager": no lookup at all
    ],
)
def test_each_state_is_named_from_what_the_compile_recorded(fields, state):
    assert cache.state(replace(_record(), **fields), OWN) == state


def test_a_run_from_before_issue_49_has_no_state_and_keeps_its_summary():
    old = CompileLatency("first call", 1.0, compiles=1, fx_cache_hits=1)
    assert cache.state(old) is None and cache.beside("1 s", None) == "1 s"
    figures = key_figures(fusiondata.with_clocks())
    assert not [k for k in figures if "cache_state" in k or k == "first_call_s"]


def test_the_state_sits_beside_each_first_call_and_compile_figure():
    figures = key_figures(fusiondata.with_cache_states())
    keys = list(figures)
    for figure, state in (
        ("cold_compile_s", "empty"),
        ("warm_cache_compile_s", "warm from run #6"),
        ("warm_process_s", "warm in this worker"),
        ("fresh_process_s", "empty"),
        ("mega_cache_s", "warm from this run"),
        ("naive_speedup", "empty"),  # the default measures what it claims: a first compile
    ):
        at = keys.index(figure)
        state_key = f"{figure.removesuffix('_s')}_cache_state"
        assert keys[at + 1] == state_key and figures[state_key] == state, figure
    assert figures["first_call_s"] == {"inductor": 2.0, "inductor-reduce-overhead": 0.9}
    assert figures["first_call_cache_state"] == {
        "inductor": "empty",
        "inductor-reduce-overhead": "cold",
    }


def test_the_report_says_each_state_in_plain_words():
    rep = registry.build_report(fusiondata.run(fusiondata.with_cache_states()))
    metrics = {m.label: m.value for m in rep.metrics}
    assert metrics["warm-cache compile"] == "500 ms (compile cache warm from run #6)"
    assert metrics["cold compile"] == "10 s (compile cache empty)"
    notes = "\n".join(rep.notes)
    assert "First calls, compile included: inductor 2 s (compile cache empty), " in notes
    assert "inductor-reduce-overhead 900 ms (compile cache cold: none of its entries" in notes
    assert "Its compiled first call compiled with empty cache folders of its own" in notes
    assert metrics["speed-up: naive A/B vs measured"] == "0.456× (compile cache empty) vs 3×"
    pairs = {m.label: m.value for row in rep.summary.pairs for m in row}
    naive = next(v for label, v in pairs.items() if label.startswith("naive A/B"))
    assert naive == "0.456× (flips after 550 calls; compile cache empty)", naive


def test_the_lab_records_who_wrote_each_entry_and_counts_entries(tmp_path):
    (tmp_path / "fxgraph" / "ab" / "fabkey").mkdir(parents=True)
    (tmp_path / "fxgraph" / "ab" / "fabkey" / "entry").write_text("x")
    (tmp_path / "aotautograd" / "akey").mkdir(parents=True)
    (tmp_path / "aotautograd" / "akey" / "entry").write_text("x")
    assert cache_env.entries(tmp_path) == 2
    assert cache_env.entries(tmp_path / "missing") == 0
    cache_env.record_writer(tmp_path, ("fabkey",), OWN)
    found = cache_env.writer(tmp_path, "fabkey")
    assert found["token"] == OWN and found["at"] > 0
    assert cache_env.writer(tmp_path, "other") is None
    (tmp_path / cache_env.WRITERS / "bad.json").write_text("[1]")
    assert cache_env.writer(tmp_path, "bad") is None
    assert cache_env.entries(tmp_path) == 2  # the record is not an entry of Inductor's


def test_a_watched_compile_reads_inductors_lookups_and_keeps_them_off_stderr(
    tmp_path, monkeypatch, capsys
):
    from runtime_lab.lab import compile_tools as ct

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    (tmp_path / "fxgraph" / "xx" / "fxold").mkdir(parents=True)
    (tmp_path / "fxgraph" / "xx" / "fxold" / "entry").write_text("x")
    fx = logging.getLogger("torch._inductor.codecache")
    aot = logging.getLogger("torch._functorch._aot_autograd.autograd_cache")
    level = fx.level
    with ct.cache_watch(OWN, "persistent") as found:
        fx.info("fx graph cache hit for key %s", "fxold")
        aot.info("AOTAutograd cache miss for key %s", "aknew")
        fx.info("fx graph cache miss for key %s", "fxnew")
        fx.info("fx graph cache miss for key %s", "fxnew")  # a retry: one key
    assert found["cache_dirs"] == "persistent" and found["cache_entries_before"] == 1
    assert found["cache_hit_keys"] == ("fxold",)
    assert found["cache_miss_keys"] == ("aknew", "fxnew")
    assert cache_env.writer(tmp_path, "fxnew")["token"] == OWN
    assert cache_env.writer(tmp_path, "fxold") is None  # found, not written: no claim on it
    assert fx.level == level  # the logger as it was
    assert "cache" not in capsys.readouterr().err  # INFO was turned on for the lab alone


def test_a_writer_is_named_by_the_stored_run_whose_job_wrote_it(tmp_path, monkeypatch):
    from runtime_lab.fusion.run.cache_runs import warm_from

    monkeypatch.setenv("RUNTIME_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor-cache"))
    history = History(tmp_path / "history.sqlite3")
    stored = [
        history.add(_stored(f"j{i}", token, 1000.0 + 10 * i))
        for i, token in enumerate(("c" * 32, EARLIER))
    ]
    root = tmp_path / "inductor-cache"
    for key, token in (("fxa", EARLIER), ("fxb", OWN)):
        cache_env.record_writer(root, (key,), token)
        entry = json.loads((root / cache_env.WRITERS / f"{key}.json").read_text())
        entry["at"] = 1015.0  # while the second stored run was under way
        (root / cache_env.WRITERS / f"{key}.json").write_text(json.dumps(entry))
    base = fusiondata.with_cache_states()
    hits = _record(fx_cache_hits=3, cache_hit_keys=("fxa", "fxb", "fxc"))
    modes = [replace(m, compile=(hits,)) if m.mode == "inductor" else m for m in base.modes]
    inductor = next(m for m in warm_from(modes, OWN) if m.mode == "inductor")
    record = inductor.compile[0]
    assert record.cache_writers == (EARLIER, OWN, "")
    assert record.warm_from_runs == (stored[1],)
    assert cache.state(record, OWN) == (
        f"warm from run #{stored[1]} and this run and {cache.UNNAMED}"
    )


def _stored(job: str, token: str, at: float) -> Run:
    return Run(
        job_id=job,
        experiment="fusion",
        device="cpu",
        status="done",
        label=job,
        spec={"experiment": "fusion", "shape": [8]},
        env={"torch": "x"},
        result={"cache_token": token},
        created_at=at,
        started_at=at + 1,
        finished_at=at + 9,
    )

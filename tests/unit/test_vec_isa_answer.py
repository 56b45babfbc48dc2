"""The machine's recorded vector-ISA answer is trusted only whole, for the same machine, and only
where every ISA the CPU claims built and loaded."""

from runtime_lab.lab import vec_isa

MACHINE = {
    "torch": "2.13.0+cpu",
    "python": "/venv/bin/python",
    "compiler": ["/usr/bin/g++", 1, 2.0],
}
ISAS = ["avx512 avx512_vnni", "avx512", "avx2"]


def test_an_answer_where_every_claimed_isa_passed_is_trusted_on_the_same_machine(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(vec_isa, "_fingerprint", lambda: dict(MACHINE))
    vec_isa._record(tmp_path, ISAS, ISAS)
    assert vec_isa._all_known_good(tmp_path)
    monkeypatch.setattr(vec_isa, "_fingerprint", lambda: MACHINE | {"torch": "2.14.0+cpu"})
    assert not vec_isa._all_known_good(tmp_path)  # another torch: the full check again


def test_an_isa_that_failed_means_the_full_check_every_time(tmp_path, monkeypatch):
    monkeypatch.setattr(vec_isa, "_fingerprint", lambda: dict(MACHINE))
    vec_isa._record(tmp_path, ISAS[1:], ISAS)  # AVX-512 VNNI claimed, but it did not build
    assert not vec_isa._all_known_good(tmp_path)
    vec_isa._record(tmp_path, [], [])  # nothing to vectorise with: nothing to trust either
    assert not vec_isa._all_known_good(tmp_path)


def test_a_missing_or_torn_answer_or_an_unreadable_machine_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setattr(vec_isa, "_fingerprint", lambda: dict(MACHINE))
    assert not vec_isa._all_known_good(tmp_path)
    (tmp_path / vec_isa.ANSWER).write_text('{"fingerprint": {"torch"', encoding="utf-8")
    assert not vec_isa._all_known_good(tmp_path)
    vec_isa._record(tmp_path, ISAS, ISAS)
    monkeypatch.setattr(vec_isa, "_fingerprint", lambda: None)  # no compiler found, say
    assert not vec_isa._all_known_good(tmp_path)
    assert not list(tmp_path.glob(f"{vec_isa.ANSWER}.*"))  # no partial file left behind

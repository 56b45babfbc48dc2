"""The CUDA sanitizer through the real worker on the GPU: it flags the missing waits and misses
the early free (the CPU side of CSAN is tests/integration/test_streams_csan.py)."""

import pytest

from runtime_lab.registry import result_from_record
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

pytestmark = pytest.mark.gpu


def test_csan_on_the_gpu_flags_missing_waits_and_misses_the_early_free(tmp_path):
    jobs = JobManager(data_dir=tmp_path, timeout_s=600)
    try:
        options = {
            "sanitizer": True,
            "trials": 4,
            "overlap": False,
            "variant": "correct,missing-producer-wait,missing-consumer-wait,early-free,early-free-record-stream",
        }
        spec = build_spec("streams", "1024x1024", device="cuda", options=options)
        job = jobs.wait(jobs.submit(spec), 600)
    finally:
        jobs.close()
    assert job.state == "done", job.error
    result = result_from_record("streams", job.as_run()["result"])
    verdicts = {c.variant: c.verdict for c in result.csan}
    assert verdicts == {
        "correct": "clean",
        "missing-producer-wait": "race",
        "missing-consumer-wait": "race",
        "early-free": "clean",
        "early-free-record-stream": "clean",
    }, result.csan_note
    race = next(c for c in result.csan if c.variant == "missing-consumer-wait").races[0]
    assert {race.current.stream, race.previous.stream} == {"default", "side"}

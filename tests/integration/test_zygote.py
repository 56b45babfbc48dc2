"""The server's zygote (issue 27): its workers are forked, run jobs, die and are reported as a
process of their own would be; without it (off, dead, or another import-time environment) a
worker starts as a process of its own. Real subprocesses throughout."""

from __future__ import annotations

import signal
import time

import psutil
import pytest

from runtime_lab.envvars import ZYGOTE_ENV
from runtime_lab.runner import process
from runtime_lab.runner.forked import Zygote
from runtime_lab.runner.jobs import JobManager
from runtime_lab.spec import build_spec

# each test starts, kills and watches its managers' own zygote, not the session's (conftest.py)
pytestmark = [pytest.mark.slow, pytest.mark.own_zygote]


def _selftest(behaviour: str, seed: int = 0):
    return build_spec("selftest", "8", device="cpu", seed=seed, options={"behaviour": behaviour})


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _manager(data_dir) -> JobManager:
    return JobManager(data_dir=data_dir, timeout_s=120, gpus=0, cpu_workers=1)


def test_workers_are_forked_crash_as_processes_and_a_spare_takes_over(data_dir):
    jobs = _manager(data_dir)
    try:
        first = jobs.wait(jobs.submit(_selftest("profile")), 120)
        assert first.state == "done" and first.worker["forked"], first.error
        zygote = jobs.zygote.proc.pid
        # the retired worker's replacement (a spare, or one started for this job): forked too
        second_id = jobs.submit(_selftest("ok", seed=1))
        second = jobs.wait(second_id, 120)
        assert second.state == "done" and second.worker["forked"]
        assert second.worker["pid"] != first.worker["pid"]
        assert psutil.Process(second.worker["pid"]).ppid() == zygote
        # its start-up counts from the server's request: imports were the zygote's
        baseline = second.process_probe["baseline"]
        assert 0 <= baseline["imported_at_s"] <= baseline["ready_at_s"] < 30
        # the zygote compiled once on the CPU before forking: the set-up is inherited, not paid
        assert baseline["zygote_prewarm"] == "done" and baseline["zygote_prewarm_s"] > 0
        # what the imports made is out of the collector's way (torch alone is ~440 k objects)
        assert baseline["gc_frozen_objects"] > 100_000
        crash = jobs.wait(jobs.submit(_selftest("crash", seed=2)), 120)
        assert crash.state == "failed" and "killed by SIGKILL" in crash.error, crash.error
        after = jobs.wait(jobs.submit(_selftest("ok", seed=3)), 120)
        assert after.state == "done" and after.worker["forked"]
    finally:
        jobs.close()
    deadline = time.monotonic() + 10
    while psutil.pid_exists(zygote) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not psutil.pid_exists(zygote) or psutil.Process(zygote).status() == "zombie"


def test_a_dead_zygote_means_workers_of_their_own(data_dir):
    jobs = _manager(data_dir)
    try:
        first = jobs.wait(jobs.submit(_selftest("ok")), 120)
        assert first.worker["forked"]
        forked = [p.pid for p in psutil.Process(jobs.zygote.proc.pid).children()]
        assert first.worker["pid"] in forked
        jobs.zygote.proc.send_signal(signal.SIGKILL)
        jobs.zygote.proc.wait(10)
        # its workers (the one that ran, a spare) see their parent gone (checked every second)
        # and exit; a job sent to one in its last moment would fail with it, not the point here
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in forked) and time.monotonic() < deadline:
            time.sleep(0.1)
        done = jobs.wait(jobs.submit(_selftest("profile", seed=1)), 120)
        assert done.state == "done" and not done.worker["forked"], done.error
        again = jobs.wait(jobs.submit(_selftest("ok", seed=2)), 120)
        assert again.state == "done" and not again.worker["forked"]
        assert jobs.zygote.broken
    finally:
        jobs.close()


def test_off_when_asked(data_dir, monkeypatch):
    monkeypatch.setenv(ZYGOTE_ENV, "0")
    jobs = _manager(data_dir)
    try:
        assert jobs.zygote is None
        done = jobs.wait(jobs.submit(_selftest("ok")), 120)
        assert done.state == "done" and not done.worker["forked"]
    finally:
        jobs.close()


def test_a_forked_worker_that_cannot_start_means_workers_of_their_own(data_dir, monkeypatch):
    # as on the H100 host, where every forked worker failed to start CUDA: here the fork gets a
    # wrong key, so it cannot connect; the same start goes on as a process of its own
    real = Zygote.fork

    def wrong_key(self, env, address, timeout_s):
        return real(self, {**env, process.AUTHKEY_ENV: "00" * 32}, address, timeout_s)

    monkeypatch.setattr(Zygote, "fork", wrong_key)
    jobs = _manager(data_dir)
    try:
        done = jobs.wait(jobs.submit(_selftest("ok")), 120)
        assert done.state == "done" and not done.worker["forked"], done.error
        assert jobs.zygote.no_forks.startswith("a forked worker did not start")
        assert jobs.zygote.proc.poll() is None  # still up: it reports its children's exits
        again = jobs.wait(jobs.submit(_selftest("profile", seed=1)), 120)
        assert again.state == "done" and not again.worker["forked"]
        assert jobs.status()["restarts"] == 0  # the failed fork cost no job and no restart
    finally:
        jobs.close()


def test_the_zygote_fails_where_its_children_could_not_start_cuda(monkeypatch):
    import torch

    from runtime_lab.lab import prewarm
    from runtime_lab.runner import zygote

    monkeypatch.setattr(prewarm, "gpu_driver_present", lambda: True)
    zygote._fork_check()  # this process never asked CUDA anything: its child may start it
    monkeypatch.setattr(torch.cuda, "_is_in_bad_fork", lambda: True)  # what the H100 host saw
    with pytest.raises(RuntimeError, match="could not start CUDA"):
        zygote._fork_check()

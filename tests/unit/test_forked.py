"""The zygote's rules that need no process: which environment it may fork for, how a forked
worker's end is read."""

from __future__ import annotations

import subprocess

import pytest

from runtime_lab.runner import forked


def test_only_variables_read_at_import_decide_whether_a_worker_may_be_forked():
    zygote = forked.Zygote()
    base = {"PATH": "/bin", "TORCH_LOGS": "", "TORCHINDUCTOR_CACHE_DIR": "/a"}
    assert zygote.usable(base)  # not started yet: it will start with this environment
    zygote.proc, zygote.env = object(), forked.import_env(base)
    assert zygote.usable({**base, "PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "1"})
    assert zygote.usable({**base, "TORCHINDUCTOR_CACHE_DIR": "/b", "TRITON_CACHE_DIR": "/c"})
    assert not zygote.usable({**base, "TORCH_LOGS": "recompiles"})
    assert not zygote.usable({**base, "PYTORCH_ALLOC_CONF": "expandable_segments:True"})
    zygote.broken = "closed"
    assert not zygote.usable(base)


class _Ends:
    def __init__(self, codes):
        self.codes = list(codes)

    def exit_code(self, pid):
        return self.codes.pop(0) if self.codes else None


def test_a_forked_worker_reads_like_a_popen():
    done = forked.ForkedProcess(_Ends([None, None, -9]), pid=123)
    assert done.poll() is None and done.poll() is None and done.wait(1) == -9
    assert done.poll() == -9 and done.returncode == -9  # an end, once known, stays
    running = forked.ForkedProcess(_Ends([]), pid=123)
    with pytest.raises(subprocess.TimeoutExpired):
        running.wait(0.1)


class _Ended:
    def poll(self):
        return 1


def test_a_broken_zygote_keeps_its_first_reason_and_forks_nothing():
    """On the H100 host a zygote that failed to start was reported as a later thread's
    AttributeError (a fork asked of the closed pipe), which hid the reason it failed."""
    zygote = forked.Zygote()
    zygote._break("RuntimeError: the zygote did not start: CUDA was initialised before fork")
    zygote.proc = _Ended()  # started once: a later fork must not reach its closed pipe
    assert zygote.fork({}, "127.0.0.1:1", 1.0) is None
    zygote._break("AttributeError: 'NoneType' object has no attribute 'send_bytes'")
    assert zygote.broken.startswith("RuntimeError: the zygote did not start")

"""The unit tier's guard (tests/unit/conftest.py): a worker, a process or a compile started here
fails the test with the message that says where it belongs."""

import subprocess
import sys

import pytest
import torch

from runtime_lab.runner.process import WorkerProcess

MOVE = "move this test to tests/integration"


def test_a_worker_start_is_refused():
    with pytest.raises(AssertionError, match=MOVE):
        WorkerProcess().start()


def test_a_subprocess_is_refused():
    with pytest.raises(AssertionError, match=MOVE):
        subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_a_compile_is_refused():
    with pytest.raises(AssertionError, match=MOVE):
        torch.compile(lambda x: x + 1)


def test_tests_here_carry_the_unit_marker(request):
    assert request.node.get_closest_marker("unit") is not None
    assert request.node.get_closest_marker("integration") is None

"""The CLI as a user runs it: `python -m runtime_lab ...` in a subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, data_dir):
    return subprocess.run(
        [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.slow
def test_run_streams_writes_json_and_history(tmp_path, data_dir):
    out = tmp_path / "out.json"
    done = cli(
        "run",
        "streams",
        "--shape",
        "256x256",
        "--device",
        "cpu",
        "--repeat",
        "5",
        "--json",
        str(out),
        data_dir=data_dir,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert {"spec", "env", "status", "result"} <= set(document)
    assert document["status"] == "done" and document["result"]["max_abs_diff"] == 0.0
    assert document["spec"]["shape"] == [256, 256] and document["env"]["torch"]
    assert "matched exactly (max |side − reference| 0)" in done.stdout  # the headline's words
    listed = cli("history", data_dir=data_dir)
    assert "streams 256x256 float32 cpu" in listed.stdout


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--shape", "0x-3"], "shape"),
        (["--dtype", "int8"], "dtype"),
        (["--device", "tpu"], "device"),
        (["--repeat", "0"], "repeat"),
        (["--warmup", "abc"], "warmup"),
    ],
)
def test_invalid_input_exits_2_with_one_line_and_records_nothing(args, field, data_dir):
    done = cli("run", "streams", *args, data_dir=data_dir)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{field}:" in lines[0]
    assert "allowed" in lines[0] or "expected" in lines[0]
    assert "Traceback" not in done.stderr
    assert cli("history", data_dir=data_dir).stdout == ""


def test_unknown_experiment_and_help(data_dir):
    done = cli("run", "nope", data_dir=data_dir)
    assert (
        done.returncode == 2
        and "invalid choice" in done.stderr
        and len(done.stderr.splitlines()) == 1
    )
    helped = cli("--help", data_dir=data_dir)
    assert helped.returncode == 0 and "run" in helped.stdout and "env" in helped.stdout


@pytest.mark.slow
def test_cuda_without_gpu_is_refused_with_exit_2(data_dir):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    done = cli("run", "streams", "--device", "cuda", "--shape", "8x8", data_dir=data_dir)
    assert done.returncode == 2 and "no GPU" in done.stderr


def test_env_prints_the_fingerprint(data_dir):
    done = cli("env", data_dir=data_dir)
    env = json.loads(done.stdout)
    assert env["python"] and env["torch"] and env["host_cores"] >= 1 and "gpus" in env
    assert "host_llc_bytes" in env  # what a fusion report reads a working set against (CPU)

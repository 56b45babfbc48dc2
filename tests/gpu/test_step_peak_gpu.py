"""One step peak on a real GPU: the allocator's eager and compiled training-step peak and the
catalog's clean-process peak read the same callable (training.one_step), so they agree to the
allocator's block size for rms_norm bf16 fwd_bwd (~60 s: two processes, two compiles)."""

import json
import subprocess
import sys

import pytest

from benchmarks import clean
from benchmarks.serving import REPO

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

SHAPE = "2048x4096"
MIB = 2**20


def _allocator_peaks(data_dir, out) -> dict:
    cli = [sys.executable, "-m", "runtime_lab", "--data-dir", str(data_dir), "run", "allocator"]
    cli += ["--device", "cuda", "--workload", "rms_norm", "--shapes", SHAPE]
    cli += ["--dtype", "bfloat16", "--pass", "fwd_bwd", "--scenarios", "compiled"]
    done = subprocess.run([*cli, "--json", str(out)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (peak,) = json.loads(out.read_text())["result"]["peaks"]  # above the live inputs, as clean's
    return {"eager": peak["eager_peak_bytes"], "compiled": peak["compiled_peak_bytes"]}


def test_the_clean_step_peak_is_the_allocator_s(tmp_path):
    lab = _allocator_peaks(tmp_path / "data", tmp_path / "alloc.json")
    ref = clean.reference("workload", "rms_norm", SHAPE, "bfloat16", "0", "{}", "fwd_bwd")
    for mode, side in (("eager", "eager"), ("inductor", "compiled")):
        assert lab[side] and ref[f"{mode}_peak_mib"], (lab, ref)  # never compare zeros
        # one step of 2048x4096 bf16 holds at least x's gradient (16 MiB)
        assert lab[side] >= 16 * MIB, lab
        assert ref[f"{mode}_peak_mib"] == pytest.approx(lab[side] / MIB, abs=1.0), (mode, lab, ref)
    assert lab["compiled"] < lab["eager"], lab  # fused: no fp32 intermediates held

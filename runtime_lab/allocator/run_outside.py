"""Memory outside the caching allocator: a fresh child, measured against the device before it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from runtime_lab.allocator.result import OutsideRun, OutsideStep

TIMEOUT_S = 300
ROOT = Path(__file__).resolve().parents[2]


def run_outside(device: torch.device) -> OutsideRun:
    """The device's used bytes now (this worker's included), then the child's steps above it."""
    torch.cuda.synchronize(device)
    free, total = torch.cuda.mem_get_info(device)
    before = int(total - free)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    command = [
        sys.executable,
        "-m",
        "runtime_lab.allocator.run_outside_child",
        json.dumps({"device": str(device)}),
    ]
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return OutsideRun(before, error=f"the child did not finish in {TIMEOUT_S} s")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr or "no output").strip().splitlines()[-1:] or ["no output"]
        return OutsideRun(before, error=f"exit {done.returncode}: {tail[0][:300]}")
    return parse(before, lines[-1])


def parse(before: int, line: str) -> OutsideRun:
    data = json.loads(line)
    if data.get("error"):
        return OutsideRun(before, error=data["error"])
    steps = tuple(OutsideStep(**s) for s in data["steps"])
    nccl = data.get("nccl") or {}
    return OutsideRun(
        before, steps=steps, nccl=f"{nccl.get('state', '')}: {nccl.get('detail', '')}"
    )

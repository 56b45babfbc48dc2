"""Allocator configurations A/B: the same steps under each PYTORCH_ALLOC_CONF, one process each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from runtime_lab.allocator.result import AllocConfigRun, ConfigStep

CONFIGS = ("", "expandable_segments:True")  # the default allocator, then expandable segments
TIMEOUT_S = 300
ROOT = Path(__file__).resolve().parents[2]


def run_configs(device: str, calls: list) -> tuple[AllocConfigRun, ...]:
    """Each configuration in a fresh child (the setting is read when CUDA starts)."""
    args = json.dumps({"device": device, "calls": [[list(s), d] for s, d in calls]})
    return tuple(_one(config, args) for config in CONFIGS)


def _env(config: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")
    }
    if config:
        env["PYTORCH_ALLOC_CONF"] = config
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return env


def _one(config: str, args: str) -> AllocConfigRun:
    name = config or "default"
    command = [sys.executable, "-m", "runtime_lab.allocator.run_ab_child", args]
    try:
        done = subprocess.run(
            command, env=_env(config), capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return AllocConfigRun(name, error=f"did not finish in {TIMEOUT_S} s")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = (done.stderr or "no output").strip().splitlines()[-1:] or ["no output"]
        return AllocConfigRun(name, error=f"exit {done.returncode}: {tail[0][:300]}")
    return parse(name, lines[-1])


def parse(name: str, line: str) -> AllocConfigRun:
    data = json.loads(line)
    if data.get("error"):
        return AllocConfigRun(name, error=data["error"])
    fields = ConfigStep.__dataclass_fields__
    steps = tuple(
        ConfigStep(**{k: tuple(v) if k == "shape" else v for k, v in s.items() if k in fields})
        for s in data["steps"]
    )
    end = data.get("end") or {}
    return AllocConfigRun(
        name,
        steps=steps,
        end_reserved_bytes=end.get("reserved_bytes"),
        end_segments=end.get("segments"),
    )

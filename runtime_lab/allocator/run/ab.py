"""Allocator configurations A/B: the same steps under each PYTORCH_ALLOC_CONF, one process each."""

from __future__ import annotations

from runtime_lab.allocator.result import AllocConfigRun, ConfigStep
from runtime_lab.lab import child

CONFIGS = ("", "expandable_segments:True")  # the default allocator, then expandable segments
TIMEOUT_S = 300


def run_configs(device: str, calls: list, work: dict | None = None) -> tuple[AllocConfigRun, ...]:
    """Each configuration in a fresh child (the setting is read when CUDA starts); the child
    runs the workload (run_work.Workload.args) at each step."""
    args = {"device": device, "calls": [[list(s), d] for s, d in calls], "workload": work}
    return tuple(_one(config, args) for config in CONFIGS)


def _one(config: str, args: dict) -> AllocConfigRun:
    name = config or "default"
    env = {"PYTORCH_ALLOC_CONF": config} if config else {}
    drop = ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")  # the default means no setting
    doc, why = child.run_module("runtime_lab.allocator.run.ab_child", args, TIMEOUT_S, env, drop)
    return AllocConfigRun(name, error=why) if doc is None else parse(name, doc)


def parse(name: str, data: dict) -> AllocConfigRun:
    """The child's document as a typed run (its error, when it failed)."""
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

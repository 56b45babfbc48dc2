"""CSAN's verdict per ordering, from a child process under the sanitizer (never the timing one)."""

from __future__ import annotations

from runtime_lab.lab import child
from runtime_lab.spec import RunSpec
from runtime_lab.streams.result import CsanAccess, CsanRace, CsanVerdict

TIMEOUT_S = 300


def verdicts(spec: RunSpec, device: str) -> tuple[tuple[CsanVerdict, ...], str]:
    """(verdicts, note): the note says why there are none, or how the child was run."""
    args = {
        "device": device,
        "spec": spec.to_dict(),  # the child makes the same side-stream op from it
        "delay_us": spec.option("delay_us"),
        "trials": spec.option("sanitizer_trials"),
        "variants": spec.option("variant").split(","),
    }
    env = {"TORCH_CUDA_SANITIZER": "1"}
    doc, why = child.run_module("runtime_lab.streams.run.csan_child", args, TIMEOUT_S, env)
    if doc is None:
        return (), f"the sanitizer child failed: {why}"
    return parse(doc)


def parse(data: dict) -> tuple[tuple[CsanVerdict, ...], str]:
    """The child's document (CSAN prints its reports to stderr) as typed verdicts and a note."""
    if data.get("error"):
        return (), data["error"]
    found = tuple(_verdict(v) for v in data.get("verdicts", []))
    return (
        found,
        f"TORCH_CUDA_SANITIZER=1 in a child process, {found[0].trials if found else 0} trial(s) per ordering",
    )


def _access(data: dict) -> CsanAccess:
    return CsanAccess(
        stream=data["stream"],
        operator=data["operator"],
        access=data["access"],
        aliases=tuple(data.get("aliases") or ()),
        is_output=bool(data.get("is_output")),
        user_line=data.get("user_line"),
    )


def _verdict(data: dict) -> CsanVerdict:
    races = tuple(
        CsanRace(r["tensor"], _access(r["current"]), _access(r["previous"])) for r in data["races"]
    )
    return CsanVerdict(
        variant=data["variant"],
        verdict=data["verdict"],
        races=races,
        trials=data["trials"],
        error=data.get("error"),
    )

"""Capture torch.compile's structured trace (TORCH_TRACE's format) in the worker, then read it."""

from __future__ import annotations

import logging
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from runtime_lab import config
from runtime_lab.compiler import log as compile_log
from runtime_lab.compiler import provenance
from runtime_lab.compiler import tlparse as tlparse_report
from runtime_lab.compiler.log import CompileEvidence


@dataclass
class Capture:
    """Filled in when the capture ends: the log's path in the data dir, or why there is none."""

    name: str
    log: Path | None = None
    note: str = ""
    provenance: bool = False
    _dirs: list[Path] = field(default_factory=list)


def _provenance_on() -> tuple[object, str, object] | None:
    """Turn Inductor's provenance tracking on where the build has it: (config, key, old)."""
    import torch._inductor.config as inductor_config

    trace = inductor_config.trace
    for key, value in (("provenance_tracking_level", 1), ("provenance_tracking", True)):
        if hasattr(trace, key):  # the level replaced the bool in torch 2.8
            old = getattr(trace, key)
            setattr(trace, key, value)
            return trace, key, old
    return None


@contextmanager
def capture(name: str) -> Iterator[Capture]:
    """Every structured-trace record of the compiles inside goes to one log for this run; the
    process's own TORCH_TRACE (if the user set one) keeps getting its records too."""
    found = Capture(name)
    try:
        from torch._logging import _internal as logs

        handler = logs.LazyTraceHandler(tempfile.mkdtemp(prefix="runtime-lab-trace-"))
        handler.setFormatter(logs.TorchLogsFormatter(trace=True))
    except (ImportError, AttributeError, TypeError) as exc:
        found.note = f"this torch build has no structured compile trace ({exc})"
        yield found
        return
    trace_log, level = logs.trace_log, logs.trace_log.level
    switched = _provenance_on()
    found.provenance = switched is not None
    trace_log.setLevel(logging.DEBUG)
    trace_log.addHandler(handler)
    try:
        yield found
    finally:
        trace_log.removeHandler(handler)
        trace_log.setLevel(level)
        handler.close()
        if switched is not None:
            setattr(*switched)
        _keep(found, Path(handler.root_dir))


def _keep(found: Capture, root: Path) -> None:
    logs = sorted(root.glob("*.log"))
    if logs:
        dest = config.data_dir() / "compile" / f"{uuid.uuid4().hex[:12]}-{found.name}.log"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(logs[0]), dest)
        found.log = dest
    else:
        found.note = found.note or "nothing compiled while the trace was on"
    shutil.rmtree(root, ignore_errors=True)


def evidence(found: Capture, report: bool = True) -> CompileEvidence:
    """The capture read back: compile ids with guards, kernels joined to source, tlparse zip."""
    if found.log is None:
        return CompileEvidence(note=found.note)
    records = compile_log.read(found.log)
    zip_path, note = None, ""
    if report:
        zip_path, note = tlparse_report.build(found.log, found.log.with_suffix(".tlparse.zip"))
    if not found.provenance:
        note = "; ".join(filter(None, [note, "provenance tracking needs torch ≥ 2.7"]))
    return CompileEvidence(
        trace_file=str(found.log),
        report_file=zip_path,
        note=note,
        compiles=compile_log.compile_entries(records),
        kernels=provenance.kernel_sources(records),
        provenance=found.provenance,
        graph_breaks=compile_log.graph_break_sites(records),
    )

"""The workload and params options an experiment adds to take any workload of the catalog."""

from __future__ import annotations

from runtime_lab.options import OptionSpec

WORKLOAD_HELP = "the function the experiment runs (python -m runtime_lab workloads lists them)"
PARAMS_HELP = (
    "the workload's fixed parameters as name=integer (empty: its defaults or the preset's), "
    "e.g. intermediate=14336"
)

FILES_HELP = (
    "your own workload files (.py) or package.module names, joined by commas; imported by the "
    "workers only (docs/workloads.md); default $RUNTIME_LAB_WORKLOADS"
)


def workload_options(default: str = "pointwise", help: str = WORKLOAD_HELP) -> dict:
    """{"workload", "params"} for an ExperimentInfo's options. No fixed choices: the spec check
    reads the registry when it runs, so workloads a worker reports later are allowed too."""
    return {
        "workload": OptionSpec(default=default, help=help, kind="workload"),
        "params": OptionSpec(default="", help=PARAMS_HELP, kind="params"),
    }

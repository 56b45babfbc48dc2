"""The catalog's CPU shapes made smaller along the dim a workload varies in use, for tests whose
point is every workload's path through an experiment, not its size."""

from runtime_lab.workloads.registry import WORKLOADS


def along(name: str, divide: int) -> tuple[int, ...]:
    """The CPU shape with its first dynamic dim divided (the dims a sequence varies in use)."""
    work = WORKLOADS[name]
    at = work.dims.index(work.dynamic_dims[0])
    shape = list(work.cpu_shape)
    shape[at] = max(1, shape[at] // divide)
    return tuple(shape)


def text(shape) -> str:
    return "x".join(map(str, shape))

"""Two workloads of your own, for `--workloads examples/my_workloads.py` (docs/workloads.md).

Only the lab's workers import this file (the server never does); each run of one of these
records the file's sha256 and source beside its figures.
"""

import math

import torch
from torch import nn
from torch.func import functional_call

from runtime_lab.workloads.declare import Workload, WorkloadInfo


def gelu_inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    return (torch.randn(tokens, hidden, generator=generator, device=device, dtype=dtype),)


def my_gelu(x):
    """GELU's tanh approximation written out: seven pointwise ops in eager, one kernel fused."""
    inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1 + torch.tanh(inner))


def gelu_reference(x):
    return torch.nn.functional.gelu(x, approximate="tanh")  # PyTorch's own, on float64 inputs


class MLP(nn.Module):
    """A GELU MLP block as a model would hold it: up, GELU, down, residual."""

    def __init__(self, hidden: int, intermediate: int):
        super().__init__()
        self.up = nn.Linear(hidden, intermediate, bias=True)
        self.down = nn.Linear(intermediate, hidden, bias=True)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x), approximate="tanh"))


# the module's structure on the meta device: its weights are the workload's inputs, so the
# lab counts their bytes, upcasts them for the reference and moves them to the device
_MLP = MLP(1, 1).to("meta")
_NAMES = [name for name, _ in _MLP.named_parameters()]


def mlp_inputs(shape, params, dtype, device, generator):
    tokens, hidden = shape
    inter = params["intermediate"]

    def randn(*size, scale=1.0):
        return scale * torch.randn(*size, generator=generator, device=device, dtype=dtype)

    x = randn(tokens, hidden)
    weights = {
        "up.weight": randn(inter, hidden, scale=hidden**-0.5),
        "up.bias": randn(inter, scale=0.02),
        "down.weight": randn(hidden, inter, scale=inter**-0.5),
        "down.bias": randn(hidden, scale=0.02),
    }
    return (x, *(weights[name] for name in _NAMES))


def my_mlp(x, *weights):
    return functional_call(_MLP, dict(zip(_NAMES, weights, strict=True)), (x,))


def mlp_flops(shape, params, tensors):
    tokens, hidden = shape
    return 4 * tokens * hidden * params["intermediate"]  # two GEMMs, multiply-add = 2


WORKLOADS = [
    Workload(
        info=WorkloadInfo(
            name="my_gelu",
            title="GELU, tanh approximation written by hand",
            formula="0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))",
            look_for=(
                "Seven pointwise ops in eager, each a kernel writing a full tensor; compiled, "
                "one kernel that reads x once and writes once. Compare eager's bytes with the "
                "ideal ones, and the reference (PyTorch's own tanh GELU) with the tolerance."
            ),
            dims=("tokens", "hidden"),
            default_shape=(4096, 4096),
            cpu_shape=(512, 512),
            bound="memory",
            dynamic_dims=("tokens",),
        ),
        inputs=gelu_inputs,
        fn=my_gelu,
        reference=gelu_reference,
    ),
    Workload(
        info=WorkloadInfo(
            name="my_mlp",
            title="GELU MLP block (an nn.Module)",
            formula="x + down(gelu(up(x)))",
            look_for=(
                "An nn.Module called through torch.func.functional_call, its weights passed "
                "as inputs: the two GEMMs stay library kernels, the bias + GELU and the bias + "
                "residual fuse into their epilogues or a kernel each."
            ),
            dims=("tokens", "hidden"),
            default_shape=(4096, 4096),
            cpu_shape=(256, 256),
            bound="compute",
            params=(("intermediate", 16384),),
            cpu_params=(("intermediate", 1024),),
            dynamic_dims=("tokens",),
        ),
        inputs=mlp_inputs,
        fn=my_mlp,
        flops=mlp_flops,
        tolerances={"float32": (1e-4, 1e-4)},
    ),
]

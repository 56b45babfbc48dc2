"""norm_block_opaque: the same block with RMSNorm as a custom op, a node Inductor cannot fuse."""

from dataclasses import replace

from runtime_lab.workloads.norm_block.info import INFO as TRACEABLE

INFO = replace(
    TRACEABLE,
    name="norm_block_opaque",
    title="Residual + RMSNorm + SiLU gate (RMSNorm as an opaque custom op)",
    formula="h = x + r; n = runtime_lab::rms_norm(h, w) (custom_op); n·sigmoid(n) + h",
    no_backward=(
        "its custom op runtime_lab::rms_norm registers no autograd formula; "
        "norm_block_opaque_grad is the same op with one"
    ),
)

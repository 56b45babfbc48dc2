"""norm_block_inplace: the same block writing h into an input buffer (a mutation of an input)."""

from dataclasses import replace

from runtime_lab.workloads.norm_block.info import INFO as TRACEABLE

INFO = replace(
    TRACEABLE,
    name="norm_block_inplace",
    title="Residual + RMSNorm + SiLU gate, h written in place into an input buffer",
    formula="h = buf.copy_(x).add_(r); n = rms_norm(h)·w; n·sigmoid(n) + h",
    look_for=(
        "Aliasing: the block of norm_block, but h = x + r is written into buf, a tensor the "
        "caller passed in (as a KV cache or a preallocated activation is). torch.compile "
        "functionalizes the mutation and must still make it visible to the caller: the fused "
        "kernel stores h to buf on top of the output, a full tensor norm_block never writes. "
        "Compare kernels and time with norm_block at the same shape; in eager, copy_ and add_ "
        "are kernels of their own."
    ),
)

"""norm_block_opaque_grad: the opaque custom-op block with a registered autograd formula."""

from dataclasses import replace

from runtime_lab.workloads.norm_block_opaque.info import INFO as OPAQUE

INFO = replace(
    OPAQUE,
    name="norm_block_opaque_grad",
    title="Residual + RMSNorm + SiLU gate (opaque custom op with an autograd formula)",
    formula=(
        "h = x + r; n = runtime_lab::rms_norm_with_grad(h, w) (custom_op + register_autograd); "
        "n·sigmoid(n) + h"
    ),
    look_for=(
        "The fusion barrier in a training step: norm_block_opaque's custom op, now with a "
        "backward registered by register_autograd in plain torch ops (it saves h and w and "
        "recomputes the norm's scale). The forward is the same barrier: the add before the op "
        "and the gate after it are kernels of their own. The backward is not: AOTAutograd "
        "traces the registered formula into the backward graph, so Inductor fuses it with the "
        "gate's and the add's gradients. Run it with --pass fwd_bwd beside norm_block (fully "
        "traceable) and compare forward and backward kernels; norm_block_opaque, whose op "
        "registers no formula, cannot run a backward at all."
    ),
    no_backward="",
)

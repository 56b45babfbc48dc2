"""norm_block: residual add → RMSNorm → SiLU gate, traceable: the fusion barrier's control."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

LOOK_FOR = (
    "The fusion-barrier pair (run both, then compare): the same block, h = x + r, "
    "n = RMSNorm(h)·w, out = n·sigmoid(n) + h, once with the catalog's traceable RMSNorm "
    "(norm_block) and once with RMSNorm as an opaque torch.library.custom_op "
    "(norm_block_opaque). Traceable, Inductor sees every op and fuses the add, the reduction, "
    "the scale and the gate into one or two kernels that read x and r once. Opaque, the custom "
    "op is a node it cannot look into: the add before it and the gate after it become kernels "
    "of their own, and h and the norm's output go through memory; inside the op, eager's "
    "kernels run as they are. Compare kernels per call, eager vs compiled bytes and time, and "
    "the graphs in the compile trace."
)

INFO = WorkloadInfo(
    name="norm_block",
    title="Residual + RMSNorm + SiLU gate (traceable)",
    formula="h = x + r; n = rms_norm(h)·w; n·sigmoid(n) + h",
    look_for=LOOK_FOR,
    dims=("tokens", "hidden"),
    default_shape=(8192, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    presets=model_presets(lambda c, n: (n, c["hidden"]), tokens=(4096,)),
    dynamic_dims=("tokens",),
)

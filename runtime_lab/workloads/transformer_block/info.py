"""transformer_block: a pre-norm Llama block, where norms, attention and MLP meet in one graph."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="transformer_block",
    title="Transformer block (RMSNorm → attention → RMSNorm → SwiGLU)",
    formula="h = x + attn(norm(x));  out = h + mlp(norm(h))",
    look_for=(
        "The whole block in one graph: seven GEMMs and the attention kernel stay extern, and "
        "Inductor fuses what lies between them (the norms with their casts, the residual adds, "
        "silu · up, the transposes' copies). Count the kernels eager vs compiled, and compare "
        "the time saved with the bytes the model says the pointwise parts move."
    ),
    dims=("batch", "seq", "hidden"),
    params=(("heads", 32), ("intermediate", 14336)),
    cpu_params=(("heads", 4), ("intermediate", 1024)),
    default_shape=(1, 2048, 4096),
    cpu_shape=(1, 128, 256),
    bound="compute",
    presets=model_presets(
        lambda c, n: (1, n, c["hidden"]),
        lambda c: {"heads": c["heads"], "intermediate": c["intermediate"]},
        tokens=(2048,),
    ),
    dynamic_dims=("seq", "batch"),
    multiple_of=(("hidden", "heads"),),  # each head takes hidden / heads of the width
)

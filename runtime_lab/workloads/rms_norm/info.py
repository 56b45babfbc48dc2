"""rms_norm: Llama's RMSNorm, whose fp32 upcast is where eager spends its bytes."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="rms_norm",
    title="RMSNorm (Llama style, fp32 upcast)",
    formula="w · (x.float() · rsqrt(mean(x²) + ε)).to(x.dtype)",
    look_for=(
        "Llama's RMSNorm upcasts to float32, squares, reduces, scales and casts back: in eager "
        "every step, the casts included, is a kernel writing a full tensor (in bf16 the fp32 "
        "copies are twice the input's size). Fused, it is one read of x and w and one write: "
        "this is where fusion saves most. Compare eager's bytes with the ideal ones."
    ),
    dims=("tokens", "hidden"),
    default_shape=(4096, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    presets=model_presets(lambda c, n: (n, c["hidden"]), tokens=(4096, 16384)),
    dynamic_dims=("tokens",),
)

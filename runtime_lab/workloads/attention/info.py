"""attention: causal scaled-dot-product attention, an extern kernel compile keeps as it is."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="attention",
    title="Causal attention (SDPA)",
    formula="softmax(q·kᵀ/√d + causal mask) · v",
    look_for=(
        "SDPA dispatches to a fused attention kernel (flash, cuDNN or memory-efficient) that "
        "never writes the seq × seq scores; torch.compile keeps it as an extern kernel, so "
        "compiled and eager launch the same kernel. Read its TFLOP/s (causal: half the "
        "square's FLOPs) against the matmul ceiling."
    ),
    dims=("batch", "heads", "seq", "head_dim"),
    default_shape=(1, 32, 4096, 128),
    cpu_shape=(1, 4, 256, 64),
    bound="compute",
    presets=model_presets(lambda c, n: (1, c["heads"], n, c["head_dim"]), tokens=(4096, 16384)),
    dynamic_dims=("seq", "batch"),
)

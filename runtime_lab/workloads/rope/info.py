"""rope: rotary position embedding, a chain of slices, a cat and products fused into one pass."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="rope",
    title="RoPE (rotate_half, Llama style)",
    formula="x · cos + rotate_half(x) · sin",
    look_for=(
        "Eager writes the negated half, the cat and both products as full tensors before the "
        "sum; fused, it is one read of x, cos and sin and one write of the output. A memory-"
        "bound chain like the seed's pointwise one, with the slices and cat fusion folds into "
        "index arithmetic."
    ),
    dims=("tokens", "heads", "head_dim"),
    default_shape=(4096, 32, 128),
    cpu_shape=(256, 8, 64),
    bound="memory",
    presets=model_presets(lambda c, n: (n, c["heads"], c["head_dim"])),
    dynamic_dims=("tokens",),
    multiple_of=(("head_dim", 2),),  # rotate_half splits head_dim in two halves
)

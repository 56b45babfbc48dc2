"""layer_norm: already one aten kernel in eager, so compile has little to take."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="layer_norm",
    title="LayerNorm (weight and bias)",
    formula="layer_norm(x, (hidden,), w, b, ε=1e-5)",
    look_for=(
        "Eager runs LayerNorm as one hand-written aten kernel (it also writes the mean and "
        "rstd for backward), so the bytes model leaves compile little to save. Inductor "
        "generates its own reduction kernel: expect about eager's time, and check whether it "
        "is faster or slower at this shape."
    ),
    dims=("tokens", "hidden"),
    default_shape=(4096, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    presets=model_presets(lambda c, n: (n, c["hidden"])),
    dynamic_dims=("tokens",),
)

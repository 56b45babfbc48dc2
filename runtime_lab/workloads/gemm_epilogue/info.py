"""gemm_epilogue: a matmul with bias and GELU after it, the epilogue Inductor fuses."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="gemm_epilogue",
    title="GEMM + bias + GELU",
    formula="gelu(a @ b + bias)",
    look_for=(
        "Inductor keeps the GEMM as cuBLAS and fuses bias + GELU into one pointwise kernel "
        "after it (eager: add and gelu each read and write the m × n output); under "
        "max-autotune it may fuse them into a Triton GEMM template's epilogue. The saving is the "
        "output's extra round trips: small against the GEMM when k is large."
    ),
    dims=("m", "k", "n"),
    tensors=(("m", "k"), ("k", "n"), ("m", "n")),
    default_shape=(4096, 4096, 4096),
    cpu_shape=(256, 256, 256),
    bound="compute",
    presets=model_presets(lambda c, n: (n, c["hidden"], c["intermediate"])),
    dynamic_dims=("m",),
)

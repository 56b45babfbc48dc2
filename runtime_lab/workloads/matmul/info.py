"""matmul: one GEMM, the library kernel torch.compile leaves as it is (streams' side-stream op)."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="matmul",
    title="Matmul: a @ b",
    formula="a @ b   (m × k) @ (k × n)",
    look_for=(
        "A single GEMM is an extern kernel: Inductor calls cuBLAS (or, under max-autotune, "
        "benchmarks Triton templates against it) rather than generating a fused kernel, so "
        "compiled and eager run the same kernel and should take the same time. Read it "
        "against the measured matmul ceiling in TFLOP/s, not against memory bandwidth."
    ),
    dims=("m", "k", "n"),
    tensors=(("m", "k"), ("k", "n"), ("m", "n")),
    default_shape=(4096, 4096, 4096),
    cpu_shape=(512, 512, 512),
    bound="compute",
    presets=model_presets(lambda c, n: (n, c["hidden"], c["intermediate"])),
    dynamic_dims=("m",),
)

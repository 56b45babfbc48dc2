"""swiglu_mlp: Llama's MLP, three GEMMs fusion leaves as library kernels, one pointwise it fuses."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="swiglu_mlp",
    title="SwiGLU MLP: down(silu(gate(x)) · up(x))",
    formula="down(silu(x @ Wgᵀ) * (x @ Wuᵀ))",
    look_for=(
        "Fusion does not merge two big GEMMs: gate, up and down stay cuBLAS (extern) kernels "
        "under torch.compile; only silu(gate) · up fuses, into one pointwise kernel (or a "
        "GEMM epilogue under max-autotune). The GEMMs dominate the time, so expect compiled ≈ "
        "eager, and read the achieved TFLOP/s against the matmul ceiling."
    ),
    dims=("tokens", "hidden"),
    params=(("intermediate", 14336),),
    cpu_params=(("intermediate", 1024),),
    default_shape=(4096, 4096),
    cpu_shape=(128, 256),
    bound="compute",
    presets=model_presets(
        lambda c, n: (n, c["hidden"]), lambda c: {"intermediate": c["intermediate"]}, (4096,)
    ),
    dynamic_dims=("tokens",),
)

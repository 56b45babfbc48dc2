"""long-chain: 16 dependent steps whose results stay live: a fused kernel under register pressure."""

from runtime_lab.workloads.declare import WorkloadInfo

INFO = WorkloadInfo(
    name="long-chain",
    title="Long chain: 16 live intermediates per element",
    formula="h_i = y + c_i·h_(i-1);  s = Σ h_i;  out = Σ h_i·s",
    look_for=(
        "The what-if for register pressure: 16 dependent steps h = y + c·h whose results all "
        "stay live until their sum is known. Eager runs 62 kernels; Inductor fuses them into "
        "one that holds 16 values per element in registers. Look at the fused kernel's "
        "registers per thread and occupancy beside its time."
    ),
    dims=("rows", "cols"),
    default_shape=(4096, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    dynamic_dims=("rows",),
)

"""pointwise: the seed chapter's silu(x + y) * (x - y), four eager kernels fused into one."""

from runtime_lab.workloads.declare import Preset, WorkloadInfo

INFO = WorkloadInfo(
    name="pointwise",
    title="Pointwise: silu(x + y) · (x − y)",
    formula="silu(x + y) * (x - y)",
    look_for=(
        "The seed chapter's example. Eager runs four kernels (add, sub, silu, mul), each reading "
        "its inputs from memory and writing its result back: 11 element transfers per output "
        "element. Inductor fuses them into one kernel that reads x and y once and writes once: "
        "3 transfers, so a memory-bound call should approach 11/3 ≈ 3.7× faster."
    ),
    dims=("rows", "cols"),
    default_shape=(4096, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    presets=(
        Preset("square-4k", (4096, 4096), source="the lab's default 4096²"),
        Preset("llama3-8b-4k", (4096, 4096), source="Llama-3-8B hidden 4096, 4096 tokens"),
        Preset("square-16k", (16384, 16384), source="a large square: 1 GiB in float32"),
    ),
    dynamic_dims=("rows",),
)

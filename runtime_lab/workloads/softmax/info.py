"""softmax: a reduction per row, where Inductor's fused kernel is not always the faster one."""

from runtime_lab.workloads.declare import Preset, WorkloadInfo

INFO = WorkloadInfo(
    name="softmax",
    title="Softmax over the last dim",
    formula="softmax(x, dim=-1)",
    look_for=(
        "A reduction changes what fusion can do: eager already runs softmax as one aten kernel "
        "(read once, write once), so compile has no bytes to save; Inductor generates its own "
        "per-row (or online) reduction kernel. Compare the time, not the kernel count: on the "
        "H200 a compiled plain softmax can be slower than eager at common shapes, the seed's "
        "'fewer (or equal) kernels but slower'."
    ),
    dims=("rows", "cols"),
    default_shape=(32768, 4096),
    cpu_shape=(1024, 1024),
    bound="memory",
    presets=(
        Preset("scores-32x1k", (32 * 1024, 1024), source="32 heads × 1024 queries, 1024 keys"),
        Preset("rows-32k", (32768, 4096), source="32768 rows of 4096"),
        Preset("vocab-128k", (4096, 128256), source="4096 tokens over Llama-3's 128256 vocabulary"),
    ),
    dynamic_dims=("rows",),
)

"""cross_entropy: a large-vocabulary loss, where the fp32 copy of the logits is the cost."""

from runtime_lab.workloads.declare import WorkloadInfo, model_presets

INFO = WorkloadInfo(
    name="cross_entropy",
    title="Cross-entropy over a large vocabulary",
    formula="cross_entropy(logits.float(), targets)",
    look_for=(
        "Training code upcasts the logits before the loss: in eager that writes a float32 copy "
        "of the whole tokens × vocab tensor (twice a bf16 one) and log_softmax writes another "
        "before the gather. Fused, Inductor reads the logits once and writes one number: the "
        "bytes model's biggest gap in the catalog. Watch eager's peak memory too."
    ),
    dims=("tokens", "vocab"),
    default_shape=(4096, 128256),
    cpu_shape=(256, 8192),
    bound="memory",
    presets=model_presets(lambda c, n: (n, c["vocab"]), tokens=(4096, 8192)),
    dynamic_dims=("tokens",),
)

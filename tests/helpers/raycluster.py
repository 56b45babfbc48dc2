"""The local Ray cluster the Ray tests share the shape of: two CPU stand-ins for GPU types."""

FAKE_TYPES = {"runtime_lab_gpu:fake-a": 1, "runtime_lab_gpu:fake-b": 1}


def start(ray) -> None:
    """A local Ray instance on this machine's two cores with the two stand-in GPU types."""
    ray.init(
        num_cpus=2,
        resources=FAKE_TYPES,
        include_dashboard=False,
        namespace="runtime_lab",
        log_to_driver=False,
    )

"""The worker side of selftest: what executes under torch, in the worker and its child programs."""

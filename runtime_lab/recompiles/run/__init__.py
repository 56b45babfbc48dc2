"""The worker side of recompiles: what executes under torch, in the worker and its child programs."""

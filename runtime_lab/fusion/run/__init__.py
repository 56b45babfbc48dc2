"""The worker side of fusion: what executes under torch, in the worker and its child programs."""

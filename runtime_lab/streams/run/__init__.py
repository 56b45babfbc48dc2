"""The worker side of streams: what executes under torch, in the worker and its child programs."""

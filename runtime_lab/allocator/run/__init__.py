"""The worker side of allocator: what executes under torch, in the worker and its child programs."""

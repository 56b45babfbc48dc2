"""Runtime Lab: see PyTorch's execution layer (streams, fusion, recompiles, allocator) live."""

__version__ = "0.1.0"

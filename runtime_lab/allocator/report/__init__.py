"""The server side of allocator: key figures, frames, charts, the report and compare (no torch)."""

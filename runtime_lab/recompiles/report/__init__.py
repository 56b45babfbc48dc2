"""The server side of recompiles: key figures, frames, charts, the report and compare (no torch)."""

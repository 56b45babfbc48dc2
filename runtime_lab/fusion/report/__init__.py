"""The server side of fusion: key figures, frames, charts, the report and compare (no torch)."""

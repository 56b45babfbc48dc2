"""The server side of selftest: key figures, frames, charts, the report and compare (no torch)."""

"""The server side of streams: key figures, frames, charts, the report and compare (no torch)."""

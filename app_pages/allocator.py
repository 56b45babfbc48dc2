"""Allocator: allocated / reserved / peak memory, empty_cache, fragmentation, memory snapshots."""

import streamlit as st

from runtime_lab import ui

st.title("Allocator")
st.markdown(
    "PyTorch's CUDA caching allocator keeps freed blocks for reuse instead of returning them to "
    "the driver. Pick the shapes a dynamic batcher would feed and the scenarios to run: the lab "
    "runs **silu(x + y) * (x − y)** step by step, reads `torch.cuda.memory_stats` around each "
    "step (peaks reset per step), records the allocator's history "
    "(`_record_memory_history`, Python stacks) and draws allocated, reserved and host RSS for each "
    "scenario on its own time axis. Scenarios: the sequence, eager vs `torch.compile` peak, "
    "`empty_cache()` after every step vs never (timed), a side-stream tensor with and without `record_stream`, and "
    "`reduce-overhead` CUDA graphs with their private pool. Each scenario's snapshot is a "
    "download that opens in PyTorch's memory viewer (one taken before the scenario's final "
    "`empty_cache()`, so its segments are still there). Warm-up, timed calls and L2 flush are not "
    "used here: the empty-cache scenario's `rounds` sets its repeats."
)
jobs = ui.manager()
spec = ui.spec_form("allocator", jobs.env)
ui.run_panel(jobs, "allocator", spec)

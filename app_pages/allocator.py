"""Allocator: allocated / reserved / peak memory, empty_cache, fragmentation, memory snapshots."""

from runtime_lab import ui

ui.experiment_page("allocator")

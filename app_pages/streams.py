"""Streams & events: the seed's side-stream matmul in every ordering, timelines, overlap, host."""

from runtime_lab import ui

ui.experiment_page("streams")

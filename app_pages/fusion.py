"""Fusion & compile: silu(x + y) * (x - y) in eager and under torch.compile, checked then timed."""

from runtime_lab import ui

ui.experiment_page("fusion")

"""Shapes & recompiles: a sequence of shapes through torch.compile, call by call, per dynamic mode."""

from runtime_lab import ui

ui.experiment_page("recompiles")

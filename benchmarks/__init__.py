"""Recurring measurements (recipes) run through the lab's own queue and workers: `python -m benchmarks --list`."""

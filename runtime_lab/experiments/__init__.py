"""Experiment implementations; each imports torch and runs only inside the worker."""

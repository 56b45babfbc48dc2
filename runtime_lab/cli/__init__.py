"""The command line (`python -m runtime_lab`): run, history, compare, export/import."""

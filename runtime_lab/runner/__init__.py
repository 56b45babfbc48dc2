"""The runner: the job table, one lane per device, worker processes (local or Ray)."""

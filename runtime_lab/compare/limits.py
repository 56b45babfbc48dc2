"""How many runs one comparison takes (the CLI's help reads it without importing pandas)."""

MIN_RUNS, MAX_RUNS = 2, 6

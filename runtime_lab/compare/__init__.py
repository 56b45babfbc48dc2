"""Compare: 2 to 6 runs of one experiment, their differences, key figures and charts."""

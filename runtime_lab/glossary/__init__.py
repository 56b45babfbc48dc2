"""The glossary of figures: every figure a report, the CLI, compare or the JSON shows, once."""

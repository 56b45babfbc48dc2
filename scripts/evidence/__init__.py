"""One-off GPU evidence behind docs' evidence log: `python -m scripts.evidence.<name>` from the repo root."""

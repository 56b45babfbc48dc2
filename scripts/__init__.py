"""Setup and dev tools (run from the repo root: `python -m scripts.<tool>`); one-off GPU evidence in scripts/evidence/."""

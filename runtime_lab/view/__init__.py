"""Views shared by every experiment: tidy frames, Altair charts, chart export, number formats."""

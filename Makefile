# The two commands of README.md. Both set everything up first (idempotent, fast when done).
.PHONY: app test lint setup

app:
	scripts/setup.sh app
	.venv/bin/python -m streamlit run app.py

test:
	scripts/setup.sh test
	.venv/bin/python -m ruff check .
	.venv/bin/python -m ruff format --check .
	.venv/bin/python -m pytest

lint:
	.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

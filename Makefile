# The two commands of README.md. Both set everything up first (idempotent, fast when done).
.PHONY: app test lint setup ray

app:
	scripts/setup.sh app
	.venv/bin/python -m streamlit run app.py

test:
	scripts/setup.sh test
	.venv/bin/python -m ruff check .
	.venv/bin/python -m ruff format --check .
	.venv/bin/python -m pytest

# the optional Ray backend (README "On a cluster"); not part of make app
ray:
	scripts/setup.sh app
	.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-ray.txt

lint:
	.venv/bin/python -m ruff check . && .venv/bin/python -m ruff format --check .

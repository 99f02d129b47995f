# The two commands of README.md: `make run` and `make test`. Each installs what
# it needs into .venv first, so a fresh machine needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench install typecheck clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[test,oracle]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) -m nardy.server

test: install
	$(PY) -m mypy
	$(PY) -m pytest -n 2 -p no:cacheprovider

bench: install
	$(PY) -m benchmarks.movegen

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis

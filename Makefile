# The two commands of README.md: `make run` and `make test`. Each installs what
# it needs into .venv first, so a fresh machine needs nothing else.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench install browser gnubg typecheck clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml nardy/rules/_movegen.c | $(PY)
	$(PIP) install --quiet -e '.[test,oracle]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) -m nardy.server

test: install browser gnubg
	$(PY) -m mypy
	$(PY) -m pytest -n 2 -p no:cacheprovider

# The browser tests drive Debian's chromium through Playwright (never a downloaded
# browser); install it when it is missing and apt-get is there to do it.
browser:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core; \
		else \
			echo "chromium is missing and this is not root: the browser tests will be skipped (apt-get install chromium)"; \
		fi; \
	fi

# The oracle tests run GNU Backgammon (GPL) as an outside program, never imported;
# install Debian's gnubg when it is missing and apt-get is there to do it.
gnubg:
	@if ! command -v gnubg >/dev/null 2>&1 && [ ! -x /usr/games/gnubg ] && command -v apt-get >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnubg; \
		else \
			echo "gnubg is missing and this is not root: the gnubg oracle tests will be skipped (apt-get install gnubg)"; \
		fi; \
	fi

bench: install
	$(PY) -m benchmarks.movegen
	$(PY) -m benchmarks.strength --games 400 --time-limit 300

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis nardy/rules/_movegen.*.so

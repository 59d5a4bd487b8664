# Troubleshoot KB. `make run` serves the site; `make test` runs the whole suite.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
WEB_WORKERS ?= 2
PG_URL ?= postgres://postgres@127.0.0.1:5432/test
export DJANGO_SETTINGS_MODULE := kbapp.settings

.PHONY: help install run serve migrate kb test test-sqlite test-postgres lint check-kb browser bench clean

help:
	@echo "make run   - create .venv, install, migrate, import the shipped KB, serve on http://$(HOST):$(PORT)"
	@echo "make test  - lint the KB and the code, then the whole test suite (SQLite, then PostgreSQL if reachable)"
	@echo "make bench - matcher, analysis and HTTP load benchmarks (prints medians and percentiles)"

$(BIN)/.installed: requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

install: $(BIN)/.installed

migrate: install
	$(BIN)/python manage.py migrate --noinput

kb: migrate
	$(BIN)/python manage.py import_kb

run: kb
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@echo "Serving Troubleshoot KB on http://$(HOST):$(PORT)/ (Ctrl-C to stop)"
	$(BIN)/gunicorn kbapp.wsgi:application --bind $(HOST):$(PORT) --workers $(WEB_WORKERS) \
		--access-logfile - --timeout 60

# Debian's Chromium drives the browser tests (Playwright cannot download a browser here).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		if [ "$$(id -u)" = "0" ]; then \
			echo "Installing Debian's chromium for the browser tests..."; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
				|| { echo "could not install chromium"; exit 1; }; \
		else echo "NOTE: /usr/bin/chromium is missing (apt-get install chromium); browser tests will be skipped"; fi; \
	fi

lint: install
	$(BIN)/ruff check .

check-kb: install
	$(BIN)/python manage.py check_kb

test-sqlite: install browser
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-postgres: install
	@if $(BIN)/python -c "import psycopg,sys; psycopg.connect('$(PG_URL)', connect_timeout=3).close()" 2>/dev/null; then \
		echo "== the suite again on PostgreSQL ($(PG_URL))"; \
		DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest -q -p no:cacheprovider -m "not browser"; \
	elif [ "$$CI" = "true" ]; then echo "PostgreSQL at $(PG_URL) is required under CI=true but is not reachable"; exit 1; \
	else echo "SKIPPED: the PostgreSQL run (nothing answers at $(PG_URL))"; fi

test: install lint check-kb test-sqlite test-postgres

bench: kb
	$(BIN)/python manage.py bench_matcher
	$(BIN)/python manage.py bench_analysis
	$(BIN)/python scripts/bench_import.py --articles 3000
	$(BIN)/python scripts/bench_http.py --requests 10000

clean:
	rm -rf $(VENV) var .pytest_cache

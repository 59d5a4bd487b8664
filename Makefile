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

.PHONY: help install install-runtime run serve migrate kb test test-sqlite test-postgres lint lint-deploy check-kb browser bench clean

help:
	@echo "make run   - create .venv, install, migrate, import the shipped KB, serve on http://$(HOST):$(PORT)"
	@echo "make test  - lint the KB, the code and deploy/, then the whole test suite (SQLite, then PostgreSQL if reachable)"
	@echo "make bench - matcher, analysis and HTTP load benchmarks (prints medians and percentiles)"

# Two sets: the runtime one (what production and `make run` install) and the development one
# (runtime + tests and tooling, for `make test`). Both are pinned.
$(BIN)/.installed-runtime: requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

$(BIN)/.installed-dev: requirements.txt requirements-dev.txt $(BIN)/.installed-runtime
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	@touch $@

install-runtime: $(BIN)/.installed-runtime

install: $(BIN)/.installed-dev

# checkov cannot share the development virtualenv (it pins packaging<24; pytest 9 needs >=24).
CHECKOV_VENV := .venv-checkov
$(CHECKOV_VENV)/.installed: requirements-checkov.txt
	@test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CHECKOV_VENV)/bin/python -m pip install --quiet -r requirements-checkov.txt
	@touch $@

migrate: install-runtime
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

# The container recipe and the Kubernetes manifests, statically (no Docker engine or cluster here):
# hadolint on the Dockerfile, checkov on what `kubectl apply -k deploy/k8s` would send.
# tests/test_deploy.py cross-checks both against the application.
lint-deploy: install $(CHECKOV_VENV)/.installed
	$(BIN)/hadolint deploy/Dockerfile
	@rendered=$$(mktemp -d) && trap 'rm -rf "$$rendered"' EXIT && \
		$(BIN)/kubectl kustomize deploy/k8s > "$$rendered/troubleshoot-kb.yaml" && \
		$(CHECKOV_VENV)/bin/checkov --quiet --compact --config-file deploy/.checkov.yaml \
			--file "$$rendered/troubleshoot-kb.yaml" --file deploy/Dockerfile

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

test: install lint lint-deploy check-kb test-sqlite test-postgres

bench: kb
	$(BIN)/python manage.py bench_matcher
	$(BIN)/python manage.py bench_analysis
	$(BIN)/python scripts/bench_import.py --articles 3000
	$(BIN)/python scripts/bench_http.py --requests 10000

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) var .pytest_cache

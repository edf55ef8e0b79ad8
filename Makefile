# Everyday commands. `make run` and `make test` are the README's quick start.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# `make test` runs the whole suite a second time against this database.
TEST_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test

.PHONY: run test test-sqlite test-postgres lint format check clean

$(VENV)/.run-deps: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-deps: $(VENV)/.run-deps requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

## Install, migrate, load the demo restaurant and serve it on http://127.0.0.1:8000,
## with a Celery worker (and its sweep) beside it on the embedded filesystem broker;
## one Ctrl+C stops both (scripts/run_demo.py)
run: $(VENV)/.run-deps
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	@exec $(PY) -m scripts.run_demo --host $(HOST) --port $(PORT)

# The a2a-sdk 0.3.x client of the v0.3 interop tests, in a venv of its own: it cannot
# share one with the v1 SDK (both are the `a2a` package).
.venv-sdk03/.deps: tests/sdk03/requirements.txt
	$(PYTHON) -m venv .venv-sdk03
	.venv-sdk03/bin/python -m pip install --quiet -r tests/sdk03/requirements.txt
	touch $@

# a2a_app's tests run against the test project (tests/project); the demo's (tests/demo)
# against the demo site, in a run of their own.
DEMO_TESTS := DJANGO_SETTINGS_MODULE=a2a_site.settings $(PY) -m pytest tests/demo

## Install the test tools and run the whole suite on SQLite, then again on PostgreSQL
## (where task writes take their one-statement path, see a2a_app/core/rows.py)
test: $(VENV)/.dev-deps .venv-sdk03/.deps
	$(PY) -m pytest
	$(DEMO_TESTS)
	DATABASE_URL=$(TEST_POSTGRES_URL) $(PY) -m pytest
	DATABASE_URL=$(TEST_POSTGRES_URL) $(DEMO_TESTS)

test-sqlite: $(VENV)/.dev-deps
	$(PY) -m pytest
	$(DEMO_TESTS)

test-postgres: $(VENV)/.dev-deps
	DATABASE_URL=$(TEST_POSTGRES_URL) $(PY) -m pytest
	DATABASE_URL=$(TEST_POSTGRES_URL) $(DEMO_TESTS)

lint: $(VENV)/.dev-deps
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: $(VENV)/.dev-deps
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

check: $(VENV)/.run-deps
	$(PY) manage.py check --database default
	$(PY) manage.py makemigrations --check --dry-run

clean:
	rm -rf $(VENV) db.sqlite3* var

# --- benchmarks (bench/; the report is docs/performance.md) -------------------------------
.PHONY: bench bench-smoke

## The benchmark suite: every case under uvicorn and gunicorn, report in docs/performance.md;
## on PostgreSQL when DATABASE_URL points at it (e.g. postgres://postgres@127.0.0.1:5432/bench)
bench: $(VENV)/.run-deps
	$(PY) -m pip install --quiet -r bench/requirements.txt
	-$(PY) -m pip install --quiet -r bench/requirements-sdk.txt
	$(PY) -m bench.run $(BENCH_ARGS)

## A few seconds of the suite (no thresholds, no report), for CI: so that it never rots
bench-smoke: $(VENV)/.run-deps
	$(PY) -m pip install --quiet -r bench/requirements.txt
	$(PY) -m bench.run --smoke $(BENCH_ARGS)

# --- conformance: the official A2A TCK ----------------------------------------------------
.PHONY: tck

## The official TCK's MUST level (JSON-RPC and HTTP+JSON) against the conformance site on
## PostgreSQL with a worker; fails on any MUST failure but the known TCK defects listed in
## scripts/tck.py. TCK_DIR: a checkout of a2aproject/a2a-tck at 357c4a8 (not on PyPI).
tck: $(VENV)/.run-deps
	@test -n "$(TCK_DIR)" || { echo "usage: make tck TCK_DIR=<a2a-tck checkout at 357c4a8>"; exit 2; }
	$(PY) -m scripts.tck --tck-dir "$(TCK_DIR)" $(TCK_ARGS)

# --- mutation testing (scripts/mutation.py; docs/testing.md) ------------------------------
.PHONY: mutation

## mutmut on the modules of scripts/mutation.py's TARGETS, each against its own tests; fails
## when one scores under 90 %. One module: make mutation MUTATION_ARGS="--module <path>"
mutation: $(VENV)/.dev-deps
	$(PY) -m scripts.mutation $(MUTATION_ARGS)
	$(PY) -m scripts.mutation_tables

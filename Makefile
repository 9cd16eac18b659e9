# Concord: `make demo` serves a realistic demo, `make test` runs the whole suite (lint, migrations, types, tests),
# `make test-sqlite` runs the work-queue and import suites again on SQLite, the embedded default.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
# pytest-xdist workers for `make test` (one per core; tests/conftest.py keeps a file's tests on one worker).
WORKERS ?= 2

# The SQLite leg: the work queue (claim, lease, submit, their concurrency) and the imports, on a file database.
# (The migration from main runs on both engines in the main leg: tests/system/test_migrate_from_main.py makes its own.)
SQLITE_SUITES ?= $(wildcard tests/workqueue/test_assignment*.py tests/workqueue/test_store_contract.py tests/core/test_rows.py tests/accounts/test_*.py \
	tests/catalogue/test_import_*.py tests/catalogue/test_bulk.py tests/catalogue/test_pair_status.py tests/core/test_lookups.py)
SQLITE_DB ?= $(CURDIR)/var/sqlite-leg.sqlite3
# What the Docker image can run with requirements.txt alone: production settings, the embedded default, the WSGI app.
SMOKE_TESTS ?= tests/config/test_deploy.py tests/config/test_local_default.py tests/config/test_wsgi.py

.PHONY: venv run-venv demo serve test test-sqlite smoke typecheck lint worker bench js clean

# `make demo` and `make serve` need only what Concord runs on; `make test` adds the test and development tools.
run-venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

venv: $(VENV)/.installed-dev

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# The demo runs a real Celery worker beside the web server on kombu's filesystem transport (no Redis), so
# background jobs run outside the request and their progress bars move as in production.
demo: run-venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	CONCORD_EMBEDDED_WORKER=1 $(PY) manage.py serve $(HOST)

serve: run-venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver $(HOST)

test: lint typecheck js
	$(PY) manage.py makemigrations --check --dry-run --settings=config.settings.test
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup $(PYTEST_ARGS)

test-sqlite: venv
	mkdir -p $(dir $(SQLITE_DB))
	DATABASE_URL=sqlite:///$(SQLITE_DB) $(PY) -m pytest -n $(WORKERS) --dist loadgroup --create-db $(PYTEST_ARGS) $(SQLITE_SUITES)

smoke: run-venv
	$(PY) -m pytest $(PYTEST_ARGS) $(SMOKE_TESTS)

# mypy with django-stubs over the services and selectors (the files are listed in pyproject.toml).
typecheck: venv
	$(PY) -m mypy

lint: venv
	$(PY) -m ruff check .

# ESLint and `node --test` over the browser modules in frontend/static (docs/frontend-tooling.md); the tools are
# installed from package-lock.json when node_modules is missing or older than the lock.
js: node_modules/.installed
	npm run --silent lint:js
	npm run --silent test:js

node_modules/.installed: package-lock.json
	npm ci --no-audit --no-fund
	touch $@

worker: run-venv
	$(VENV)/bin/celery -A config worker -l info -Q celery,imports,judges,analytics,releases

clean:
	rm -rf $(VENV) var staticfiles

# Concord: `make demo` serves a realistic demo, `make test` runs the whole suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000

.PHONY: venv demo serve test lint worker bench clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# The demo runs a real Celery worker beside the web server on kombu's filesystem transport (no Redis), so
# background jobs run outside the request and their progress bars move as in production.
demo: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	CONCORD_EMBEDDED_WORKER=1 $(PY) manage.py serve $(HOST)

serve: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver $(HOST)

test: venv
	$(PY) -m ruff check .
	$(PY) manage.py makemigrations --check --dry-run --settings=config.settings.test
	$(PY) -m pytest $(PYTEST_ARGS)

lint: venv
	$(PY) -m ruff check .

worker: venv
	$(VENV)/bin/celery -A config worker -l info -Q celery,imports,judges,analytics,releases

clean:
	rm -rf $(VENV) var staticfiles

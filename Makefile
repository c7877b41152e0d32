# Talia: `make run` sets up and serves the embedded mode; `make test` runs the test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run setup install demo test lint typecheck bench clean messages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# Collected again only when a static file or the dependencies change.
STATIC_FILES := $(shell find . -path ./.venv -prune -o -path ./var -prune -o -path '*/static/*' -type f -print)
var/static/staticfiles.json: $(VENV)/.installed $(STATIC_FILES)
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0

setup: install var/static/staticfiles.json
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_load

# The web server and a Celery worker beside it, sharing a broker folder in var/; Ctrl-C
# stops both (config/embedded.py). `make run HOST=0.0.0.0` serves phones on the network.
run: setup
	@exec $(BIN)/python -m config.embedded --host $(HOST) --port $(PORT)

test: install
	$(BIN)/python -m playwright --version >/dev/null
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# Each benchmark prints its figures and exits 1 when it misses the issue's target; `-k`
# runs the rest anyway.
bench: install
	$(BIN)/python bench/bench_planes.py
	$(BIN)/python bench/bench_sqlite.py
	$(BIN)/python bench/bench_live.py
	$(BIN)/python bench/bench_live_apply.py
	$(BIN)/python bench/bench_connections.py
	$(BIN)/python bench/bench_quiz.py
	$(BIN)/python bench/bench_knowledge.py
	$(BIN)/python bench/bench_lti.py

messages: install
	$(BIN)/python manage.py makemessages -l pl --ignore=.venv --ignore=var --ignore=tests --ignore=bench
	$(BIN)/python manage.py makemessages -d djangojs -l pl --ignore=.venv --ignore=var --ignore=tests
	$(BIN)/python manage.py compilemessages --ignore=.venv

clean:
	rm -rf var $(VENV)

# Talia: `make run` sets up and serves the embedded mode; `make test` runs the test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make test` runs one worker more than there are cores (tests/parallel.py gives each worker
# its own services): the browser, worker and timer tests spend part of their time waiting,
# and the extra worker's CPU-bound tests fill it (README, "Tests"). At most 12 workers, so
# each keeps a Redis database of its own below the production topology's 15.
# `make test TEST_WORKERS=0` runs in one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); n=$$((n + 1)); [ $$n -gt 12 ] && n=12; echo $$n)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run setup install demo test screenshots lint typecheck bench clean messages

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

# pytest keeps its rewritten test modules (the asserts it explains) as bytecode in __pycache__,
# unless PYTHONDONTWRITEBYTECODE is set, as container images often do: then every worker
# rewrites all of them again, each run. Empty, Python reads it as unset (README, "Tests").
test: install
	$(BIN)/python -m playwright --version >/dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

# The pictures of each game on a phone and a projector in docs/images/ (docs/screenshots/):
# played in chromium like the browser tests, but not a test, so `make test` never runs it.
screenshots: install
	$(BIN)/python -m pytest docs/screenshots

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# Every benchmark prints its figures, records its verdicts in var/bench-results.jsonl
# (bench/results.py) and exits 1 on a miss; the next one runs anyway, and
# bench/summary.py ends with one table of figures, targets and verdicts (exit status 1 if
# any target was missed or any bench failed). `make bench BENCHES="planes print"` runs some.
BENCHES ?= planes print embedded sqlite live quiz_live live_apply connections quiz knowledge lti
BENCH_OUT := $(CURDIR)/var/bench
bench: install
	@mkdir -p $(BENCH_OUT) && rm -f $(BENCH_OUT)/results.jsonl $(BENCH_OUT)/status.txt
	@for name in $(BENCHES); do \
		echo "== bench/bench_$$name.py (load average $$(cut -d' ' -f1-3 /proc/loadavg))"; \
		BENCH_RESULTS=$(BENCH_OUT)/results.jsonl $(BIN)/python bench/bench_$$name.py; \
		echo "bench_$$name.py $$?" >>$(BENCH_OUT)/status.txt; \
	done
	@$(BIN)/python bench/summary.py $(BENCH_OUT)/results.jsonl $(BENCH_OUT)/status.txt

messages: install
	$(BIN)/python manage.py makemessages -l pl -l cs -l de --ignore=.venv --ignore=var --ignore=tests --ignore=bench
	$(BIN)/python manage.py makemessages -d djangojs -l pl -l cs -l de --ignore=.venv --ignore=var --ignore=tests
	$(BIN)/python manage.py compilemessages --ignore=.venv

clean:
	rm -rf var $(VENV)

# The two commands of the README: `make demo` runs the built-in demo table, `make test` runs every check.
PORT ?= 5000
VENV := .venv/bin

.PHONY: demo test lint bench setup

setup:
	@scripts/setup.sh

demo: setup
	$(VENV)/kipukas-tracker demo --port $(PORT)

lint:
	$(VENV)/ruff check tracker vision calibration rules web hub broadcast training tests bench
	$(VENV)/mypy

test:
	@scripts/setup.sh --with-browser
	$(MAKE) --no-print-directory lint
	$(VENV)/python -m pytest -q

bench: setup
	@for b in bench/bench_*.py; do echo "== $$b"; $(VENV)/python $$b || exit 1; done

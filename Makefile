# The two commands: `make run` and `make test`. Both set everything up on a fresh
# machine that has only Python 3 (3.11+) and make.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck unit setup clean fuzz bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/kessel $(ARGS)

test: $(STAMP) lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

# Long self-play fuzzing over every shipped scenario (docs/performance.md); reproducers of
# broken invariants go to fuzz-failures/. FUZZ_ARGS to change it, e.g. FUZZ_ARGS="--seeds 5".
FUZZ_ARGS ?= --seeds 50 --max-inputs 3000
fuzz: $(STAMP)
	$(BIN)/kessel fuzz $(FUZZ_ARGS)

bench: $(STAMP)
	$(BIN)/kessel bench --json bench.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# The two commands: `make run` and `make test`. Both set everything up on a fresh
# machine that has only Python 3 (3.11+) and make, installing exactly the versions of
# requirements.lock (every package, direct and transitive, with its hashes).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock
# uv resolves the locks (`make lock`); it is not needed to install or run Kessel.
UV_VERSION := 0.13.8

.PHONY: run test lint typecheck unit soak setup servers clean fuzz bench lock

# A new lock or pyproject makes a new environment: nothing left from an older one.
$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Kessel needs Python 3.11 or newer; set PYTHON=python3.11 (or newer)"; exit 1; }
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
	  --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
	  --no-deps --no-build-isolation -e .
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/kessel $(ARGS)

# The default checks: lint, types and the focused test suite (a few minutes).
test: $(STAMP) servers lint typecheck unit

# The real PostgreSQL and IMAP servers the store and mail tests start (.ci/servers).
servers:
	@.ci/servers

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

# The long tests (marked `slow`): `kessel bench --quick`, the built-in opponents' long
# korsun-1944 game, kills during writes, long snapshot round trips. CI runs them too.
soak: $(STAMP)
	$(BIN)/pytest -m slow

# Long self-play fuzzing over every shipped scenario (docs/performance.md); reproducers of
# broken invariants go to fuzz-failures/. FUZZ_ARGS to change it, e.g. FUZZ_ARGS="--seeds 5".
FUZZ_ARGS ?= --seeds 50 --max-inputs 3000
fuzz: $(STAMP)
	$(BIN)/kessel fuzz $(FUZZ_ARGS)

bench: $(STAMP)
	$(BIN)/kessel bench --json bench.json

# Refresh the locks from pyproject.toml (and requirements-build.in) to the newest versions
# the ranges allow, for every platform and Python >= 3.11; commit the two files after
# `make test` passes with them (docs/development.md).
lock:
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	.venv-lock/bin/uv pip compile pyproject.toml requirements-build.in --upgrade \
	  --universal --python-version 3.11 --generate-hashes --custom-compile-command "make lock" \
	  --annotation-style line -o requirements-runtime.lock
	.venv-lock/bin/uv pip compile pyproject.toml requirements-build.in --extra dev \
	  -c requirements-runtime.lock --upgrade \
	  --universal --python-version 3.11 --generate-hashes --custom-compile-command "make lock" \
	  --annotation-style line -o requirements.lock
	rm -rf .venv-lock

clean:
	rm -rf $(VENV) .venv-lock .pytest_cache .mypy_cache .ruff_cache

# parley — the contract: `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/parley run casino --agent astra --agent base --seed 7 --explain

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pyright
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/pyright

# make bench BENCH_ARGS="--quick" (or "--only core") for a shorter run; NegMAS lives only in .venv-bench.
BENCH_ARGS ?=

bench: $(STAMP)
	bash benchmarks/setup_bench_venv.sh
	.venv-bench/bin/python benchmarks/run.py --out docs/benchmarks.md $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .venv-bench build dist src/*.egg-info .pytest_cache .ruff_cache

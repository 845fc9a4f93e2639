"""Optional dependencies: the commands that need an extra fail in one line naming it when it is missing.

`pip install parley` installs what negotiating, analysing and the LLM roles need; the web console,
plots and Dask scheduling come with the extras of pyproject.toml (`parley[web]`, `parley[plot]`,
`parley[dask]`, or `parley[all]`).
"""

from __future__ import annotations

import importlib.util

from parley.cli.common import fail

EXTRAS: dict[str, tuple[str, ...]] = {
    "web": ("fastapi", "uvicorn"),
    "plot": ("matplotlib",),
    "dask": ("distributed",),
}
"""The modules each extra of pyproject.toml brings (keep in step with [project.optional-dependencies])."""

MISSING_EXTRA_EXIT = 1


def missing_modules(extra: str) -> list[str]:
    """The modules of extra that are not installed (found without importing them)."""
    return [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]


def require_extra(extra: str, feature: str) -> None:
    """Fail in one line when feature needs extra and it is not installed.

    Args:
        extra: A key of `EXTRAS`.
        feature: What needs it, as the user typed it ("parley web", "--plot").

    Raises:
        typer.Exit: with `MISSING_EXTRA_EXIT` when a module of the extra is missing.
    """
    if missing_modules(extra):
        fail(f"{feature} needs the '{extra}' extra: pip install 'parley[{extra}]'", code=MISSING_EXTRA_EXIT)

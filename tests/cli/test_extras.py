"""Commands behind an optional extra fail in one line naming the extra when it is not installed."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.cli.extras import EXTRAS, MISSING_EXTRA_EXIT, missing_modules

pytestmark = pytest.mark.e2e
runner = CliRunner()
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make modules look uninstalled (an entry of None in sys.modules: not found, not importable)."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize(
    ("args", "extra", "feature"),
    [
        (["web", "--db", "{db}"], "web", "parley web"),
        (["analyze", "casino", "--plot", "{tmp}/space.png"], "plot", "--plot"),
        (["mediate", "hmo", "--plot", "{tmp}/consensus.png"], "plot", "--plot"),
        (["experiment", "astra", "--out", "{tmp}/astra.md"], "plot", "parley experiment astra"),
        (["experiment", "gaia", "--out", "{tmp}/gaia.md"], "plot", "parley experiment gaia"),
        (["experiment", "promediate", "--out", "{tmp}/pm.md"], "plot", "parley experiment promediate"),
        (
            [
                *("tournament", "--agents", "boulware,conceder", "--scenarios", "casino"),
                *("--out", "{tmp}/results", "--scheduler", "tcp://127.0.0.1:1"),
            ],
            "dask",
            "--scheduler",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_command_without_its_extra_names_the_extra(
    args: list[str], extra: str, feature: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "delegate.db"
    db.write_bytes(b"")
    without(monkeypatch, *EXTRAS[extra])
    filled = [arg.format(db=db, tmp=tmp_path) for arg in args]
    result = runner.invoke(app, filled, env={"COLUMNS": "200"})
    assert result.exit_code == MISSING_EXTRA_EXIT, result.output
    expected = f"error: {feature} needs the '{extra}' extra: pip install 'parley[{extra}]'"
    assert result.stderr.strip() == expected
    assert list(tmp_path.iterdir()) == [db]  # failed before writing anything


def test_the_extras_are_installed_for_development() -> None:
    assert all(missing_modules(extra) == [] for extra in EXTRAS)


def test_the_extras_match_pyproject() -> None:
    """Every extra the CLI checks is declared, and `dev` (what `make test` installs) brings them all."""
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    assert extras["all"] == [f"parley[{','.join(EXTRAS)}]"]
    assert "parley[all]" in extras["dev"]

"""Helpers for plugin tests: tiny modules, installed-looking distributions and a real pip-built package."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

NEGOTIATOR_MODULE = '''
"""A tiny negotiator for plugin tests: proposes its best package, accepts anything above its BATNA."""

from parley import Accept, PartyView, Propose


class Tiny:
    def __init__(self, party: str, seed: int) -> None:
        self.party = party

    def act(self, view: PartyView) -> Accept | Propose:
        offer = view.offer
        if offer is not None and view.utility.evaluate(offer) >= view.reservation_value:
            return Accept()
        return Propose(view.space.outcome(int(view.utility.evaluate_space().argmax())))


def make(*, party: str, seed: int) -> Tiny:
    """Tiny: proposes its best package, accepts anything above its BATNA."""
    return Tiny(party, seed)


def not_a_negotiator(*, party: str, seed: int) -> int:
    return 42


def explodes(*, party: str, seed: int) -> Tiny:
    raise RuntimeError("the factory blew up\\non two lines")


NOT_CALLABLE = 7


def make_mediator(**options: object) -> object:
    from parley.mediation import GenericMediator

    return GenericMediator(**options)


def not_a_mediator() -> str:
    return "a mediator"
'''


def write_module(folder: Path, name: str, source: str = NEGOTIATOR_MODULE) -> Path:
    """Write module name (a .py file) into folder and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def fake_distribution(
    folder: Path, name: str, version: str, entry_points: Mapping[str, Mapping[str, str]]
) -> None:
    """An installed-looking distribution in folder (a dist-info with METADATA and entry_points.txt):
    what importlib.metadata reads, without building anything."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    sections = [
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
        for group, points in entry_points.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(sections))


def build_and_install(
    source: Path, name: str, entry_points: Mapping[str, Mapping[str, str]], target: Path
) -> None:
    """Make source (a folder holding package modules) a pip-installable project with entry points and
    install it into target, offline, with this environment's pip and setuptools.

    Raises:
        AssertionError: pip failed (its output is in the message).
    """
    groups = "\n".join(
        f'[project.entry-points."{group}"]\n' + "".join(f'"{k}" = "{v}"\n' for k, v in points.items())
        for group, points in entry_points.items()
    )
    packages = sorted(path.name for path in source.iterdir() if (path / "__init__.py").is_file())
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{name}"\nversion = "0.1"\n\n{groups}\n'
        f"[tool.setuptools]\npackages = {packages!r}\n".replace("'", '"')
    )
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr

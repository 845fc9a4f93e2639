"""`parley scenarios generate`: seeded random multi-issue games written as scenario YAML files.

The command function is registered on the `scenarios` group by `parley.cli.scenarios`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from parley.cli.common import check_writable, console, fail, write_files
from parley.errors import ParleyError

MAX_GENERATED = 1_000
"""Most games one command writes."""
MAX_SEED = 2**32 - 1
"""Largest seed accepted (seeds of a batch run up to seed + count - 1)."""


def generate_command(
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Seed of the first game.")],
    out: Annotated[Path, typer.Option(help="Folder to write the scenario files to (created if needed).")],
    parties: Annotated[
        int, typer.Option(min=2, max=8, help="Parties per game (3 or more: k of n with vetoers).")
    ] = 2,
    issues: Annotated[int, typer.Option(min=1, max=12, help="Issues per game.")] = 4,
    count: Annotated[
        int, typer.Option(min=1, max=MAX_GENERATED, help="Games, with seeds seed, seed+1, ...")
    ] = 1,
    opposition: Annotated[
        float | None,
        typer.Option(
            min=0.0, max=1.0, help="0: shared interests, 1: opposed on every issue (default: drawn)."
        ),
    ] = None,
    max_rounds: Annotated[int, typer.Option(min=1, max=10_000, help="Round bound of each game.")] = 40,
) -> None:
    """Generate random games (linear-additive utilities, a non-empty acceptable set) as YAML files.

    The same options always write the same files. Each game's acceptable set (outcomes the
    required coalition accepts, every member at or above its BATNA) is checked non-empty by
    enumeration; its size is printed.
    """
    from parley.scenarios import scenario_to_yaml
    from parley.scenarios.generate import GameSpec, generate_games

    check_writable(out, "write scenarios to", folder=True)
    if seed + count - 1 > MAX_SEED:
        fail(f"--seed {seed} with --count {count} runs past the largest seed ({MAX_SEED})")
    try:
        spec = GameSpec(
            seed=seed, parties=parties, issues=issues, opposition=opposition, max_rounds=max_rounds
        )
        games = generate_games(spec, count)
        files = {f"{game.name}.yaml": scenario_to_yaml(game) for game in games}
    except ParleyError as error:
        fail(str(error))
    write_files(out, files, "write scenarios to")
    table = Table(title=f"Generated games in {escape(str(out))}")
    for column in ("file", "parties", "issues", "outcomes", "acceptable", "acceptance"):
        table.add_column(column, justify="left" if column in ("file", "acceptance") else "right")
    for (name, _), game in zip(files.items(), games, strict=True):
        facts = game.metadata["generator"]
        rule = game.rules.acceptance
        needed = "all" if rule.required is None else f"{rule.required} of {len(game.parties)}"
        vetoes = f", vetoes: {', '.join(rule.vetoes)}" if rule.vetoes else ""
        table.add_row(
            escape(name),
            str(len(game.parties)),
            str(len(game.space.issues)),
            f"{game.space.size:,}",
            f"{facts['acceptable_outcomes']:,}",
            f"{needed}{vetoes}",
        )
    console.print(table)

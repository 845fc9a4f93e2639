"""The agent registry: one factory signature, entry-point plugins loaded lazily, "module:factory"
specs, and one-line errors for everything a plugin or a command line can get wrong."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_kit import fake_distribution, write_module

from parley.agents import registry
from parley.errors import ScenarioError
from parley.mediation import GenericMediator, create_mediator
from parley.mediation import mediators as mediator_registry
from parley.protocol import Negotiator
from parley.testing import check_negotiator
from parley.testing.scenarios import casino_like_scenario


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A registry that has looked for no plugin yet; whatever a test registers is forgotten after it."""
    registry.names()  # the built-ins first
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_SPECS", {})
    monkeypatch.setattr(registry, "_plugins", None)
    monkeypatch.setattr(registry, "_broken", {})
    monkeypatch.setattr(registry, "_warned", set())
    monkeypatch.setattr(mediator_registry, "_plugins", None)
    yield


def one_line(error: pytest.ExceptionInfo[ScenarioError]) -> str:
    message = str(error.value)
    assert "\n" not in message and "Traceback" not in message, message
    assert len(message) < 700, len(message)
    return message


# -- one factory signature ---------------------------------------------------------------------------


def test_a_registered_factory_is_checked_as_it_is() -> None:
    """The registry's factories and check_negotiator's take the same call: factory(party=, seed=)."""
    factory = registry.entry("boulware").factory
    report = check_negotiator(factory, scenarios=[casino_like_scenario()], seeds=(0,))
    assert report.sessions == 7 and report.moves > 0


class KeywordOnly:
    """A negotiator class whose __init__ takes party and seed by keyword only."""

    def __init__(self, *, party: str, seed: int) -> None:
        self.party, self.seed = party, seed

    def act(self, view: object) -> object:
        from parley.protocol import Walk

        return Walk("no")


def test_every_caller_calls_factories_by_keyword(fresh: None) -> None:
    registry.register("keyword-only", KeywordOnly, "walks")
    made = registry.create("keyword-only", party="A", seed=3)
    assert isinstance(made, KeywordOnly) and (made.party, made.seed) == ("A", 3)
    calls: list[dict[str, object]] = []

    def recording(**arguments: object) -> Negotiator:
        calls.append(arguments)
        return KeywordOnly(party=str(arguments["party"]), seed=int(str(arguments["seed"])))

    check_negotiator(recording, scenarios=[casino_like_scenario()], seeds=(0,))
    assert calls and all(set(call) == {"party", "seed"} for call in calls)


def test_register_refuses_names_and_factories_it_could_not_serve(fresh: None) -> None:
    for name in ("", "  ", "pkg.mod:make"):
        with pytest.raises(ScenarioError, match="must be non-empty and hold no colon"):
            registry.register(name, KeywordOnly)
    with pytest.raises(ScenarioError, match="not callable"):
        registry.register("seven", 7)  # type: ignore[arg-type]


# -- "package.module:factory" specs ------------------------------------------------------------------


@pytest.fixture
def module_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "modules"
    write_module(folder, "registry_spec_mod")
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_a_spec_builds_its_factory_and_is_cached(fresh: None, module_dir: Path) -> None:
    made = registry.create("registry_spec_mod:make", party="A", seed=0)
    assert type(made).__name__ == "Tiny"
    assert registry.entry("registry_spec_mod:make") is registry.entry("registry_spec_mod:make")
    assert registry.entry("registry_spec_mod:Tiny").factory.__name__ == "Tiny"  # a class is a factory
    assert "registry_spec_mod:make" not in registry.names()  # specs are not listed
    registry.check_names(["boulware", "registry_spec_mod:make"])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("no_such_module_xyz:make", "no module named 'no_such_module_xyz'"),
        ("no_such_pkg_xyz.sub:make", "no module named 'no_such_pkg_xyz'"),
        ("registry_spec_mod:nope", "module 'registry_spec_mod' has no attribute 'nope'"),
        ("registry_spec_mod:Tiny.nope", "has no attribute 'Tiny.nope'"),
        ("registry_spec_mod:NOT_CALLABLE", "is a int, not a negotiator factory"),
        (":make", "not a valid package.module:attribute spec"),
        ("registry_spec_mod:", "not a valid package.module:attribute spec"),
        ("registry_spec_mod::make", "not a valid package.module:attribute spec"),
        ("registry..spec:make", "not a valid package.module:attribute spec"),
        ("1module:make", "not a valid package.module:attribute spec"),
        ("registry_spec_mod:ma\u200bke", "U+200B ZERO WIDTH SPACE"),
        ("registry_spec_m\u043ed:make", "no module named"),  # a Cyrillic о: valid, but not ours
        ("../../etc/passwd:make", "not a valid package.module:attribute spec"),
    ],
)
def test_a_bad_spec_fails_in_one_line(fresh: None, module_dir: Path, spec: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as error:
        registry.create(spec, party="A", seed=0)
    assert expected in one_line(error)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("registry_spec_mod:not_a_negotiator", "its factory returned a int, not a negotiator"),
        ("registry_spec_mod:explodes", "failed to build a negotiator for A: RuntimeError: the factory"),
    ],
)
def test_a_factory_that_misbehaves_fails_in_one_line(
    fresh: None, module_dir: Path, spec: str, expected: str
) -> None:
    with pytest.raises(ScenarioError) as error:
        registry.create(spec, party="A", seed=0)
    assert expected in one_line(error)


def test_a_module_that_raises_while_imported_fails_in_one_line(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_module(tmp_path, "registry_raising_mod", "raise ValueError('broken\\nat import')\n")
    write_module(tmp_path, "registry_importing_mod", "import a_dependency_nobody_installed_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ScenarioError) as error:
        registry.entry("registry_raising_mod:make")
    assert "importing 'registry_raising_mod' raised ValueError: broken at import" in one_line(error)
    with pytest.raises(ScenarioError) as error:
        registry.entry("registry_importing_mod:make")
    assert "ModuleNotFoundError: No module named 'a_dependency_nobody_installed_xyz'" in one_line(error)


def test_huge_and_lookalike_names_fail_in_short_lines(fresh: None) -> None:
    with pytest.raises(ScenarioError) as error:
        registry.entry("x" * 200_000)
    assert one_line(error).startswith("unknown agent 'xxxx")
    with pytest.raises(ScenarioError) as error:
        registry.entry("a" * 100_000 + ":" + "b" * 100_000)
    one_line(error)
    with pytest.raises(ScenarioError) as error:
        registry.entry("b\u043eulware")  # Cyrillic о
    assert "U+043E CYRILLIC SMALL LETTER O" in one_line(error)
    with pytest.raises(ScenarioError) as error:
        registry.entry("\udcffagent")  # a command-line byte that is not UTF-8
    assert "byte 0xFF, which is not UTF-8" in one_line(error)
    with pytest.raises(ScenarioError, match="unknown agents 'nobody'"):
        registry.check_names(["boulware", "nobody"])


# -- entry-point plugins -----------------------------------------------------------------------------


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two installed-looking distributions: one good (an agent, an AgentEntry, a mediator), one broken."""
    site = tmp_path / "site"
    write_module(site, "registry_plugin_mod")
    write_module(
        site,
        "registry_plugin_entry",
        "from parley.agents.registry import AgentEntry\n"
        "from registry_plugin_mod import make\n"
        "ENTRY = AgentEntry('ignored', make, 'Tiny with a limit', max_outcomes=10)\n",
    )
    write_module(site, "registry_broken_mod", "raise ImportError('this plugin is broken on purpose')\n")
    fake_distribution(
        site,
        "good-plugin",
        "1.2",
        {
            "parley.agents": {
                "tiny": "registry_plugin_mod:make",
                "tiny-entry": "registry_plugin_entry:ENTRY",
                "tiny-int": "registry_plugin_mod:NOT_CALLABLE",
                "boulware": "registry_plugin_mod:make",
            },
            "parley.mediators": {
                "tiny-mediator": "registry_plugin_mod:make_mediator",
                "bad-mediator": "registry_plugin_mod:not_a_mediator",
                "social": "registry_plugin_mod:make_mediator",
            },
        },
    )
    fake_distribution(site, "broken-plugin", "0.3", {"parley.agents": {"broken": "registry_broken_mod:make"}})
    monkeypatch.syspath_prepend(str(site))
    return site


def test_plugins_are_listed_without_being_imported(fresh: None, installed: Path) -> None:
    names = registry.names()
    assert {"tiny", "tiny-entry", "broken", "boulware", "astra"} <= set(names)
    assert "registry_plugin_mod" not in sys.modules and "registry_broken_mod" not in sys.modules


def test_a_plugin_plays_by_name_and_an_entry_keeps_its_details(fresh: None, installed: Path) -> None:
    made = registry.create("tiny", party="A", seed=0)
    assert type(made).__name__ == "Tiny"
    entry = registry.entry("tiny")
    assert entry.description == "Tiny: proposes its best package, accepts anything above its BATNA."
    assert entry.origin == "agent plugin 'tiny' (distribution good-plugin 1.2)"
    detailed = registry.entry("tiny-entry")
    assert (detailed.name, detailed.description, detailed.max_outcomes) == (
        "tiny-entry",
        "Tiny with a limit",
        10,
    )
    space = casino_like_scenario()
    problem = registry.space_problem("tiny-entry", "alice", space.space, space.parties[0].utility)
    assert problem is not None and "at most 10 outcomes" in problem


def test_a_plugin_cannot_take_a_builtin_name(
    fresh: None, installed: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="parley._plugins"):
        registry.names()
    assert type(registry.create("boulware", party="A", seed=0)).__name__ == "TimeBasedNegotiator"
    assert any(
        "agent plugin 'boulware' (distribution good-plugin 1.2) is ignored" in r.message
        for r in caplog.records
    )


def test_a_broken_plugin_fails_in_one_line_and_the_others_still_work(
    fresh: None, installed: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="parley.agents.registry"):
        listed = registry.available()
        registry.available()  # a second listing does not warn again
    assert "tiny" in listed and "boulware" in listed and "broken" not in listed and "tiny-int" not in listed
    warnings = [r.getMessage() for r in caplog.records if r.name == "parley.agents.registry"]
    assert len(warnings) == 2 and all("\n" not in w for w in warnings), warnings
    with pytest.raises(ScenarioError) as error:
        registry.create("broken", party="A", seed=0)
    assert one_line(error) == (
        "agent plugin 'broken' (distribution broken-plugin 0.3) could not be loaded from "
        "'registry_broken_mod:make': ImportError: this plugin is broken on purpose"
    )
    with pytest.raises(ScenarioError, match="agent plugin 'broken'"):  # remembered, not retried
        registry.check_names(["tiny", "broken"])
    with pytest.raises(ScenarioError) as error:
        registry.entry("tiny-int")
    assert "'registry_plugin_mod:NOT_CALLABLE' is a int, not a negotiator factory" in one_line(error)
    assert type(registry.create("tiny", party="B", seed=1)).__name__ == "Tiny"


def test_mediator_plugins_and_specs(fresh: None, installed: Path) -> None:
    assert "tiny-mediator" in mediator_registry.mediator_names()
    made = create_mediator("tiny-mediator", threshold=2.5)
    assert isinstance(made, GenericMediator) and made.threshold == 2.5
    assert isinstance(create_mediator("registry_plugin_mod:make_mediator"), GenericMediator)
    assert type(create_mediator("social")).__name__ == "SocialMediator"  # a built-in name stays built-in
    with pytest.raises(ScenarioError) as error:
        create_mediator("bad-mediator")
    assert "returned a str, not a conversation mediator" in one_line(error)
    with pytest.raises(ScenarioError) as error:
        create_mediator("no_such_module_xyz:make")
    assert "no module named 'no_such_module_xyz'" in one_line(error)
    with pytest.raises(ScenarioError) as error:
        create_mediator("wise\u200b")
    assert "unknown mediator" in one_line(error) and "U+200B" in str(error.value)


def test_a_game_between_rule_agents_imports_no_llm_module() -> None:
    """The registry names the LLM agents only through entry points: a rule game leaves them unloaded."""
    code = (
        "import contextlib, io, sys\n"
        "from parley.cli.app import main\n"
        "sys.argv = ['parley', 'run', 'casino', '--agent', 'boulware', '--agent', 'base']\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "assert 'parley.agents.baselines' in sys.modules, 'the game did not run'\n"
        "print(sorted(m for m in sys.modules if m.startswith('parley.llm')))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip() == "[]"


def test_parleys_own_llm_agents_are_entry_points() -> None:
    """If this fails after a pull, reinstall: pip install -e . (the entry points live in its metadata)."""
    from importlib.metadata import entry_points

    ours = {
        p.name: p.value
        for p in entry_points(group=registry.AGENT_GROUP)
        if p.dist and p.dist.name == "parley"
    }
    assert ours == {"llm": "parley.llm.negotiator:LLM_AGENT", "astra-llm": "parley.llm.astra:ASTRA_LLM_AGENT"}
    assert registry.entry("llm").description.startswith("LLM-backed")

"""parley: negotiation between AI agents and people.

The front door (docs/api.md): `load_scenario` or `scenario_from_data` / `scenario_from_yaml`,
`run_session`, `run_tournament`, `analyze`, `register_agent`, and what a negotiator of your own needs
(`PartyView`, the actions, `NegotiatorFactory`, `check_negotiator`). Every name loads on first use,
so `import parley` (and `parley --help`) stays cheap.
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.agents.registry import AgentEntry, NegotiatorFactory
    from parley.api.agents import agent_names, register_agent
    from parley.api.analysis import AnalysisReport, analyze
    from parley.api.sessions import SessionReport, run_session
    from parley.api.tournaments import TournamentReport, run_tournament
    from parley.errors import ParleyError, ScenarioError
    from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk
    from parley.protocol.session import Negotiator
    from parley.protocol.view import PartyView
    from parley.scenarios.catalog import load_scenario
    from parley.scenarios.loader import scenario_from_data, scenario_from_yaml
    from parley.scenarios.model import Party, Scenario
    from parley.testing.conformance import check_negotiator

__version__ = "0.1.0"

__all__ = [
    "Accept",
    "Action",
    "AgentEntry",
    "AnalysisReport",
    "Negotiator",
    "NegotiatorFactory",
    "ParleyError",
    "Party",
    "PartyView",
    "Propose",
    "Reject",
    "Say",
    "Scenario",
    "ScenarioError",
    "SessionReport",
    "TournamentReport",
    "Walk",
    "__version__",
    "agent_names",
    "analyze",
    "check_negotiator",
    "load_scenario",
    "register_agent",
    "run_session",
    "run_tournament",
    "scenario_from_data",
    "scenario_from_yaml",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.agents.registry": ("AgentEntry", "NegotiatorFactory"),
        "parley.api.agents": ("agent_names", "register_agent"),
        "parley.api.analysis": ("AnalysisReport", "analyze"),
        "parley.api.sessions": ("SessionReport", "run_session"),
        "parley.api.tournaments": ("TournamentReport", "run_tournament"),
        "parley.errors": ("ParleyError", "ScenarioError"),
        "parley.protocol.actions": ("Accept", "Action", "Propose", "Reject", "Say", "Walk"),
        "parley.protocol.session": ("Negotiator",),
        "parley.protocol.view": ("PartyView",),
        "parley.scenarios.catalog": ("load_scenario",),
        "parley.scenarios.loader": ("scenario_from_data", "scenario_from_yaml"),
        "parley.scenarios.model": ("Party", "Scenario"),
        "parley.testing.conformance": ("check_negotiator",),
    },
)

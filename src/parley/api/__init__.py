"""The public Python API (docs/api.md): load or build a scenario, run a session or a tournament,
analyse an outcome space, register an agent. `import parley` re-exports all of it."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.api.agents import agent_names, register_agent
    from parley.api.analysis import AnalysisReport, analyze
    from parley.api.sessions import SessionReport, run_session
    from parley.api.tournaments import TournamentReport, run_tournament

__all__ = [
    "AnalysisReport",
    "SessionReport",
    "TournamentReport",
    "agent_names",
    "analyze",
    "register_agent",
    "run_session",
    "run_tournament",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.api.agents": ("agent_names", "register_agent"),
        "parley.api.analysis": ("AnalysisReport", "analyze"),
        "parley.api.sessions": ("SessionReport", "run_session"),
        "parley.api.tournaments": ("TournamentReport", "run_tournament"),
    },
)

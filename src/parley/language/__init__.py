"""Natural language for negotiation moves: render actions as text and parse free text into actions.

Both sides work over a scenario's `Vocabulary` (issue names and synonyms, option labels, units,
division shares), so they apply to any scenario, not one corpus.
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.language.parse import Intent, ParsedMessage, parse, to_action
    from parley.language.render import clarify, describe_package, render
    from parley.language.vocabulary import IssueTerms, Share, Vocabulary

__all__ = [
    "Intent",
    "IssueTerms",
    "ParsedMessage",
    "Share",
    "Vocabulary",
    "clarify",
    "describe_package",
    "parse",
    "render",
    "to_action",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.language.parse": ("Intent", "ParsedMessage", "parse", "to_action"),
        "parley.language.render": ("clarify", "describe_package", "render"),
        "parley.language.vocabulary": ("IssueTerms", "Share", "Vocabulary"),
    },
)

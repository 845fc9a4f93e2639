"""The principal's web console (FastAPI): inbox, decisions, transcripts and audit status."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.web.app import create_app

__all__ = [
    "create_app",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.web.app": ("create_app",),
    },
)

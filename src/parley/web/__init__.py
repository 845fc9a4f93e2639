"""The principal's web console (FastAPI): inbox, decisions, transcripts and audit status."""

from parley.web.app import create_app

__all__ = ["create_app"]

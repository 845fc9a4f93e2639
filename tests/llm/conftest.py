"""Fixtures for the LLM layer: one private event-loop thread for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from parley.llm import EventLoopThread


@pytest.fixture(scope="session")
def bridge() -> Iterator[EventLoopThread]:
    """One event-loop thread for the whole test session, closed at the end."""
    thread = EventLoopThread("parley-llm-test")
    yield thread
    thread.close()

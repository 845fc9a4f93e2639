"""A dependency-free token estimate: about four characters per token, plus chat-format overhead.

Used when an endpoint reports no usage and for the per-call sizes in docs/llm.md. It is the common
rule of thumb for English text with GPT-style BPE tokenizers; expect ±20 % against a real tokenizer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from parley.llm.types import Message

CHARS_PER_TOKEN = 4.0
"""Average characters per token assumed by the estimate."""

MESSAGE_OVERHEAD = 4
"""Tokens the chat format adds per message (role markers and separators)."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens in text (0 for empty text)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def estimate_prompt_tokens(messages: Iterable[Message]) -> int:
    """Estimated prompt tokens of a conversation, including per-message overhead."""
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD for m in messages) + 3

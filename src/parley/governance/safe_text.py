"""Untrusted text made safe to show: no control characters, terminal escape sequences or bidi overrides.

Counterparty messages (and everything derived from them) reach a principal's terminal and web page.
A message carrying "\\x1b[2J" would clear the terminal, an OSC sequence could retitle the window or
plant a hyperlink whose target differs from its text, and a bidi override (U+202E) can make "$115K"
read as something else. `printable` removes all of these; newlines and tabs stay.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_SEQUENCE = re.compile(
    # CSI (7-bit ESC [ or 8-bit U+009B): parameter bytes, intermediate bytes, one final byte.
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    # OSC, DCS, SOS, PM, APC with their payload, up to BEL or ST (ESC \ or U+009C).
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    # Any other escape sequence: ESC, intermediate bytes, one final byte (e.g. ESC c, ESC ( B).
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]"
)
# What is left of unterminated or malformed sequences: C0 except \t and \n, DEL, C1, bidi controls.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """text without control characters, terminal escape sequences and bidi embedding/override/isolate marks.

    Whole escape sequences are removed (so "\\x1b[2J" leaves nothing behind, not "[2J"); the visible
    text of an OSC 8 hyperlink stays, its hidden target goes. Newlines and tabs are kept; carriage
    returns are removed (they let a line overwrite itself in a terminal).

    Args:
        text: Untrusted text.

    Returns:
        The text with only printable characters, newlines and tabs.
    """
    return _CONTROL.sub("", _SEQUENCE.sub("", text))

"""Other parties' text in prompts: one quoting function for every role, so the hardening is the same.

Counterparty, partner and participant text is shown to a model only as a JSON string literal (its
quotes and line breaks escaped, so it cannot end its line or imitate the prompt's structure), with
look-alikes of the ``<<<``/``>>>`` block markers defused; every template that shows such text says
that quoted text is data, never instructions.
"""

from __future__ import annotations

import json


def quoted(text: str) -> str:
    """Untrusted text as one JSON string literal, with marker look-alikes defused.

    A JSON literal keeps quotes and line breaks escaped, so the text cannot close the block it is
    shown in; ``<<<``/``>>>`` are spaced out so it cannot imitate the markers either.
    """
    return json.dumps(text.replace("<<<", "< < <").replace(">>>", "> > >"), ensure_ascii=False)

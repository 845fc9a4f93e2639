"""The GAIA delegate, split by phase: `agent` (the `Delegate` and its turn API), `core` (state,
audit events, transitions, escalation), `screening`, `negotiation`, `outbox` (drafting and the
preflight), `resume` (the principal's decisions), `snapshot` (storage) and `records` (value types).
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.governance.delegate.agent import Delegate
    from parley.governance.delegate.records import (
        COUNTERPARTY,
        DELEGATE,
        PRINCIPAL,
        SEVERITY,
        DelegateOptions,
        Step,
    )

__all__ = [
    "COUNTERPARTY",
    "DELEGATE",
    "PRINCIPAL",
    "SEVERITY",
    "Delegate",
    "DelegateOptions",
    "Step",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.governance.delegate.agent": ("Delegate",),
        "parley.governance.delegate.records": (
            "COUNTERPARTY",
            "DELEGATE",
            "PRINCIPAL",
            "SEVERITY",
            "DelegateOptions",
            "Step",
        ),
    },
)

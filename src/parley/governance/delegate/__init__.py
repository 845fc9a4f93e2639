"""The GAIA delegate, split by phase: `agent` (the `Delegate` and its turn API), `core` (state,
audit events, transitions, escalation), `screening`, `negotiation`, `outbox` (drafting and the
preflight), `resume` (the principal's decisions), `snapshot` (storage) and `records` (value types).
"""

from parley.governance.delegate.agent import Delegate
from parley.governance.delegate.records import (
    COUNTERPARTY,
    DELEGATE,
    PRINCIPAL,
    SEVERITY,
    DelegateOptions,
    Step,
)

__all__ = ["COUNTERPARTY", "DELEGATE", "PRINCIPAL", "SEVERITY", "Delegate", "DelegateOptions", "Step"]

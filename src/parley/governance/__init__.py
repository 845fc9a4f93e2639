"""GAIA: a governed delegate that screens and negotiates for a principal without committing on its own."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.governance.commitment import contains_binding_language, find_commitments, rewrite_non_binding
    from parley.governance.config import SHIPPED_CONFIGS, DomainConfig, load_config
    from parley.governance.counterparties import (
        PERSONAS,
        Counterparty,
        ScriptedCounterparty,
        SimulatedCounterparty,
    )
    from parley.governance.critic import Critic, Guidance, MergedGuidance, RuleCritic, merge_channels
    from parley.governance.delegate import Delegate, DelegateOptions, Step
    from parley.governance.disclosure import DisclosureFinding, find_disclosures
    from parley.governance.drafting import (
        ContextualDrafter,
        Draft,
        DraftContext,
        Drafter,
        Intent,
        TemplateDrafter,
    )
    from parley.governance.escalation import (
        Decision,
        EscalationOption,
        EscalationRequest,
        InteractivePrincipal,
        PolicyPrincipal,
        Principal,
        StoredPrincipal,
        Trigger,
    )
    from parley.governance.extraction import (
        DualExtractor,
        ExtractionContext,
        Extractor,
        FieldReading,
        LexiconExtractor,
        PatternExtractor,
        default_extractor,
    )
    from parley.governance.machine import TRANSITIONS, Action, IllegalTransition, State, StateMachine
    from parley.governance.moderator import Classification, Classifier, Label, RuleModerator
    from parley.governance.preflight import PreflightResult, preflight
    from parley.governance.session import (
        DelegateRoles,
        SessionOutcome,
        SessionRunner,
        decide,
        load_runner,
        resume_session,
        run_session,
    )
    from parley.governance.stcc import Question, screening_question, stcc_question
    from parley.governance.store import SessionStore
    from parley.governance.tci import LedgerEntry, TaskCompletenessIndex

__all__ = [
    "PERSONAS",
    "SHIPPED_CONFIGS",
    "TRANSITIONS",
    "Action",
    "Classification",
    "Classifier",
    "ContextualDrafter",
    "Counterparty",
    "Critic",
    "Decision",
    "Delegate",
    "DelegateOptions",
    "DelegateRoles",
    "DisclosureFinding",
    "DomainConfig",
    "Draft",
    "DraftContext",
    "Drafter",
    "DualExtractor",
    "EscalationOption",
    "EscalationRequest",
    "ExtractionContext",
    "Extractor",
    "FieldReading",
    "Guidance",
    "IllegalTransition",
    "Intent",
    "InteractivePrincipal",
    "Label",
    "LedgerEntry",
    "LexiconExtractor",
    "MergedGuidance",
    "PatternExtractor",
    "PolicyPrincipal",
    "PreflightResult",
    "Principal",
    "Question",
    "RuleCritic",
    "RuleModerator",
    "ScriptedCounterparty",
    "SessionOutcome",
    "SessionRunner",
    "SessionStore",
    "SimulatedCounterparty",
    "State",
    "StateMachine",
    "Step",
    "StoredPrincipal",
    "TaskCompletenessIndex",
    "TemplateDrafter",
    "Trigger",
    "contains_binding_language",
    "decide",
    "default_extractor",
    "find_commitments",
    "find_disclosures",
    "load_config",
    "load_runner",
    "merge_channels",
    "preflight",
    "resume_session",
    "rewrite_non_binding",
    "run_session",
    "screening_question",
    "stcc_question",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.governance.commitment": (
            "contains_binding_language",
            "find_commitments",
            "rewrite_non_binding",
        ),
        "parley.governance.config": ("SHIPPED_CONFIGS", "DomainConfig", "load_config"),
        "parley.governance.counterparties": (
            "PERSONAS",
            "Counterparty",
            "ScriptedCounterparty",
            "SimulatedCounterparty",
        ),
        "parley.governance.critic": ("Critic", "Guidance", "MergedGuidance", "RuleCritic", "merge_channels"),
        "parley.governance.delegate": ("Delegate", "DelegateOptions", "Step"),
        "parley.governance.disclosure": ("DisclosureFinding", "find_disclosures"),
        "parley.governance.drafting": (
            "ContextualDrafter",
            "Draft",
            "DraftContext",
            "Drafter",
            "Intent",
            "TemplateDrafter",
        ),
        "parley.governance.escalation": (
            "Decision",
            "EscalationOption",
            "EscalationRequest",
            "InteractivePrincipal",
            "PolicyPrincipal",
            "Principal",
            "StoredPrincipal",
            "Trigger",
        ),
        "parley.governance.extraction": (
            "DualExtractor",
            "ExtractionContext",
            "Extractor",
            "FieldReading",
            "LexiconExtractor",
            "PatternExtractor",
            "default_extractor",
        ),
        "parley.governance.machine": ("TRANSITIONS", "Action", "IllegalTransition", "State", "StateMachine"),
        "parley.governance.moderator": ("Classification", "Classifier", "Label", "RuleModerator"),
        "parley.governance.preflight": ("PreflightResult", "preflight"),
        "parley.governance.session": (
            "DelegateRoles",
            "SessionOutcome",
            "SessionRunner",
            "decide",
            "load_runner",
            "resume_session",
            "run_session",
        ),
        "parley.governance.stcc": ("Question", "screening_question", "stcc_question"),
        "parley.governance.store": ("SessionStore",),
        "parley.governance.tci": ("LedgerEntry", "TaskCompletenessIndex"),
    },
)

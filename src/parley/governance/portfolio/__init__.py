"""Several counterparties for one principal (GAIA §3.3.6, multi-party): a portfolio of delegate
sessions, played one after another or interleaved turn by turn, compared by the principal's
preferences, and one recommendation that the principal decides.

Each counterparty has a session of its own (delegate, drafter, counterparty and audit chain, in the one
store), so nothing said in one session can reach another: the portfolio reads the sessions' records only
after play, to compare them for the principal, and hands a session nothing but the principal's decision
on that session's own request. Each session's final approval is held for the comparison; the
recommendation is a stored `final_approval` request on the portfolio's own audit chain (members,
comparison, recommendation, decision, outcome), answered like any other request and never applied
without the principal.

`play` runs and resumes portfolios, `comparison` reads the sessions into rows, `recommendation` builds
the request and applies the principal's answer, `record` keeps the portfolio's own chain.
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.governance.portfolio.comparison import (
        FLAGGED,
        Candidate,
        Member,
        compare,
        describe_terms,
        offer_utility,
        position_text,
        rank,
    )
    from parley.governance.portfolio.play import (
        MAX_COUNTERPARTIES,
        InboxEntry,
        OfferHold,
        inbox_entries,
        member_seed,
        parse_counterparties,
        resume_portfolio,
        run_portfolio,
    )
    from parley.governance.portfolio.recommendation import (
        APPROVE,
        DECLINE_ALL,
        KEEP_OPEN,
        decide_portfolio,
    )
    from parley.governance.portfolio.record import (
        MessageCallback,
        PortfolioOutcome,
    )

__all__ = [
    "APPROVE",
    "DECLINE_ALL",
    "FLAGGED",
    "KEEP_OPEN",
    "MAX_COUNTERPARTIES",
    "Candidate",
    "InboxEntry",
    "Member",
    "MessageCallback",
    "OfferHold",
    "PortfolioOutcome",
    "compare",
    "decide_portfolio",
    "describe_terms",
    "inbox_entries",
    "member_seed",
    "offer_utility",
    "parse_counterparties",
    "position_text",
    "rank",
    "resume_portfolio",
    "run_portfolio",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.governance.portfolio.comparison": (
            "FLAGGED",
            "Candidate",
            "Member",
            "compare",
            "describe_terms",
            "offer_utility",
            "position_text",
            "rank",
        ),
        "parley.governance.portfolio.play": (
            "MAX_COUNTERPARTIES",
            "InboxEntry",
            "OfferHold",
            "inbox_entries",
            "member_seed",
            "parse_counterparties",
            "resume_portfolio",
            "run_portfolio",
        ),
        "parley.governance.portfolio.record": (
            "MessageCallback",
            "PortfolioOutcome",
        ),
        "parley.governance.portfolio.recommendation": (
            "APPROVE",
            "DECLINE_ALL",
            "KEEP_OPEN",
            "decide_portfolio",
        ),
    },
)

"""Binding-language detection and the non-binding rewrite (the heart of Algorithm 5's first check).

Binding is the default, not the exception. The text is parsed once (`draft.parse`: normalised, split
into sentences and clauses, each clause with its mood). A clause commits the principal when it
accepts, agrees, commits, orders, signs, waives or releases, confirms, promises to pay or provide, or
states terms as settled ("it's a deal", "consider it settled", "count us in", "$83 an hour works",
"book it") -- unless its OWN clause is an allowed non-binding frame: a question, a condition or an
explicit hypothesis, a quotation or report of someone else, a report of the past, or an exploratory
hedge; or its sentence carries a disclaimer that reserves all of it ("subject to approval", "not an
offer"). A hedge in another clause does not unbind it ("We'll pay $95K, and we might add a laptop").
Idioms are not commitments ("we will pay attention to", "we agree it's a tough market").

A statement whose subject is our side, that names a deal term or an amount, and whose verb the
lexicon cannot place is binding too, with the reason "could not be read as non-binding": the check
fails closed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from parley.governance.draft import LONGEST_CLAUSE, NEGATORS, UNREAD, Clause, Draft, Word, lexicon, parse

__all__ = [
    "LONGEST_CLAUSE",
    "UNPLACEABLE",
    "CommitmentFinding",
    "binding_cue",
    "contains_binding_language",
    "find_commitments",
    "find_commitments_in",
    "rewrite_draft",
    "rewrite_non_binding",
]

UNPLACEABLE = "could not be read as non-binding"
"""The reason given for a statement about terms whose verb the parser cannot place."""

_FIXED_PATTERNS = (
    r"\bit'?s a deal\b",
    r"\b(?:you|we) have (?:a deal|an agreement)\b(?! in principle| with)",
    r"\bconsider it done\b",
    r"\bdone deal\b",
    r"\b(?:job|contract|position|role|space|lease|order|unit|offer|suite|office|place|premises) is "
    r"(?:yours|confirmed|accepted|approved)\b",
    r"\bwelcome (?:aboard|to the team)\b",
    r"\b(?:settled|locked in)\b",
    r"\block (?:it|that|this|those|these|them|us|the [\w-]+) in\b",
    r"\block in\b",
    r"\b(?:firm|final|binding|irrevocable) (?:offer|commitment|agreement|acceptance|purchase commitment)\b",
    r"(?<!non-)(?<!non )\bbinding\b",
    r"\bshall bind\b",
    r"\b(?:offer|request|proposal|quote|quotation|counter|pricing|terms|rate|price|po|order)\s+(?:is\s+|are\s+|"
    r"has been\s+|have been\s+)?(?:hereby\s+)?(?:accepted|approved|confirmed|agreed|placed)\b",
    r"\byou'?ve got (?:the|a|it|yourself|yourselves)\b",
    r"\bwe'?ll take (?:it|them|the place|the space|the unit|the office|the suite)\b",
    r"\b(?:is|are|has been|have been)\s+(?:now\s+|hereby\s+|officially\s+)?"
    r"(?:confirmed|approved|accepted|agreed|"
    r"finali[sz]ed|signed|countersigned|issued|placed|awarded|executed|exercised|granted|settled|final)\b",
    r"\byou have (?:our|my) (?:word|commitment|assurance|guarantee|approval|go-ahead)\b",
    r"\bcount on (?:us|me)\b",
    r"\bconsider (?:it|this|that|the [\w-]+(?: [\w-]+)?) (?:done|covered|settled|confirmed|approved|agreed|"
    r"accepted|sorted|handled|yours|waived|booked|closed)\b",
    r"\b(?:job|contract|position|role|space|suite|units?|lease|order|offer|bonus|package|floor|office|premises|"
    r"discount|exclusivity|allowance|title|slot|place)\b(?: [\w$,./-]+){0,4} (?:is|are) (?:all )?yours\b",
    r"\b(?:good to go|all set|green light|go-ahead|signed off)\b",
    r"\b(?:put|pencil|mark) (?:us|me) down for\b",
    r"\blet'?s (?:lock|finali[sz]e|sign|close|go with|go ahead|proceed|do it|do this|shake|make it official|"
    r"make it happen|move forward|seal|go\b)",
    r"^\W*(?:deal|done|agreed|accepted|confirmed|confirming|sold|approved)\W*(?:[,:;!@\-]|at\b|on\b|for\b|$)",
    r"\b(?:delighted|glad|pleased|happy|thrilled|excited) to (?:have you|welcome you)\b(?: \w+){0,2}?"
    r" (?:join|start|on board|aboard)\b",
    r"\bpurchase order (?:to follow|is on its way|is attached|attached)\b",
    r"\b(?:is|are|looks?|sounds?|seems?) (?:acceptable|fine|good|ok|okay|workable|agreeable) "
    r"(?:to|for|by|with) us\b",
    r"\bworks? (?:(?:\w+ly|great|fine|well|nicely) )?for (?:us|me)\b",
    r"\b(?:our|my) signature is on (?:the|its) way\b",
    r"\bsigned (?:copy|contract|lease|agreement|offer|po|order) (?:is )?on (?:the|its) way\b",
    r"\bworks? on (?:our|my) (?:end|side)\b",
    r"\b(?:terms|numbers|figures|quote|proposal|offer|pricing|price|rate|conditions|counter|counteroffer)\s+"
    r"(?:work|works|is fine|are fine|is acceptable|are acceptable)(?:\s+for (?:us|me)\b|\W*$)"
    r"(?! only| if| provided| assuming)",
    r"^\W*(?:fine|good|ok|okay|acceptable|agreeable) (?:by|with|for) (?:us|me)\b",
    r"\b(?:we'?re|we are|i'?m|i am) (?:good|fine|ok|okay|happy|aligned|on board) (?:with|on)\b",
    r"\b(?:count us in|we'?re in|we are in|sign us up|i'?m in)\b",
    r"\b(?:go ahead|book it|ship it|please proceed|"
    r"proceed with the (?:order|shipment|purchase|contract|lease))\b",
    r"\b(?:you'?re|you are|she'?s|she is|he'?s|he is|they'?re|they are) hired\b",
    r"\b(?:offer|price|rate|quote) stands\b",
    r"\boffer (?:is )?extended\b",
    r"\bit'?s yours\b",
    r"\bhereby\b(?!\s+(?:acknowledge|decline|reject|notify|inform|request|withdraw|terminate|revoke))",
    r"\d[\w,.%/]{0,20}(?:\s+[\w/-]+){0,4}\s+it is\W*$",
    r"^\W*(?:yes|yep|yeah)\s+(?:to|on)\b",
    r"\b(?:it'?s|that'?s|it is|that is) a (?:yes|go|deal)\b",
    r"\byou'?re on\W*$",
    r"\b(?:consider|take|treat|accept)\s+(?:this|it|that|the above)(?:\s+\w+)?\s+(?:as\s+)?(?:our|my)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:acceptance|agreement|approval|commitment|confirmation|go-ahead|sign-off|"
    r"authori[sz]ation|purchase order|order|po|signature|word)\b",
    r"\b(?:this|the above|this email|this message|this note|this letter)\s+(?:is|serves as|constitutes|"
    r"represents|confirms)\s+(?:our|my)\s+(?:[\w-]+\s+){0,2}?(?:acceptance|agreement|approval|commitment|"
    r"confirmation|authori[sz]ation)\b",
    r"\b(?:this|the above|this email|this message|this note|this letter) confirms\b",
    r"\byou can (?:count|rely|bank) on\b",
    r"\b(?:ready|prepar\w{0,4}|send\w{0,3}|draw\w{0,3} up|get)\b[^.?!]{0,40}\b"
    r"for (?:execution|signature|signing|"
    r"countersignature)\b",
    r"\bget (?:the|our) (?:paperwork|contract|lease|onboarding|po|purchase order|offer letter) "
    r"(?:moving|going|started|rolling|signed|out)\b",
    r"\b(?:agreement|deal|terms) (?:we'?ve|we have) (?:reached|agreed|struck)\b",
    r"\bmarked (?:these|the|those) terms as final\b",
    r"\bpleasure doing business\b",
    r"\b(?:we'?re|we are|i'?m|i am) (?:all )?set\b",
    r",\s*(?:done|deal|agreed|accepted|confirmed|sold|settled|sorted)\W*$",
    r"\b(?:we|i) can live with\b",
    r"\b(?:we|i)(?:'ll| will) make it work\b",
    r"\b(?:we|i)(?:'ll| will) go for (?:it|that|this|\$|\d)",
    r"\blet'?s (?:roll with|run with|shake on|make it official|do the deal)\b",
    r"\byou(?:'ve)? got it\b",
    r"\byou(?:'ve| have) convinced (?:us|me)\b",
    r"\b(?:i'?m|we'?re|i am|we are) sold\b(?! on)",
    r"\bsign me up\b",
    r"\bshake on it\b",
    r"\b(?:we'?re|we are|i'?m|i am) on board\b",
    r"^\W*(?:sold|sorted|settled|game on|say no more)\W*$",
    r"^\W*(?:ok(?:ay)?|fine|alright|all right|right|fair enough)\W+(?:then\W+)?(?:\$\s?\d|\d)[\w,.$/ ]{0,24}"
    r"(?:then|it is|works|it'?s a deal)?\W*$",
    r"(?:\$\s?\d|\b\d)[\w,.]{0,12} then\W*$",
    r"\bput (?:it|that|this|the [\w-]+) in writing\b",
    r"(?:\$\s?\d|\b\d)[\d,.]{0,12}\s?(?:k\b|grand\b|thousand\b)?(?:\s?(?:/|per|an?|a|each)\s?\w{1,6})?\s+"
    r"(?:is|are|sounds|looks|works|would work|will work)\s?(?:fine|good|ok|okay|acceptable|agreeable|great|"
    r"perfect|workable|doable|for us|for me)?\W*$",
)
# Acceptances phrased as a negated refusal: the negation is part of the cue, not a negation of it.
_NEGATIVE_ASSENT_PATTERNS = (
    r"\bno (?:objections?|problems?|issues?|complaints?) (?:with|to|on)\b",
    r"\bcan(?:no|')?t (?:argue with|say no to)\b",
    r"\bwon'?t (?:say no|object|argue|push back)\b",
    r"\bnothing (?:more|else|further) to (?:negotiate|discuss)\b",
)
_BINDING_QUESTION = re.compile(
    r"\bwhere (?:do|should|can|shall) (?:we|i) sign\b"
    r"|\bwhere do (?:i|we) send the (?:deposit|payment|signed)\b"
)
_HABITUAL = re.compile(
    r"\b(?:typically|usually|generally|normally|often|always|routinely|sometimes|tend to)\b"
)
_WH = frozenset(["what", "whatever", "which", "how", "whether", "anything", "everything"])
_DETERMINERS = frozenset(
    ["one", "two", "three", "four", "five", "six", "ten", "another", "some", "several"]
) | frozenset(
    [
        "a",
        "an",
        "the",
        "our",
        "your",
        "their",
        "this",
        "that",
        "any",
        "no",
        "my",
        "his",
        "her",
        "its",
        "each",
        "every",
        "these",
        "those",
    ]
)
_MODALS = frozenset(["would", "could", "might", "may", "should"])
_WILLING = frozenset(
    ["like", "love", "happy", "glad", "pleased", "delighted", "willing", "prepared", "ready", "thrilled"]
)
_CONTROLLERS = frozenset(
    ["hope", "hoping", "wish", "aim", "try", "trying", "need", "needs", "needed", "wonder"]
)
_PREPOSITIONS = frozenset(
    [
        "for",
        "of",
        "about",
        "by",
        "on",
        "without",
        "from",
        "at",
        "with",
        "towards",
        "into",
        "like",
        "upon",
        "after",
        "before",
    ]
)
_OBJECT_PRONOUNS = frozenset(["it", "them", "that", "this", "those", "these", "him", "her"])
_BY_AGENT = frozenset(["by"])
_MONTH_CONTEXT = frozenset(["in", "by", "until", "till", "of", "early", "mid", "late", "since"])
_AGREE_COMPLEMENT = frozenset(["that", "it", "it's"])
_NOUN_FORMS = frozenset(
    [
        "offer",
        "order",
        "promise",
        "guarantee",
        "release",
        "purchase",
        "lease",
        "rent",
        "fund",
        "transfer",
        "match",
        "book",
        "cover",
        "issue",
        "place",
        "start",
        "pay",
        "bill",
        "invoice",
        "process",
        "exercise",
        "award",
        "grant",
        "approve",
        "supply",
        "increase",
        "raise",
        "drop",
        "hold",
        "schedule",
        "close",
        "counter",
        "wire",
        "deposit",
    ]
)
_DITRANSITIVE = frozenset(["give", "offer", "pay", "send", "provide", "grant", "award", "promise", "extend"])
_BE = frozenset(["is", "are", "was", "were", "am", "be", "been", "being"])
_SEND_OBJECTS = frozenset(
    [
        "paperwork",
        "lease",
        "contract",
        "invoice",
        "po",
        "agreement",
        "docusign",
        "offer",
        "letter",
        "deposit",
        "payment",
        "wire",
        "funds",
        "money",
        "signed",
        "countersigned",
        "order",
        "keys",
    ]
)
# "We accept that offer" (an object) against "we accept that timelines slip" (a proposition).
_THAT_OBJECTS = frozenset(
    [
        "offer",
        "deal",
        "price",
        "quote",
        "quotation",
        "proposal",
        "rate",
        "term",
        "terms",
        "counter",
        "counteroffer",
        "salary",
        "rent",
        "contract",
        "lease",
        "order",
        "figure",
        "number",
        "package",
        "arrangement",
    ]
)


@dataclass(frozen=True, slots=True)
class CommitmentFinding:
    """One clause judged binding, with the cue that made it so.

    Attributes:
        sentence: The sentence holding the clause.
        cue: The words that commit.
        reason: Why it binds ("commitment verb", "fixed expression", "could not be read as non-binding").
        clause: The binding clause.
    """

    sentence: str
    cue: str
    reason: str = "commitment verb"
    clause: str = ""


@cache
def _fixed() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in _FIXED_PATTERNS)


@cache
def _negative_assent() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in _NEGATIVE_ASSENT_PATTERNS))


@cache
def _trigger() -> re.Pattern[str]:
    """A cheap first pass: does a clause hold any word the checks could act on?

    The words are every form of a commitment verb and every word written in a fixed pattern, so the
    pass can never skip a clause a pattern would match.
    """
    lex = lexicon()
    pattern_words = {
        word
        for source in (*_FIXED_PATTERNS, *_NEGATIVE_ASSENT_PATTERNS, _BINDING_QUESTION.pattern)
        for word in re.findall(
            r"[a-z]{2,}", source.replace(r"\b", " ").replace(r"\w", " ").replace(r"\W", " ")
        )
    }
    words = sorted({*lex.strong, *lex.weak, *pattern_words}, key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")|\d|\$")


def _negated(items: Sequence[str]) -> bool:
    return any(w in NEGATORS for w in items)


def _idiom_at(lowered: str, position: int) -> bool:
    for pattern in lexicon().idioms:
        for match in pattern.finditer(lowered, max(0, position - 60), min(len(lowered), position + 120)):
            if match.start() <= position < match.end() or abs(match.start() - position) <= 2:
                return True
    return False


def _has_deal_term(draft: Draft, clause: Clause, tokens: Sequence[Word], after: int) -> bool:
    """Whether the clause names an amount anywhere or a deal term after token index after."""
    if any(not draft.quoted(a.start) for a in draft.amounts_in(clause.start, clause.end)):
        return True
    terms = lexicon().deal_terms
    return any(w.text in terms or w.text[:1].isdigit() for w in tokens[after + 1 :])


def _adverb(word: str) -> bool:
    return (
        len(word) > 4 and word.endswith("ly") and word not in ("supply", "apply", "reply", "family", "italy")
    )


def _subject(tokens: Sequence[Word], k: int) -> int | None:
    """Index of the subject of the verb at k: the first word before it that is not an auxiliary."""
    skip = lexicon().skip
    j = k - 1
    while j >= 0 and (tokens[j].text in skip or tokens[j].text in NEGATORS or _adverb(tokens[j].text)):
        j -= 1
    if j < 0 or not tokens[j].text[:1].isalnum():
        return None  # the clause (or a parenthesis) starts here: no subject
    return j


def _tentative(tokens: Sequence[Word], k: int, chain: Sequence[str]) -> bool:
    """A modal or a controlling verb ("hope", "need") governs the verb at k, in its chain or across "and"."""
    lex = lexicon()
    if any(w in _WILLING for w in chain):
        return False  # "we'd be happy to accept", "I'd like to confirm"
    for j in range(k - 1, -1, -1):
        text = tokens[j].text
        if text in lex.ours or text in lex.theirs:
            return False  # a new subject: the modal belongs to another predicate
        if text in _CONTROLLERS or (
            text in _MODALS and not (text == "may" and j and tokens[j - 1].text in _MONTH_CONTEXT)
        ):
            return True
        if text == "to" and j and tokens[j - 1].text in ("has", "have", "had", "ought"):
            return True  # an obligation of someone's ("our CFO has to approve")
    return False


def _known(verb: str) -> bool:
    """Whether the lexicon places verb (any inflection of a listed word)."""
    lex = lexicon()
    candidates = {verb}
    for suffix, replacements in (
        ("ing", ("", "e")),
        ("ed", ("", "e")),
        ("es", ("",)),
        ("s", ("",)),
        ("d", ("",)),
    ):
        if verb.endswith(suffix):
            stem = verb[: -len(suffix)]
            candidates.update(stem + r for r in replacements)
            if len(stem) > 2 and stem[-1] == stem[-2]:
                candidates.add(stem[:-1])
    known = (lex.non_committing, lex.strong, lex.weak, lex.deal_terms, lex.ours, lex.theirs)
    return any(c in group for c in candidates for group in known)


def _fixed_cue(clause: Clause) -> tuple[str, int] | None:
    lowered = clause.lowered
    tokens = clause.words()
    assent = _negative_assent().search(lowered)
    if assent is not None and not _negated(
        [w.text for w in tokens if w.start < clause.start + assent.start()][-3:]
    ):
        return assent.group(0), clause.start + assent.start()
    for pattern in _fixed():
        for match in pattern.finditer(lowered):
            before = [w.text for w in tokens if w.start < clause.start + match.start()][-4:]
            if _negated(before) or _idiom_at(lowered, match.start()):
                continue
            if match.group(0).strip() == "hereby" and _negated([w.text for w in tokens]):
                continue
            return match.group(0).strip(), clause.start + match.start()
    return None


def _verb_binds(draft: Draft, clause: Clause, tokens: Sequence[Word], k: int) -> bool:
    """Whether the commitment verb at token k binds our side in this clause."""
    lex = lexicon()
    word = tokens[k].text
    lemma = lex.strong.get(word) or lex.weak[word]
    strong = word in lex.strong
    previous = tokens[k - 1].text if k else ""
    subject = _subject(tokens, k)
    if previous in _DETERMINERS or previous[:1].isdigit() or previous == "$":
        return False  # a noun or an adjective ("our offer", "the signed lease", "$14,000 rent")
    following = tokens[k + 1].text if k + 1 < len(tokens) else ""
    if k >= 2 and tokens[k - 2].text in _DETERMINERS and previous not in lex.skip and previous.isalpha():
        participle = word.endswith(("ed", "en"))
        modified = following.isalpha() and following not in _DETERMINERS and following not in _PREPOSITIONS
        if (participle and modified) or (not participle and not word.endswith("s")):
            return False  # "your revised offer", "a personal guarantee", "one senior hire"
    if subject is None and word.endswith("ing") and not (k == 0 and (strong or lemma == "confirm")):
        return False  # a participle without a subject ("..., starting next week"; not "Confirming: ...")
    if following in NEGATORS:
        return False  # an auxiliary ("we do not")
    if word.endswith("ing") and previous in _PREPOSITIONS:
        return False  # a gerund ("thanks for sending")
    chain = [t.text for t in tokens[(subject + 1 if subject is not None else 0) : k]]
    if _negated([t.text for t in tokens[max(0, k - 6) : k]]):
        return False
    if _tentative(tokens, k, chain):
        return False  # "we could accept", "we hope to sign", "it would need to be in writing and approved"
    if "still" in chain and word.endswith("ing"):
        return False  # in progress ("we're still finalising the budget")
    if subject is not None:
        who = tokens[subject].text
        if who in lex.theirs or who in _WH:
            return False
        if who in _CONTROLLERS:
            return False
        if subject >= 1 and tokens[subject - 1].text in _WH:
            return False  # embedded ("outside what I can agree to")
        if who in _PREPOSITIONS and word.endswith("ing"):
            return False
    if (
        lemma in _DITRANSITIVE
        and subject is not None
        and tokens[subject].text in ("we", "i")
        and previous in _BE
        and not word.endswith("ing")
    ):
        return False  # we are the recipient ("the range we were given")
    opening = all(not t.text[:1].isalnum() or t.text in _OPENERS for t in tokens[:k])
    if subject is None and opening and not _elliptical_binds(tokens, k, lemma, word):
        return False  # a request to the other side ("please confirm whether...", "please provide...")
    if lemma == "go" and following not in ("with", "ahead", "for"):
        return False  # "going to" (the future), "go over"
    described = (
        subject is not None and tokens[subject].text in lex.deal_terms and tokens[subject].text.isalpha()
    )
    if described and not strong and not (subject and tokens[subject - 1].text[:1].isdigit()):
        return False  # a description ("the rent includes utilities", "our contract includes a probation")
    if lemma == "send" and not any(t.text in _SEND_OBJECTS for t in tokens):
        return False  # sending is execution only for the deal's documents or money
    if k + 2 < len(tokens) and tokens[k + 1].text in _BY_AGENT and tokens[k + 2].text in lex.theirs:
        return False  # passive with the other side as agent
    if _idiom_at(clause.lowered, tokens[k].start - clause.start):
        return False
    after = tokens[k + 2].text if k + 2 < len(tokens) else ""
    proposition = (lemma == "agree" and following in _AGREE_COMPLEMENT) or (
        lemma == "accept" and following == "that" and after not in _THAT_OBJECTS
    )
    if proposition:
        # "we accept that timelines slip" / "we agree it's a tough market": a proposition, not terms
        amounts = draft.amounts_in(clause.start, clause.end)
        return bool(amounts) or "shall" in clause.lowered
    if lemma == "agree" and following == "with":
        return _has_deal_term(draft, clause, tokens, k + 1)
    if following in ("everything", "all") or _bare(tokens, k):
        # "We accept.", "Agreed on all", "I do so hereby", "$100K confirmed" (not "I'll confirm")
        return strong or (lemma in _ASSENT and word.endswith("ed"))
    if strong and following == "you":
        return True  # "we release you from the penalty", "I can guarantee you a January start"
    if following in _OBJECT_PRONOUNS and lemma not in ("promise", "give", "send", "add", "include", "hold"):
        return True  # "book it", "we'll pay it"
    return _has_deal_term(draft, clause, tokens, k)


_EXECUTION = frozenset(
    [
        "ship",
        "deliver",
        "book",
        "reserve",
        "process",
        "release",
        "invoice",
        "bill",
        "send",
        "draw",
        "proceed",
        "go",
        "lock",
        "onboard",
        "start",
        "issue",
        "countersign",
        "execute",
        "finalize",
        "finalise",
        "place",
        "order",
        "wire",
        "transfer",
        "pay",
        "sign",
        "hire",
        "take",
        "cover",
    ]
)
_ASSENT = frozenset(["accept", "agree", "confirm", "approve", "commit", "settle"])
_OPENERS = frozenset(
    [
        "please",
        "kindly",
        "pls",
        "plz",
        "ok",
        "okay",
        "yes",
        "yep",
        "yeah",
        "sure",
        "alright",
        "fine",
        "great",
        "then",
        "so",
        "just",
        "and",
        "now",
        "right",
        "good",
        "cool",
        "perfect",
        "go",
        "ahead",
    ]
)
_REQUEST = frozenset(["please", "kindly", "pls", "plz"])
_TRAILING = frozenset(
    [
        "today",
        "now",
        "tomorrow",
        "hereby",
        "fully",
        "in",
        "full",
        "on",
        "behalf",
        "of",
        "the",
        "our",
        "side",
        "formally",
        "herewith",
        "so",
        "immediately",
        "too",
        "also",
        "as",
        "well",
        "then",
        "again",
        "both",
        "all",
        "this",
        "week",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "our",
        "end",
    ]
)


def _elliptical_binds(tokens: Sequence[Word], k: int, lemma: str, word: str) -> bool:
    """A verb without a subject: an imperative of execution, or our assent with the subject left out."""
    request = any(t.text in _REQUEST for t in tokens[:k])
    if lemma in _EXECUTION:
        return True
    return not request and (lemma in _ASSENT or word.endswith(("ed", "en")))


def _bare(tokens: Sequence[Word], k: int) -> bool:
    """Whether nothing but adverbs, time words and punctuation follow the verb ("We accept.")."""
    return all(not t.text[:1].isalnum() or t.text in _TRAILING for t in tokens[k + 1 :])


def _predicate_cue(draft: Draft, clause: Clause) -> tuple[str, int] | None:
    lex = lexicon()
    if _HABITUAL.search(clause.lowered):
        return None
    tokens = clause.words()
    for k, token in enumerate(tokens):
        if (token.text in lex.strong or token.text in lex.weak) and _verb_binds(draft, clause, tokens, k):
            subject = _subject(tokens, k)
            first = tokens[subject + 1] if subject is not None and subject + 1 < k else token
            if first.start == (tokens[subject].start if subject is not None else -1):
                first = token  # a contraction ("we'll"): start at the verb
            return draft.text[first.start : token.start + len(token.text)], token.start
    return None


def _unplaceable(draft: Draft, clause: Clause) -> tuple[str, int] | None:
    """A statement about terms with our side as subject and a verb the lexicon cannot place."""
    lex = lexicon()
    tokens = clause.words()
    for i, token in enumerate(tokens):
        if token.text not in ("we", "i"):
            continue
        if _negated([t.text for t in tokens[max(0, i - 3) : i + 4]]):
            return None
        j = i + 1
        while j < len(tokens) and (
            (tokens[j].text in lex.skip and tokens[j].text not in ("like", "love")) or _adverb(tokens[j].text)
        ):
            j += 1
        if j >= len(tokens):
            return None
        chain = [t.text for t in tokens[i + 1 : j]]
        verb = tokens[j].text
        if any(w in _MODALS or w in _CONTROLLERS for w in chain) or not verb.isalpha():
            return None
        if chain and chain[-1] in ("have", "has", "had"):
            return None  # possession ("we have concerns about the deposit")
        if _known(verb) or verb in NEGATORS or verb in _DETERMINERS:
            return None
        if _idiom_at(clause.lowered, tokens[j].start - clause.start):
            return None
        if _has_deal_term(draft, clause, tokens, j):
            return " ".join(t.text for t in tokens[i : j + 1]), tokens[j].start
        return None
    return None


def _retracted(draft: Draft, clause: Clause) -> bool:
    """Whether the next clause takes it back by ellipsis ("Your proposal works, but not at that price")."""
    sentence = draft.sentences[clause.sentence]
    following = [c for c in sentence.clauses if c.start > clause.start]
    if not following:
        return False
    gap = draft.text[clause.end : following[0].start].lower()
    return following[0].lowered.startswith("not ") and any(w in gap for w in ("but", "though", "yet", "just"))


_APPROVAL_CONDITION = re.compile(
    r"\b(?:approv\w*|sign(?:s|ed)?[- ]off|sign-?off|budget|board|committee|legal review|management|"
    r"(?:our|my|the) (?:client|principal|manager|boss|director|cfo|ceo|buyer|tenant|hiring manager) "
    r"(?:agrees|signs|says yes|confirms|okays))\b"
)


def _awaits_approval(draft: Draft, clause: Clause) -> bool:
    """Whether an adjacent condition makes clause wait for an approval ("we'll issue the offer once
    the budget is approved", "once approved, we'll sign")."""
    clauses = draft.sentences[clause.sentence].clauses
    index = clauses.index(clause)
    neighbours = [clauses[i] for i in (index - 1, index + 1) if 0 <= i < len(clauses)]
    return any(c.mood == "conditional" and _APPROVAL_CONDITION.search(c.lowered) for c in neighbours)


_SETTLED = frozenset(
    [
        "confirmed",
        "done",
        "settled",
        "agreed",
        "accepted",
        "approved",
        "locked",
        "final",
        "finalized",
        "finalised",
        "sealed",
        "booked",
        "closed",
        "official",
        "set",
    ]
)
_OTHERS = frozenset(
    [
        "you",
        "they",
        "he",
        "she",
        "landlord",
        "candidate",
        "supplier",
        "vendor",
        "seller",
        "buyer",
        "client",
        "customer",
        "owner",
        "agent",
        "broker",
        "recruiter",
        "manager",
        "board",
        "committee",
    ]
)
_REPORTING = re.compile(
    r"\b(?:recap|summar(?:y|ise|ize)|for context|for reference|mentioned|discussed|you said|"
    r"indication|indicative|for discussion|approved (?:range|band)|tops? out)\b"
)
_THEIRS = frozenset(["your", "yours", "their", "theirs", "his", "her", "than"])
_NOT_NOW = frozenset(
    [
        "would",
        "could",
        "might",
        "may",
        "should",
        "must",
        "need",
        "needs",
        "was",
        "were",
        "had",
        "if",
        "once",
        "until",
        "unless",
    ]
)
_DEAL_NOUNS = frozenset(
    ["deal", "price", "rate", "terms", "offer", "order", "salary", "rent", "lease", "contract", "package"]
)
_ASSENT_OPENER = re.compile(
    r"^(?:ok(?:ay)?|fine|sure|yes|yep|yeah|yup|alright|all right|right|done|deal|sold|go on then|"
    r"go ahead|agreed|perfect|great|brilliant|excellent|lovely|cool|good)\b"
)


def _settled_terms(draft: Draft, clause: Clause) -> tuple[str, int] | None:
    """Terms stated as settled without a commitment verb: "Deal's done.", "$13.50 a unit, confirmed",
    or an assent that names an amount ("Go on then, $13.50 a unit.")."""
    tokens = clause.words()
    words = [t.text.removesuffix("'s").removesuffix("’s") for t in tokens]
    if _negated(words) or any(w in _NOT_NOW for w in words):
        return None  # not settled now: a condition, a modal, or a report of the past
    if _REPORTING.search(draft.sentences[clause.sentence].text.lower()):
        return None  # a recap, a summary for review, context or an indication
    has_amount = any(not draft.quoted(a.start) for a in draft.amounts_in(clause.start, clause.end))
    names_deal = has_amount or any(w in _DEAL_NOUNS or w in lexicon().deal_terms for w in words)
    for k, (token, word) in enumerate(zip(tokens, words, strict=True)):
        if word in _SETTLED and names_deal:
            if any(w.split("'")[0].split("’")[0] in _OTHERS for w in words[:k]):
                return None  # the other side's act ("you've confirmed capacity", "you agreed to check")
            return token.text, token.start
    sentence = draft.sentences[clause.sentence]
    opener = _ASSENT_OPENER.match(sentence.clauses[0].lowered) if sentence.clauses else None
    if opener is not None and has_amount:
        return opener.group(0), clause.start
    return None


def _cue(draft: Draft, clause: Clause) -> tuple[str, str, int] | None:
    """(cue, reason, offset) of the first commitment in clause, read as a statement."""
    lowered = clause.lowered
    if _trigger().search(lowered):
        fixed = _fixed_cue(clause)
        if fixed is not None and not _HABITUAL.search(lowered):
            return fixed[0], "fixed expression", fixed[1]
        predicate = _predicate_cue(draft, clause)
        if predicate is not None:
            return predicate[0], "commitment verb", predicate[1]
    if re.search(r"\b(?:we|i)\b", lowered) and not _HABITUAL.search(lowered):
        unplaced = _unplaceable(draft, clause)
        if unplaced is not None:
            return unplaced[0], UNPLACEABLE, unplaced[1]
    if not _HABITUAL.search(lowered):
        settled = _settled_terms(draft, clause)
        if settled is not None:
            return settled[0], "terms stated as settled", settled[1]
        stated = _stated_terms(draft, clause)
        if stated is not None:
            return stated[0], UNPLACEABLE, stated[1]
    return None


def _stated_terms(draft: Draft, clause: Clause) -> tuple[str, int] | None:
    """An amount stated outside every non-binding frame (allow-list: only questions, conditions,
    quotations, reports of the past and exploratory frames may name terms without the principal)."""
    if clause.mood != "statement":
        return None
    amounts = [
        a
        for a in draft.amounts_in(clause.start, clause.end)
        if a.kind == "money" and a.low == a.high and not draft.quoted(a.start)  # a range commits to nothing
    ]
    if not amounts:
        return None
    words = [t.text.split("'")[0].split("’")[0] for t in clause.words()]
    if _negated(words) or any(w in _NOT_NOW or w in _OTHERS or w in _THEIRS for w in words):
        return None  # refused, conditional, modal, past, or the other side's figure
    if _REPORTING.search(draft.sentences[clause.sentence].text.lower()):
        return None  # a recap, a summary for review, context or an indication, not an offer
    first = amounts[0]
    return draft.text[first.start : first.end], first.start


def clause_cue(draft: Draft, clause: Clause) -> tuple[str, str] | None:
    """(cue, reason) when clause commits our side, else None.

    A clause in a non-binding frame (question, condition, quotation, past) binds only when it asks
    to execute ("where do we sign?"); an exploratory hedge unbinds only what follows it in the clause
    ("We'll commit to $100K, and possibly extend the term" binds).
    """
    sentence = draft.sentences[clause.sentence]
    if sentence.disclaimer is not None:
        return None
    if clause.frame == UNREAD:
        return "text past the clauses read", UNPLACEABLE
    if len(clause.scan) > LONGEST_CLAUSE and clause.mood in ("statement", "exploratory"):
        return f"a clause of {len(clause.scan):,} characters", UNPLACEABLE
    if clause.mood == "question" and _BINDING_QUESTION.search(clause.lowered):
        return _BINDING_QUESTION.search(clause.lowered).group(0), "fixed expression"  # type: ignore[union-attr]
    if clause.mood not in ("statement", "exploratory"):
        return None
    found = _cue(draft, clause)
    if found is None or _retracted(draft, clause) or _awaits_approval(draft, clause):
        return None
    if clause.mood == "exploratory" and found[2] >= clause.frame_start:
        return None  # the hedge comes first: it governs the commitment
    return found[0], found[1]


def find_commitments_in(draft: Draft) -> list[CommitmentFinding]:
    """The clauses of a parsed draft that would commit the principal (one finding per sentence)."""
    findings: list[CommitmentFinding] = []
    for sentence in draft.sentences:
        for clause in sentence.clauses:
            found = clause_cue(draft, clause)
            if found is not None:
                findings.append(CommitmentFinding(sentence.text, found[0], found[1], clause.text))
                break
    return findings


def find_commitments(text: str, hedges: Sequence[str] = ()) -> list[CommitmentFinding]:
    """Sentences of text that would commit the principal (text is normalised and parsed first).

    Raises:
        TextRefused: text is over the default size limit.
    """
    return find_commitments_in(parse(text, hedges))


def contains_binding_language(text: str, hedges: Sequence[str] = ()) -> bool:
    """containsBindingLanguage(draftReply) of Algorithm 5."""
    return bool(find_commitments(text, hedges))


def binding_cue(sentence: str, hedges: Sequence[str] = ()) -> str | None:
    """The cue that makes sentence binding, or None if it is not binding."""
    found = find_commitments(sentence, hedges)
    return found[0].cue if found else None


# -- the non-binding rewrite ---------------------------------------------------------------------------
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"^\W*(deal|done)\W*$", "That could work for us"),
        (
            r"\b(we|i)\s+(hereby\s+)?(agree|accept|commit|confirm|guarantee|promise|approve|authori[sz]e)\w*\s+(to\s+)?",
            "we're exploring ",
        ),
        (
            r"\b(we|i)\s*('ve|have)\s+(agreed|accepted|approved|committed|confirmed)\s+(to\s+)?",
            "we're exploring ",
        ),
        (
            r"\b(we|i)\s*(will|shall|'ll|can|are able to|am able to|'m able to|'re able to|"
            r"are going to|'re going to)\s+",
            "we're exploring whether we could ",
        ),
        (
            r"\b(it'?s a deal|you have a deal|we have a deal|consider it done|done deal)\b",
            "that could work for us",
        ),
        (r"\b(the )?(job|contract|position|role|space|lease|order) is yours\b", "the \\2 could be a fit"),
        (r"\blet'?s (lock in|lock|finalize|finalise|sign|close|go with)\b", "we're exploring"),
        (r"\bhappy to (accept|go with|take|agree to|pay|sign)\b", "open to exploring"),
        (r"\b(firm|final|binding) (offer|commitment|agreement)\b", "proposal for discussion"),
        (r"\b(is|are|has been|have been)\s+(confirmed|approved|accepted|agreed)\b", "is under discussion"),
    )
)


def _rewrite_sentence(sentence: str, hedges: Sequence[str]) -> str:
    if len(sentence) > LONGEST_CLAUSE:
        return f"{sentence.rstrip(' .!;:,?')}, subject to approval."
    rewritten = sentence
    for pattern, replacement in _REWRITES:
        rewritten = pattern.sub(replacement, rewritten)
    rewritten = re.sub(r"(we're exploring\s+)+(?=we're exploring)", "", rewritten, flags=re.IGNORECASE)
    rewritten = rewritten[:1].upper() + rewritten[1:]
    if not find_commitments(rewritten, hedges):
        return rewritten
    body = rewritten.rstrip(" .!;:,?")
    return f"{body}, subject to approval."


def rewrite_draft(draft: Draft, findings: Sequence[CommitmentFinding] | None = None) -> str:
    """The non-binding rewrite of a parsed draft (findings: its commitments, when already found)."""
    found = find_commitments_in(draft) if findings is None else findings
    binding = {finding.sentence for finding in found}
    parts = [
        _rewrite_sentence(s.text, draft.hedges) if s.text in binding else s.text for s in draft.sentences
    ]
    return " ".join(parts)


def rewrite_non_binding(text: str, hedges: Sequence[str] = ()) -> str:
    """rewriteNonBinding(draftReply): binding sentences become tentative, hedged phrasing.

    A sentence still binding after the rewording gets ", subject to approval.", a disclaimer that
    reserves its whole sentence, so the result never contains binding language by the detector's
    own rules.
    """
    return rewrite_draft(parse(text, hedges))

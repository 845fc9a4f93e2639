"""Binding-language detection and the non-binding rewrite (the heart of Algorithm 5's first check).

Not one keyword list: a sentence commits the principal when a commitment predicate (performative
verb, definite future or capability with a transfer verb, or a fixed deal expression) has the
principal's side as its agent, is not negated in its clause, is not softened by a tentative modal,
is not a question, and the sentence carries no hedge from the non-binding lexicon. Fixed expressions
also cover assent by reference ("your terms work for us"), ellipsis ("$102K it is"), nominalised
acceptance ("consider this email our acceptance"), "hereby" and passives of execution, and requests
that move the deal to execution ("prepare the lease for signature", "release the order").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from parley.governance.text import ascii_quotes, clause_start, find_phrases, is_negated, sentences

_I = re.IGNORECASE
_PERFORMATIVE = re.compile(
    r"\b(agree|agrees|agreed|accept|accepts|accepted|commit|commits|committed|guarantee|guarantees|"
    r"promise|promises|confirm|confirms|confirmed|approve|approves|approved|authori[sz]e|authori[sz]ed|"
    r"undertake|pledge|honou?r|committing|authori[sz]ing|approving|accepting|confirming|agreeing)\b",
    _I,
)
# Commitment and transfer predicates, as base forms (after a modal) and as -ing forms (progressive).
_BASE_VERBS = (
    r"pay|offer|provide|deliver|order|purchase|buy|sign|hire|give|extend|honou?r|cover|guarantee|commit|"
    r"accept|do|match|meet|take|lock|book|reserve|start|proceed|grant|approve|confirm|agree|finali[sz]e|"
    r"ship|place|put down|wire|transfer|fund|award|reimburse|waive|"
    r"go with|go ahead with|go ahead|move forward with|move forward|settle on|close at|close the deal|"
    r"send over|send the signed|sign off on|sign for|countersign|execute"
)
_ING_VERBS = (
    r"paying|offering|providing|delivering|ordering|purchasing|buying|signing|hiring|giving|extending|"
    r"honou?ring|covering|guaranteeing|committing|accepting|matching|taking|locking|booking|reserving|"
    r"granting|approving|confirming|agreeing|finali[sz]ing|shipping|putting down|wiring|"
    r"transferring|funding|awarding|reimbursing|waiving|"
    r"placing (?:the|an|our|your) (?:order|po|purchase order)|"
    r"going with|going ahead|moving forward|settling on|closing at|closing the deal|sending over|"
    r"countersigning|executing"
)
_FUTURE = re.compile(
    r"\b(will|shall|'ll|are going to|am going to|'re going to|'m going to|can|are able to|am able to|"
    r"'m able to|'re able to)\s+(?:\w+\s+){0,2}?(" + _BASE_VERBS + r")\b",
    _I,
)
# The present progressive used performatively ("we're offering you the role", "we're signing the
# lease") and the future progressive ("we'll be moving forward with the lease").
_PROGRESSIVE = re.compile(
    r"\b(?:we'?re|we are|i'?m|i am|(?:will|'ll) be)\s+(?:now\s+|hereby\s+|gladly\s+|formally\s+)?("
    + _ING_VERBS
    + r")\b",
    _I,
)
_FIXED = tuple(
    re.compile(p, _I)
    for p in (
        r"\bit'?s a deal\b",
        r"\b(you|we) have (a deal|an agreement)\b(?! in principle| with)",
        r"^\W*deal\W*$",
        r"^\W*done\W*$",
        r"\bconsider it done\b",
        r"\bdone deal\b",
        r"\b(job|contract|position|role|space|lease|order|unit|offer) is "
        r"(yours|confirmed|accepted|approved)\b",
        r"\bwelcome aboard\b",
        r"\b(settled|locked in)\b",
        r"\block in\b",
        r"\b(firm|final|binding) (offer|commitment|agreement)\b",
        r"(?<!non-)(?<!non )\bbinding\b",
        r"\b(offer|request|proposal|quote)\s+(is\s+)?(accepted|approved|confirmed)\b",
        r"\byou'?ve got (the|a|it)\b",
        r"\bwe'?ll take it\b",
        r"\bhappy to (accept|go with|take|agree|pay|sign)\b",
        r"^\W*let'?s (lock|finalize|finalise|sign|close|go with|do it|shake)\b",
        r"\b(is|are|has been|have been|was)\s+(now\s+)?"
        r"(confirmed|approved|accepted|agreed|finalized|finalised|signed|countersigned|issued|placed|awarded|"
        r"executed|exercised|granted)\b",
        r"\b(prepared|ready|willing|delighted|glad|pleased|happy|authori[sz]ed|in a position|fine|"
        r"ok|okay|good|content) to "
        r"("
        + _BASE_VERBS.replace("|do|", "|").replace("|meet|", "|").replace("|start|", "|")
        + r"|have you (join|start|on board))\b",
        # the word given: "you have our word", "count on us", "consider it covered"
        r"\byou have (our|my) (word|commitment|assurance|guarantee|approval|go-ahead)\b",
        r"\b(you can )?count on (us|me|our|my)\b",
        r"\bconsider (it|this|that|the [\w-]+( [\w-]+)?) (done|covered|settled|confirmed|approved|agreed|"
        r"accepted|sorted|handled|yours)\b",
        r"\b(job|contract|position|role|space|suite|units?|lease|order|offer|bonus|package|floor|office|premises|"
        r"discount|exclusivity|allowance|title|slot) (is|are) (all )?yours\b",
        r"\b(you'?ve|you have) got (yourself|yourselves) an?\b",
        r"\b(good to go|all set|green light|go-ahead|sign-off is given|signed off)\b",
        r"\b(put|pencil|mark) (us|me) down for\b",
        r"\blet'?s (lock|finali[sz]e|sign|close|go with|go ahead|proceed|do it|shake|make it official|"
        r"make it happen|move forward|seal)\b",
        # an interjection of assent opening the sentence ("Done — $13.75 per unit", "Agreed: net 30")
        r"^\W*(deal|done|agreed|accepted|confirmed|sold|approved)\s*([,:;!—–-]|at\b|on\b|for\b)",
        # asking the other side to execute the deal ("please ship the 800 units", "draw up the lease")
        r"\b(go ahead and|please|kindly)\s+(ship|deliver|invoice|bill|draw up|issue|process|book|reserve|"
        r"onboard|send|prepare|release|execute|countersign|finali[sz]e)\s+(us\s+)?"
        r"(the |our |all |those |these )?(\d[\d,]*\s+\w+|order|shipment|purchase order|po|invoice|contract|"
        r"lease|paperwork|offer letter|booking|reservation|agreement|renewal|docusign)\b"
        r"(?! (draft|for review))",
        r"\bpurchase order (to follow|is on its way|is attached|attached)\b",
        r"\b(is|are|looks?|sounds?|seems?) (acceptable|fine|good|ok|okay|workable|agreeable) "
        r"(to|for|by|with) us\b",
        r"\bworks? for us\b",
        r"\bworks? on (our|my) (end|side)\b",
        # acceptance by reference: the other side's terms, accepted without restating them
        r"\b(terms|numbers|figures|quote|proposal|offer|pricing|price|rate|conditions|counter|counteroffer)\s+"
        r"(work|works|is fine|are fine|is acceptable|are acceptable|is agreeable|are agreeable)"
        r"(\s+for (us|me)\b|\W*$)(?! only| if| provided| assuming)",
        r"^\W*(fine|good|ok|okay|acceptable|agreeable) (by|with|for) (us|me)\b",
        r"\b(we'?re|we are|i'?m|i am) (good|fine|ok|okay|happy) with\b",
        r"\b(count us in|we'?re in|sign us up)\b",
        r"\b(go ahead|book it|ship it|please proceed|"
        r"proceed with the (order|shipment|purchase|contract|lease))\b",
        r"\b(you'?re|you are|she'?s|she is|he'?s|he is|they'?re|they are) hired\b",
        r"\bwelcome to the team\b",
        r"\b(offer|price|rate|quote) stands\b",
        r"\boffer (is )?extended\b",
        r"\bcount on\b[^.?!]*\bfrom us\b",
        r"^\W*deal\b",
        r"\bit'?s yours\b",
        r"^\W*(done|sold|agreed|accepted|approved)\W*$",
        # the performative adverb with an act of commitment ("the order is hereby placed", "we hereby
        # exercise the option"; not "we hereby acknowledge" or "hereby decline")
        r"\bhereby\s+(\w+\s+)?(accept|agree|confirm|commit|place|order|exercise|award|approve|authori[sz]e|"
        r"grant|extend|offer|renew|purchase|engage|appoint|guarantee|undertake|issue|sign|execute|release)",
        # a figure settled by ellipsis ("Alright, $102K it is.", "9.10 a unit it is")
        r"\d[\w,.%/]*(\s+[\w/-]+){0,4}\s+it is\W*$",
        # assent to listed or referenced terms ("Yes to all three", "that's a yes from us")
        r"^\W*(yes|yep|yeah)\s+(to|on)\b",
        r"\b(it'?s|that'?s|it is|that is) a (yes|go)\b",
        r"\byou'?re on\W*$",
        # nominalised acceptance ("consider this email our acceptance", "this serves as our approval")
        r"\b(consider|take|treat)\s+(this|it|that|the above)(\s+\w+)?\s+(as\s+)?(our|my)\s+"
        r"(formal\s+|written\s+|official\s+|final\s+)?(acceptance|agreement|approval|commitment|confirmation|"
        r"go-ahead|sign-off|authori[sz]ation)\b",
        r"\b(this|the above|this email|this message|this note|this letter)\s+(is|serves as|constitutes|"
        r"represents)\s+(our|my)\s+(formal\s+|written\s+|official\s+|final\s+)?(acceptance|agreement|approval|"
        r"commitment|confirmation|authori[sz]ation)\b",
        # an assurance given to the other side about a payment or delivery
        r"\byou can (count|rely|bank) on\b[^.?!]*(\d|\b(payment|delivery|deposit|the order)\b)",
        r"\block (it|that|this|those|these|them|the [\w-]+) in\b",
        # moving the deal to execution ("prepare the lease for execution", "get the paperwork moving")
        r"\b(ready|prepar\w*|send\w*|draw\w* up|get)\b[^.?!]{0,40}\bfor (execution|signature|signing|"
        r"countersignature)\b",
        r"\bget (the|our) (paperwork|contract|lease|onboarding|po|purchase order|offer letter) "
        r"(moving|going|started|rolling|signed|out)\b",
        # imperative execution, bare or after assent ("Release the order", "yep, book him for the term")
        r"^\W*(ship|release|issue|execute|countersign|process|finali[sz]e|onboard)\s+(it|them|him|her|the|our|"
        r"those|these|that|this|all|us|\d)\b",
        r"^\W*(ok|okay|yes|yep|yeah|alright|great|fine|sure)\W+(book|hire|sign|send|lock|reserve|order|take|"
        r"release|issue)\s+(it|them|him|her|the|our|those|these|that|this|all|us|\d)\b",
    )
)
# Relaying to a decision maker ("we're taking your proposal to the committee") is not an undertaking.
_RELAY = re.compile(
    r"\b(tak|bring|pass|send|forward|run|escalat)\w*\b[^.?!]{0,40}\b(to|by|past|with) ((our|the|my) )?"
    r"(committee|board|principal|manager|lead|leadership|team|finance|legal|lawyers?|cfo|ceo|vp|director|owner)\b",
    _I,
)
_SUBORDINATORS = r"once|when|if|until|unless|after|before|whenever"
_SUBORDINATE = re.compile(rf"\b({_SUBORDINATORS})\b", _I)
_LEADING_SUBORDINATE = re.compile(rf"^\W*({_SUBORDINATORS}|as soon as)\b", _I)
_MAIN_AUXILIARY = re.compile(r"\b(will|shall|can|hereby)\b|'ll\b", _I)
# Confirming a fact ("happy to confirm receipt of your quote") commits to nothing.
_FACTUAL_CONFIRMATION = re.compile(
    r"\bconfirm(s|ed|ing)?\s+(receipt|that (we|i) (have )?received|(we|i)('ve| have) received|"
    r"(our|my) (availability|attendance)|the (meeting|call))\b",
    _I,
)
# A hedge that is explicitly voided ("subject to nothing further") no longer hedges.
_VOIDED_HEDGE = re.compile(r"\bsubject to (nothing|no)\b[^,;.!?]*", _I)
_HABITUAL = re.compile(r"\b(typically|usually|generally|normally|often|always|routinely)\b", _I)
_INHERENTLY_BINDING = re.compile(r"^(agree|accept|sign|commit|guarantee|pledge|undertake|countersign)", _I)
_TERMS = re.compile(
    r"[$€]\s?\d|\d[\s-]*(units?|months?|weeks?|years?|hours?|sq|%)|\b(offer|deal|terms|price|rate|salary|rent|"
    r"order|contract|lease|agreement|start|warranty|exclusivity|deposit|purchase|relocation|moving|role|job|"
    r"space|budget|net[- ]?\d+|payment|shipment|volume|quote|proposal|term|delivery|invoice|arrangement|"
    r"package|bonus|allowance|renewal|occupancy|pricing|quantity|quantities|pallets?|suite|premises|tenancy)\b",
    _I,
)
_FIRST_PERSON = re.compile(
    r"\b(we|i|us|our (company|team|side|firm|client|organisation|organization)|my team|the company)\b|"
    r"\b(we|i)('ve|'ll|'re|'m|'d)",
    _I,
)
_OTHER_SUBJECT = re.compile(r"\b(you|they|he|she|the (landlord|supplier|candidate|contractor|tenant))\b", _I)
_NEGATION_INSIDE = re.compile(r"\b(not|never)\b|n't\b", _I)
_ADJECTIVAL = re.compile(r"\b(our|the|an?|your|their|its|this|that|pre)\W*$", _I)
# "a personal guarantee", "the written promise": a noun after a determiner and one modifier.
_NOUN_READING = re.compile(r"\b(an?|the|our|your|their|this|that|any)\s+([\w-]+\s+)?$", _I)
_NOUN_LIKE = re.compile(r"^(guarantees?|promises?|pledges?)$", _I)
_TENTATIVE = re.compile(r"\b(would|could|might|may|should)\b|'d\b", _I)
_GENERAL_HEDGES = (
    "subject to",
    "for discussion",
    "exploring",
    "explore",
    "considering",
    "could consider",
    "tentative",
    "tentatively",
    "might",
    "may be able",
    "could potentially",
    "would need",
    "needs sign-off",
    "need sign-off",
    "pending",
    "indicative",
    "non-binding",
    "nothing is final",
    "not final",
    "check with",
    "before agreeing",
    "for review",
    "open to exploring",
    "in principle",
    "on paper",
    "final say",
)
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, _I), r)
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


@dataclass(frozen=True, slots=True)
class CommitmentFinding:
    """One sentence judged binding, with the cue that made it so."""

    sentence: str
    cue: str


def _hedged(sentence: str, hedges: Sequence[str]) -> bool:
    return any(not is_negated(sentence, start) for start, _ in find_phrases(sentence, hedges))


def _agent_is_ours(sentence: str, position: int) -> bool:
    clause = sentence[clause_start(sentence, position) : position]
    ours = [m.end() for m in _FIRST_PERSON.finditer(clause)]
    theirs = [m.end() for m in _OTHER_SUBJECT.finditer(clause)]
    if not ours and not theirs:
        return True  # elliptical first person ("Happy to accept", "Confirmed.")
    return bool(ours) and (not theirs or max(ours) > max(theirs))


def _tentative(sentence: str, position: int) -> bool:
    before = sentence[clause_start(sentence, position) : position].split()[-4:]
    return _TENTATIVE.search(" ".join(before)) is not None


def _conditional(sentence: str, position: int) -> bool:
    """A subordinate clause ("once approved", "until everything is agreed") states a condition, not a deal."""
    clause = sentence[clause_start(sentence, position) : position]
    if _LEADING_SUBORDINATE.search(clause) and not _MAIN_AUXILIARY.search(clause):
        return True  # inside a leading subordinate clause ("When the budget is approved, ...")
    return _SUBORDINATE.search(" ".join(clause.split()[-3:])) is not None


def _about_terms(sentence: str, verb: str) -> bool:
    """Bare acceptance binds; other commitment verbs bind only when the sentence is about terms."""
    return _INHERENTLY_BINDING.match(verb) is not None or _TERMS.search(sentence) is not None


def _predicate_cue(sentence: str) -> str | None:
    if _HABITUAL.search(sentence):
        return None  # a habit ("our team typically approves offers") is not an undertaking
    for pattern in (_PERFORMATIVE, _FUTURE, _PROGRESSIVE):
        for match in pattern.finditer(sentence):
            position = match.start()
            verb = match.group(match.lastindex or 0)
            if is_negated(sentence, position) or _NEGATION_INSIDE.search(match.group(0)):
                continue
            if _tentative(sentence, position) or _ADJECTIVAL.search(sentence[:position]):
                continue
            if _NOUN_LIKE.match(verb) and _NOUN_READING.search(sentence[:position]):
                continue
            if _conditional(sentence, position) or not _about_terms(sentence, verb):
                continue
            if _agent_is_ours(sentence, position):
                return match.group(0)
    return None


def _fixed_cue(sentence: str) -> str | None:
    for pattern in _FIXED:
        match = pattern.search(sentence)
        if match is None or is_negated(sentence, match.start()) or _conditional(sentence, match.start()):
            continue
        return match.group(0)
    return None


def binding_cue(sentence: str, hedges: Sequence[str] = ()) -> str | None:
    """The cue that makes sentence binding, or None if it is not binding."""
    sentence = _FACTUAL_CONFIRMATION.sub("acknowledge", ascii_quotes(sentence))
    if sentence.rstrip().endswith("?"):
        return None
    unhedged = _VOIDED_HEDGE.sub("", sentence)
    if _hedged(unhedged, (*hedges, *_GENERAL_HEDGES)) or _RELAY.search(sentence):
        return None
    return _fixed_cue(sentence) or _predicate_cue(sentence)


def find_commitments(text: str, hedges: Sequence[str] = ()) -> list[CommitmentFinding]:
    """Sentences of text that would commit the principal."""
    findings: list[CommitmentFinding] = []
    for sentence in sentences(text):
        cue = binding_cue(sentence, hedges)
        if cue is not None:
            findings.append(CommitmentFinding(sentence, cue))
    return findings


def contains_binding_language(text: str, hedges: Sequence[str] = ()) -> bool:
    """containsBindingLanguage(draftReply) of Algorithm 5."""
    return bool(find_commitments(text, hedges))


def _rewrite_sentence(sentence: str, hedges: Sequence[str]) -> str:
    rewritten = sentence
    for pattern, replacement in _REWRITES:
        rewritten = pattern.sub(replacement, rewritten)
    rewritten = re.sub(r"(we're exploring\s+)+(?=we're exploring)", "", rewritten, flags=_I)
    rewritten = rewritten[:1].upper() + rewritten[1:]
    if binding_cue(rewritten, hedges) is None and _hedged(rewritten, (*hedges, *_GENERAL_HEDGES)):
        return rewritten
    body = rewritten.rstrip(" .!;:,")
    return f"{body}, subject to approval."


def rewrite_non_binding(text: str, hedges: Sequence[str] = ()) -> str:
    """rewriteNonBinding(draftReply): binding sentences become tentative, hedged phrasing.

    Every rewritten sentence carries a hedge ("we're exploring", "subject to approval"), so the
    result never contains binding language by the detector's own rules.
    """
    parts: list[str] = []
    for sentence in sentences(text):
        parts.append(_rewrite_sentence(sentence, hedges) if binding_cue(sentence, hedges) else sentence)
    return " ".join(parts)

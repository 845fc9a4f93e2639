"""Value mentions in every written form, and their attribution to a domain's boundary terms.

`find_amounts(text)` reads every amount once, left to right, in time linear in the text, by a small
grammar of number expressions rather than by sentences:

* Figures with any separator convention, decided by group sizes: "105,000" and "120.000" group
  thousands, "1.200.000" too; "9.500,50" and "1,234.56" mix both (the last separator is the decimal
  point); "75,50" is a European decimal, "10.5" an English one; single spaces may group thousands
  ("3 000 units", "97 500,00 EUR"). A lone dot before three digits keeps the decimal reading as an
  alternative ("$13.400 per unit" is 13.4 for a unit price).
* Spelled-out numbers: "one hundred and five thousand", "eleven thousand, two hundred and fifty",
  "a hundred", "hundred and five grand", "two and a half", "half a million", "a quarter million", "one
  point two million"; German number words to twelve, alone ("drei Monatsmieten", "fünf Jahre"). An
  "and" that two number words share ends the first where the second opens another number ("between
  one hundred and one hundred and ten thousand", "ninety thousand and one hundred thousand"). Chat
  shorthand for one hundred and some is read as digits: "one-twenty", "one-oh-five" (120, 105; 1.20 and
  1.05 the alternative), not a time ("at one-fifteen", "one-fifteen pm").
* Multipliers glued or written after a figure: "105k", "ninety-five K", "$98 thousand", "92 thou",
  "110 grand", "1.2 million", "1,5 Mio", "2 mil", "1.2M units" (a lone lower-case "m" is a million
  only with a currency or a count: "5m" may be metres). No "lakh"/"crore": no labelled use.
* Currencies before or after: $, USD, US$, dollars, bucks, €, EUR, euros, £, GBP, pounds, quid.
* Cents: "$12.80", "12 dollars and 80 cents", "$12 and 40 cents", "fourteen dollars, fifteen cents",
  "sixty-eight dollars fifty", "a dollar twenty", "thirteen ninety-five per unit", "95 cents",
  "1280 cents", "45p".
* Rates: "per hour", "an hour", "/hr", "each hour", "for each hour", "/wk", "a month", "monthly",
  "/mo", "p.a.", "per annum", "annually", "each", "apiece", "a piece", "/ea", "pro Stück", "per
  thousand units"; multiples of a period or a unit, divided out: "biweekly", "every two weeks", "every
  other week", "per fortnight", "quarterly", "a quarter", "twice a month", "a dozen", "per box of 6
  pieces", "per 1,000 bars"; and a rate word opening the sentence ("Monthly I'd want $9k", "Quarterly
  rent of 27,000", "Price per thousand pieces: $2,300", "Rent every 3 months: 30,000"), until a ";".
* Ranges: "$90–100K" and "95 to 105k" (both ends take the multiplier), "between eighty and ninety
  thousand", "from $8.5k to $9k a month". After a verb of change ("went from 36 to 48 months") or in
  a sequence ("85k to 90k to 93k") the figures are separate values, each typed like the last one.
  Bare figures compared with a typed one after them take its type ("2.60 vs 2.30 vs 2.45 per unit",
  "71 or 76 per hour", "3 or 4 years"); a bare figure after a typed one takes its type when a connector
  joins them ("70 an hr instead of 76", "4 years, but could do 3") or when it answers it in the next
  sentence ("We can't do 100/h. 88?", "four months of deposit? too much, we can do 2").
  A lower and an upper bound make one range ("no less than 24 months and no more than 60", "at least
  $70/hr but at most $80/hr"). Vague bands ("the low 90s") are not read: they name no figure a
  boundary check could hold.
* Not amounts: dates ("March 3", "3/15", "2025-11-03"), years, times ("9am", "10:30"), ordinals
  ("the 3rd"), percentages, identifiers ("Suite 210", "net-30", "PO 77812", "version 4.2", "the suite
  number is 1100"), street addresses ("4400 Industrial Pkwy"), phone numbers ("+44 20 7946 0958",
  "call (415) 555-0199"), list numbers opening a line ("1. $92K base"), factors ("1.25x") and figures
  glued after letters ("yr1", "Q3"; after letters of another script, "Ж2,000", they are not read at
  all, so a check that needs the figure holds it unread). Headcounts ("12
  engineers") are counts of their noun, never a term's. A duration that is a frequency or a span of
  something else ("every 2 years", "14 months left", "the first 6 months", "3 months in advance",
  "30 days' notice", "12 months of notice", "a decade of experience", "12 months free", an extension:
  "another twelve", "weitere 5 Jahre") is read but marked `incidental` (no term's), as is a count of
  what one package holds ("the carton holds 50
  pieces", "a box of 12"). "A decade" is ten years. A letter O typed for a zero after a digit ("8o",
  "1OO") is read as the zero (`amount_text.fold`).

The text is read as a person sees it (`amount_text.fold`: fullwidth and other scripts' digits, Latin
lookalikes, zero-width and control characters), with every span into the text as given.

Set v7's forms (issue 14): one duration in two units ("2 years and 6 months" is 30 months); a sum per
another period named before it ("Rent per quarter", "Half-year rent", "semi-annual", "Year-one rent",
"Price per hundred"); spoken thousands ("ninety-two five" is 92,500) and spoken prices in a range
("between two and two-fifty a unit"); a change of a sum ("$3,000 more", "a raise of $4,000") is marked
`incidental`; a figure grouped in thousands is never a label's number ("plan 11,000") nor a day after a
month ("in February, 3,000"). Figures the reader cannot read at all (money with separators that fit no
convention, digit runs past a float's precision) are listed by `unreadable_figures`, so a check that
needs them holds them unread rather than absent.

Set v11's forms that recur in another writer's (issue 14): a spelled figure in a list takes the type of
the figure that ends it ("two, three or four months", "ninety-six, maybe ninety-eight thousand");
"a month's deposit" and "a full month" are one month; the spoken "one twenty" with a space, and "a
hundred and ten", are read. Two misreads of one writer that shrank a figure: "lease 5y" is five years,
"half-yearly" six months; "a three-and-a-half-year lease" is read like "three and a half years".

`term_amounts(config, text)` attributes each amount to one boundary term of a domain config (by unit,
rate, currency, keywords and magnitude) and converts it to the term's unit ("$10,000 a month" for an
annual salary is 120,000 a year; "$28 per square foot per year on 3,000 sq ft" is 7,000 a month of
rent; "$36 per foot per year for 2,000 feet" too). A total rent for the whole term is divided by its
months ("Total rent for the 5-year term: $480,000" is 8,000 a month), the price of a package by what
it holds ("A box of 12 sells for $30" is 2.50 a unit, "A dozen costs $30" too), a total joined by
"for" to its count or named a total beside one order quantity by that count ("Total $8,850 for 1,500
pcs" is 5.90; one far outside the price's band is the order's value), a pay per a period of so many
hours by the hours ("$3,200 per 40-hour week" is 80 an hour), a deposit in money by the rent of its
sentence, clauses joined by ";" included ("Rent $5,500; deposit $11,000" is 2 months), and a figure
right after a price and "at" is the volume of that price tier ("$2.20 at 25k"). A bare figure no keyword
names takes the term of an attributed figure of the same size near it ("our budget was 100 but the CFO
approved 104.5k"), and a series of two or more bare figures that all fit one term only is that term's
("We went 99 -> 103 -> 106"); a span between two dates is a lease term ("from 1 March 2027 to 28
February 2030" is 36 months). So many packages of so
many units is their product ("3 containers of 11,000 pieces each" is 33,000). A figure with a period
and no currency, when no money term has that period, is a volume over time ("50,000 a month"). A bare
figure stated as a move of the negotiation ("dropped the ask from 7,900 to 7,600", "won't go lower than
7,500") belongs to the one term whose band holds it, when no keyword names it. Money named beside
another cost ("a $5,000 signing bonus", "$800 in CAM charges", "payroll is $1.2M", "the equity grant is
40k", "CAM is $600 per month", "TI $60k") or as a total ("$150,000 for the whole batch") is no
term's. A bare figure beside a salary word may be written in thousands ("Would 107 work on base?"); a
figure written to the cent beside a price word is a price whatever its size ("we paid 0.45 last
year"); a count of goods ("2,400 valves", "half a million bars") is an order volume, a count of people,
places or packages is not, nor is what a plant makes or uses ("Our plant makes 5,000 units per day"),
nor machines held ("We have 85 CNC machines"), in the passes over bare figures too. So many packages
whose content is said in a clause of its own are their product ("6 containers; each holds 12,000 pcs",
"a dozen pallets of 400 each"). A bare figure in a move ("Could you stretch from 110 to 116?", "Can you
do a hundred and ten?", "one twenty is the ceiling") that no band holds as written is the one salary
whose band holds it in thousands. A bare sum named a deposit beside the rent is counted in months of it
("Rent 4,000/month, deposit 12,000" is 3). Every check (boundary, disclosure) reads amounts through these
two.

No regular expression here repeats a group that itself repeats: the text is split into tokens by one
flat pattern and every later step looks a bounded number of tokens ahead, so a megabyte of "$1,$1,"
is read in one pass; the reader reads at most `MAX_READ_CHARS` characters and `MAX_READ_TOKENS`
tokens of one text (more than the preflight ever passes it), and never raises.
"""

from __future__ import annotations

import bisect
import datetime
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate, pairwise
from typing import Literal

from parley.governance.amount_text import Offsets, fold
from parley.governance.config import BoundaryTerm, DomainConfig

AmountKind = Literal["money", "count", "duration", "number"]

# -- lexicon --------------------------------------------------------------------------------------------
# Whitespace before a token, and the token: a figure (digits, with "." and "," only between digits), a
# run of letters, or one other character. Flat alternatives: no repeated group, no nested repetition.
# A figure may group thousands with an apostrophe, as Swiss writers do ("CHF 145'000"): an apostrophe
# before three digits (a bounded look-ahead, no backtracking).
_TOKEN = re.compile(r"(\s*)([0-9](?:[0-9.,]|['\u2019](?=[0-9]{3}))*[0-9]|[0-9]|[^\W\d_]+|\S)")
_APOSTROPHES = re.compile(r"['\u2019]")
_DIGITS = frozenset("0123456789")
ONES_WORDS = (
    # The number words below twenty (shared with the LLM leak guard).
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ONES = {w: float(i) for i, w in enumerate(ONES_WORDS)}
# German number words up to twelve ("drei Monatsmieten", "fünf Jahre"): read like the English ones below
# twenty, alone ("elf" is left out: an English word too).
_GERMAN_ONES = {
    "ein": 1.0,
    "eine": 1.0,
    "einen": 1.0,
    "eins": 1.0,
    "zwei": 2.0,
    "drei": 3.0,
    "vier": 4.0,
    "fünf": 5.0,
    "fuenf": 5.0,
    "sechs": 6.0,
    "sieben": 7.0,
    "acht": 8.0,
    "neun": 9.0,
    "zehn": 10.0,
    "zwölf": 12.0,
    "zwoelf": 12.0,
}
# Spanish, French, Italian and Portuguese number words from two to twelve, read only before a word of
# duration ("Fianza: dos meses", "Plazo: cinco años", "Durée du bail : neuf ans"): the form "words of
# another language" recurs (sets v6 and v12). Words that are English too ("six", "once", "due") or a
# month ("sept") or a name ("otto") are left out.
_ROMANCE_ONES = {
    **dict.fromkeys(("dos", "deux", "dois"), 2.0),
    **dict.fromkeys(("tres", "trois", "tre", "três"), 3.0),
    **dict.fromkeys(("cuatro", "quatre", "quattro", "quatro"), 4.0),
    **dict.fromkeys(("cinco", "cinq", "cinque"), 5.0),
    **dict.fromkeys(("seis", "sei"), 6.0),
    **dict.fromkeys(("siete", "sette", "sete"), 7.0),
    **dict.fromkeys(("ocho", "huit", "oito"), 8.0),
    **dict.fromkeys(("nueve", "neuf", "nove"), 9.0),
    **dict.fromkeys(("diez", "dix", "dieci", "dez"), 10.0),
    **dict.fromkeys(("onze", "undici"), 11.0),
    **dict.fromkeys(("doce", "douze", "dodici", "doze"), 12.0),
}
_TENS = {w: float(10 * (i + 2)) for i, w in enumerate(TENS_WORDS)}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_SUFFIX_SCALES = {
    "k": 1e3,
    "thousand": 1e3,
    "thou": 1e3,
    "grand": 1e3,
    "tausend": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mil": 1e6,
    "mill": 1e6,
    "mio": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "bn": 1e9,
}
_ATTACHED_ONLY = {"k", "m", "mm", "mn", "bn"}  # "105k", "$1.2m" (with a space: "105 k" is rare, "5 m" metres)
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}
_CODES_BEFORE = {"usd": "USD", "eur": "EUR", "gbp": "GBP", "us": "USD", "chf": "CHF"}
_CURRENCY_AFTER = {
    "usd": "USD",
    "dollars": "USD",
    "dollar": "USD",
    "bucks": "USD",
    "buck": "USD",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "gbp": "GBP",
    "pounds": "GBP",
    "quid": "GBP",
    "dólares": "USD",
    "dolares": "USD",
    "dólar": "USD",
    "dollari": "USD",
    "chf": "CHF",
    "kr": "SEK",
    "sek": "SEK",
}
_CENTS = {"cents", "cent", "pence", "p", "ct", "cts"}
_CENT_WORDS = {"cents", "cent", "pence", "p", "cts", "¢"}  # after a figure with no currency: cents
_PERIODS = {
    "hour": "hour",
    "hr": "hour",
    "hrs": "hour",
    "h": "hour",
    "stunde": "hour",
    "std": "hour",
    "day": "day",
    "tag": "day",
    "week": "week",
    "wk": "week",
    "woche": "week",
    "month": "month",
    "mo": "month",
    "mon": "month",
    "mth": "month",
    "monat": "month",
    "mês": "month",
    "mes": "month",
    "mese": "month",
    "mois": "month",
    "semaine": "week",
    "semana": "week",
    "settimana": "week",
    "heure": "hour",
    "hora": "hour",
    "timme": "hour",
    "year": "year",
    "yr": "year",
    "annum": "year",
    "jahr": "year",
    "an": "year",
    "unit": "unit",
    "piece": "unit",
    "pc": "unit",
    "pcs": "unit",
    "ea": "unit",
    "each": "unit",
    "item": "unit",
    "stück": "unit",
    "stueck": "unit",
    "stk": "unit",
    "u": "unit",
    "unidad": "unit",
    "unité": "unit",
    "pieza": "unit",
    "pezzo": "unit",
    "part": "unit",
}
# French, Spanish, Italian and Portuguese rate adjectives ("Loyer annuel", "Renta anual", "canone
# mensile"): the form "words of another language" recurs (sets v6 and v12).
_FOREIGN_RATE_WORDS = {
    **dict.fromkeys(("annuel", "annuelle", "anual", "annuale", "annuo", "anuales"), "year"),
    **dict.fromkeys(("mensuel", "mensuelle", "mensual", "mensile", "mensal"), "month"),
    **dict.fromkeys(("hebdomadaire", "semanal", "settimanale"), "week"),
    # (issue 14, sets v12 and v13) a day rate divided by its stated hours: "Tarif journalier 560 €"
    **dict.fromkeys(("journalier", "journalière", "diario", "diaria", "giornaliero", "täglich"), "day"),
}
_RATE_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
    "annual": "year",
    "each": "unit",
    "apiece": "unit",
    "monatlich": "month",
    "jährlich": "year",
    "stündlich": "hour",
    "wkly": "week",
    "mthly": "month",
    "yrly": "year",
    "hrly": "hour",
    "pcm": "month",  # per calendar month
    **_FOREIGN_RATE_WORDS,
}
# Rate words for periods that are a multiple of one above: (period, how many of it) — "$3,700 biweekly"
# is 1,850 a week, "27,000 quarterly" 9,000 a month, "semi-monthly" half a month.
_MULTIPLE_ADVERBS = {
    "biweekly": ("week", 2.0),
    "fortnightly": ("week", 2.0),
    "quarterly": ("month", 3.0),
    "semimonthly": ("month", 0.5),
    "vierteljährlich": ("month", 3.0),
    "halbjährlich": ("month", 6.0),
    "semiannual": ("month", 6.0),
    "semiannually": ("month", 6.0),
    "biannual": ("month", 6.0),
    "halfyearly": ("month", 6.0),  # "half-yearly"
}
_MULTIPLE_PERIODS = {"fortnight": ("week", 2.0), "quarter": ("month", 3.0), "dozen": ("unit", 12.0)}
# Round 20 (2026-11-29), the form of sets v13, v15 and v17's errors: a German rent per quarter
# ("Quartalsmiete: 27.000 €", "Miete 18.600 € im Quartal", "quartalsweise"), three months of rent.
# `quarter_words` in the measure's --ablation takes these words out of the two tables.
_QUARTER_ADVERBS = {"quartalsmiete": ("month", 3.0), "quartalsweise": ("month", 3.0)}
_QUARTER_PERIODS = {"quartal": ("month", 3.0)}
_PER_GERMAN = frozenset({"im", "pro", "je"})
_MULTIPLE_ADVERBS.update(_QUARTER_ADVERBS)
_MULTIPLE_PERIODS.update(_QUARTER_PERIODS)
# What a price per package is divided by when the package says how many it holds ("$18 per box of 6").
_PACKAGES = frozenset(
    {"box", "carton", "case", "pack", "packet", "pallet", "crate", "bag", "bundle", "roll", "tray", "set"}
)
_RATE_MARKERS = {"per", "a", "an", "every", "pro", "par", "por", "im", "each", "/", "je", "al"}
# The words for "per" before a count of units ("per 1,000 units", "pro 1.000 Stück", "je 100 Stk"): sets
# v11 and v12 wrote the German ones (two writers).
_PER_WORDS = frozenset({"per", "pro", "je"})
# Words that may stand between an amount and its rate ("$14.00 flat per unit", "120.000 € brutto pro Jahr").
_FILLERS = {"flat", "gross", "brutto", "netto", "fixed", "base", "even", "all", "in", "all-in", "total"}
# Verbs of payment between an amount and its period ("4,600 paid biweekly", "9,000 payable monthly"):
# skipped only when a period word follows them.
_PAYMENT_VERBS = frozenset({"paid", "payable", "billed", "invoiced", "charged", "due"})
# Context words before an amount that give it a rate ("Monthly I'd want $9k", "Die Jahresmiete beträgt").
_CONTEXT_PREFIXES = (("jahres", "year"), ("monats", "month"), ("stunden", "hour"))
_TIME_UNITS = {
    "hour": "hours",
    "hours": "hours",
    "hr": "hours",
    "hrs": "hours",
    "day": "days",
    "days": "days",
    "días": "days",
    "dias": "days",
    "jours": "days",
    "giorni": "days",
    "week": "weeks",
    "weeks": "weeks",
    "wk": "weeks",
    "wks": "weeks",
    "month": "months",
    "months": "months",
    "mo": "months",
    "mos": "months",
    "mth": "months",
    "mths": "months",
    "year": "years",
    "years": "years",
    "yr": "years",
    "yrs": "years",
    "decade": "years",  # ten years each: `_read` multiplies ("a decade-long lease", "half a decade")
    "decades": "years",
    "monate": "months",
    "monaten": "months",
    "jahre": "years",
    "jahren": "years",
    "wochen": "weeks",
    "tage": "days",
    "tagen": "days",
    "monatsmiete": "months",  # a deposit of "drei Monatsmieten" (three months' rent)
    "monatsmieten": "months",
    "monatsgehälter": "months",
    # (issue 14, set v6) Italian, Spanish, Portuguese and French durations: "6 anni", "3 mensilità"
    "anni": "years",
    "anno": "years",
    "años": "years",
    "anos": "years",
    "ans": "years",
    "mesi": "months",
    "meses": "months",
    "mois": "months",
    "mensilità": "months",
    "mensualités": "months",
    # (issue 14, sets v12 and v13) the hours a day rate is for: "bei 8 Stunden", "base 7 heures"
    "stunden": "hours",
    "heures": "hours",
    "horas": "hours",
}
_COUNT_UNITS = {
    "unit": "units",
    "units": "units",
    "pc": "units",
    "pcs": "units",
    "piece": "units",
    "pieces": "units",
    "items": "units",
    "stück": "units",
    "stueck": "units",
    "stk": "units",
    "einheiten": "units",
    "unità": "units",
    "unidades": "units",
    "sqft": "sqft",
    "sf": "sqft",
    "spaces": "spaces",
    "stalls": "spaces",
}
_MONTHS = {
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "januar",
    "februar",
    "märz",
    "juni",
    "juli",
    "oktober",
    "dezember",
}
# Words before a figure that make it a name, not an amount ("Suite 210", "PO 77812", "week 48", "net 30").
_IDENTIFIERS = {
    "suite",
    "rev",
    "revision",
    "bank",
    "branch",
    "site",
    "store",
    "no",
    "nr",
    "number",
    "po",
    "req",
    "requisition",
    "part",
    "dock",
    "floor",
    "room",
    "unit",
    "building",
    "apt",
    "ext",
    "route",
    "version",
    "v",
    "page",
    "item",
    "week",
    "year",
    "day",
    "month",
    "quarter",
    "q",
    "net",
    "level",
    "gate",
    "bay",
    "lot",
    "ticket",
    "case",
    "invoice",
    "ref",
    "id",
    "phase",
    "round",
    "step",
    "tier",
    "grade",
    "section",
    "clause",
    "article",
    "line",
    "box",
    "pier",
    "hall",
    "terminal",
    "zone",
    "plan",
    "option",
    "account",
    "acct",
    "ending",
    "slot",
    "fy",
    "cw",
    "kw",
}
_PERCENT = {"%", "percent", "per cent", "pct", "prozent", "bps"}
_CLOCK = {"am", "pm", "a.m", "p.m", "uhr", "o'clock", "oclock"}
_CHANGE_VERBS = {
    "went",
    "go",
    "goes",
    "going",
    "gone",
    "rise",
    "rises",
    "rising",
    "rose",
    "risen",
    "increase",
    "increases",
    "increased",
    "increasing",
    "decrease",
    "decreases",
    "decreased",
    "drop",
    "drops",
    "dropped",
    "fall",
    "falls",
    "fell",
    "move",
    "moves",
    "moved",
    "jump",
    "jumps",
    "jumped",
    "climb",
    "climbs",
    "climbed",
    "grow",
    "grows",
    "grew",
    "raise",
    "raised",
    "raising",
    "lower",
    "lowered",
    "cut",
    "reduce",
    "reduced",
    "bump",
    "bumped",
    "change",
    "changed",
    "shift",
    "shifted",
    "escalate",
    "escalates",
    "upped",
    "brought",
    "revised",
    "adjusted",
    "lifted",
    "slashed",
    "trimmed",
    "pushed",
    "pulled",
    "step",
    "steps",
    "stepped",
    "stretch",  # "could you stretch from 110 to 116?": a move, not a range
    "stretched",
}
_CONNECTORS = {
    "and",
    "or",
    "but",
    "to",
    "then",
    ",",
    ";",
    "maybe",
    "perhaps",
    "could",
    "would",
    "do",
    "accept",
    "instead",  # "70 an hr instead of 76"
    "than",  # "72 an hour rather than 79"
    "vs",
    "versus",
    "not",  # "125 base but not 130"
}
# Words between two figures that compare them ("11.80 vs 12.10 per unit", "71 or 76 per hour"): a bare
# figure before a typed one in such a comparison is typed like it.
_COMPARING = frozenset({"vs", "versus", "or", ",", "and", "instead", "than", "not", "/", "against"})
_COMPARE_GAP = 6  # tokens between the two figures
_CARRY_WINDOW = 12  # tokens from a typed figure to a bare answer in the next sentence ("100/h. 88?")
# A ";" joins two clauses of one sentence ("You proposed 60 months; we'd prefer 48"): not an end.
_SENTENCE_ENDS = {".", "!", "?", "\n"}
_RANGE_DASHES = {"-", "–", "—", "‒", "~"}
_INHERIT_WINDOW = 10


@dataclass(frozen=True, slots=True)
class Amount:
    """One value mention.

    Attributes:
        low: The value, or the low end of a range.
        high: The high end of a range (equal to low for one value).
        kind: "money" (a currency or a rate), "count" ("1,500 units"), "duration" ("3 years") or
            "number" (a bare figure, possibly with a multiplier: "105k", "five thousand").
        start: Offset of the mention in the text given to `find_amounts`.
        end: End offset.
        text: The text of the mention (text[start:end]).
        currency: "USD", "EUR" or "GBP" when written.
        per: The rate's period or unit: "hour", "day", "week", "month", "year" or "unit".
        unit: What a count or duration counts: "units", "sqft", "spaces", "hours", "days", "weeks",
            "months", "years", or the noun counted ("engineers").
        scaled: Whether a multiplier or a scale word was written ("k", "thousand", "million").
        alternative: Another reading of the figures: a dot before exactly three digits read as a decimal
            point instead of a thousands separator ("$12.800": 12.8 instead of 12,800).
        inherited: The unit or rate was carried over from the previous amount ("4 years, or 3").
        figure_end: End offset of the figures and currency, before any rate or unit ("$95" in
            "$95/hour"); equal to end when nothing follows them.
        incidental: A time span that is no term of a deal: a frequency ("rent reviews every 2 years"),
            what is left or past of something else ("14 months left there", "3 years ago") or a rent-free
            period ("12 months free"); or a count of what one package holds ("the carton holds 50
            pieces").
    """

    low: float
    high: float
    kind: AmountKind
    start: int
    end: int
    text: str
    currency: str | None = None
    per: str | None = None
    unit: str | None = None
    scaled: bool = False
    alternative: tuple[float, float] | None = None
    inherited: bool = False
    figure_end: int = -1
    incidental: bool = False

    @property
    def is_range(self) -> bool:
        """Whether the mention is a range ("$90–100K")."""
        return self.low != self.high


@dataclass(frozen=True, slots=True)
class TermAmount:
    """An amount attributed to a boundary term, converted to the term's unit.

    Attributes:
        term: The boundary term's name.
        low: The value (or low end) in the term's unit.
        high: The high end in the term's unit.
        start: Offset of the mention in the text.
        end: End offset.
        mention: The amount as written.
    """

    term: str
    low: float
    high: float
    start: int
    end: int
    mention: Amount


# -- tokens ---------------------------------------------------------------------------------------------
_PAD = 64
"""Empty words after the last token: every look-ahead and look-behind here is a few tokens, so
`_Tokens.word(i)` for i in [-_PAD, len + _PAD) is a plain list index ("" outside the tokens)."""


@dataclass(slots=True)
class _Tokens:
    text: str
    words: list[str]  # lowercased token text
    starts: list[int]
    ends: list[int]
    kinds: list[str]  # "d" digits (merged with separators), "w" word, "p" anything else
    breaks: list[bool]  # a sentence boundary (or a line break) lies before the token
    word: Callable[[int], str] = field(init=False)  # the word at i, or "" outside the tokens

    def __post_init__(self) -> None:
        self.word = (self.words + [""] * _PAD).__getitem__

    def __len__(self) -> int:
        return len(self.words)

    def glued(self, i: int) -> bool:
        """Whether token i follows token i - 1 with no space."""
        return 0 < i < len(self.words) and self.starts[i] == self.ends[i - 1]


def _tokenise(text: str) -> _Tokens:
    # Read up to the last non-space character only: on a run of whitespace with no token after it the
    # pattern's "(\s*)" fails at every position of the run, each failure rescanning the run to its end
    # (quadratic; "$1." and 15,000 trailing spaces took 11 s). `str.rstrip` and "\s" agree on what
    # whitespace is (both Unicode's), so every token is still found and every span is unchanged.
    pairs = _TOKEN.findall(text, 0, len(text.rstrip()))
    if len(pairs) > MAX_READ_TOKENS:
        del pairs[MAX_READ_TOKENS:]
    raw = [token for _, token in pairs]
    lengths = [len(space) + len(token) for space, token in pairs]
    ends = list(accumulate(lengths))
    starts = [end - len(token) for end, token in zip(ends, raw, strict=True)]
    words = [token.lower() for token in raw]
    kinds = ["d" if t[0] in _DIGITS else "w" if t[0].isalpha() else "p" for t in raw]
    # a dot glued to a colon or a comma ends an abbreviation, not a sentence ("Per 1000 Stk.: 1.450,00 €")
    breaks = [
        "\n" in space
        or (
            i > 0
            and kinds[i - 1] == "p"
            and words[i - 1] in _SENTENCE_ENDS
            and not (words[i - 1] == "." and not space and token in (":", ","))
        )
        for i, (space, token) in enumerate(pairs)
    ]
    return _group_thousands(_Tokens(text, words, starts, ends, kinds, breaks))


_THOUSANDS_GROUP = re.compile(r"\d{3}(?:[.,]\d{1,2})?")
_GROUP_SPACES = {" ", "\u00a0", "\u202f", "\u2009"}  # a space, a no-break space, a thin space


def _group_thousands(tokens: _Tokens) -> _Tokens:
    """Merge figures grouped by single spaces into one ("3 000 units", "11 750 USD", "97 500,00 EUR").

    A head of one to three digits takes each following group of exactly three digits (the last may
    carry decimals) that is set off by one space; a group glued to a hyphen or a letter ("3 100-unit
    lots") is not taken, nor a head after an identifier word ("Suite 210 300"). One pass: linear.
    """
    n = len(tokens)
    if not any(tokens.kinds[i] == "d" and tokens.kinds[i + 1] == "d" for i in range(n - 1)):
        return tokens
    text = tokens.text
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []
    breaks: list[bool] = []
    i = 0
    while i < n:
        j = i
        word = tokens.words[i]
        if (
            tokens.kinds[i] == "d"
            and word.isdigit()
            and len(word) <= 3
            and tokens.word(i - 1) not in _IDENTIFIERS
        ):
            while (
                j + 1 < n
                and tokens.kinds[j + 1] == "d"
                and text[tokens.ends[j] : tokens.starts[j + 1]] in _GROUP_SPACES
                and _THOUSANDS_GROUP.fullmatch(tokens.words[j + 1]) is not None
                and tokens.words[j].isdigit()
                and not (
                    j + 2 < n
                    and tokens.glued(j + 2)
                    and tokens.words[j + 2]
                    not in ("$", "€", "£", ",", ".", ";", ":", "%", ")", "!", "?", "/")
                )
            ):
                j += 1
        if j > i and "%" not in (tokens.word(j + 1),):
            words.append("".join(tokens.words[i : j + 1]))
        else:
            j = i
            words.append(word)
        starts.append(tokens.starts[i])
        ends.append(tokens.ends[j])
        kinds.append(tokens.kinds[i])
        breaks.append(tokens.breaks[i])
        i = j + 1
    return _Tokens(text, words, starts, ends, kinds, breaks)


_MOST_DIGITS = 15  # digits a float holds exactly


def _digits_value(raw: str) -> tuple[float, float | None] | None:
    """The value of a figure with separators and its alternative reading, or None if it is no number.

    "12,000" and "120.000" group thousands; "9.500,00" and "1,234.56" mix both (the last separator is
    the decimal point); "75,50" is a European decimal; "10.5" an English one. A lone dot before three
    digits is read as a thousands separator, with the decimal reading kept as the alternative.
    """
    if sum(c.isdigit() for c in raw) > _MOST_DIGITS:
        return None  # past a float's precision ("9" * 400 is infinite): see unreadable_figures
    if "'" in raw or "\u2019" in raw:
        head, *groups = _APOSTROPHES.split(raw)
        whole = [groups[-1].split(".")[0], *groups[:-1]]
        if not head.isdigit() or len(head) > 3 or any(len(g) != 3 or not g.isdigit() for g in whole):
            return None
        return float("".join((head, *groups))), None  # "145'000", "1'250.50" (a dot for decimals)
    if raw.isdigit():
        return float(raw), None
    separators = [c for c in raw if c in ".,"]
    groups = re.split(r"[.,]", raw)
    if any(not g for g in groups):
        return None  # "1,,2"
    last_separator, last = separators[-1], groups[-1]
    if len(set(separators)) == 2:
        if (
            separators.count(last_separator) != 1
            or len(groups[0]) > 3
            or any(len(g) != 3 for g in groups[1:-1])
        ):
            return None
        return float("".join(groups[:-1]) + "." + last), None
    if len(separators) > 1:
        if 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]):
            return float("".join(groups)), None
        return None
    head = groups[0]
    if len(last) == 3 and len(head) <= 3 and head != "0":
        grouped = float(head + last)
        return (grouped, None) if last_separator == "," else (grouped, float(head + "." + last))
    if last_separator == ",":
        # "0,085": a thousands group never follows a lone zero, so three or more digits after "0," are
        # decimals (sets v11 and v12, two writers: "Unit cost 0,085 €")
        return (float(head + "." + last), None) if len(last) <= 2 or head == "0" else None
    return float(raw), None


# -- spelled-out numbers -------------------------------------------------------------------------------
_CURRENCY_NOUNS = frozenset({"dollar", "buck", "euro", "pound", "quid"})
_DIGIT_WORDS = {w: float(i) for i, w in enumerate(ONES_WORDS[:10])} | {"oh": 0.0}


# Words that make a compound with "one" naming no count: "one-time", "one-off", "one-way", "one-stop".
_ONE_COMPOUNDS = frozenset({"time", "off", "way", "stop", "sided", "shot", "liner", "size", "piece"})


def _spelled(tokens: _Tokens, i: int, depth: int = 0) -> tuple[float, int, float] | None:
    """A spelled-out number starting at token i: (value, index after it, the largest scale word used or 1).

    "one hundred and five thousand", "ninety-five", "twelve-thousand-one-hundred", "two and a half",
    "a hundred", "half a million", "a quarter million", "one point two million", "eleven thousand, two
    hundred and fifty" (a smaller group after a comma), "a dollar" (one, before a currency noun).
    Stops at the first word that cannot continue the number; `depth` bounds the comma groups read.
    "one" in a compound that is no count ("one-time", "one-off") is no number.
    """
    if tokens.word(i) == "one" and tokens.word(i + 1) == "-" and tokens.word(i + 2) in _ONE_COMPOUNDS:
        return None
    special = _spelled_fraction(tokens, i)
    if special is not None:
        return None if special[1] < 0 else special
    if tokens.word(i) in _GERMAN_ONES:
        return _GERMAN_ONES[tokens.word(i)], i + 1, 1.0  # "drei Monatsmieten": one word, alone
    if tokens.word(i) in _ROMANCE_ONES:
        return (_ROMANCE_ONES[tokens.word(i)], i + 1, 1.0) if tokens.word(i + 1) in _TIME_UNITS else None
    return _spelled_words(tokens, i, depth)


def _opens_another(word: str, last_small: str, hundred_in_group: bool, smallest: float) -> bool:
    """Whether a word after an "and" that joined two number words opens another number: a second
    "hundred" in one group ("one hundred and one hundred and ten thousand") or a scale word as large as
    the last ("ninety thousand and one hundred thousand"), as at the two ends of a range after "between"."""
    if word == "hundred":
        return hundred_in_group and last_small in _HUNDRED_AFTER
    return word in _SCALES and last_small != "scale" and 0 < smallest <= _SCALES[word]


def _spelled_words(tokens: _Tokens, i: int, depth: int) -> tuple[float, int, float] | None:
    """The number words of `_spelled` from token i (after its special forms)."""
    n = len(tokens)
    total, scaled, smallest = 0.0, 1.0, 0.0  # smallest: the last scale word's factor
    opening = _opening_hundred(tokens, i)  # "a hundred", "hundred and five grand"
    # last_small: "ones", "tens", "hundred", "a" or "" — what the last word was
    current, seen, last_small = (1.0, True, "a") if opening else (0.0, False, "")
    hundred_in_group = False  # a "hundred" was read since the last scale word
    joined: tuple[int, float, float] | None = None  # (end, total, current) before the last "and"
    j = end = i + int(opening and tokens.word(i) == "a")
    while j < n:
        word = tokens.words[j]
        if (word in _ONES and last_small in ("", "hundred", "scale")) or (
            word in _ONES and last_small == "tens" and _ONES[word] < 10
        ):
            current += _ONES[word]
            last_small = "ones" if _ONES[word] < 10 or last_small == "" else "teens"
        elif word in _TENS and last_small in ("", "hundred", "scale"):
            current += _TENS[word]
            last_small = "tens"
        elif seen and joined is not None and _opens_another(word, last_small, hundred_in_group, smallest):
            end, total, current = joined  # this number ends before its "and"
            break
        elif seen and (word == "dozen" or (word == "hundred" and last_small in _HUNDRED_AFTER)):
            current = max(current, 1.0) * (100.0 if word == "hundred" else 12.0)
            hundred_in_group, last_small = hundred_in_group or word == "hundred", "hundred"
        elif word in _SCALES and seen and last_small != "scale":
            total += max(current, 1.0) * _SCALES[word]
            current, hundred_in_group = 0.0, False
            scaled = max(scaled, _SCALES[word])
            smallest = _SCALES[word]
            last_small = "scale"
        elif word in ("point", ",") and seen:
            tail = _spelled_tail(tokens, j, (total, current, scaled, smallest), last_small, depth)
            if tail is None:
                break
            return tail
        elif word in ("and", "-") and seen and (fraction := _fraction_after(tokens, j)) is not None:
            current += fraction[0]  # "one and a quarter", "three-and-a-half-year lease"
            end = fraction[1]
            break
        elif (
            word == "and"
            and seen
            and last_small in ("hundred", "scale")
            and (tokens.word(j + 1) in _ONES or tokens.word(j + 1) in _TENS)
        ):
            joined = (end, total, current)
            j += 1
            continue
        elif (
            word == "-"
            and seen
            and tokens.glued(j)
            and tokens.glued(j + 1)
            and (
                tokens.word(j + 1) in _ONES
                or tokens.word(j + 1) in _TENS
                or tokens.word(j + 1) in _SCALES
                or tokens.word(j + 1) == "hundred"
            )
        ):
            j += 1
            continue
        else:
            break
        seen = True
        j += 1
        end = j
    if not seen:
        return None
    return total + current, end, scaled


# A fraction after a whole number: "two and a half", "one and a quarter", "three and three quarters".
_AND_FRACTIONS = {("a", "half"): 0.5, ("a", "quarter"): 0.25, ("three", "quarters"): 0.75}


def _fraction_after(tokens: _Tokens, j: int) -> tuple[float, int] | None:
    """A fraction after a whole number from its "and" at token j ("two and a half") or from the hyphen
    before it in a compound adjective ("three-and-a-half-year", every hyphen glued on both sides): (the
    fraction, the token after it), or None."""
    if tokens.word(j) == "and":
        fraction = _AND_FRACTIONS.get((tokens.word(j + 1), tokens.word(j + 2)))
        return None if fraction is None else (fraction, j + 3)
    if not all(tokens.glued(k) for k in range(j, j + 6)) or tokens.word(j + 1) != "and":
        return None
    if tokens.word(j + 2) != "-" or tokens.word(j + 4) != "-":
        return None
    fraction = _AND_FRACTIONS.get((tokens.word(j + 3), tokens.word(j + 5)))
    return None if fraction is None else (fraction, j + 6)


def _spelled_tail(
    tokens: _Tokens, j: int, state: tuple[float, float, float, float], last_small: str, depth: int
) -> tuple[float, int, float] | None:
    """The end of a spelled number at token j, "point" or ",": "one point two million" (digits and a
    scale word after "point"), "eleven thousand, two hundred and fifty" (a group smaller than the last
    scale word after a comma). `state` is (total, current, largest scale, last scale). None: no tail."""
    total, current, scaled, smallest = state
    if tokens.word(j) == "point":
        if total != 0.0 or last_small not in ("ones", "teens", "tens"):
            return None
        decimal = _point_decimals(tokens, j + 1)
        if decimal is None:
            return None
        fraction, k = decimal
        scale = _SCALES[tokens.word(k)]
        return (current + fraction) * scale, k + 1, scale
    if last_small != "scale" or depth >= 3 or not tokens.glued(j):
        return None
    group = _spelled(tokens, j + 1, depth + 1)
    if group is None or group[0] >= smallest or group[2] >= smallest or group[0] < 1:
        return None
    return total + group[0], group[1], scaled


def _opening_hundred(tokens: _Tokens, j: int) -> bool:
    """Whether a number opens at j with "a" and a scale word ("a hundred", "a thousand", "a dozen") or
    with "hundred" alone ("hundred and five grand", "hundred thousand", "hundred grand": a number word,
    a scale or "and" and a number word follows it)."""
    if tokens.word(j) == "a":
        return tokens.word(j + 1) in ("hundred", "thousand", "million", "billion", "dozen")
    if tokens.word(j) != "hundred":
        return False
    word = tokens.word(j + 1)
    if word == "and":
        word = tokens.word(j + 2)
        return word in _ONES or word in _TENS
    return word in _ONES or word in _TENS or word in _SCALES or word in ("grand", "k", "thou")


_NO_NUMBER = (0.0, -1, 1.0)
_HUNDRED_AFTER = ("ones", "teens", "tens", "a")  # what "hundred" may follow
_DECADES = frozenset({"decade", "decades"})
_ONE_PERIOD = frozenset({"week", "month", "year"})  # "a month's deposit", "a full month": one of it


def _spelled_fraction(tokens: _Tokens, i: int) -> tuple[float, int, float] | None:
    """Forms that open with "a", "half" or "quarter": "a dollar" (1, before cents or a rate),
    "half a million", "half a", "a quarter million", "a quarter of a million". `_NO_NUMBER` when
    "quarter" is no number; None when none of these forms starts at i."""
    first, second = tokens.word(i), tokens.word(i + 1)
    if first == "a" and second in _CURRENCY_NOUNS:
        # a price ("a dollar twenty", "a dollar a unit"), not a difference ("a dollar off", "a dollar more")
        third = tokens.word(i + 2)
        priced = third in _ONES or third in _TENS or third in _RATE_MARKERS or third in _RATE_ADVERBS
        return (1.0, i + 1, 1.0) if priced else _NO_NUMBER
    if first == "a" and second in _DECADES:
        return 1.0, i + 1, 1.0  # "a decade-long lease"
    if (
        first == "a"
        and second in _ONE_PERIOD
        and tokens.word(i + 2) in ("'", "’")
        and tokens.word(i + 3) == "s"
    ):
        return 1.0, i + 1, 1.0  # "a month's deposit": one month of it (not "a month", a rate)
    if first == "a" and second in ("full", "whole") and tokens.word(i + 2) in _ONE_PERIOD:
        return 1.0, i + 2, 1.0  # "a full month for others"
    if first == "half" and second == "a":
        scale = tokens.word(i + 2)
        if scale in _SCALES or scale in ("hundred", "dozen"):
            factor = _SCALES.get(scale, 100.0 if scale == "hundred" else 12.0)
            return 0.5 * factor, i + 3, _SCALES.get(scale, 1.0)
        return 0.5, i + 2, 1.0
    if first == "quarter" or (first in ("a", "one") and second == "quarter"):
        k = i + (first != "quarter") + 1
        if tokens.word(k) == "of" and tokens.word(k + 1) == "a":
            k += 2
        scale = tokens.word(k)
        if scale in _SCALES:
            return 0.25 * _SCALES[scale], k + 1, _SCALES[scale]
        return _NO_NUMBER
    return None


def _point_decimals(tokens: _Tokens, i: int) -> tuple[float, int] | None:
    """The digits after "point" in "one point two five million": (fraction, index of the scale word).

    Only before a scale word ("thousand", "million", "billion"): "at one point two of us" is no number.
    """
    fraction, place, k = 0.0, 0.1, i
    while k < i + 6 and tokens.word(k) in _DIGIT_WORDS:
        fraction += _DIGIT_WORDS[tokens.word(k)] * place
        place /= 10.0
        k += 1
    if k == i or tokens.word(k) not in _SCALES:
        return None
    return fraction, k


def _number_at(tokens: _Tokens, i: int) -> tuple[float, float | None, int, float, bool] | None:
    """A number at token i: (value, alternative, index after, scale word factor or 1, spelled)."""
    if tokens.kinds[i] == "d" if i < len(tokens) else False:
        parsed = _digits_value(tokens.words[i])
        if parsed is None:
            return None
        return parsed[0], parsed[1], i + 1, 1.0, False
    shorthand = _hundred_shorthand(tokens, i)
    if shorthand is not None:
        value, after = shorthand
        return value, value / 100.0, after, 1.0, False
    tenths = _tenths_shorthand(tokens, i)
    if tenths is not None:  # so many thousand: "ninety-two five" is 92,500
        return tenths * 1000.0, None, i + 4, 1000.0, False
    teens = _teens_shorthand(tokens, i)
    if teens is not None:  # so many thousand: "eleven-five" is 11,500
        return teens * 1000.0, None, i + 3, 1000.0, False
    found = _spelled(tokens, i) if i < len(tokens) else None
    if found is None:
        return None
    value, after, scaled = found
    return value, None, after, scaled, True


_CLOCK_AFTER = frozenset({"am", "pm", "o", "oclock", "tomorrow", "today", "tonight", "sharp"})


def _hundred_shorthand(tokens: _Tokens, i: int) -> tuple[float, int] | None:
    """Chat shorthand for a figure of one hundred and some, said the way it is spoken: "one-twenty"
    (120), "one-fifteen" (115), "one-twenty-five" (125), read as bare digits (a salary in thousands
    beside "base"; a price of 1.15 as the alternative reading). Hyphens glued on both sides only; not
    before a clock word ("one-fifteen pm") nor after "at" opening a time ("meet at one-fifteen")."""
    spaced = _spaced_hundred(tokens, i)
    if spaced is not None:
        return spaced
    head = _ONES.get(tokens.word(i), 0.0)
    if (
        not 1.0 <= head < 10.0
        or tokens.word(i + 1) != "-"
        or not (tokens.glued(i + 1) and tokens.glued(i + 2))
    ):
        return None
    second = tokens.word(i + 2)
    if head > 1.0 and (second not in _TENS or tokens.word(i + 3) == "-"):
        return None  # "two-fifty" (250, or 2.50), not "two-oh-five" nor "two-twenty-five"
    if second == "oh" and tokens.word(i + 3) == "-" and tokens.glued(i + 3) and tokens.glued(i + 4):
        unit = _ONES.get(tokens.word(i + 4), 0.0)
        if not 1.0 <= unit < 10.0:
            return None
        value, after = 100.0 + unit, i + 5  # "one-oh-five"
    elif second in _TENS:
        value, after = 100.0 * head + _TENS[second], i + 3
        if tokens.word(after) == "-" and tokens.glued(after) and tokens.glued(after + 1):
            unit = _ONES.get(tokens.word(after + 1), 0.0)
            if 1.0 <= unit < 10.0:
                value, after = value + unit, after + 2
    elif second in _ONES and _ONES[second] >= 10.0:
        value, after = 100.0 + _ONES[second], i + 3
    else:
        return None
    if tokens.word(after) in _CLOCK_AFTER or (
        tokens.word(i - 1) in ("at", "by", "until", "till", "from") and not _figure_at(tokens, i)
    ):
        return None
    return value, after


# Words before "at" that make what follows a figure, not a time ("the band tops out at one-ten", "we
# opened at one fifteen", "capped at one twenty"): limits and offers (the error form of sets v12 and v14).
_FIGURE_AT = frozenset(
    {
        *("out", "opened", "open", "opening", "capped", "cap", "caps", "max", "maxes", "maxed", "topped"),
        *("settle", "settled", "landed", "land", "start", "started", "starting", "stuck", "pegged"),
        *("priced", "offered", "offer", "budgeted", "came", "come", "coming", "sits", "sitting", "stays"),
    }
)


def _figure_at(tokens: _Tokens, i: int) -> bool:
    """Whether the spoken figure at token i follows "at" after a limit or offer word (`_FIGURE_AT`), or
    after a person's "'re" or "'m" ("we're at one ten", "I'm at one twenty": where a side stands, with
    `_SPOKEN_FIGURES`)."""
    if tokens.word(i - 1) != "at":
        return False
    before = tokens.word(i - 2)
    if before in _FIGURE_AT:
        return True
    return (
        _SPOKEN_FIGURES
        and before in ("re", "m")
        and tokens.word(i - 3) in ("'", "\u2019")
        and tokens.word(i - 4) in ("we", "they", "you", "i")
    )


# The spoken figure of one hundred and some (issue 14: sets v12, v13, v14, v15 and v16 say a salary in
# thousands so, "one twenty", with no move word before it): read before the words of a condition or a
# purpose ("one twenty if the equity is decent", "one twenty-five for the right person"), after where a
# side stands ("we're at one ten"), not counting a verb ("one twenty works for me"), and attributed like a
# move to the one money term paid in tens of thousands whose band holds it in thousands (`_moves`).
_SPOKEN_FIGURES = True  # a switch of the measure's --ablation (`spoken_figures`)
_SPOKEN_MORE_FOLLOWERS = frozenset({"if", "for", "unless", "but", "sounds", "seems"})
_SPOKEN_SHAPE = re.compile(
    r"one[ \t-]{1,3}(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b",
    re.IGNORECASE,
)


# What may follow the spoken "one twenty" written with a space (a figure, not "one twenty-foot container"
# nor "no one twenty years ago"): the end of its clause, or one of these words.
_SPACED_FOLLOWERS = frozenset(
    {"is", "was", "would", "works", "base", "max", "tops", "k", "and", "or", "then", "plus", "flat"}
)
_SPACED_BEFORE_NOT = frozenset({"at", "by", "until", "till", "from", "no", "any", "every", "each", "the"})


def _spaced_hundred(tokens: _Tokens, i: int) -> tuple[float, int] | None:
    """The spoken "one twenty" (120, 1.20 the alternative) with a space for the hyphen: "one" and a tens
    or teens word ("one ten", "one fifteen", "one twenty-five"), closing its clause or before a word of
    `_SPACED_FOLLOWERS` ("one twenty is the ceiling"); not a time ("at one thirty") nor "one" counting a
    noun ("one twenty-foot container", "no one twenty")."""
    second = tokens.word(i + 1)
    tens = _TENS.get(second, _ONES.get(second, 0.0))
    if tokens.word(i) != "one" or tens < 10.0 or tokens.glued(i + 1):
        return None
    value, after = 100.0 + tens, i + 2
    unit = _ONES.get(tokens.word(after + 1), 0.0) if second in _TENS else 0.0
    if tokens.word(after) == "-" and tokens.glued(after) and tokens.glued(after + 1) and 1.0 <= unit < 10.0:
        value, after = value + unit, after + 2  # "one twenty-five"
    following = tokens.word(after)
    if (tokens.word(i - 1) in _SPACED_BEFORE_NOT and not _figure_at(tokens, i)) or following in _CLOCK_AFTER:
        return None
    closes = after >= len(tokens) or (
        tokens.kinds[after] == "p" and following not in ("-", "/", ":", "'", "’", "$", "€", "£")
    )
    if closes or following in _SPACED_FOLLOWERS:
        return value, after
    return (value, after) if _SPOKEN_FIGURES and following in _SPOKEN_MORE_FOLLOWERS else None


def _tenths_shorthand(tokens: _Tokens, i: int) -> float | None:
    """Spoken shorthand for so many thousand and some hundreds: "ninety-two five" (92.5 thousand, a
    salary of 92,500), "eighty-seven five": a hyphened tens-and-ones word, then a lone ones word that no
    number word, scale or noun of time follows."""
    tens, unit = _TENS.get(tokens.word(i)), _ONES.get(tokens.word(i + 2), 0.0)
    if tens is None or tokens.word(i + 1) != "-" or not (tokens.glued(i + 1) and tokens.glued(i + 2)):
        return None
    tenth = _ONES.get(tokens.word(i + 3), 0.0)
    if not (1.0 <= unit < 10.0 and 1.0 <= tenth < 10.0) or tokens.glued(i + 3):
        return None
    following = tokens.word(i + 4)
    if following in _ONES or following in _TENS or following in ("hundred", "-", *_SCALES, *_TIME_UNITS):
        return None
    return tens + unit + tenth / 10.0


def _teens_shorthand(tokens: _Tokens, i: int) -> float | None:
    """Spoken shorthand for so many thousand and some hundreds below twenty thousand: "eleven-five" (11.5
    thousand, a rent of 11,500), "fourteen-five": a teens word hyphened to a lone ones word that no number
    word, scale, hyphen or noun of time follows (the error form of sets v12 and v14)."""
    teen, tenth = _ONES.get(tokens.word(i), 0.0), _ONES.get(tokens.word(i + 2), 0.0)
    if not (_SPOKEN_TEENS and 11.0 <= teen < 20.0 and 1.0 <= tenth < 10.0):
        return None
    if tokens.word(i + 1) != "-" or not (tokens.glued(i + 1) and tokens.glued(i + 2)):
        return None
    following = tokens.word(i + 3)
    if tokens.glued(i + 3) or following in _ONES or following in _TENS:
        return None
    if following in ("hundred", "-", "/", ":", *_SCALES, *_TIME_UNITS, *_CLOCK_AFTER):
        return None
    return teen + tenth / 10.0


_SPOKEN_TEENS = True  # `_teens_shorthand` on (a switch of the measure's --ablation)


def _scale_after(tokens: _Tokens, i: int, has_currency: bool, spelled: bool = False) -> tuple[float, int]:
    """A multiplier word at token i ("k", "thousand", "grand", "million"): (factor, index after).

    "k", "m", "mn", "mm" and "bn" count glued to the figure ("105k", "$1.2m"); a capital "K" also after a
    space ("95 K", "ninety-five K"). Without a currency, "m" is a million only as a capital ("1.2M") or
    before a count ("1.5m units"): "5m" alone may be metres.
    """
    word = tokens.word(i)
    if word not in _SUFFIX_SCALES or tokens.kinds[i] != "w":
        return 1.0, i
    capital = tokens.text[tokens.starts[i]].isupper()
    if word in _ATTACHED_ONLY and not tokens.glued(i) and not (word == "k" and (capital or spelled)):
        return 1.0, i
    if word in ("m", "mm", "mn") and not has_currency:
        counted = tokens.word(i + 1) in _COUNT_UNITS
        if not (tokens.glued(i) and ((word == "m" and capital) or counted)):
            return 1.0, i
    if tokens.glued(i + 1) and tokens.kinds[i + 1] == "w":
        return 1.0, i  # "105kg", "5min"
    return _SUFFIX_SCALES[word], i + 1


# Round 20 (2026-11-29), the form of sets v13, v15 and v17's errors: a count in dozens or grosses written
# after a figure ("2 dozen spare filters", "60 dozen for the desks", "ten gross of the M4 nuts"): 12 and
# 144 of the thing counted. "gross" only before "of" (a gross salary is "85k gross").
_COUNT_SCALES = True
_COUNT_SCALE_WORDS = {"dozen": 12.0, "dozens": 12.0, "gross": 144.0}


def _count_scale_after(tokens: _Tokens, i: int) -> tuple[float, int]:
    """A count scale after a figure with no currency ("2 dozen", "ten gross of"): (factor, index after)."""
    word = tokens.word(i)
    if not _COUNT_SCALES or word not in _COUNT_SCALE_WORDS or tokens.kinds[i] != "w":
        return 1.0, i
    if word == "gross" and (tokens.word(i + 1) != "of" or tokens.word(i + 2) in _GROSS_OF_SUMS):
        return 1.0, i  # "85k gross", "5,000 gross of tax": a sum before deductions, not 144 of a thing
    return _COUNT_SCALE_WORDS[word], i + 1


# What a sum is "gross of" ("5,000 gross of tax"): an accounting phrase, not a count in grosses.
_GROSS_OF_SUMS = frozenset(
    {
        "tax",
        "taxes",
        "vat",
        "gst",
        "fee",
        "fees",
        "commission",
        "commissions",
        "withholding",
        "deductions",
        "deduction",
        "expenses",
        "costs",
        "charges",
        "discount",
        "discounts",
        "rebate",
        "rebates",
        "insurance",
    }
)


def _currency_after(tokens: _Tokens, i: int) -> tuple[str | None, int]:
    word = tokens.word(i)
    if word in _SYMBOLS and tokens.glued(i + 1) and tokens.kinds[i + 1] == "d":
        return None, i  # "yr1 $4,000": the sign opens the next figure
    if word in _SYMBOLS:
        return _SYMBOLS[word], i + 1
    if word in _CURRENCY_AFTER:
        return _CURRENCY_AFTER[word], i + 1
    if word == "us" and tokens.word(i + 1) in ("dollars", "dollar"):
        return "USD", i + 2  # "fourteen US dollars each"
    return None, i


def _cents_after(tokens: _Tokens, i: int) -> tuple[float, int]:
    """Cents after a currency word: "and 80 cents", ", eighty cents", "fifty", "seventy-five cents"."""
    j = i + 1 if tokens.word(i) in ("and", ",") else i
    if j >= len(tokens):
        return 0.0, i
    number = _number_at(tokens, j)
    if number is None:
        return 0.0, i
    value, _, after, scale, _ = number
    if scale > 1.0 or not (0 < value < 100) or value != int(value):
        return 0.0, i
    if tokens.word(after) in _CENTS:
        return value / 100.0, after + 1
    following = tokens.word(after)
    if j == i and (
        following in _COUNT_UNITS
        or following in _TIME_UNITS
        or (
            (tokens.kinds[after] == "w" if after < len(tokens) else False)
            and following not in _RATE_MARKERS
            and following not in _RATE_ADVERBS
            and following not in ("is", "and", "or", "but", "for", "if", "flat", "final")
        )
    ):
        return 0.0, i
    if j != i:
        return 0.0, i  # "and 80" or ", 80" without "cents" is another figure
    return value / 100.0, after


# A sum for one whole period (issue 14: sets v11 and v14 name a year's rent so): after the sum, "84k flat
# for the year", "$84,000 for the full year", "9,000 for a whole quarter" (not "7,000 for a year", which
# may be a month's rent for a year's term); before it, a sum's noun labels it: "Rent for a year, paid
# upfront: $84,000", "Total for the year: $78,000". A switch of the measure's --ablation
# (`whole_period_sums`).
_WHOLE_PERIOD_SUMS = True
_WHOLE_ADJECTIVES = frozenset({"full", "whole", "entire"})
_WHOLE_PERIOD_NOUNS = frozenset({"rent", "total", "salary", "pay", "cost", "costs", "price", "sum", "fee"})


def _whole_period(tokens: _Tokens, j: int, label: bool) -> tuple[str, float, int] | None:
    """A whole period named at token j, "for the (full) year", "for a whole quarter" (with `label`, also
    "for a year"): (period, divisor, index after), or None."""
    if not _WHOLE_PERIOD_SUMS or tokens.word(j) != "for" or tokens.word(j + 1) not in ("the", "a"):
        return None
    k = j + 2
    whole = tokens.word(k) in _WHOLE_ADJECTIVES
    k += whole
    if not (whole or label or tokens.word(j + 1) == "the"):
        return None
    period = tokens.word(k)
    if period in ("year", "month"):
        return _PERIODS[period], 1.0, k + 1
    if period == "quarter":
        return *_MULTIPLE_PERIODS[period], k + 1
    return None


def _rate_after(tokens: _Tokens, i: int) -> tuple[str | None, float, int]:
    """A rate after an amount: (period or "unit", divisor, index after). "/hr", "per unit", "a month",
    "annually", "each", "pro Stück", "p.a.", "per thousand units"."""
    j = i
    for _ in range(2):
        if tokens.word(j) in _FILLERS and tokens.word(j + 1) not in _PERIODS:
            j += 1
    whole = _whole_period(tokens, j, label=False)
    if whole is not None:
        return whole
    if tokens.word(j) in _PAYMENT_VERBS and _period_word(tokens, j + 1):
        j += 1
    if _per_slash(tokens, j) and tokens.word(j + 2) in _PERIODS:
        return _PERIODS[tokens.word(j + 2)], 1.0, j + 3  # "68 p/h", "81 p/hr": "p/" for "per"
    if tokens.word(j) == "for" and tokens.word(j + 1) in ("each", "every"):
        j += 1  # "$81 for each hour"
    word = tokens.word(j)
    if word in ("each", "every") and tokens.word(j + 1) in _PERIODS and tokens.word(j + 1) != "each":
        return _PERIODS[tokens.word(j + 1)], 1.0, j + 2  # "84 dollars each hour", "every month"
    multiple = _multiple_after(tokens, j)
    if multiple is not None:
        return multiple
    article = _per_article(tokens, j)
    if article is not None:
        return article
    if word in _RATE_ADVERBS and not (word == "each" and tokens.word(j + 1) == "other"):
        return _RATE_ADVERBS[word], 1.0, j + 1
    if word == "p" and tokens.word(j + 1) == "." and tokens.word(j + 2) == "a":
        return "year", 1.0, j + 3 + (tokens.word(j + 3) == ".")
    if word in _RATE_MARKERS:
        k = j + 1
        divisor = 1.0
        if word in _PER_WORDS and (tokens.kinds[k] if k < len(tokens) else "") in ("d", "w"):
            counted = _per_count(tokens, k)  # "per thousand units", "per 1,000 bars"
            if counted is not None:
                return "unit", counted[0], counted[1]
        target = tokens.word(k)
        if target in ("a",) and word == "per":
            target = tokens.word(k + 1)
            k += 1
        if target.endswith("s") and target[:-1] in _PERIODS and target not in ("hrs", "pcs"):
            target = target[:-1]
        if (
            target in _PERIODS
            and (word != "a" or target not in ("an", "u", "h", "each", "ea"))
            and not (word in ("a", "an") and target in ("an", "mo"))
        ):
            if (
                word in ("a", "an", "each", "every")
                and target in ("day",)
                and tokens.word(k + 1) in ("one", "1")
            ):
                return None, 1.0, i
            return _PERIODS[target], divisor, k + 1
    return None, 1.0, i


def _per_slash(tokens: _Tokens, k: int) -> bool:
    """Whether "p/" (for "per") stands at token k ("68 p/h", "81 p/hr")."""
    return tokens.word(k) == "p" and tokens.word(k + 1) == "/"


def _period_word(tokens: _Tokens, k: int) -> bool:
    """Whether a rate adverb or a rate marker with its period starts at token k ("biweekly", "every
    two weeks", "per month", "a year")."""
    word = tokens.word(k)
    if word in _RATE_ADVERBS or word in _MULTIPLE_ADVERBS:
        return True
    if word in ("bi", "semi", "half") and tokens.word(k + 1) == "-":
        return word + tokens.word(k + 2) in _MULTIPLE_ADVERBS  # "paid half-yearly"
    if word in _PER_GERMAN and tokens.word(k + 1) in _QUARTER_PERIODS:
        return True  # "18.600 € im Quartal"
    return word in ("per", "a", "an", "every", "each") and (
        tokens.word(k + 1) in _PERIODS or tokens.word(k + 1) in _MULTIPLE_PERIODS or word == "every"
    )


def _periods_at(tokens: _Tokens, k: int) -> tuple[str, float, int] | None:
    """A number of periods at token k ("two weeks", "2 weeks", "other week", "3 months"): (period, how
    many, index after), or None."""
    if tokens.word(k) == "other" and tokens.word(k + 1) in ("week", "month", "day"):
        return _PERIODS[tokens.word(k + 1)], 2.0, k + 2
    number = _number_at(tokens, k) if k < len(tokens) and tokens.kinds[k] in ("d", "w") else None
    if number is None or number[3] > 1.0 or not 1.0 < number[0] <= 12.0:
        return None
    unit = _TIME_UNITS.get(tokens.word(number[2]))
    if unit is None or tokens.kinds[number[2]] != "w":
        return None
    return unit.rstrip("s"), number[0], number[2] + 1


def _multiple_after(tokens: _Tokens, j: int) -> tuple[str | None, float, int] | None:
    """A rate for a multiple of a period or a unit at token j: (period or "unit", divisor, index after).

    "biweekly", "bi-weekly", "fortnightly", "quarterly", "semi-monthly", "every two weeks", "every
    other week", "per 2 weeks", "per fortnight", "a quarter", "twice a month", "a dozen", "per box of 6
    pieces", "per pack of five". None when none of these starts at j.
    """
    word = tokens.word(j)
    if word in _MULTIPLE_ADVERBS:
        return *_MULTIPLE_ADVERBS[word][:1], _MULTIPLE_ADVERBS[word][1], j + 1
    if word in ("bi", "semi", "half") and tokens.word(j + 1) == "-" and tokens.glued(j + 1):
        joined = word + tokens.word(j + 2)
        if joined in _MULTIPLE_ADVERBS:
            period, divisor = _MULTIPLE_ADVERBS[joined]
            return period, divisor, j + 3
    if (
        word == "twice"
        and tokens.word(j + 1) in ("a", "per", "every")
        and tokens.word(j + 2)
        in (
            "month",
            "year",
            "week",
        )
    ):
        return tokens.word(j + 2), 0.5, j + 3
    if word in ("every", "per") and tokens.word(j + 1) != "each":
        periods = _periods_at(tokens, j + 1)
        if periods is not None:
            return periods
    multiple = tokens.word(j + 1)
    if (
        (
            word in ("per", "a", "an", "each", "every")
            or (word in _PER_GERMAN and multiple in _QUARTER_PERIODS)
        )
        and multiple in _MULTIPLE_PERIODS
        and not (multiple == "quarter" and tokens.word(j + 2) in _SCALES)  # "a quarter million"
    ):
        period, divisor = _MULTIPLE_PERIODS[multiple]
        return period, divisor, j + 2
    if word in ("per", "a", "an", "each") and tokens.word(j + 1) in _PACKAGES and tokens.word(j + 2) == "of":
        number = _number_at(tokens, j + 3) if j + 3 < len(tokens) else None
        if number is not None and number[0] >= 2 and number[0] == int(number[0]):
            after = number[2]
            following = tokens.word(after)
            if following in _COUNT_UNITS or (
                following.endswith("s") and following.isalpha() and len(following) > 2
            ):
                after += 1
            return "unit", number[0], after
    return None


_COUNT_ADJECTIVES = frozenset({"loose", "single", "extra", "spare", "individual", "additional", "more"})
# A letter for years glued to a figure in chat shorthand ("lease 5y"): read alone, "5" would be 5 months.
_GLUED_YEARS = frozenset({"y"})


# A figure in parentheses restating a spelled one takes the unit after the parenthesis ("seven (7)
# years" is 7 years, "three (3) months' deposit"), as legal drafting writes it; writers v11, v15, v17 and
# v18 write the form. Switched off in tests/governance/measure_amounts_cv.py --ablation
# (`parenthesised_figures`).
_PARENTHESISED_FIGURES = True


def _unit_after(tokens: _Tokens, i: int) -> tuple[str | None, str | None, int]:
    """What a bare figure counts: ("duration", "months", after) for "3 months'", ("count", "units",
    after) for "1,500 units" or "12,000 sq ft", ("count", noun, after) for "12 engineers"."""
    j = i + 1 if tokens.word(i) == "-" and tokens.glued(i) and tokens.glued(i + 1) else i
    word = tokens.word(j)
    if (
        _PARENTHESISED_FIGURES
        and word == ")"
        and j == i
        and tokens.glued(i)
        and tokens.kinds[i - 1] == "d"
        and tokens.word(i - 2) == "("
        and tokens.glued(i - 1)
        and tokens.word(i + 1) != ")"
    ):
        # "(7) years": the unit after the closing parenthesis (one step: the token after ")" is no ")")
        return _unit_after(tokens, i + 1)
    if word in _TIME_UNITS and (tokens.kinds[j] == "w"):
        after = j + 1
        if tokens.word(after) == "'" or (tokens.word(after) == "'" and tokens.word(after + 1) == "s"):
            after += 1
        if tokens.word(after) == "s" and tokens.glued(after):
            after += 1
        return "duration", _TIME_UNITS[word], after
    if word in ("sq", "square") and tokens.word(j + 1 + (tokens.word(j + 1) == ".")) in (
        "ft",
        "feet",
        "foot",
        "m",
        "meters",
        "metres",
    ):
        after = j + 2 + (tokens.word(j + 1) == ".")
        return "count", "sqft" if tokens.word(after - 1) != "m" else "sqm", after
    if word in _COUNT_UNITS:
        return "count", _COUNT_UNITS[word], j + 1
    if word in _COUNT_ADJECTIVES and tokens.word(j + 1) in _COUNT_UNITS and j == i:
        return "count", _COUNT_UNITS[tokens.word(j + 1)], j + 2  # "40 loose units", "15 single units"
    if word in ("feet", "ft") and j == i:
        return "count", "feet", j + 1  # "2,000 feet": floor area only beside a rent per foot per year
    if (
        word == "h"
        and j == i
        and tokens.glued(j)
        and tokens.word(j - 1) != "/"
        and tokens.kinds[j - 1] == "d"
    ):
        return "duration", "hours", j + 1  # "(8h)", "a 40h week" (not "90/h")
    if word in _GLUED_YEARS and j == i and tokens.glued(j) and tokens.kinds[j - 1] == "d":
        return "duration", "years", j + 1  # "lease 5y", "2y + 2y option" (chat shorthand)
    if word in ("parking",) and tokens.word(j + 1) in ("spaces", "spots", "stalls"):
        return "count", "spaces", j + 2
    return None, None, i


# -- the reader -----------------------------------------------------------------------------------------
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")
_DAY_MONTH = re.compile(r"(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])")
_DATE_BEFORE = frozenset({"bis", "ab", "am", "vom", "zum", "until", "till", "by", "from", "on", "due"})


def _is_date_or_identifier(tokens: _Tokens, i: int, after: int, currency: bool, tail: bool = False) -> bool:
    """Whether the figure at tokens[i:after] names a date, a year, an identifier, a time or a phone number."""
    if currency:
        return False
    before = tokens.word(i - 1)
    if tokens.kinds[i] == "d":
        raw = tokens.words[i]
        if tokens.glued(i) and tokens.kinds[i - 1] == "w" and before not in _CODES_BEFORE:
            # "yr1", "Q3", "v2": a figure glued after Latin letters labels something; after letters of
            # another script ("Ж2,000") it is not read at all, so a check that needs it holds it unread
            return True
        if tokens.glued(after) and tokens.kinds[after] == "w" and not tokens.word(after).isascii():
            return True  # "1Ж": letters of another script glued to the figure
        if before in (",", ".") and tokens.glued(i) and tokens.glued(i - 1) and tokens.kinds[i - 2] == "w":
            return True  # "ЖЖ,000", "k,000": the rest of a figure whose head is no digit
        if tokens.glued(after) and tokens.word(after) in ("x", "×") and not tokens.glued(after + 1):
            return True  # "1.25x", "2×": a factor, not an amount
        grouped = _GROUPED.fullmatch(raw) is not None  # "11,000": written as an amount, not a label
        if (
            before in _IDENTIFIERS
            and not grouped
            and not tokens.breaks[i]
            and not _period_price(before, raw)
            and not _rate_label(tokens, i, after)
            and not _negotiated_noun(tokens, i - 1)
        ) or before in (
            "#",
            "№",
            "+",
        ):
            return True
        if (
            before in ("is", ":", "was")
            and tokens.word(i - 2) in ("number", "no", "nr", "#", "id")
            and not _negotiated_noun(tokens, i - 2)
        ):
            return True  # "The suite number is 1100" (not "our first number was 102")
        if before == "-" and tokens.glued(i) and tokens.glued(i - 1) and tokens.word(i - 2) in _IDENTIFIERS:
            return True  # "net-30", "Suite-210"
        if _street_address(tokens, after):
            return True  # "4400 Industrial Pkwy"
        if (before == "." and tokens.word(i - 2) in ("no", "nr")) or (before in ("'",) and tokens.glued(i)):
            return True
        day_or_year = len(raw) == 4 or (len(raw) <= 2 and raw.isdigit() and int(raw) <= 31)
        if not grouped and (
            before in _MONTHS
            or tokens.word(after) in _MONTHS
            or (before == "," and tokens.word(i - 2) in _MONTHS and day_or_year)
        ):
            return True
        if (
            _DAY_MONTH.fullmatch(raw)
            and tokens.word(after) == "."
            and tokens.glued(after)
            and before in _DATE_BEFORE
        ):
            return True  # "gültig bis 31.12.": a day and a month, German style
        if i >= 3 and before == "," and tokens.kinds[i - 2] == "d" and tokens.word(i - 3) in _MONTHS:
            return True  # "January 15, 2027"
        nxt = tokens.word(after)
        if (
            nxt in ("/", ":", ".")
            and tokens.glued(after)
            and after + 1 < len(tokens)
            and tokens.kinds[after + 1] == "d"
            and tokens.glued(after + 1)
        ):
            return True  # 03/01, 9:30
        if before in ("/", ":") and tokens.glued(i) and i >= 2 and tokens.kinds[i - 2] == "d":
            return True
        if (
            nxt == "-"
            and tokens.glued(after)
            and after + 2 < len(tokens)
            and tokens.kinds[after + 1] == "d"
            and tokens.word(after + 2) == "-"
            and tokens.glued(after + 2)
        ):
            return True  # 2027-01-20, 555-123-4567
        if (
            nxt == "-"
            and tokens.glued(after)
            and after + 1 < len(tokens)
            and tokens.kinds[after + 1] == "w"
            and tokens.glued(after + 1)
            and len(tokens.words[after + 1]) == 1
        ):
            return True  # 4417-B
        if before == "-" and tokens.glued(i) and i >= 2 and tokens.kinds[i - 2] == "d" and not tail:
            return True  # the rest of 2025-11-03 or 555-867-5309 once its head was refused
        if nxt == "(" and tokens.word(after + 1) in ("k", "b") and tokens.word(after + 2) == ")":
            return True  # 401(k)
        if nxt in ("st", "nd", "rd", "th", "s") and tokens.glued(after):
            return True  # "the 3rd", "the low 90s"
        if len(raw) <= 2 and nxt in (".", ")") and tokens.glued(after) and _list_number(tokens, i, after):
            return True  # "1. $92K base" on a line of its own
        if nxt in _CLOCK or (nxt == "." and tokens.word(after + 1) == "m"):
            return True
        if raw.isdigit() and len(raw) == 4 and 1900 <= int(raw) <= 2100:
            unit_kind, _, _ = _unit_after(tokens, after)
            nxt = tokens.word(after)
            return (
                unit_kind is None
                and nxt not in _SUFFIX_SCALES
                and nxt not in _CURRENCY_AFTER
                and nxt not in _SYMBOLS
                and nxt not in _CENT_WORDS
            )
        if tokens.word(after) in _PERCENT:
            return True
        if (
            before in _PERCENT
            and tokens.word(after) == "net"
            and tokens.kinds[min(after + 1, len(tokens) - 1)] == "d"
        ):
            return True  # "2% 10 net 30": a discount for paying within 10 days
    return False


# Words before "number" or "floor" that make it a figure of the negotiation, not a label: "our first
# number was 102", "my number is 95", "absolute floor 72", "hard floor 85" (set v8).
_NEGOTIATED = frozenset(
    {
        *("our", "my", "your", "their", "first", "second", "third", "final", "last", "best", "new"),
        *("next", "opening", "target", "absolute", "hard", "soft", "firm", "price", "rate", "bottom"),
    }
)


def _negotiated_noun(tokens: _Tokens, k: int) -> bool:
    """Whether the "number" or "floor" at token k is a figure of the negotiation (see _NEGOTIATED)."""
    return tokens.word(k) in ("number", "floor") and tokens.word(k - 1) in _NEGOTIATED


def _rate_label(tokens: _Tokens, i: int, after: int) -> bool:
    """Whether a figure after a period word is the price that period labels: "per"/"a" before the
    period word and a currency after the figure ("Rent per year 120.000 €", not "per week 3")."""
    return tokens.word(i - 2) in ("per", "a", "/", "pro") and (
        tokens.word(after) in _CURRENCY_AFTER or tokens.word(after) in _SYMBOLS
    )


def _period_price(before: str, raw: str) -> bool:
    """Whether a figure after a period word is a price, not the period's number: cents after it ("this
    year 11.80", not "week 48" or "year 3")."""
    return (
        before in ("year", "week", "month", "quarter", "day")
        and re.fullmatch(r"\d+[.,]\d\d", raw) is not None
    )


_STREET_TYPES = frozenset(
    {
        "st",
        "street",
        "ave",
        "avenue",
        "blvd",
        "boulevard",
        "rd",
        "road",
        "dr",
        "drive",
        "ln",
        "lane",
        "way",
        "pkwy",
        "parkway",
        "hwy",
        "highway",
        "ct",
        "court",
        "pl",
        "place",
        "plaza",
        "terrace",
        "straße",
        "strasse",
        "str",
        "weg",
        "allee",
    }
)


def _street_address(tokens: _Tokens, after: int) -> bool:
    """Whether the figure ending before token `after` is a house number: one to three capitalised
    words follow it, the last a street type ("4400 Industrial Pkwy", "12 Main Street")."""
    for k in range(after, min(after + 3, len(tokens))):
        if tokens.kinds[k] != "w" or not tokens.text[tokens.starts[k]].isupper():
            return False
        if k > after and tokens.words[k] in _STREET_TYPES:
            return True
    return False


_PHONE_WORDS = frozenset(
    {"call", "phone", "tel", "telephone", "fax", "mobile", "cell", "whatsapp", "ring", "dial"}
)
_PHONE_JOINS = frozenset({"-", ".", "(", ")", "/"})


def _phone_end(tokens: _Tokens, i: int) -> int | None:
    """The token after a phone number starting at token i, or None: digit groups joined by spaces,
    hyphens, dots or brackets after a "+" ("+44 20 7946 0958") or a phone word ("call (415) 555-0199")."""
    start = i - 1 if tokens.word(i - 1) == "(" else i
    before = tokens.word(start - 1)
    if tokens.kinds[i] != "d" or not (
        (before == "+" and tokens.glued(start))
        or (before in _PHONE_WORDS or (before == ":" and tokens.word(start - 2) in _PHONE_WORDS))
    ):
        return None
    k, groups = i, 0
    while k < len(tokens) and groups < 8:
        if tokens.kinds[k] == "d" and tokens.words[k].isdigit():
            groups += 1
            k += 1
        elif tokens.words[k] in _PHONE_JOINS and k + 1 < len(tokens) and not tokens.breaks[k + 1]:
            k += 1
        else:
            break
    return k if groups >= 2 or (before == "+" and groups == 1) else None


def _list_number(tokens: _Tokens, i: int, after: int) -> bool:
    """Whether the figure at i opens a line as a list number ("1.", "2)") followed by a space."""
    line_start = i == 0 or "\n" in tokens.text[tokens.ends[i - 1] : tokens.starts[i]]
    return line_start and after + 1 < len(tokens) and not tokens.glued(after + 1)


@dataclass(slots=True)
class _Reading:
    low: float
    high: float
    start_token: int
    end_token: int
    currency: str | None = None
    per: str | None = None
    unit_kind: str | None = None
    unit: str | None = None
    scaled: bool = False
    spelled: bool = False
    scale_factor: float = 1.0
    alternative: tuple[float, float] | None = None
    figure_end_token: int = -1


def _single(tokens: _Tokens, i: int, tail: bool = False) -> _Reading | None:
    """One figure (no range) at token i with its currency, multiplier and cents."""
    currency: str | None = None
    j = i
    word = tokens.word(j)
    if word in _SYMBOLS:
        currency, j = _SYMBOLS[word], j + 1
    elif word in _CODES_BEFORE and tokens.kinds[j] == "w":
        nxt = tokens.word(j + 1)
        if word == "us" and nxt == "$":
            currency, j = "USD", j + 2
        elif word != "us" and j + 1 < len(tokens) and (tokens.kinds[j + 1] == "d" or nxt in _SYMBOLS):
            currency, j = _CODES_BEFORE[word], j + 1
            if tokens.word(j) in _SYMBOLS:
                j += 1
    if j >= len(tokens):
        return None
    number = _number_at(tokens, j)
    if number is None:
        return None
    value, alternative, after, word_scale, spelled = number
    factor, after = _scale_after(tokens, after, currency is not None, spelled)
    counted = 1.0
    if factor == 1.0 and currency is None:
        counted, after = _count_scale_after(tokens, after)
    value *= factor * counted
    scale_factor = max(factor, word_scale)
    scaled = scale_factor > 1.0
    if factor != 1.0:
        alternative = None
    if tokens.kinds[j] == "d" and _is_date_or_identifier(
        tokens, j, after, currency is not None or scaled, tail
    ):
        return None
    per_slash = _per_slash(tokens, after)  # "68 p/h": "p/" is "per", no pence
    if (
        currency is None
        and not scaled
        and tokens.word(after) in _CENT_WORDS
        and value == int(value)
        and not per_slash
    ):
        # "95 cents", "ninety-nine cents", "1280 cents", "80p"
        currency = "GBP" if tokens.word(after) in ("pence", "p") else "USD"
        if tokens.word(after) == "p" and not tokens.glued(after):
            return None
        value, after, alternative = value / 100.0, after + 1, None
    elif currency is None:
        found, after2 = _currency_after(tokens, after)
        if found is not None:
            currency, after = found, after2
            if tokens.word(after - 1) in ("dollars", "dollar", "bucks", "euros", "euro", "buck"):
                cents, after = _cents_after(tokens, after)
                value += cents
    else:
        if tokens.word(after) in ("dollars", "usd", "bucks"):
            after += 1
        if not scaled and value == int(value) and tokens.word(after) == "and":
            cents, after = _cents_after(tokens, after)  # "$12 and 40 cents"
            value += cents
    return _Reading(
        value,
        value,
        i,
        after,
        currency,
        scaled=scaled,
        spelled=spelled,
        scale_factor=scale_factor,
        alternative=(alternative, alternative) if alternative is not None else None,
        unit_kind="count" if counted != 1.0 else None,  # "2 dozen", "ten gross of": a count
        unit="units" if counted != 1.0 else None,
    )


def _range_second(tokens: _Tokens, first: _Reading, between: bool) -> _Reading | None:
    """The second end of a range after first: "-100K", "to $9k", "and 11 dollars" (after "between")."""
    j = first.end_token
    word = tokens.word(j)
    to_words = _RANGE_TO_WORDS if _RANGE_SCALES else ("to",)
    if not (
        word in _RANGE_DASHES or word in to_words or (word in ("and", "und") and between)
    ) or j + 1 >= len(tokens):
        return None
    return _single(tokens, j + 1, tail=True)


# The low end of a range takes the multiplier of its high end (sixteenth round, the form of sets v13-v15's
# errors: "85 bis 90 Tausend", "between eight and nine hundred units"): "bis" joins a range like "to",
# and a spelled low end below the hundreds of a spelled "N hundred" high end counts hundreds too.
# `_RANGE_SCALES` off is `range_scales` in the measure's --ablation.
_RANGE_SCALES = True
_RANGE_TO_WORDS = ("to", "bis")


def _spelled_hundreds_low(first: _Reading, second: _Reading) -> bool:
    """Whether first, a spelled whole number, is the hundreds of a range up to second, a spelled "N
    hundred" below a thousand with no multiplier: "between eight and nine hundred" (800 to 900), not
    "between two and two hundred" (2 to 200)."""
    if not (_RANGE_SCALES and first.spelled and second.spelled) or first.scaled or second.scaled:
        return False
    hundreds = second.high / 100.0
    return (
        hundreds == int(hundreds)
        and 2 <= hundreds <= 9
        and first.low == int(first.low)
        and 1 <= first.low < hundreds
    )


def _chain_last(tokens: _Tokens, second: _Reading) -> _Reading:
    """The last figure of "X to Y to Z ..." (at most five steps), from the second figure."""
    last = second
    for _ in range(4):
        if tokens.word(last.end_token) != "to":
            break
        step = _single(tokens, last.end_token + 1, tail=True)
        if step is None:
            break
        last = step
    return last


def _typed_like(first: _Reading, last: _Reading) -> tuple[_Reading, int]:
    """first as one value typed like the last step of its move or sequence (its currency, and its
    multiplier when first is small enough to be written without it): (first, the token where the rate
    or unit of the last step is looked for)."""
    if first.currency is None:
        first.currency = last.currency
    if not first.scaled and last.scaled and first.low <= 20 * last.high / last.scale_factor:
        first.low *= last.scale_factor
        first.high *= last.scale_factor
        first.scaled, first.scale_factor, first.alternative = True, last.scale_factor, None
    return first, last.end_token


# "Could we up the order from 3,000 to 3,600?": "up" as a verb of change before "from ... to", two values
# as after "raise" or "upped" (the form "<verb> ... from X to Y" as a move is labelled two values by
# writers v6, v13, v14, v16 and v18). Switched off in tests/governance/measure_amounts_cv.py --ablation
# (`up_as_verb`).
_UP_AS_VERB = True


def _range_or_step(tokens: _Tokens, i: int, first: _Reading, step: bool) -> tuple[_Reading, int]:
    """A range that starts with first ("$90-100K", "between 9 and 11 dollars"), or first alone: (the
    reading, the token where its rate or unit is looked for). After a verb of change ("went from 36 to
    48 months") or in a sequence ("85k to 90k to 93k") first is one value typed like the last step."""
    before = tokens.word(i - 1)
    between = before in ("between", "zwischen")
    from_ = before == "from"
    reading = first
    dash_glued = tokens.word(first.end_token) in _RANGE_DASHES
    if from_ and tokens.word(first.end_token) in ("down", "up") and tokens.word(first.end_token + 1) == "to":
        # a move, never a range: "from 48 down to 36 months", "from $7,900 down to $7,600"
        moved = _single(tokens, first.end_token + 2, tail=True)
        return (first, first.end_token) if moved is None else _typed_like(first, _chain_last(tokens, moved))
    second = _range_second(tokens, first, between)
    if second is None:
        return first, first.end_token
    change = from_ and any(
        tokens.word(k) in _CHANGE_VERBS or (_UP_AS_VERB and tokens.word(k) in ("up", "ups", "upping"))
        for k in range(max(0, i - 6), i - 1)
    )
    to = tokens.word(first.end_token) == "to"
    if to and (step or change or tokens.word(second.end_token) == "to"):
        # a change or a sequence: each figure is one value, typed like the last one ("from 36 to 48
        # months", "from 9,000 to 11,000 units", "from $92k to $96k")
        return _typed_like(first, _chain_last(tokens, second))
    if change or (dash_glued and first.spelled != second.spelled):
        return first, first.end_token
    low, high = first.low, second.high
    if not first.scaled and second.scaled and second.scale_factor > 1.0:
        base = second.high / second.scale_factor
        if low <= base:
            low *= second.scale_factor
    elif first.scaled and not second.scaled and first.scale_factor > 1.0 and second.high < first.low:
        high *= first.scale_factor
    elif _spelled_hundreds_low(first, second):
        low *= 100.0
    if low > high:
        return first, first.end_token
    alternative = None
    if second.alternative is not None and first.alternative is None and low <= second.alternative[0]:
        # "between two and two-fifty": the spoken end reads 250 or 2.50, the range 2 to 250 or 2 to 2.50
        alternative = (low, second.alternative[1])
    reading = _Reading(
        low,
        high,
        i,
        second.end_token,
        first.currency or second.currency,
        scaled=first.scaled or second.scaled,
        spelled=first.spelled and second.spelled,
        scale_factor=max(first.scale_factor, second.scale_factor),
        alternative=alternative,
    )
    return reading, reading.end_token


def _read(tokens: _Tokens, i: int, step: bool = False) -> _Reading | None:
    """The amount starting at token i, or None.

    `step`: the figure follows "to" right after another figure ("from 85k to 90k to 93k"), so it is one
    step of a sequence, not the low end of a range.
    """
    first = _single(tokens, i)
    if first is None:
        return None
    reading, look = _range_or_step(tokens, i, first, step)
    # what follows: a rate, or what is counted
    reading.figure_end_token = reading.end_token
    own = look == reading.end_token  # the rate or unit follows the reading itself (not a later step)
    rate, divisor, after = _rate_after(tokens, look)
    if rate is not None:
        reading.per = rate
        reading.low /= divisor
        reading.high /= divisor
        reading.end_token = after if own else reading.end_token
        if reading.alternative is not None:
            reading.alternative = (reading.alternative[0] / divisor, reading.alternative[1] / divisor)
        return reading
    unit_kind, unit, after = _unit_after(tokens, look)
    if unit_kind is not None and reading.currency is None:
        reading.unit_kind, reading.unit = unit_kind, unit
        if tokens.word(after - 1) in _DECADES:  # "a decade" is ten years, "two decades" twenty
            reading.low, reading.high = reading.low * 10.0, reading.high * 10.0
        if own:
            reading.end_token = after
            rate, divisor, after = _rate_after(tokens, after)
            if rate is not None and rate != "unit":
                reading.end_token = after
        return reading
    if reading.currency is None and own:
        nxt = tokens.word(reading.end_token)
        if nxt in _PERCENT:
            return None
        if (
            (tokens.kinds[reading.end_token] == "w" if reading.end_token < len(tokens) else False)
            and nxt.isalpha()
            and len(nxt) > 2
            and nxt.endswith("s")
            and not nxt.endswith("ss")
            and nxt
            not in (
                "is",
                "was",
                "has",
                "does",
                "this",
                "plus",
                "yes",
                "thus",
                "as",
                "us",
                "its",
                "less",
                "tops",
                "maximum",
                *(("works", "sounds", "seems") if _SPOKEN_FIGURES else ()),  # "one twenty works for me"
                # verbs of a price or a sum ("A dozen costs $30", "2,000 comes to $9,800")
                "costs",
                "sells",
                "goes",
                "comes",
                "runs",
                "totals",
                "equals",
                "amounts",
                "adds",
                "means",
            )
            and (not reading.scaled or reading.scale_factor >= 1e6)  # "half a million bars"
        ):
            reading.unit_kind, reading.unit = "count", nxt
            reading.end_token += 1
    return reading


def _inherit(previous: Amount, reading: _Reading) -> _Reading | None:
    """A bare figure after a typed amount takes its unit, rate and scale ("4 years, but could do 3")."""
    value = reading.high
    if previous.scaled and not reading.scaled and previous.high >= 1000 and value < 1000:
        factor = 1000.0 if previous.high < 1e6 else 1e6
        value *= factor
    if not (previous.high / 20 <= value <= previous.high * 20) and not (
        previous.low / 20 <= value <= previous.low * 20
    ):
        return None
    scale = value / reading.high if reading.high else 1.0
    return _Reading(
        reading.low * scale,
        reading.high * scale,
        reading.start_token,
        reading.end_token,
        previous.currency,
        previous.per,
        previous.kind if previous.kind in ("count", "duration") else None,
        previous.unit,
        scaled=previous.scaled or reading.scaled,
        spelled=reading.spelled,
    )


def _starts_amount(tokens: _Tokens, i: int) -> bool:
    kind, word = tokens.kinds[i], tokens.words[i]
    if kind == "d" or word in _SYMBOLS:
        return True
    if kind != "w":
        return False
    return (
        word in _ONES
        or word in _TENS
        or word in _GERMAN_ONES
        or (word in _ROMANCE_ONES and tokens.word(i + 1) in _TIME_UNITS)
        or word in ("a", "half", "quarter", "hundred")
        or word in _CODES_BEFORE
    )


def _amount(tokens: _Tokens, reading: _Reading, inherited: bool = False) -> Amount:
    start, end = tokens.starts[reading.start_token], tokens.ends[reading.end_token - 1]
    if reading.currency is not None or (reading.per is not None and reading.unit_kind is None):
        kind: AmountKind = "money"
    elif reading.unit_kind == "duration":
        kind = "duration"
    elif reading.unit_kind == "count":
        kind = "count"
    else:
        kind = "number"
    low, high = round(reading.low, 6), round(reading.high, 6)
    figure_end = (
        tokens.ends[max(reading.figure_end_token, reading.start_token + 1) - 1]
        if reading.figure_end_token > 0
        else end
    )
    return Amount(
        low,
        high,
        kind,
        start,
        end,
        tokens.text[start:end],
        reading.currency,
        reading.per if kind == "money" else None,
        reading.unit,
        reading.scaled,
        reading.alternative,
        inherited,
        min(figure_end, end),
        (kind == "duration" and _incidental(tokens, reading.start_token, reading.end_token))
        or (kind in ("money", "number") and _delta(tokens, reading.start_token, reading.end_token))
        or (kind == "count" and _packed(tokens, reading.start_token))
        or (
            kind == "number"
            and tokens.word(reading.start_token - 1) == "of"
            and _packed(tokens, reading.start_token)
        )
        or (
            kind == "number"
            and not reading.scaled
            and _counts_items(tokens, reading.start_token, reading.end_token)
        ),
    )


_FREQUENCY_BEFORE = {"every", "each", "per", "remaining", "after", "first"}
# A duration added to another as an option (issue 14, set v6): "if extended, another twelve", "Option auf
# weitere 5 Jahre", "a further 2 years": an extension of the term, not the term.
_EXTENSION_BEFORE = frozenset({"another", "further", "additional", "weitere", "weiteren", "ulteriori"})
_SPAN_BEFORE = {"last", "past", "previous"}  # after "the": "the last 3 years" (not "anything past 8 weeks")
_SPAN_AFTER = {
    "left",
    "remaining",
    "ago",
    "old",
    "overdue",
    "behind",
    "earlier",
    "later",
    "prior",
    "since",
    "notice",  # "30 days' notice"
}


_OPTIONS_AFTER = frozenset({"option", "options"})  # "2 five-year options": options on the term, not it
_RENEWING = frozenset(
    {"renew", "renewal", "renewed", "renewable", "extend", "extended", "extendable", "extension", "option"}
)


def _counts_items(tokens: _Tokens, start: int, end: int) -> bool:
    """Whether a small bare whole number counts the things a hyphenated duration after it describes ("2
    five-year options", "3 two-week sprints"): a count of options, not a figure of a term."""
    number = _number_at(tokens, end) if end < len(tokens) else None
    if number is None or number[3] > 1.0:
        return False
    after = number[2]
    return tokens.word(after) == "-" and tokens.glued(after) and tokens.word(after + 1) in _TIME_UNITS


def _incidental(tokens: _Tokens, start: int, end: int) -> bool:
    """Whether a duration is a frequency or a span of something else, not a term ("every 2 years",
    "the last 3 years", "14 months left", "two years ago")."""
    before = tokens.word(start - 1)
    if before in _SPAN_BEFORE:
        return tokens.word(start - 2) in ("the", "these", "those")
    after = tokens.word(end)
    if after == "in" and tokens.word(end + 1) == "advance":
        return True  # "payable 3 months in advance"
    if after == "rent" and tokens.word(end + 1) == "-":
        after, end = "free" if tokens.word(end + 2) == "free" else after, end + 2
    elif after == "rent" and tokens.word(end + 1) == "free":
        after, end = "free", end + 1
    if after == "free":
        # "12 months free", "9 months rent-free", "6 months rent free": a rent-free period, unless a term
        # word follows it ("3 months free lease" names the term)
        return tokens.word(end + 1) not in _TERM_NOUNS
    if before in ("for", "by") and tokens.word(start - 2) in _RENEWING:
        return True  # "an option to renew for 24", "extendable by 12 months": an option on the term
    if (
        after in ("renewal", "extension", "break")
        or after in _OPTIONS_AFTER
        or (after == "-" and tokens.word(end + 1) == "renewal")
    ):
        return True  # "a one-year renewal option", "a 2-year break clause": an option on the term, not it
    if after == "of" and tokens.word(end + 1) == "free":
        return True  # "6 months of free rent"
    if after == "of" and tokens.word(end + 1) == "notice":
        return True  # "12 months of notice": a notice period, not a term
    if after == "of" and tokens.word(end - 1) in _DECADES:
        return True  # "a decade of experience": a span of something else
    if before in _EXTENSION_BEFORE:
        return True  # "another 12 months", "a further 2 years": an extension of the term
    return before in _FREQUENCY_BEFORE or after in _SPAN_AFTER


# A sum added to or taken off another (set v7): "$3,000 more", "5k extra", "an extra $2,000", "a raise of
# $4,000", "$500 on top": the change, not the value of a term.
_DELTA_AFTER = frozenset({"more", "extra", "less", "additional"})
_DELTA_NOUNS = frozenset(
    {"raise", "increase", "bump", "increment", "reduction", "cut", "discount", "decrease"}
)


def _delta(tokens: _Tokens, start: int, end: int) -> bool:
    """Whether a money figure is a change of another ("$3,000 more", "an extra 2k", "a raise of $4,000")."""
    after = tokens.word(end)
    if after in _DELTA_AFTER and tokens.word(end + 1) not in ("than", "per", "a", "an", "each"):
        return True
    if after == "on" and tokens.word(end + 1) == "top":
        return True
    before = tokens.word(start - 1)
    if before in ("extra", "additional") and tokens.word(start - 2) in ("an", "another"):
        return True
    return before in ("of", "by") and tokens.word(start - 2) in _DELTA_NOUNS


_TERM_NOUNS = frozenset({"lease", "term", "tenancy", "contract", "agreement"})
_HOLDING_VERBS = frozenset({"holds", "contains", "takes", "fits", "carries", "has", "hold", "contain", "of"})


def _packed(tokens: _Tokens, start: int) -> bool:
    """Whether a count is what one package holds ("the carton holds 50 pieces", "a box of 24 units"):
    a package word and a verb of holding (or "of") right before it."""
    verb = tokens.word(start - 1)
    if verb not in _HOLDING_VERBS:
        return False
    return any(
        tokens.word(k) in _PACKAGES or tokens.word(k).rstrip("s") in _PACKAGES for k in (start - 2, start - 3)
    )


def _context_rate(word: str) -> str | None:
    if word in (
        "monthly",
        "hourly",
        "yearly",
        "annually",
        "annual",
        "weekly",
        "monatlich",
        "jährlich",
        "wkly",
        "mthly",
        "yrly",
        "hrly",
        "daily",
        *_FOREIGN_RATE_WORDS,
    ):
        return _RATE_ADVERBS[word]
    for prefix, rate in _CONTEXT_PREFIXES:
        if word.startswith(prefix) and len(word) > len(prefix) + 2:
            return rate
    return None


MAX_READ_CHARS = 100_000
"""Longest prefix of a text the reader reads (five times the preflight's size limit,
`normalize.DEFAULT_MAX_CHARS`, so a text the preflight accepts is always read whole)."""
MAX_READ_TOKENS = 20_000
"""Most tokens (figures, words, signs) read from one text; the rest is not read. A text within the
preflight's limit has at most that many tokens (a token is at least one character)."""


def find_amounts(text: str) -> list[Amount]:
    """Every value mention in text, in order, with spans into text (see the module docstring).

    Spelled-out numbers count when a currency, rate, unit or scale word goes with them ("ninety-five
    thousand", "eighteen months", "twelve dollars") or when they follow a typed amount in the same
    sentence ("four months' security, but could accept three"); bare digits always count.

    The text is read as a person sees it (`amount_text.fold`: fullwidth and other scripts' digits,
    Latin lookalikes, zero-width and control characters removed), with spans into the text as given.
    Only the first `MAX_READ_CHARS` characters and `MAX_READ_TOKENS` tokens are read, so the work is
    bounded on any input; callers that must fail closed refuse longer texts first (the preflight
    refuses texts over `normalize.DEFAULT_MAX_CHARS`, well inside both bounds). Never raises.
    """
    if not isinstance(text, str) or not text:  # pyright: ignore[reportUnnecessaryIsInstance]
        return []
    folded, offsets = fold(text[:MAX_READ_CHARS])
    found = _find(folded)
    if folded is text or (not offsets.shifts and len(folded) == len(text) and folded == text):
        return found
    out: list[Amount] = []
    for amount in found:
        start, end = offsets.start(amount.start), offsets.end(amount.end)
        figure_end = offsets.end(amount.figure_end)
        out.append(replace(amount, start=start, end=end, text=text[start:end], figure_end=figure_end))
    return out


def unreadable_figures(text: str) -> list[str]:
    """Figures of money the reader cannot read, so a check that needs them must hold them unread (fail
    closed) rather than absent: digits beside a currency ("$1,2,3", "€12,34,56") or a multiplier
    ("1,2,3k") whose separators fit no convention, and digit runs longer than a float holds exactly
    ("$" and 400 nines). Each is given as written, cut to 40 characters; linear in the text (the first
    `MAX_READ_CHARS` characters, as `find_amounts` reads). Never raises.

    Args:
        text: The text to read.

    Returns:
        The unreadable figures in text order (empty when every figure reads).
    """
    return _unreadable(text, glued=False)


def unreadable_or_glued_figures(text: str) -> list[str]:
    """`unreadable_figures`, and in the same walk the figures glued to a letter outside the Latin script
    ("Ж150,000", "1Ж50,000", "9号,500"), which the reader takes for part of a word, so a check would miss
    them; each glued figure is given with its letters as written. Linear; never raises.

    Args:
        text: The text to read (normalised: a Latin lookalike is already folded to its letter).

    Returns:
        The unreadable and the glued figures in text order (empty when every figure reads).
    """
    return _unreadable(text, glued=True)


def _non_latin(word: str) -> bool:
    return any(c.isalpha() and not c.isascii() for c in word)


def _glued_figure(tokens: _Tokens, i: int) -> str | None:
    """The digits at token i with the non-Latin letters glued to either side of them, or None."""
    before = tokens.glued(i) and tokens.kinds[i - 1] == "w" and _non_latin(tokens.words[i - 1])
    after = tokens.glued(i + 1) and tokens.kinds[i + 1] == "w" and _non_latin(tokens.words[i + 1])
    if not (before or after):
        return None
    return (tokens.words[i - 1] if before else "") + tokens.words[i] + (tokens.words[i + 1] if after else "")


def _unreadable(text: str, *, glued: bool) -> list[str]:
    if not isinstance(text, str) or not text:  # pyright: ignore[reportUnnecessaryIsInstance]
        return []
    folded, _ = fold(text[:MAX_READ_CHARS])
    tokens = _tokenise(folded)
    found: list[str] = []
    for i, (word, kind) in enumerate(zip(tokens.words, tokens.kinds, strict=True)):
        stuck = _glued_figure(tokens, i) if glued and kind == "d" else None
        if stuck is not None:
            found.append(stuck[:40])
            continue
        mixed = _mixed_figure(tokens, i) if kind == "d" else None
        if mixed is not None:
            found.append(mixed[:40])
            continue
        if kind != "d" or _digits_value(word) is not None:
            continue
        after = tokens.word(i + 1)
        money = (
            tokens.word(i - 1) in _SYMBOLS
            or tokens.word(i - 1) in _CODES_BEFORE
            or after in _SYMBOLS
            or after in _CURRENCY_AFTER
            or after in _SUFFIX_SCALES
        )
        if money or sum(c.isdigit() for c in word) > _MOST_DIGITS:
            found.append(word[:40])
    return found


_LOOKALIKE_LETTERS = frozenset({"l", "i", "o", "s", "b", "z", "g"})  # letters written for digits


def _mixed_figure(tokens: _Tokens, i: int) -> str | None:
    """A money figure whose digits are mixed with letters at token i, as written, or None: a letter that
    stands for a digit between a currency sign and the digits ("$l20,000"), or letters between digits
    after a currency sign ("$1e5", "$4k2"); neither reads as one figure, so a check must hold it unread."""
    before = tokens.word(i - 1)
    if (
        i >= 2
        and before in _LOOKALIKE_LETTERS
        and tokens.glued(i)
        and tokens.glued(i - 1)
        and tokens.word(i - 2) in _SYMBOLS
    ):
        return tokens.text[tokens.starts[i - 1] : tokens.ends[i]]
    letters = tokens.word(i + 1)
    if (
        before in _SYMBOLS
        and tokens.glued(i)
        and i + 2 < len(tokens)
        and tokens.kinds[i + 1] == "w"
        and len(letters) <= 2
        and tokens.glued(i + 1)
        and tokens.kinds[i + 2] == "d"
        and tokens.glued(i + 2)
    ):
        return tokens.text[tokens.starts[i] : tokens.ends[i + 2]]
    return None


def _per_digits(tokens: _Tokens, k: int) -> float | None:
    """A count of units in digits at token k after "per", closed by a verb or a colon ("per 1,000 is",
    "per 100:"): the count, or None."""
    number = _number_at(tokens, k) if k < len(tokens) and tokens.kinds[k] == "d" else None
    if number is None or number[0] < 10 or number[0] != int(number[0]):
        return None
    after = number[2]
    if tokens.word(after) in _COUNT_UNITS and tokens.word(after) not in ("sqft", "sf", "spaces", "stalls"):
        after += 1 + (tokens.word(after + 1) == ".")  # "Per 1000 Stk.: 1.450,00 €" (sets v11, v12)
    return number[0] if tokens.word(after) in (":", "is", "=", "at") else None


def _prefixed_multiple(tokens: _Tokens, i: int) -> tuple[str, float] | None:
    """The multiple of a period a rate word at token i names with a hyphenated prefix before it
    ("Bi-weekly paycheck", "semi-monthly pay": 2 weeks, half a month), or None."""
    if tokens.word(i - 1) != "-":
        return None
    return _MULTIPLE_ADVERBS.get(tokens.word(i - 2) + tokens.words[i])


def _context_at(tokens: _Tokens, i: int) -> tuple[str, float] | None:
    """The rate a word at token i gives the figures after it in its sentence, with its divisor
    ("Monthly I'd want $9k", "Rent per month: $9,000", "Die Jahresmiete beträgt", "Quarterly rent of
    27,000", "Price per thousand pieces: $2,300"), or None ("2% per week" gives none)."""
    word = tokens.words[i]
    if (
        word in ("annual", "annually", "yearly")
        and tokens.word(i - 1) == "-"
        and tokens.word(i - 2) in ("semi", "bi", "half")
    ):
        return "month", 6.0  # "semi-annual rent", "Half-yearly payment of 30,000"
    prefixed = _prefixed_multiple(tokens, i)
    if prefixed is not None:
        return prefixed
    rate = _context_rate(word)
    if rate is not None:
        return rate, 1.0
    if word in _DAY_RATE_WORDS:
        return "day", 1.0  # "Tagessatz 680 € bei 8 Stunden" (a pay per day, sets v13 and v14)
    if word in _MULTIPLE_ADVERBS:
        return _MULTIPLE_ADVERBS[word]
    if word in ("day", "hour", "week", "month", "year") and tokens.word(i + 1) == "rate":
        return _PERIODS.get(word, word), 1.0  # "Day rate 720", "Month rate: 9,000"
    if word in _WHOLE_PERIOD_NOUNS:
        whole = _whole_period(tokens, i + 1, label=True)
        if whole is not None and tokens.word(whole[2]) in (",", ":", "is", "comes", "totals", "was"):
            return whole[:2]  # "Rent for a year, paid upfront: $84,000"
    if word == "year" and (_year_label(tokens, i + 1) or _ordinal_year(tokens, i)):
        return "year", 1.0  # a label: "Year one: $90,000; year-two rent $62.4k" (each year's sum)
    if word == "half" and tokens.word(i + 1) == "-" and tokens.word(i + 2) == "year":
        return "month", 6.0  # "Half-year rent comes to 57,000"
    if word == "every":  # a label: "Rent every 3 months: 30,000" (not "reviews every 2 years")
        periods = _periods_at(tokens, i + 1)
        return periods[:2] if periods is not None and tokens.word(periods[2]) == ":" else None
    if word not in _PER_WORDS or tokens.kinds[i - 1 if i > 0 else 0] == "d" or tokens.word(i - 1) in _PERCENT:
        return None
    if tokens.word(i + 1) in _PERIODS:
        return _PERIODS[tokens.word(i + 1)], 1.0
    if tokens.word(i + 1) in _MULTIPLE_PERIODS:
        return _MULTIPLE_PERIODS[tokens.word(i + 1)]  # "Rent per quarter is $27,600", "Price per dozen: $18"
    if tokens.word(i + 1) in ("hundred", "thousand") and tokens.word(i + 2) in (":", "is", "=", "-", "at"):
        return "unit", 100.0 if tokens.word(i + 1) == "hundred" else 1000.0  # "Price per hundred: $42"
    digits = _per_digits(tokens, i + 1)
    if digits is not None:
        return "unit", digits  # "price per 1,000 is $2,300", "Per 100: $85"
    counted = _per_count(tokens, i + 1)
    return ("unit", counted[0]) if counted is not None else None


_ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "final", "last", "1st", "2nd", "3rd"})


# After "first year": a sum's name, or a verb of a sum ("Rent for the first year totals $72,000").
_YEAR_SUM_FOLLOWERS = frozenset({"rent", "salary", "pay", "miete", "totals", "comes", "amounts"})


def _ordinal_year(tokens: _Tokens, i: int) -> bool:
    """Whether the "year" at token i is one year of several named by an ordinal before it and a sum's
    name after it ("First year rent comes to $66,000", "first-year rent totals $84,000")."""
    k = i - 1 - (tokens.word(i - 1) == "-" and tokens.glued(i))
    following = tokens.word(i + 1)
    return tokens.word(k) in _ORDINALS and (following == ":" or following in _YEAR_SUM_FOLLOWERS)


def _year_label(tokens: _Tokens, k: int) -> bool:
    """Whether tokens from k name one year of several ("Year one:", "year-two rent", "Year 2 rent")."""
    if tokens.word(k) == "-" and tokens.glued(k):
        k += 1
    if not (
        tokens.word(k) in _ONES or (tokens.kinds[min(k, len(tokens) - 1)] == "d" and len(tokens.word(k)) == 1)
    ):
        return False
    following = tokens.word(k + 1)
    return following == ":" or following in ("rent", "price", "salary", "pay", "fee", "miete")


# A price per hundred or per thousand followed by a clause rather than a full stop ("$6.50 per hundred if
# you take rolls", "$350 per thousand for 10k+", sets v15 and v17; "$250 per hundred." of set v8 was read
# before): the spelled count ends its phrase at any word that neither continues the number nor names a
# currency. The French article names the same rate before a count of units ("18 500 € les 1 000 unités",
# set v13): "les"/"le" then a count of ten or more and a noun of units. A switch of the measure's
# --ablation (`per_scale_clause`).
_PER_SCALE_CLAUSE = True
_PER_SCALE_NOT_FOLLOWING = frozenset({*_SCALES, "hundred", "and", "-"})
_PER_ARTICLES = frozenset({"les", "le"})
_ARTICLE_UNITS = frozenset({*_COUNT_UNITS, "unités", "unites", "unité", "pièces", "pieces", "pièce", "pcs"})


def _per_article(tokens: _Tokens, j: int) -> tuple[str, float, int] | None:
    """A French price per count of units at token j ("les 1 000 unités", "le mille pièces"): ("unit",
    the count, index after), or None ("le 12 mars" names a date, no count)."""
    if not _PER_SCALE_CLAUSE or tokens.word(j) not in _PER_ARTICLES:
        return None
    k = j + 1
    number = _number_at(tokens, k) if k < len(tokens) and tokens.kinds[k] in ("d", "w") else None
    if number is None and tokens.word(k) in ("cent", "mille"):
        number = (100.0 if tokens.word(k) == "cent" else 1000.0, None, k + 1, 1.0, True)
    if number is None or number[0] < 10 or tokens.word(number[2]) not in _ARTICLE_UNITS:
        return None
    return "unit", number[0], number[2] + 1


def _spelled_count_ends(tokens: _Tokens, k: int, following: str) -> bool:
    """Whether "hundred" or "thousand" at token k ends its phrase ("$250 per hundred.", and with
    `_PER_SCALE_CLAUSE` "$350 per thousand for 10k+": no number, currency or "and" after it)."""
    if tokens.word(k) not in ("hundred", "thousand"):
        return False
    if following in (".", ",", ";", "!", "?", "", "\n"):
        return True
    return (
        _PER_SCALE_CLAUSE
        and following.isalpha()
        and following not in _PER_SCALE_NOT_FOLLOWING
        and following not in _ONES
        and following not in _TENS
        and following not in _CURRENCY_AFTER
    )


def _per_count(tokens: _Tokens, k: int) -> tuple[float, int] | None:
    """A number of units at token k after "per" ("thousand units", "1,000 pieces", "hundred bars"):
    (the number, index after), or None."""
    number = _number_at(tokens, k) if k < len(tokens) and tokens.kinds[k] in ("d", "w") else None
    if number is None and tokens.word(k) in (*_SCALES, "hundred"):
        number = (_SCALES.get(tokens.word(k), 100.0), None, k + 1, 1.0, True)
    if number is None or number[0] < 2:
        return None
    following = tokens.word(number[2])
    if _spelled_count_ends(tokens, k, following):
        return number[0], number[2]  # "$250 per hundred." (a spelled count that ends the phrase)
    if following in _COUNT_UNITS or (
        following.isalpha()
        and len(following) > 3
        and following.endswith("s")
        and following not in _TIME_UNITS
    ):
        return max(number[0], 1.0), number[2] + 1
    return None


def _spelled_price(tokens: _Tokens, reading: _Reading, after_price: bool = False) -> _Reading | None:
    """Spelled dollars then spelled cents with a currency or rate after them ("thirteen ninety-five per
    unit"), or with nothing after them right after such a price ("eight forty a unit now, eight twenty if
    you pay upfront": `after_price`), from the bare dollars' reading; None when no such cents follow."""
    if not (0 < reading.high < 100 and reading.low == reading.high):
        return None
    following = tokens.word(reading.end_token)
    if following not in _TENS and following not in _ONES:
        return None
    cents = _read(tokens, reading.end_token)
    if (
        cents is None
        or not cents.spelled
        or cents.scaled
        or not 10 <= cents.high < 100
        or cents.low != cents.high
        or (cents.per is None and cents.currency is None and not after_price)
        or cents.unit_kind is not None
    ):
        return None
    value = reading.high + cents.high / 100.0
    end = cents.end_token
    return _Reading(value, value, reading.start_token, end, cents.currency, cents.per, spelled=True)


def _word_state(
    tokens: _Tokens, i: int, lump: int, context: tuple[tuple[str, float] | None, int]
) -> tuple[int, tuple[str, float] | None, int]:
    """After the word at token i: the last noun of a sum paid once or of another cost, and the rate its
    sentence gives the figures after it with the token of a rate word that stands on its own ("monthly
    that's 5,500"; a "per" phrase closes the figure before it: "2 days at home per week, 25 PTO days")."""
    if tokens.kinds[i] != "w":
        return lump, *context
    named = _context_at(tokens, i)
    return (
        i if _lump_sum(tokens, i) else lump,
        context[0] if named is None else named,
        context[1] if named is None or tokens.words[i] == "per" else i,
    )


def _per_count_end(tokens: _Tokens, i: int, context: tuple[str, float] | None) -> int | None:
    """The token after the count of a "per" phrase that gave its sentence the rate context ("price per
    1,000 is $2,300": the 1,000 is the rate's divisor, no figure of its own), or None."""
    if context is None or context[0] != "unit" or tokens.kinds[i] != "d":
        return None
    number = _number_at(tokens, i)
    return number[2] if number is not None and number[0] == context[1] else None


# Words that may join a figure to the next one of a list of offers ("two, three or four months",
# "ninety-six, maybe ninety-eight thousand"), in order, each at most once.
_LIST_JOINS = ((",",), ("or",), ("maybe", "perhaps", "possibly"))


def _compared_next(tokens: _Tokens, k: int) -> bool:
    """Whether a figure follows at token k as the next one of a list ("one or two months", "two, three or
    four months", "ninety-six, maybe ninety-eight thousand"): the figure after may type it. A lone comma
    joins a spelled figure to a spelled one only ("two, three or four months"), never to digits."""
    j = k
    for words in _LIST_JOINS:
        if tokens.word(j) in words:
            j += 1
    if j == k or j >= len(tokens) or not _starts_amount(tokens, j):
        return False
    return tokens.word(k) != "," or j > k + 1 or tokens.kinds[j] == "w"


_SPELLED_HUNDREDS_FROM = 100.0  # a bare spelled number of three words or more above this is read


# A figure written to the cent ("list is 11.20") after a figure with a multiplier ("10k units") is a price,
# not that many thousands of the figure's unit, when a price written to the cent came before them ("9.90
# if you commit to 10k units; list is 11.20"; but "1.5k units, then 2.25 next quarter" is 2,250 units):
# the money carry-over of set v15, `money_carry`.
_CENT_FIGURE = re.compile(r"[0-9]{1,3}\.[0-9]{2}")
_CENTS_NOT_SCALED = True


def _cents_figure(tokens: _Tokens, reading: _Reading) -> bool:
    """Whether a reading opens with a figure written to the cent ("11.20", "9.90 per unit")."""
    return _CENTS_NOT_SCALED and _CENT_FIGURE.fullmatch(tokens.words[reading.start_token]) is not None


def _find(text: str) -> list[Amount]:
    tokens = _tokenise(text)
    found: list[tuple[Amount, int, int]] = []  # each amount with its first token and the token after it
    n = len(tokens)
    i = 0
    context: tuple[str, float] | None = None
    previous: Amount | None = None
    previous_token = -1
    carried: Amount | None = None  # the typed amount of the sentence before, for a bare answer
    asked = False  # that sentence ended with "?"
    last_end = -2  # the token after the last amount found
    # the last lump-sum noun read; whether a price written to the cent was read ("9.90 ... 10k units; 11.20")
    lump, cents_seen = -1, False
    context_token = -1  # where the sentence's rate word stands
    while i < n:
        if tokens.breaks[i] and not (tokens.kinds[i] == "p" and tokens.words[i] in _SENTENCE_ENDS):
            # one boundary for a run of marks ("deposit?? we can do 2", "really?! 88")
            asked, carried, context, previous = (
                "?" in (tokens.word(i - 1), tokens.word(i - 2)),
                previous,
                None,
                None,
            )
        elif tokens.word(i - 1) == ";":
            context = None  # "The annual contract is worth $1.2M; the unit price is $12.00."
        if not _starts_amount(tokens, i):
            lump, context, context_token = _word_state(tokens, i, lump, (context, context_token))
            i += 1
            continue
        phone = (
            _phone_end(tokens, i)
            if tokens.word(i - 1) not in _PER_WORDS
            else _per_count_end(tokens, i, context)
        )
        if phone is not None:
            i = phone  # a phone number, or the count of a rate phrase ("price per 1,000 is $2,300")
            continue
        reading = _read(tokens, i, step=last_end == i - 1 and tokens.word(i - 1) == "to")
        if reading is None:  # a number word that reads as none may still set the rate ("Half-year rent")
            lump, context, context_token = _word_state(tokens, i, lump, (context, context_token))
            i += 1
            continue
        reading, bare = _priced(tokens, reading, previous)
        # a figure another cost names ("a lump sum of $10,000", "the fit-out is 20,000", "a $5,000 deposit")
        # takes neither the sentence's rate nor the type of the money before it; later figures still may
        lump_named = (lump >= max(last_end, 0) and _names_figure(tokens, lump, i)) or _lump_after(
            tokens, reading.end_token
        )
        source = (
            _source(tokens, reading, (previous, previous_token), carried, asked)
            # a rate word between the typed figure and this one types it instead ("Annual: €66,000;
            # monthly that's 5,500")
            if _may_inherit(tokens, reading, bare, lump_named, previous)
            and not (context is not None and context_token > max(last_end, previous_token))
            else None
        )
        inherited = (
            _inherit(source, reading)
            if source is not None
            and not reading.scaled
            and not _own_tier(tokens, reading, source)
            and not (source.scaled and cents_seen and _cents_figure(tokens, reading))
            else None
        )
        if inherited is not None:
            found.append((_amount(tokens, inherited, inherited=True), reading.start_token, reading.end_token))
            last_end = previous_token = reading.end_token
            i = max(reading.end_token, i + 1)
            continue
        if (
            bare
            and reading.spelled
            and not reading.scaled
            and not (context is not None and tokens.word(i - 1) == ":")
            and not (reading.high >= 200 and reading.end_token - reading.start_token >= 2)  # "eight hundred"
            # "a hundred and ten" (not "a hundred", "one hundred": idioms as often as figures)
            and not (reading.high > _SPELLED_HUNDREDS_FROM and reading.end_token - reading.start_token >= 3)
            # compared with the figure after it, which may type it ("one or two months deposit"), unless
            # it labels a point in time ("year one, two months thereafter")
            and not (
                _compared_next(tokens, reading.end_token)
                and tokens.word(reading.start_token - 1) not in _POINT_IN_TIME
            )
        ):
            # "one quick question", "no one" (not a label's answer: "per hour: seventy-four"); the word
            # may still give the sentence its rate ("Half-year rent comes to 57,000")
            lump, context, context_token, i = (
                *_word_state(tokens, i, lump, (context, context_token)),
                max(reading.end_token, i + 1),
            )
            continue
        if context is not None and not lump_named:
            _apply_context(reading, context, bare)
        amount = _amount(tokens, reading)
        found.append((amount, reading.start_token, reading.end_token))
        last_end, cents_seen = (
            reading.end_token,
            cents_seen or (amount.kind in ("money", "number") and _cents_figure(tokens, reading)),
        )
        if amount.kind != "number" or amount.scaled:
            previous, previous_token = amount, reading.end_token
        i = max(reading.end_token, i + 1)
    return _rent_multiples(
        tokens.text,
        _half_durations(
            tokens.text,
            _compound_durations(tokens.text, _bounded_ranges(tokens.text, _type_compared(tokens, found))),
        ),
    )


# (issue 14, sets v12 and v13) a sum counted in months of rent written as a multiple of the monthly rent
# ("2.5x monthly rent", "deposit = 3x monthly") or in quarters of it ("one quarter's rent": 3 months; not
# "a quarter of the rent", a fraction).
# Flat patterns over bounded gaps.
_RENT_TIMES = re.compile(
    r"\b(\d{1,2}(?:[.,]\d{1,2})?)[ \t]{0,2}[x×][ \t]{0,3}(?:the[ \t]{1,3})?"
    r"(?:monthly(?:[ \t]{1,3}rent)?|months?['’]?s?[ \t]{1,3}rent|rent)\b",
    re.IGNORECASE,
)
_QUARTERS_RENT = re.compile(
    r"\b(a|one|two|three|four|1|2|3|4)[ \t]{1,3}quarters?['’]?s?[ \t]{1,3}rent\b",
    re.IGNORECASE,
)


def _count_of_phrase(amount: Amount) -> bool:
    """Whether a reading inside a multiple of the rent is only its count ("two", "two quarters")."""
    return amount.kind == "number" or (amount.kind == "count" and amount.unit == "quarters")


_COUNT_OF_PHRASE: Callable[[Amount], bool] = _count_of_phrase
_QUARTER_COUNTS = {"a": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0}


def _rent_multiples(text: str, found: list[Amount]) -> list[Amount]:
    """found with each multiple of the monthly rent that no other reading covers added as months."""
    starts = [a.start for a in found]
    added: list[Amount] = []
    for pattern in (_RENT_TIMES, _QUARTERS_RENT):
        for m in pattern.finditer(text):
            k = bisect.bisect_left(starts, m.end()) - 1
            # a bare number word inside the phrase is its count ("two quarters' rent"), read here
            if (
                k >= 0
                and found[k].end > m.start()
                and not (_COUNT_OF_PHRASE(found[k]) and found[k].start >= m.start())
            ):
                continue
            word = m.group(1).lower()
            if pattern is _QUARTERS_RENT:
                value = 3.0 * _QUARTER_COUNTS.get(word, 0.0) if not word.isdigit() else 3.0 * float(word)
            else:
                value = float(word.replace(",", "."))
            if 0 < value <= 24:
                added.append(
                    Amount(
                        value,
                        value,
                        "duration",
                        m.start(),
                        m.end(),
                        m.group(),
                        unit="months",
                        figure_end=m.end(),
                    )
                )
    if not added:
        return found
    covered = [(a.start, a.end) for a in added]
    kept = [
        a for a in found if not (a.kind == "number" and any(s <= a.start and a.end <= e for s, e in covered))
    ]
    return sorted([*kept, *added], key=lambda a: a.start)


# One period and a fraction: "a month and a half", "one year and a half", "a month and a quarter"
# (1.5 or 1.25 of the unit); a flat pattern.
_AND_A_HALF = re.compile(
    r"\b(?:an?|one)[ \t]{1,3}(year|month|week)[ \t]{1,3}and[ \t]{1,3}a[ \t]{1,3}(half|quarter)\b", re.I
)


def _half_durations(text: str, found: list[Amount]) -> list[Amount]:
    """found with each "a month and a half" (which no other reading covers) added, in order."""
    starts = [a.start for a in found]  # in order and apart, so one bisection finds an overlap
    added: list[Amount] = []
    for m in _AND_A_HALF.finditer(text):
        k = bisect.bisect_left(starts, m.end()) - 1
        if k >= 0 and found[k].end > m.start():
            continue
        unit = m.group(1).lower() + "s"
        value = 1.5 if m.group(2).lower() == "half" else 1.25
        added.append(
            Amount(value, value, "duration", m.start(), m.end(), m.group(), unit=unit, figure_end=m.end())
        )
    return sorted([*found, *added], key=lambda a: a.start) if added else found


# One duration written in two units: "2 years and 6 months", "1 year, 3 months", "three months and two
# weeks"; the larger unit first, the smaller one less than one of it.
_COMPOUND_GAP = re.compile(r"[ \t]{0,3}(?:,[ \t]{0,3})?(?:and[ \t]{1,3})?")
_UNIT_ORDER = {"years": 4, "months": 3, "weeks": 2, "days": 1}
_UNIT_SIZE = {"years": 12.0, "months": 52.0 / 12.0, "weeks": 7.0}  # of the next smaller unit, at most


def _compound_durations(text: str, found: list[Amount]) -> list[Amount]:
    """found with each duration in two units joined into one, in the smaller unit."""
    out: list[Amount] = []
    for amount in found:
        last = out[-1] if out else None
        if (
            last is not None
            and last.kind == amount.kind == "duration"
            and not last.is_range
            and not amount.is_range
            and not last.incidental
            and not amount.incidental
            and last.unit in _UNIT_SIZE
            and amount.unit in _UNIT_ORDER
            and _UNIT_ORDER[last.unit] == _UNIT_ORDER[amount.unit] + 1
            and 0 < amount.high < _UNIT_SIZE[last.unit]
            and amount.start > last.end
            and _COMPOUND_GAP.fullmatch(text, last.end, amount.start) is not None
            and text[last.end : amount.start].strip()
        ):
            head = convert_duration(last.high, last.unit, amount.unit)
            if head is not None:
                value = round(head + amount.high, 6)
                out[-1] = replace(
                    amount, low=value, high=value, start=last.start, text=text[last.start : amount.end]
                )
                continue
        out.append(amount)
    return out


# A lower bound right before a figure and an upper bound between it and the next one: "no less than 24
# months and no more than 60", "at least $70/hr but at most $80/hr", "a minimum of 3 years, a maximum of
# 5". Flat patterns over a bounded window (a figure's 24 characters before it, the gap up to 40).
_LOWER_BOUND = re.compile(
    r"\b(?:(?:no|not)[ \t]+(?:less|fewer|lower|shorter)[ \t]+than|at[ \t]+least|(?:a[ \t]+)?minimum[ \t]+of"
    r"|min\.?)[ \t]{0,3}$",
    re.IGNORECASE,
)
_UPPER_BOUND_GAP = re.compile(
    r"[ \t]{0,3},?[ \t]{0,3}(?:(?:and|but|or)[ \t]{1,3})?(?:(?:no|not)[ \t]+(?:more|higher|longer|greater)"
    r"[ \t]+than|at[ \t]+most|(?:a[ \t]+)?maximum[ \t]+of|max\.?|up[ \t]+to)[ \t]{0,3}",
    re.IGNORECASE,
)
_BOUND_GAP = 40  # characters between the two figures


def _bounded_ranges(text: str, found: list[Amount]) -> list[Amount]:
    """Merge a figure after a lower-bound phrase with the next figure after an upper-bound phrase into
    one range ("no less than 24 months and no more than 60" is 24 to 60 months): the bare end takes the
    typed end's type. Figures of different types, or an upper end below the lower, stay apart."""
    out: list[Amount] = []
    k = 0
    while k < len(found):
        low = found[k]
        high = found[k + 1] if k + 1 < len(found) else None
        if (
            high is None
            or low.is_range
            or high.is_range
            or high.high < low.low
            or high.start - low.end > _BOUND_GAP
            or _LOWER_BOUND.search(text, max(0, low.start - 24), low.start) is None
        ):
            out.append(low)
            k += 1
            continue
        gap = _UPPER_BOUND_GAP.match(text, low.end)
        typed = low if low.kind != "number" else high
        other = high if typed is low else low
        compatible = other.kind == "number" or (
            other.kind == typed.kind
            and other.unit == typed.unit
            and other.per in (None, typed.per)
            and other.currency in (None, typed.currency)
        )
        if gap is None or gap.end() != high.start or not compatible or low.incidental or high.incidental:
            out.append(low)
            k += 1
            continue
        out.append(
            replace(
                typed,
                low=low.low,
                high=high.high,
                start=low.start,
                end=high.end,
                text=text[low.start : high.end],
                scaled=low.scaled or high.scaled,
                alternative=None,
                inherited=False,
                figure_end=high.figure_end,
            )
        )
        k += 2
    return out


# Nouns of a sum paid once or of another cost: after a figure has taken a sentence's rate ("Annual rent of
# $60,000"), such a noun ends that rate and the figure a later bare one would take its unit from ("plus a
# $5,000 deposit", "and a lump sum of 10,000", "the fit-out is 20,000").
_OTHER_COSTS = (
    # Costs and sums beside the terms under negotiation, one word each: the lump-sum nouns of the reader
    # (`_LUMP_SUM_WORDS`) and the other money of attribution (`_OTHER_MONEY`) both start from these.
    *("bonus", "signing", "relocation", "stipend", "allowance", "equipment", "fitout", "parking"),
    *("shipping", "freight", "fee", "fees", "penalty", "deposit", "tooling", "setup", "commission"),
    *("training", "travel", "insurance", "utilities", "rebate", "discount", "credit", "equity", "grant"),
    *("stock", "rsu", "rsus", "shares"),
)
# The reader's tokens split "fit-out" and "sign-on" at the hyphen: "fit" and "sign" stand for them.
_LUMP_SUM_WORDS = frozenset({*_OTHER_COSTS, "sign", "fit", "lump", "upfront", "once", "kaution"})
_HALF_NOUNS = {
    "sign": "on",
    "fit": "out",
}  # the first halves of "sign-on" and "fit-out", read with the second


def _lump_sum(tokens: _Tokens, i: int) -> bool:
    """Whether the word at token i names a sum paid once or another cost ("deposit", "fee", "one-time",
    "lump sum"): "one-time" and "one-off" are read as three tokens."""
    word = tokens.words[i]
    if word in _HALF_NOUNS:  # "sign-on", "fit out"; not "we'd sign for seven", "a good fit"
        return tokens.word(i + 1) in ("-", _HALF_NOUNS[word])
    if word in _LUMP_SUM_WORDS:
        return True
    return word in ("time", "off") and tokens.word(i - 1) == "-" and tokens.word(i - 2) == "one"


def _lump_after(tokens: _Tokens, j: int) -> bool:
    """Whether a lump-sum noun names the figure ending before token j ("$5,000 deposit", "2,000 one-time
    fee", "$3k signing bonus"): within the two words after it."""
    k = j
    for _ in range(2):
        if k >= len(tokens) or tokens.kinds[k] != "w" or tokens.breaks[k]:
            return False  # a comma or another figure ends it ("Annual rent: $66,000, deposit of $11,000")
        if tokens.word(k) == "one" and tokens.word(k + 1) == "-":
            k += 2
        if _lump_sum(tokens, k):
            return True
        k += 1
    return False


_POINT_IN_TIME = frozenset({"year", "month", "week", "day", "quarter"})  # "at year five", "from month 6"


def _may_inherit(
    tokens: _Tokens, reading: _Reading, bare: bool, lump_named: bool, previous: Amount | None
) -> bool:
    """Whether a reading may take the type of an amount before it: a bare figure that counts no noun of
    its own ("and 5 reserved parking spaces") and is not named another cost after money."""
    if not bare or _counts_own_noun(tokens, reading.end_token):
        return False
    if tokens.word(reading.start_token - 1) in _POINT_IN_TIME:
        return False  # "a break at year five", "from month 6": a point in time, not a length
    if tokens.word(reading.start_token - 1) == "of" and _packed(tokens, reading.start_token):
        return False  # "a box of 40 is $480": what a package holds, not a price like the one before
    return not (lump_named and previous is not None and previous.kind in _NAMED_NOT_INHERITED)


# The kinds of amount whose type a figure named by another cost or sum does not take: money ("a lump sum of
# 10,000" after a salary) and durations ("Lease 5 years; deposit is 3", "Term 5 years, fit-out 40": the 3
# is no lease term of 36 months; a spurious term misread, 2026-11-29).
_NAMED_NOT_INHERITED = frozenset({"money", "duration"})


# What joins a price to the quantity of its own tier: "6.85 at 10k", "6.85 for 10k", "2.15 (5k)".
_TIER_JOINS = frozenset({"at", "for", "@", "("})


def _own_tier(tokens: _Tokens, reading: _Reading, source: Amount) -> bool:
    """Whether a bare figure written to the cent is the price of a tier whose own quantity follows it
    ("$7.10 per unit for 5k, or 6.85 for 10k", "Quote: 2.40 (1k), 2.15 (5k)"): parallel to the price of
    the tier before, it takes no unit or multiplier from that tier's quantity (6.85 is no 6,850 units)."""
    if source.kind != "count" and not (source.kind == "number" and source.scaled):
        return False
    end = reading.end_token
    if tokens.word(end) not in _TIER_JOINS or end + 1 >= len(tokens) or tokens.kinds[end + 1] != "d":
        return False
    start = tokens.starts[reading.start_token]
    return _CENTS_SHAPE.search(tokens.text[start : tokens.ends[end - 1]]) is not None


def _names_figure(tokens: _Tokens, k: int, i: int) -> bool:
    """Whether the noun at token k names the figure at token i after it: in its sentence, with at most two
    words between them ("deposit of 5,000", "lump sum of $10,000", "fit-out is 20,000", "bonus: 8k")."""
    if i - k > 8 or any(tokens.breaks[g] for g in range(k + 1, i + 1)):
        return False
    return sum(tokens.kinds[g] == "w" for g in range(k + 1, i)) <= 2


# Words that may stand between a figure and the noun it counts ("5 reserved parking spaces", "3 more
# senior engineers"): none of them is a connector, a rate or a unit.
_COUNT_STOPS = frozenset(
    {
        "and",
        "or",
        "but",
        "if",
        "is",
        "was",
        "be",
        "for",
        "at",
        "to",
        "on",
        "in",
        "of",
        "with",
        "by",
        "max",
        "maximum",
        "minimum",
        "tops",
        "then",
        "instead",
        "than",
        "not",
        "more",
        "less",
        "per",
        "a",
        "an",
        "the",
        "would",
        "could",
        "should",
        "will",
        "can",
        "we",
        "i",
        "you",
        "they",
        "it",
        "that",
        "this",
        "plus",
        "as",
        "so",
        "from",
        "up",
        "down",
        "now",
        "only",
        "just",
        "each",
        "every",
    }
)


def _counts_own_noun(tokens: _Tokens, j: int) -> bool:
    """Whether a bare figure ending before token j counts a noun of its own ("and 5 reserved parking
    spaces", "2 new hires"): one or two content words then a plural noun (not a time unit) within its
    clause. Such a figure takes no unit from an amount before it."""
    for k in range(j, j + 3):
        word = tokens.word(k)
        if tokens.kinds[k] != "w" if k < len(tokens) else True:
            return False
        if word in _COUNT_STOPS or word in _TIME_UNITS or word in _PERIODS or word in _RATE_ADVERBS:
            return False
        if k > j and len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            return True
    return False


def _after_spelled_price(previous: Amount | None) -> bool:
    """Whether the amount before is a price per unit with cents, so spelled dollars and cents after it
    are a price too ("eight forty a unit now, eight twenty if you pay upfront")."""
    return previous is not None and previous.per == "unit" and previous.high != int(previous.high)


_PRICE_NOUNS = frozenset({"price", "cost", "costs", "priced", "quote", "quoted", "preis"})


def _price_named_before(tokens: _Tokens, start: int) -> bool:
    """Whether a price noun stands within the four tokens before a figure, not a year's "in" or "since"
    right before it ("Per-unit cost of nineteen ninety-nine", "Unit price: eight forty")."""
    if tokens.word(start - 1) in ("in", "since", "from", "until", "by"):
        return False
    return any(tokens.word(k) in _PRICE_NOUNS for k in range(max(start - 4, 0), start))


def _priced(tokens: _Tokens, reading: _Reading, previous: Amount | None = None) -> tuple[_Reading, bool]:
    """The reading, or spelled dollars and cents read as one price ("thirteen ninety-five per unit"),
    and whether it is bare (no currency, rate or unit). After a spelled price with cents in the same
    sentence (previous), spelled dollars and cents need nothing after them."""
    bare = reading.currency is None and reading.per is None and reading.unit_kind is None
    if bare and reading.spelled and not reading.scaled:
        after_price = _after_spelled_price(previous) or _price_named_before(tokens, reading.start_token)
        priced = _spelled_price(tokens, reading, after_price)
        if priced is not None:
            return priced, False
    return reading, bare


def _apply_context(reading: _Reading, context: tuple[str, float], bare: bool) -> None:
    """Give a reading with no rate or unit of its own the rate of a word before it in its sentence (a
    price per so many units only to a figure with a currency)."""
    priced = context[0] == "unit" and context[1] != 1.0
    if not (reading.currency is not None or ((reading.scaled or bare) and not priced)):
        return
    if reading.per is not None or reading.unit_kind is not None:
        return
    per, divisor = context
    if per == "hour" and reading.scaled and reading.high >= 1000.0:
        return  # "the hourly equivalent of 104k": no pay per hour is written in thousands
    reading.per = per
    reading.low, reading.high = reading.low / divisor, reading.high / divisor
    if reading.alternative is not None:
        reading.alternative = (reading.alternative[0] / divisor, reading.alternative[1] / divisor)


def _source(
    tokens: _Tokens,
    reading: _Reading,
    previous: tuple[Amount | None, int],
    carried: Amount | None,
    asked: bool,
) -> Amount | None:
    """The typed amount a bare reading takes its unit from: the previous one of its sentence, joined to
    it by a connector ("4 years, but could do 3"), or the last one of the sentence before when the reading
    answers it ("100/h. 88?"); None."""
    amount, token = previous
    if amount is not None:
        near = reading.start_token - token <= _INHERIT_WINDOW
        joined = any(tokens.words[k] in _CONNECTORS for k in range(token, reading.start_token))
        return amount if near and joined else None
    if (
        carried is not None
        and reading.start_token - token <= _CARRY_WINDOW
        and _answers(tokens, reading, asked)
    ):
        return carried
    return None


def _answers(tokens: _Tokens, reading: _Reading, asked: bool) -> bool:
    """Whether a bare figure in the sentence after a typed one answers it: the figure alone ("100/h.
    88?"), or after a question ("a 60-month lease? too long for us, we'd sign 36"), ending its clause
    (not "2 of our contractors")."""
    after = tokens.word(reading.end_token)
    ends = reading.end_token >= len(tokens) or after in _SENTENCE_ENDS or after in (",", ";", "!")
    alone = tokens.breaks[reading.start_token] and (
        reading.end_token >= len(tokens) or after in _SENTENCE_ENDS
    )
    return alone or (asked and (ends or after in _CONNECTORS))


_CENTS_SHAPE = re.compile(r"\d[.,]\d\d$")


def _type_compared(tokens: _Tokens, read: list[tuple[Amount, int, int]]) -> list[Amount]:
    """Bare figures compared with a typed one that follows ("2.60 vs 2.30 vs 2.45 per unit", "71 or 76
    per hour", "3 or 4 years") take its type, from the last to the first; one pass. `read`: each amount
    with its first token and the token after it."""
    found = [amount for amount, _, _ in read]
    spans = [(start, end) for _, start, end in read]
    for k in range(len(found) - 2, -1, -1):
        bare, typed = found[k], found[k + 1]
        # a figure that took the type of one before it is retyped by the one it is compared with right
        # after it ("3 years, they want 5, options are 42 or 48 months": 42 months, not years)
        retyped = (
            bare.inherited and bare.kind == typed.kind and (bare.unit, bare.per) != (typed.unit, typed.per)
        )
        if (bare.kind != "number" and not retyped) or bare.scaled or (bare.inherited and not retyped):
            continue
        if typed.kind == "number":
            continue
        if typed.kind == "money" and typed.per is None:
            continue  # a currency alone says nothing of the figure before it
        gap = range(spans[k][1], spans[k + 1][0])
        if len(gap) > _COMPARE_GAP or any(tokens.breaks[g] for g in (*gap, spans[k + 1][0])):
            continue
        if not any(tokens.words[g] in _COMPARING for g in gap):
            continue
        if not (typed.low / 3 <= bare.high <= typed.high * 3) or typed.is_range:
            continue
        if any(tokens.kinds[g] == "d" for g in gap):
            continue  # another figure stands between them ("5.75, net 30, 6 wks")
        if typed.kind in ("duration", "count") and _CENTS_SHAPE.search(bare.text) is not None:
            continue  # a figure written to the cent is a price, not a time or a count ("2.90 and 8 weeks")
        found[k] = replace(bare, kind=typed.kind, per=typed.per, unit=typed.unit, currency=typed.currency)
    return found


# -- conversion -----------------------------------------------------------------------------------------
_PER_YEAR = {"year": 1.0, "month": 12.0, "week": 52.0}
_DURATION_MONTHS = {"years": 12.0, "months": 1.0, "weeks": 12.0 / 52.0}
_DURATION_WEEKS = {"years": 52.0, "months": 52.0 / 12.0, "weeks": 1.0, "days": 1.0 / 7.0}
_DURATION_DAYS = {"years": 365.0, "months": 30.0, "weeks": 7.0, "days": 1.0}
_DURATION_TABLES = {
    "months": _DURATION_MONTHS,
    "weeks": _DURATION_WEEKS,
    "days": _DURATION_DAYS,
    "years": {"years": 1.0, "months": 1 / 12.0},
}


def convert_rate(value: float, per: str, to: str) -> float | None:
    """A money rate per `per` expressed per `to` ($10,000 a month is $120,000 a year), or None.

    Converts among week, month and year (52 weeks and 12 months a year); hour, day and unit convert
    only to themselves.
    """
    if per == to:
        return value
    if per in _PER_YEAR and to in _PER_YEAR:
        return value * _PER_YEAR[per] / _PER_YEAR[to]
    return None


def convert_duration(value: float, unit: str, to: str) -> float | None:
    """A duration in `unit` ("years", "months", "weeks", "days") expressed in `to`, or None.

    Years become months (×12) or weeks (×52); days convert to weeks and days only.
    """
    table = _DURATION_TABLES.get(to)
    if table is None or unit not in table:
        return None
    return value * table[unit]


# -- attribution ----------------------------------------------------------------------------------------
# Money that is not the term under negotiation when named right beside it ("a $5,000 signing bonus").
_OTHER_MONEY = (
    *_OTHER_COSTS,
    *("sign-on", "fit-out", "fit out", "move-in", "set-up", "per diem", "service charge", "charges", "cam"),
    "payroll",
    *("ti", "tenant improvement", "improvement allowance"),
    *("worth", "nebenkosten", "in total", "total", "overall"),
)
_EXTRA_KEYWORDS = {
    "year": (
        "salary",
        "per year",
        "annual",
        "annually",
        "a year",
        "base",
        "offer",
        "offered",
        "asking",
        "package",
        "k",
        # what a candidate earns now or asks for: "I'm at 76,400 now", "currently on 81,500", "want 100"
        *("currently", "i'm at", "i am at", "im at", "looking for", "want"),
        *("earn", "earns", "earned", "earning", "earnings"),  # "In 2026 she earned 91,000"
    ),
    "hour": ("hourly", "an hour", "per hour", "rate", "/hr", "/h"),
    "unit": ("unit", "each", "piece", "price", "per unit", "a unit", "unit price", "cost", "paid", "quoted"),
    "month": ("rent", "monthly", "a month", "per month", "miete"),
}
_LOT_WORDS = (
    *("lot of", "batch", "shipment", "consignment", "forecast", "call-off", "call-offs"),
    *("po", "purchase order"),  # "first PO 40,000": a purchase order is a number of units
)
_TERM_EXTRA_KEYWORDS = {
    "deposit": ("deposit", "security", "months' rent", "month's rent", "kaution"),
    "lease_term": ("lease", "term", "years", "renewal"),
    "order_volume": (
        *("units", "order", "run", "quantity", "volume", "ship", "pcs", "moq", "qty"),
        *("need", "another", "a further", "additional"),  # "we need 5,000 now and another 5,000 in Q2"
        # a lot or a forecast is a number of units ("the lot of 3,000 costs $16,500", "forecast 1 million")
        *_LOT_WORDS,
    ),
}
_KEYWORD_REACH = 80  # characters


@dataclass(frozen=True, slots=True)
class _Keywords:
    positions: dict[str, list[int]]  # term name → sorted keyword offsets (and "_other")


def _keyword_offsets(text: str, phrases: Iterable[str], offsets: Offsets | None = None) -> list[int]:
    """Sorted offsets of the phrases in text (mapped back through offsets when text was folded)."""
    lowered = text.lower()
    found: list[int] = []
    for phrase in {p.lower() for p in phrases if p}:
        pattern = re.compile(
            (r"\b" if phrase[0].isalnum() else "")
            + re.escape(phrase)
            + (r"\b" if phrase[-1].isalnum() else "")
        )
        found += [m.start() for m in pattern.finditer(lowered)]
    found.sort()
    return found if offsets is None or not offsets.shifts else [offsets.start(p) for p in found]


def _nearest(offsets: Sequence[int], position: int, low: int, high: int) -> int | None:
    """Distance from position to the nearest offset within [low, high), or None."""
    k = bisect.bisect_left(offsets, position)
    best: int | None = None
    for index in (k - 1, k):
        if 0 <= index < len(offsets) and low <= offsets[index] < high:
            distance = abs(offsets[index] - position)
            best = distance if best is None or distance < best else best
    return best


def _band(term: BoundaryTerm) -> tuple[float, float] | None:
    low, high = term.minimum, term.maximum
    if low is None and high is None:
        return None
    if low is None:
        assert high is not None
        low = high / 4.0
    if high is None:
        high = low * 4.0
    return max(low, 1e-9), max(high, 1e-9)


def _misfit(term: BoundaryTerm, value: float) -> float:
    """How far value lies outside the term's band, as a log ratio (0 inside; 1 is a factor of e)."""
    band = _band(term)
    if band is None or value <= 0:
        return 0.0 if band is None else 10.0
    low, high = band
    if low <= value <= high:
        return 0.0
    return abs(math.log(value / (low if value < low else high)))


def _convert(term: BoundaryTerm, amount: Amount) -> tuple[float, float, bool] | None:
    """amount in the term's unit: (low, high, whether the unit was written), or None if it cannot be."""
    unit = term.unit or ""
    if term.kind == "money":
        if amount.kind not in ("money", "number"):
            return None
        if amount.per is None:
            return amount.low, amount.high, False
        low, high = convert_rate(amount.low, amount.per, unit), convert_rate(amount.high, amount.per, unit)
        return None if low is None or high is None else (low, high, True)
    if term.kind in ("quantity", "duration") and unit in _DURATION_TABLES:
        if amount.kind == "duration" and amount.unit is not None:
            if amount.unit == "days" and unit in ("months", "years"):
                return None
            low, high = (
                convert_duration(amount.low, amount.unit, unit),
                convert_duration(amount.high, amount.unit, unit),
            )
            return None if low is None or high is None else (low, high, True)
        return (amount.low, amount.high, False) if amount.kind == "number" else None
    if term.kind == "quantity":
        if amount.kind == "count" and amount.unit == unit:
            return amount.low, amount.high, True
        if amount.kind == "count" and unit == "units" and amount.low >= 10 and _product(amount.unit):
            return amount.low, amount.high, False  # "2,400 valves", "half a million bars", "1500 untis"
        return (amount.low, amount.high, False) if amount.kind == "number" else None
    return None


# Nouns a count may count that are no goods ordered: people, places, vehicles, packages, documents, time.
_NOT_PRODUCTS = frozenset(
    {
        "engineers", "people", "staff", "employees", "developers", "candidates", "hires", "workers",
        "contractors", "members", "persons", "heads", "interviews", "references", "rounds", "years",
        "warehouses", "sites", "stores", "locations", "offices", "floors", "buildings", "plants", "rooms",
        "trucks", "vehicles", "boxes", "cartons", "pallets", "cases", "packs", "crates", "containers",
        "bags", "shipments", "deliveries", "options", "quotes", "suppliers", "vendors", "competitors",
        "others", "times", "days", "weeks", "months", "hours", "revisions", "invoices", "spaces", "stalls",
        "sqft", "sqm", "percent", "points", "colours", "colors", "sizes", "models", "variants", "shifts",
        "lines", "steps", "phases", "tiers", "levels", "parties", "sides", "terms", "items", "quarters",
        "countries", "cities", "regions", "markets", "categories", "teams", "departments", "customers",
        "buyers", "clients", "users", "partners", "lots", "batches", "sellers", "brands",
    }
)  # fmt: skip


_NOUN_AFTER = re.compile(r"[ \t]{1,3}([a-z]+)\b", re.IGNORECASE)


def _counts_other(text: str, amount: Amount) -> bool:
    """Whether a bare figure counts a noun that is no product and no money ("We employ 1,200 people",
    "800 staff on two shifts", "300 full-time staff"): a headcount or a number of sites is no term's
    value. One word may stand between the figure and the noun."""
    if amount.kind != "number" or amount.per is not None or amount.currency is not None:
        return False
    return any(n in _NOT_PRODUCTS and n not in _PACKAGE_NOUNS for n in _nouns_after(text, amount))


# The noun a figure counts and the one after it, when the first may be a modifier ("85 CNC machines",
# "300 full-time staff"); flat.
_NOUNS_AFTER = re.compile(r"[ \t]{1,3}([a-z][a-z-]{0,15})\b(?:[ \t]{1,3}([a-z]+)\b)?", re.IGNORECASE)


def _nouns_after(text: str, amount: Amount) -> tuple[str, ...]:
    """The word right after a bare figure, and the word after that when the first is no stop word."""
    found = _NOUNS_AFTER.match(text, amount.end)
    if found is None:
        return ()
    first, second = found.group(1).lower(), (found.group(2) or "").lower()
    return (first, second) if second and first not in _COUNT_STOPS else (first,)


_PACKAGE_NOUNS = frozenset(
    {"boxes", "cartons", "pallets", "cases", "packs", "crates", "containers", "bags", "lots"}
)


# Machines a plant runs: a count of them held, run or owned is its capacity, no quantity ordered ("We
# have 60 machines and 3 shifts", "and has 12 presses", "Our 40 lathes"); "buy 40 machines" is an order.
_EQUIPMENT = frozenset(
    {
        "machines", "presses", "lathes", "looms", "robots", "ovens", "kilns", "furnaces", "printers",
        "mills", "extruders", "reactors", "workstations", "molders", "moulders", "welders", "cranes",
        "forklifts", "conveyors",
    }
)  # fmt: skip
_HOLDING_BEFORE = re.compile(
    r"\b(?:have|has|had|having|run|runs|running|operate|operates|operating|own|owns|with|our|their)"
    r"(?:[ \t]{1,3}(?:about|some|around|over|nearly|only|just))?[ \t]{1,3}$",
    re.IGNORECASE,
)
_HOLDING_REACH = 40  # characters before a count searched for the verb that holds it


def _equipment_held(text: str, amount: Amount) -> bool:
    """Whether a count counts machines a plant holds or runs ("We have 60 machines", "85 CNC machines"):
    its capacity."""
    if amount.kind == "count":
        if (amount.unit or "").lower() not in _EQUIPMENT:
            return False
    elif amount.kind != "number" or not any(n in _EQUIPMENT for n in _nouns_after(text, amount)):
        return False
    before = text[max(0, amount.start - _HOLDING_REACH) : amount.start]
    return _HOLDING_BEFORE.search(before) is not None


# A plant's own output or use before a count: "Our plant makes 5,000 units per day", "Our 14 plants use
# about 300 units each per month", "the factory turns out 2,000 a week" — its capacity or consumption,
# no quantity ordered ("our plant needs 5,000 units" is an order). Searched over a bounded window.
_CAPACITY_BEFORE = re.compile(
    r"\b(?:plants?|factory|factories|mills?|facility|facilities|lines?|works|fabs?|workshops?|shop)\b"
    r"[^.;!?\n]{0,24}\b(?:makes?|made|making|produces?|produced|producing|manufactures?|manufactured|outputs?"
    r"|turns?[ \t]+out|turned[ \t]+out|uses?|used|using|consumes?|consumed|consuming)"
    r"(?:[ \t]{1,3}(?:about|around|roughly|some|over|nearly|approximately|only|just))?[ \t]{1,3}$",
    re.IGNORECASE,
)
_CAPACITY_REACH = 60  # characters before a count searched for a plant's verb of output


def _capacity(text: str, amount: Amount) -> bool:
    """Whether a count or a bare figure is what a plant makes or uses (`_CAPACITY_BEFORE`)."""
    if amount.kind not in ("count", "number") or amount.currency is not None:
        return False
    return _CAPACITY_BEFORE.search(_window(text, amount.start - _CAPACITY_REACH, amount.start)) is not None


_CAPACITY: Callable[[str, Amount], bool] = _capacity


_EQUIPMENT_HELD: Callable[[str, Amount], bool] = _equipment_held


def _product(noun: str | None) -> bool:
    """Whether a count's noun may be the goods ordered ("valves", "bars"), not people, places or time
    (counts under ten of another noun are not taken for an order: "4 countries")."""
    return noun is not None and noun.isalpha() and noun not in _NOT_PRODUCTS


_SHORTHAND_REACH = 40  # characters from a term keyword to a salary written in thousands
_SHORTHAND_PENALTY = 0.5


def _in_thousands(term: BoundaryTerm, amount: Amount) -> bool:
    """Whether a bare figure may be a figure of term written in thousands ("Would 107 work on base?"):
    a money term whose band lies in the tens of thousands or more, a whole (or half) figure from 20 to
    999 with no currency or multiplier, that fits the band once multiplied by a thousand."""
    band = _band(term)
    if term.kind != "money" or band is None or band[0] < 10_000:
        return False
    value = amount.high
    if amount.currency is not None or amount.scaled or not 20 <= amount.low <= value < 1000:
        return False
    return value * 2 == int(value * 2) and _misfit(term, value * 1000.0) < 0.7


@dataclass(frozen=True, slots=True)
class _Candidate:
    term: BoundaryTerm
    low: float
    high: float
    score: float


# A sentence ends at ".", "!", "?", ";" or a line break before a space, but not at the dot of "i.e.",
# "e.g.", "vs." or "approx." ("3 months of the $5,500 rent, i.e. $16,500" is one sentence).
# (a dot before an opening parenthesis closes an abbreviation the parenthesis restates: "Deposit 3 mo. (=
# USD 36k at 12k/mo)")
_SENTENCE_END = re.compile(
    r"(?<!\bi\.e)(?<!\be\.g)(?<!\bvs)(?<!\bapprox)(?<!\bca)(?<!\bincl)[.!?;\n](?=\s|$)(?![ \t]{1,3}\()",
    re.IGNORECASE,
)


def _sentence_bounds(text: str) -> list[int]:
    """Offsets where sentences start (linear: one flat pattern)."""
    return [0] + [m.end() for m in _SENTENCE_END.finditer(text)]


def term_amounts(
    config: DomainConfig,
    text: str,
    amounts: Sequence[Amount] | None = None,
    sentence_starts: Sequence[int] | None = None,
) -> list[TermAmount]:
    """The amounts in text that belong to a numeric boundary term of config, in the term's unit.

    A mention is attributed by what it is (money, a count, a duration), its rate or unit (converted to
    the term's: "$10,000 a month" is 120,000 for a yearly salary, "3 years" is 36 for a term in months),
    the nearest term keyword in its sentence and its magnitude against the term's band. Money named
    beside another cost ("a $5,000 signing bonus") is not a term amount; a bare figure counts only with a
    term keyword within its sentence, or with a multiplier ("105k", "five thousand") and a fitting
    magnitude. Linear in the text: keywords are located once per term.

    Args:
        config: The domain config (its boundary terms).
        text: The text to read (the offsets of the results index into it).
        amounts: The mentions of `find_amounts(text)`, when the caller already has them.
        sentence_starts: Offsets where the sentences of text start, when the caller has parsed them
            (`draft.attribute_amounts`); else sentences end at ".", "!", "?", ";" and line breaks.
    """
    mentions = _instalments(text, _per_area(text, list(find_amounts(text) if amounts is None else amounts)))
    terms = [t for t in config.boundary.terms if t.kind in ("money", "quantity", "duration")]
    if not terms:
        return []
    if not mentions:
        return _date_spans(_Passage(terms, text, (), _sentence_bounds(text)), _waived(terms, text, []))
    # keywords are found in the text as read ("sal\u200bary" is "salary"), at offsets into the text given,
    # up to the reach of a keyword past the last mention (a megabyte read up to its first 100,000 characters)
    scanned = text[: max(a.end for a in mentions) + _KEYWORD_REACH + 1]
    folded, offsets = fold(scanned)
    keywords = {
        t.name: _own_keywords(
            scanned,
            _keyword_offsets(
                folded,
                (
                    *t.keywords,
                    *(_EXTRA_KEYWORDS.get(t.unit or "", ()) if t.kind == "money" else ()),
                    *_TERM_EXTRA_KEYWORDS.get(t.name, ()),
                ),
                offsets,
            ),
        )
        for t in terms
    }
    others = [k for k in _keyword_offsets(folded, _OTHER_MONEY, offsets) if not _modifier_cost(scanned, k)]
    bounds = _sentence_bounds(scanned) if sentence_starts is None else [0, *sentence_starts]
    results: list[TermAmount] = []
    starts = [a.start for a in mentions]
    for amount in mentions:
        if _not_a_term_figure(text, amount):
            continue
        s = bisect.bisect_right(bounds, amount.start) - 1
        low_bound = bounds[s]
        high_bound = bounds[s + 1] if s + 1 < len(bounds) else len(text)
        if s > 0 and text[bounds[s] - 1] == ";" and not _keyword_in(keywords, low_bound, high_bound):
            low_bound = bounds[s - 1]  # a clause with no keyword after ";" is read with the one before it
        detached = _detached_other(text, others, amount, high_bound) or _other_has_figure(
            others, starts, amount
        )
        total = amount.per is None and _TOTAL_AFTER.match(text, amount.end) is not None
        chosen = _attribute(terms, amount, keywords, others, low_bound, high_bound, detached, total)
        if (
            chosen is not None
            and chosen.term.kind == "money"
            and _led_by_other(text, others, keywords[chosen.term.name], amount)
        ):
            chosen = None
        if chosen is not None:
            results.append(
                TermAmount(chosen.term.name, chosen.low, chosen.high, amount.start, amount.end, amount)
            )
    results = _band_ranges(terms, text, mentions, _moves(terms, text, mentions, results))
    results = _unit_totals(terms, text, mentions, bounds, results)
    results = _hours_before_pay(
        terms, text, mentions, bounds, _per_hours(terms, text, mentions, bounds, results)
    )
    passage = _Passage(terms, text, mentions, bounds)
    results = _term_totals(passage, _package_prices(passage, _tier_volumes(passage, results)))
    results = _packed_volumes(passage, _volume_rates(passage, results))
    results = _months_of_rent(terms, text, mentions, bounds, keywords, results)
    results = _date_spans(passage, _sibling_periods(passage, results))
    results = _bare_series(
        passage, _count_prices(passage, _bare_siblings(passage, results, keywords, others))
    )
    results = _carried_durations(passage, results, keywords, others)
    results = _carried_money(passage, results, keywords, others)
    return _restated_weeks(text, results)


def _not_a_term_figure(text: str, amount: Amount) -> bool:
    """Whether a mention is no term's whatever its passage says: incidental, a headcount, a rent-free
    period, machines held or a plant's own output (`term_amounts` and its passes over bare figures)."""
    return (
        amount.incidental
        or _counts_other(text, amount)
        or _free_after(text, amount)
        or (_FREE_BEFORE_ON and _free_before(text, amount))
        or _EQUIPMENT_HELD(text, amount)
        or _CAPACITY(text, amount)
    )


# The passes over bare figures skip what `term_amounts` skips ("We have 85 CNC machines and 300 staff" is
# no series of order volumes).
_SKIPPED_BARE: Callable[[str, Amount], bool] = _not_a_term_figure


# Words between a span in weeks and the same span said again in months: "6 weeks, so about 1.5
# months", "A twelve-week deposit? That's basically three months." (not "6 weeks or 2 months": two
# offers). The months are the figure the writer settles on; the weeks, converted, would be a second,
# slightly different value of the same term.
_RESTATE_BETWEEN: re.Pattern[str] | None = re.compile(
    r"^(?:[ \t]{1,3}[a-z]{1,12})?[\s,;:.?!()\u2014\u2013-]{0,6}"
    r"(?:(?:so|that['\u2019]?s|that is|i\.e\.?|ie|which is|basically|about|roughly|approximately|around|"
    r"call it|say|=|~)[\s,]{0,3}){1,3}$",
    re.IGNORECASE,
)
_RESTATE_REACH = 40  # characters from the span in weeks to its months


def _restated_weeks(text: str, results: list[TermAmount]) -> list[TermAmount]:
    """Drop a term's span in weeks said again in months right after it (the months stay)."""
    if _RESTATE_BETWEEN is None:
        return results
    dropped: set[int] = set()
    for i, weeks in enumerate(results):
        if weeks.mention.unit != "weeks" or weeks.mention.kind != "duration":
            continue
        for months in results[i + 1 :]:
            gap = months.start - weeks.end
            if (
                months.term == weeks.term
                and months.mention.unit == "months"
                and 0 <= gap <= _RESTATE_REACH
                and _RESTATE_BETWEEN.match(text[weeks.end : months.start]) is not None
            ):
                dropped.add(i)
                break
    return [r for i, r in enumerate(results) if i not in dropped]


# A move of a negotiation right before a bare figure: "dropped the ask from 7,900 to 7,600", "won't go
# lower than 7,500", "from 48 down to 36", "raise it from 6,000 to 9,000", "settle at 117".
_MOVE_BEFORE = re.compile(
    r"(?:\b(?:dropped|drop|dropping|raised?|raising|lowered|lower|cut|reduced?|increased?|moved?|moving|went|"
    r"go|going|came|come|coming|bring|brought|push|pushed|stretch|stretched)\b[^.;!?\d]{0,20}\bfrom"
    r"|\bfrom[ \t]{1,3}[\d.,]{1,12}[ \t]{1,3}(?:down[ \t]+|up[ \t]+)?to"
    r"|\b(?:lower|higher|less|more|further|below|above|beyond|past|under)[ \t]+than"
    r"|\b(?:down|up)[ \t]+to|\bsettle[ \t]+(?:at|on|for)"
    r"|\b(?:take|order|buy|need|offer|pay|accept)(?:[ \t]{1,3}(?:only|about|around|roughly))?)"
    r"[ \t]{1,3}$",
    re.IGNORECASE,
)
_MOVE_WINDOW = 48  # characters before a figure read for a move
# "Can you do 110?", "we could do a hundred and ten", and a bound said after the figure ("one twenty is
# the ceiling"): moves too, but said of figures of any size, so read only as a salary in thousands that no
# band holds as written (`_move_in_thousands`).
_DO_BEFORE = re.compile(r"\bdo(?:[ \t]{1,3}(?:only|about|around|roughly))?[ \t]{1,3}$", re.IGNORECASE)
# "We'll go to a hundred and eighteen", "we can stretch to 103": a move to a bare figure, read as "do"
# is (a salary in thousands no band holds as written); writers v5, v7, v11, v13, v15 and v18 write it.
# Switched off in tests/governance/measure_amounts_cv.py --ablation (`go_to_moves`).
_GO_TO_MOVES = True
_GO_TO_BEFORE = re.compile(
    r"\b(?:go|stretch|get|come|move)[ \t]{1,3}(?:up[ \t]{1,3})?to"
    r"(?:[ \t]{1,3}(?:about|around|roughly))?[ \t]{1,3}$",
    re.IGNORECASE,
)
# A bound stated after the figure: "one twenty is the ceiling", "2.65 is our floor", "101 is our best".
_BOUND_AFTER = re.compile(
    r"[ \t]{0,3}(?:is|was|['\u2019]s|would[ \t]+be|will[ \t]+be)[ \t]{1,3}"
    r"(?:(?:the|our|my|their|your)[ \t]{1,3})?(?:(?:absolute|hard|final|very)[ \t]{1,3})?"
    r"(?:ceiling|cap|limit|max|maximum|top|floor|minimum|best|final|bottom[ \t]+line|most|least)\b",
    re.IGNORECASE,
)


def _moves(
    terms: Sequence[BoundaryTerm], text: str, mentions: Sequence[Amount], results: list[TermAmount]
) -> list[TermAmount]:
    """Add a bare figure stated as a move of the negotiation ("The landlord dropped the ask from 7,900 to
    7,600 and won't go lower than 7,500") to the one money or quantity term whose band it lies within
    when no keyword named it: a move states a value of a term under negotiation, and a figure inside
    one term's band (and no other's, within a factor of 3) can be that term's only."""
    taken = {id(r.mention) for r in results}
    fitting = [t for t in terms if t.kind in ("money", "quantity") and _band(t) is not None]
    moved: list[Amount] = []
    chosen: list[BoundaryTerm | None] = []
    for amount in mentions:
        if amount.kind != "number" or amount.per is not None or amount.incidental or id(amount) in taken:
            continue
        before = _window(text, amount.start - _MOVE_WINDOW, amount.start)
        move = _MOVE_BEFORE.search(before) is not None
        if not (
            move
            or (_SPOKEN_FIGURES and _SPOKEN_SHAPE.match(amount.text) is not None)
            or _DO_BEFORE.search(before) is not None
            or (_GO_TO_MOVES and _GO_TO_BEFORE.search(before) is not None)
            or _BOUND_AFTER.match(_window(text, amount.end, amount.end + _MOVE_WINDOW)) is not None
        ):
            continue
        inside = [t for t in fitting if _misfit(t, amount.high) <= 0.2]
        near = [t for t in fitting if _misfit(t, amount.high) <= 1.1]
        moved.append(amount)
        chosen.append(inside[0] if move and len(inside) == 1 and len(near) == 1 else None)
        if chosen[-1] is None and not inside:
            chosen[-1] = _move_in_thousands(fitting, amount)
    # the other end of one move goes with it ("from 6,000 to 9,000"), when near the same band
    for k, (amount, term) in enumerate(zip(moved, chosen, strict=True)):
        if term is not None:
            continue
        for n in (k - 1, k + 1):
            partner = chosen[n] if 0 <= n < len(moved) else None
            if (
                partner is not None
                and abs(moved[n].start - amount.start) <= _MOVE_WINDOW
                and _misfit(partner, amount.high) <= 1.1
            ):
                chosen[k] = partner
                break
    added = [
        TermAmount(term.name, *_move_value(term, a), a.start, a.end, a)
        for a, term in zip(moved, chosen, strict=True)
        if term is not None
    ]
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


# A range in bare thousands a pay band names (issue 14: "The band for this level is 110 to 125", sets v13
# and v15; writers of sets v5-v16 name a salary's band so): the one yearly money term whose band holds it
# in thousands, when no term took it. A range only: a single figure after "band" ("The band tops out at
# 100") stays unread. A switch of the measure's --ablation (`pay_band_words`).
_PAY_BAND_WORDS = True
_BAND_BEFORE = re.compile(r"\bband\b[^.;!?\d$€£]{0,32}$", re.IGNORECASE)


def _band_ranges(
    terms: Sequence[BoundaryTerm], text: str, mentions: Sequence[Amount], results: list[TermAmount]
) -> list[TermAmount]:
    """Add a bare range a pay band names to the yearly money term in thousands (`_PAY_BAND_WORDS`)."""
    if not _PAY_BAND_WORDS:
        return results
    yearly = [t for t in terms if t.kind == "money" and t.unit == "year" and _band(t) is not None]
    if len(yearly) != 1:
        return results
    term = yearly[0]
    taken = {id(r.mention) for r in results}
    added: list[TermAmount] = []
    for amount in mentions:
        if (
            not amount.is_range
            or amount.kind != "number"
            or amount.scaled
            or amount.per is not None
            or amount.incidental
            or id(amount) in taken
            or _BAND_BEFORE.search(_window(text, amount.start - 40, amount.start)) is None
        ):
            continue
        # either end near the term's band, within a factor of 1.65 ("110 to 125" for a band of 80-100k)
        readings = [
            r
            for r in _bare_readings(term, amount)[1:]
            if min(_misfit(term, r[0]), _misfit(term, r[1])) <= 0.5
        ]
        if readings:
            low, high, _ = readings[0]
            added.append(TermAmount(term.name, low, high, amount.start, amount.end, amount))
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


def _move_in_thousands(fitting: Sequence[BoundaryTerm], amount: Amount) -> BoundaryTerm | None:
    """The one money term paid in tens of thousands whose band holds a move's figure read in thousands
    ("Could you stretch from 110 to 116?", "Can you do a hundred and ten?" for a salary), when no term's
    band holds it as written; None."""
    held = [
        t
        for t in fitting
        if t.kind == "money" and any(_misfit(t, high) <= 0.2 for _, high, _ in _bare_readings(t, amount)[1:])
    ]
    return held[0] if len(held) == 1 else None


def _move_value(term: BoundaryTerm, amount: Amount) -> tuple[float, float]:
    """A move's figure in term: as written, or in thousands when only that reading fits its band."""
    if _misfit(term, amount.high) <= 1.1:
        return amount.low, amount.high
    low, high, _ = min(_bare_readings(term, amount), key=lambda r: _misfit(term, r[1]))
    return low, high


# A sum named a total: "total $8,850", "the total comes to $12,600", "= $36,000 total", "$9,000 in total".
_TOTAL_BEFORE = re.compile(r"\btotal\b[^.;:\d$€£]{0,16}$", re.IGNORECASE)
_TOTAL_WORD_AFTER = re.compile(r"[ \t]{0,3}(?:in[ \t]+)?total\b", re.IGNORECASE)


def _keyword_in(keywords: dict[str, list[int]], low: int, high: int) -> bool:
    """Whether any term keyword lies in [low, high)."""
    for offsets in keywords.values():
        k = bisect.bisect_left(offsets, low)
        if k < len(offsets) and offsets[k] < high:
            return True
    return False


_HOURS_REACH = 20  # characters from a pay per day or week to the hours it is for


# Between a pay and the hours of the period it is for, and the period after them.
_PER_SPAN_GAP = re.compile(r"[ \t]{0,3}(?:per|a|an|each|every|for[ \t]{1,3}(?:an?|each|every|one))[ \t]{1,3}")
_SPAN_PERIOD = re.compile(r"[ \t-]{0,3}(?:week|day|shift)\b", re.IGNORECASE)


# (issue 14, sets v12 and v13) hours a day written after a bare figure: "0.75k per day, 7.5 h/day".
_H_PER_DAY = re.compile(r"[ \t]{0,2}h(?:rs?|ours)?[ \t]{0,2}/[ \t]{0,2}(?:day|d|tag)\b", re.IGNORECASE)


def _hours_a_day(text: str, amount: Amount) -> bool:
    """Whether a bare figure counts the hours of a day ("7.5 h/day")."""
    return amount.kind == "number" and not amount.scaled and _H_PER_DAY.match(text, amount.end) is not None


_HOURS_A_DAY: Callable[[str, Amount], bool] = _hours_a_day

# (issue 14, sets v13 and v14) a pay per day named by its German noun: "Tagessatz 680 €", "Tageshonorar".
_DAY_RATE_WORDS = frozenset({"tagessatz", "tagessatze", "tageshonorar", "tagespauschale", "tagesrate"})
# hours written "h" or "Std" after a bare figure, with no period after them ("auf Basis von 8 h.")
_H_AFTER = re.compile(r"[ \t]{0,2}(?:h|hrs?|std)\b(?![ \t]{0,2}/)", re.IGNORECASE)


def _bare_hours(text: str, amount: Amount) -> bool:
    """Whether a bare figure is hours written "h" ("Tagessatz €1.000 auf Basis von 8 h")."""
    # the figure may take the rate of the noun before it ("Tagessatz ... 8 h" reads 8 per day), no currency
    return (
        amount.kind in ("number", "money")
        and amount.currency is None
        and not amount.scaled
        and _H_AFTER.match(text, amount.end) is not None
    )


def _bare_day_pay(text: str, amount: Amount, following: Amount) -> bool:
    """Whether a bare figure in the hundreds is the pay of the period named after its hours ("I charge
    1,200 for a 10-hour day"): the grammar of `_PER_SPAN_GAP` and `_SPAN_PERIOD` types it."""
    return (
        amount.kind == "number"
        and not amount.scaled
        and amount.high >= 100
        and _PER_SPAN_GAP.fullmatch(_window(text, amount.end, following.start)) is not None
        and _SPAN_PERIOD.match(_window(text, following.end, following.end + 12)) is not None
    )


_DAY_PAY_FORMS = True  # `_bare_hours` and `_bare_day_pay` on (a switch of the measure's --ablation)


def _per_hours(
    terms: Sequence[BoundaryTerm],
    text: str,
    mentions: Sequence[Amount],
    bounds: Sequence[int],
    results: list[TermAmount],
) -> list[TermAmount]:
    """Add the hourly rate of a pay per day, week or month stated with its hours right after it ("Day
    rate 720 (8h)" is 90 an hour, "$4,000 a week at 40 hours" is 100, "$13,600 a month for full time
    (160 hours)" is 85): the pay divided by the hours, when it fits the hourly term's band."""
    hourly = next((t for t in terms if t.kind == "money" and t.unit == "hour"), None)
    if hourly is None:
        return results
    added: list[TermAmount] = []
    for amount, following in pairwise(mentions):
        if amount.is_range or (
            amount.kind != "money" and not (_DAY_PAY_FORMS and _bare_day_pay(text, amount, following))
        ):
            continue
        if (
            not (
                (following.kind == "duration" and following.unit == "hours")
                or _HOURS_A_DAY(text, following)
                or (_DAY_PAY_FORMS and amount.per in ("day", "week") and _bare_hours(text, following))
            )
            or following.is_range
            or following.high <= 0
        ):
            continue
        if following.start - amount.end > _HOURS_REACH:
            continue
        monthly = amount.per == "month" and 80.0 <= following.high <= 250.0  # "a month (160 hours)"
        if (
            amount.per not in ("day", "week")
            and not monthly
            and not (
                # "$3,200 per 40-hour week", "$640 for an 8-hour day": the period named after its hours
                amount.per is None
                and _PER_SPAN_GAP.fullmatch(_window(text, amount.end, following.start)) is not None
                and _SPAN_PERIOD.match(_window(text, following.end, following.end + 12)) is not None
            )
        ):
            continue
        same = bisect.bisect_right(bounds, amount.start) == bisect.bisect_right(bounds, following.start)
        if not same or following.start - amount.end > _HOURS_REACH:
            continue
        rate = round(amount.high / following.high, 6)
        if _misfit(hourly, rate) <= 1.2:
            added.append(TermAmount(hourly.name, rate, rate, amount.start, amount.end, amount))
    if not added:
        return results
    # the pay itself is no hourly figure once divided ("$3,200 per 40-hour week" is 80 an hour)
    divided = {id(r.mention) for r in added}
    kept = [r for r in results if not (r.term == hourly.name and id(r.mention) in divided)]
    return sorted([*kept, *added], key=lambda r: (r.start, r.end))


# Hours named before the pay they are for (issue 14: sets v12 and v15, the mirror of `_per_hours`): "10-hour
# shifts at $600 per shift", "A half day is 4 hours at $300". The pay divided by the hours is the hourly
# rate when the quotient lies near the hourly term's band (within a factor of 1.6) and the pay as written
# lies far outside it (past a factor of e): "40 hours at $55" stays 55. A switch of the measure's
# --ablation (`hours_before_pay`).
_HOURS_BEFORE_PAY = True
_HOURS_THEN_PAY = re.compile(
    r"[ \t-]{0,3}(?:(?:shifts?|days?)[ \t]{1,3})?(?:at|for|costs?|paid|pays|is|=)[ \t]{1,3}$", re.IGNORECASE
)
_PAY_PERIOD_AFTER = re.compile(
    r"[ \t]{0,3}(?:(?:per|a|an|each)[ \t]{1,3}(?:shift|day)\b|[.;,!?)]|$)", re.IGNORECASE
)


def _hours_before_pay(
    terms: Sequence[BoundaryTerm],
    text: str,
    mentions: Sequence[Amount],
    bounds: Sequence[int],
    results: list[TermAmount],
) -> list[TermAmount]:
    """Add the hourly rate of a pay stated after the hours it is for (`_HOURS_BEFORE_PAY`)."""
    hourly = next((t for t in terms if t.kind == "money" and t.unit == "hour"), None)
    if not _HOURS_BEFORE_PAY or hourly is None:
        return results
    added: list[TermAmount] = []
    for hours, amount in pairwise(mentions):
        if (
            hours.kind != "duration"
            or hours.unit != "hours"
            or hours.is_range
            or not 1.0 <= hours.high <= 24.0
            or amount.kind != "money"
            or amount.per is not None
            or amount.is_range
            or amount.start - hours.end > _HOURS_REACH
            or bisect.bisect_right(bounds, hours.start) != bisect.bisect_right(bounds, amount.start)
            or _HOURS_THEN_PAY.search(_window(text, hours.end, amount.start)) is None
            or _PAY_PERIOD_AFTER.match(_window(text, amount.end, amount.end + 16)) is None
        ):
            continue
        rate = round(amount.high / hours.high, 6)
        if _misfit(hourly, rate) <= 0.5 and _misfit(hourly, amount.high) > 1.0:
            added.append(TermAmount(hourly.name, rate, rate, amount.start, amount.end, amount))
    if not added:
        return results
    divided = {id(r.mention) for r in added}
    kept = [r for r in results if not (r.term == hourly.name and id(r.mention) in divided)]
    return sorted([*kept, *added], key=lambda r: (r.start, r.end))


def _window(text: str, start: int, end: int) -> str:
    """text[start:end] as read (`amount_text.fold`: lookalikes and invisible characters folded)."""
    return _folded(text[max(0, start) : max(0, end)])


@lru_cache(maxsize=4096)
def _folded(piece: str) -> str:
    """`fold` of a short window, remembered: the passes over a text's figures read the same windows
    again, and crafted text repeats them by the thousand ("1,OOO,OOO " x 100,000 folded 120,000 windows)."""
    return fold(piece)[0]


def _tier_price(price: BoundaryTerm, amount: Amount) -> bool:
    """Whether a sum "for" a count is the price of one unit for that tier of volume, not a total ("$6.00
    for 5k, $5.60 for 10k"): it fits the price's band as written, its quotient by the count does not."""
    return _misfit(price, amount.high) <= 1.2


_WHOLE_KINDS = frozenset({"count"})  # kinds whose figure is never a decimal reading of "75.000"
_JOINED_TOTAL_MISFIT = 2.5  # a factor of 12 outside the price's band


def _unit_totals(
    terms: Sequence[BoundaryTerm],
    text: str,
    mentions: Sequence[Amount],
    bounds: Sequence[int],
    results: list[TermAmount],
) -> list[TermAmount]:
    """The price of one unit from a total for a number of units ("Total $8,850 for 1,500 pcs" is 5.90,
    "Order of 2,000 at 18 dollars each = $36,000 total" 18, "1,000 pcs for $4,200 or 2,000 pcs for
    $7,600" 4.20 and 3.80): a sum with no rate joined by "for" to the count right beside it, or named a
    total in a sentence stating one order quantity, divided by that count when the quotient fits the
    price's band; a total that does not is the order's value, no price."""
    price = next((t for t in terms if t.kind == "money" and t.unit == "unit"), None)
    volume = next((t for t in terms if t.kind == "quantity" and t.unit == "units"), None)
    if price is None or volume is None:
        return results
    counts = [r for r in results if r.term == volume.name and r.low == r.high and r.high >= 2]
    if not counts:
        return results
    by_sentence: dict[int, set[float]] = {}
    for r in counts:
        by_sentence.setdefault(bisect.bisect_right(bounds, r.start) - 1, set()).add(r.high)
    starts = [r.start for r in counts]
    money_in: dict[int, int] = {}  # the sums of money written in each sentence
    figures_in: dict[int, int] = {}  # and the figures of any kind
    for amount in mentions:
        k = bisect.bisect_right(bounds, amount.start) - 1
        figures_in[k] = figures_in.get(k, 0) + 1
        if amount.kind == "money" and not amount.incidental:
            money_in[k] = money_in.get(k, 0) + 1
    restated: dict[int, TermAmount | None] = {}
    corrected: tuple[int, float] | None = None  # the end of the last sum joined to a count, and the count
    for amount in mentions:
        if amount.kind != "money" or amount.per is not None or amount.is_range or amount.incidental:
            continue
        s = bisect.bisect_right(bounds, amount.start) - 1
        count = _count_for(text, counts, starts, amount)
        totalled = False
        if count is None:
            count, totalled = _clause_count(text, counts, starts, amount, corrected)
        elif _COUNT_TOTALS_GAP is not None:
            totalled = _totalled_after_count(text, counts, starts, amount)
        if count is not None:
            corrected = (amount.end, count)
        # a sum joined to its count and named a total ("Total order value $12,500 for 5,000 units") is
        # a total whatever the size of its quotient (prices range over orders of magnitude)
        limit = (
            _JOINED_TOTAL_MISFIT if count is not None and (totalled or _named_total(text, amount)) else 1.2
        )
        if count is None and len(by_sentence.get(s, ())) == 1 and _named_total(text, amount):
            count = next(iter(by_sentence[s]))
        if _misfit(price, amount.high) > 1.2:  # too large for a price: a total over its sentence's count
            named = _sentence_total_count(text, bounds, by_sentence, money_in, figures_in, s)
            count = named if count is None else count
            limit = _JOINED_TOTAL_MISFIT if named is not None and count == named else limit
        if count is None:
            continue
        value = round(amount.high / count, 6)
        fits = _misfit(price, value) <= limit
        if not fits and _tier_price(price, amount):
            continue  # a price per unit for a tier of volume ("$6.00 for 5k, $5.60 for 10k")
        restated[id(amount)] = (
            TermAmount(price.name, value, value, amount.start, amount.end, amount) if fits else None
        )
    if not restated:
        return results
    kept = [r for r in results if not (r.term == price.name and id(r.mention) in restated)]
    added = [r for r in restated.values() if r is not None]
    return sorted([*kept, *added], key=lambda r: (r.start, r.end))


# (issue 14, round 19) the form of sets v13, v15 and v16's errors: a total over a count, named a total
# by a word anywhere in its sentence rather than beside the figures ("The order of 250 monitors totals
# 43,750 USD", "Total for 500 chairs: 61.250 €", "the lot of 1,200 chairs for 57,600 dollars"), or
# named a total in a sentence the one with its count follows ("Total for the order: 96,000 USD.
# Quantity 8,000.").
_SENTENCE_TOTALS = True  # `_sentence_total_count` on (a switch of the measure's --ablation)
_TOTAL_CUE = re.compile(
    r"\b(?:total(?:s|led|ling|ed|ing)?|lot|altogether|in[ \t]{1,3}all|all[ \t-]{1,3}in)\b", re.IGNORECASE
)
_TOTAL_CUE_REACH = 240  # characters of a sentence read for the cue (a longer sentence is not one clause)


def _sentence_total_count(
    text: str,
    bounds: Sequence[int],
    by_sentence: dict[int, set[float]],
    money_in: dict[int, int],
    figures_in: dict[int, int],
    s: int,
) -> float | None:
    """The one order quantity of the sentence of a sum too large for a price, when that sentence names a
    total (`_TOTAL_CUE`) and writes no other sum; or, when it writes no count, of the next sentence when
    that one writes one count and no sum. Each sentence is read once (it holds a single sum); None."""
    if not _SENTENCE_TOTALS or money_in.get(s, 0) != 1:
        return None
    start = bounds[s] if 0 <= s < len(bounds) else 0
    end = bounds[s + 1] if s + 1 < len(bounds) else len(text)
    if end - start > _TOTAL_CUE_REACH:
        return None
    sentence = _window(text, start, end)
    if "%" in sentence or _TOTAL_CUE.search(sentence) is None:  # a share of a total is not its price
        return None
    own = by_sentence.get(s, set())
    if len(own) == 1:
        return next(iter(own))
    following = by_sentence.get(s + 1, set())
    if own or len(following) != 1 or money_in.get(s + 1, 0) != 0 or figures_in.get(s, 0) != 1:
        return None
    # the next sentence a label of the quantity ("Quantity 8,000.", "Qty: 8,000 pcs"), not a clause
    after = bounds[s + 2] if s + 2 < len(bounds) else len(text)
    label = _QUANTITY_LABEL.match(_window(text, end, min(after, end + 24)).lstrip())
    return next(iter(following)) if label is not None else None


_QUANTITY_LABEL = re.compile(r"(?:order[ \t]{1,3})?(?:quantity|qty|volume|units|pcs|pieces)\b|\d", re.I)


# A sum joined to the count it is for: "$4,200 for 1,000 pcs", "1,000 pcs for $4,200", "2,000 comes to
# $9,800", "the order of 2,000 comes to $9,800 in total".
_SUM_FOR_COUNT = re.compile(
    r"[ \t]{0,3}for[ \t]{1,3}(?:the[ \t]{1,3}|an?[ \t]{1,3}order[ \t]of[ \t])?$", re.I
)
_COUNT_FOR_SUM = re.compile(
    r"[ \t]{0,3}(?:(?:it|that|this|the[ \t]{1,3}(?:total|cost|bill|invoice))[ \t]{1,3}"
    r"(?=is|was|comes|costs?|would))?"
    r"(?:for|(?:comes|come|came|amounts|amount|adds up|add up)[ \t]{1,3}to"
    r"|costs?|runs|totals|is|was|would be|=|:)"
    r"[ \t]{0,3}$",
    re.IGNORECASE,
)


def _named_total(text: str, amount: Amount) -> bool:
    """Whether a sum is named a total: "total $8,850", "$9,000 in total", "$36,000 total"."""
    return (
        _TOTAL_BEFORE.search(_window(text, amount.start - 24, amount.start)) is not None
        or _TOTAL_WORD_AFTER.match(_window(text, amount.end, amount.end + 24)) is not None
    )


def _count_for(
    text: str, counts: Sequence[TermAmount], starts: Sequence[int], amount: Amount
) -> float | None:
    """The order quantity a sum is joined to by "for" (or "comes to"), right after or right before it."""
    k = bisect.bisect_left(starts, amount.end)
    if (
        k < len(counts)
        and counts[k].start - amount.end <= 24
        and _SUM_FOR_COUNT.fullmatch(_window(text, amount.end, counts[k].start)) is not None
    ):
        return counts[k].high
    k = bisect.bisect_left(starts, amount.start) - 1
    # the gap is folded only when it is short as written (invisible characters may pad it 4-fold): a
    # count far before the sum costs nothing, so the pass stays linear
    if k >= 0 and counts[k].end <= amount.start <= counts[k].end + 96:
        gap = _window(text, counts[k].end, amount.start)
        if len(gap) <= 24 and _COUNT_FOR_SUM.fullmatch(gap) is not None:
            return counts[k].high
    return None


# A count the sum of its clause is for: opened by "for" and followed by the clause's verb of pricing
# ("For 1,000 units we'd charge $8,400; for 2,000 units, $15,600"), or naming its order before a verb of
# totalling ("The 10,000-unit PO comes to $1.2 million"); and a sum correcting the sum before it, which
# is for the same count ("... sorry, $120,000").
_FOR_BEFORE = re.compile(r"\bfor[ \t]{1,3}$", re.IGNORECASE)
_FOR_COUNT_GAP: re.Pattern[str] | None = re.compile(
    r"[ \t]{0,3},?[ \t]{0,3}(?:(?:(?:we|i|they|you)(?:['\u2019](?:d|ll))?[ \t]{1,3}"
    r"(?:(?:would|will|can|could|do|must)[ \t]{1,3})?(?:charge|quote|bill|invoice|ask|want|need|pay)"
    r"|(?:it|that|the[ \t]{1,3}(?:price|cost|total|bill))(?:['\u2019]s|[ \t]{1,3}(?:is|would[ \t]{1,3}be|will"
    r"[ \t]{1,3}be|costs?|comes[ \t]{1,3}to)))[ \t]{1,3}(?:you[ \t]{1,3})?)?$",
    re.IGNORECASE,
)
_ORDER_TOTALS_GAP = re.compile(
    r"[ \t]{1,3}(?:po|order|run|batch|shipment|lot|invoice|bill)[ \t]{1,3}"
    r"(?:comes[ \t]{1,3}to|amounts[ \t]{1,3}to|adds[ \t]{1,3}up[ \t]{1,3}to|totals|costs|is)[ \t]{1,3}$",
    re.IGNORECASE,
)
# (issue 14, sets v13 and v14) a count joined to its sum by a verb of totalling, with the goods or the
# document between them: "The lot of 250 chairs comes to $31,250", "For 2,400 units the invoice would
# come to $30,000" (not "for 2,400 units the price is $12.50": "is" alone states a price).
_COUNT_TOTALS_GAP: re.Pattern[str] | None = re.compile(
    r"[ \t]{0,3},?[ \t]{0,3}(?:[a-z]{2,14}s[ \t]{1,3}|(?:the|this|that|your|our)[ \t]{1,3}"
    r"(?:invoice|order|bill|total|quote|cost)(?:[ \t]{1,3}(?:would|will|should|could))?[ \t]{1,3})?"
    r"(?:comes?|amounts?|adds?[ \t]{1,3}up)[ \t]{1,3}to[ \t]{1,3}$",
    re.IGNORECASE,
)


def _totalled_after_count(
    text: str, counts: Sequence[TermAmount], starts: Sequence[int], amount: Amount
) -> bool:
    """Whether a sum follows its count by a verb of totalling (`_COUNT_TOTALS_GAP`: "250 chairs comes to")."""
    k = bisect.bisect_left(starts, amount.start) - 1
    if _COUNT_TOTALS_GAP is None or k < 0 or not counts[k].end <= amount.start <= counts[k].end + 48:
        return False
    gap = _window(text, counts[k].end, amount.start)
    return len(gap) <= 32 and _COUNT_TOTALS_GAP.fullmatch(gap) is not None


# "3,600 units × $2.35 = $8,460": the sum after "=" of a product is its total
_PRODUCT_GAP = re.compile(
    r"[ \t]{0,3}[×x*@][ \t]{0,3}(?:[$€£]|usd|eur)?[ \t]{0,2}\d{1,6}(?:[.,]\d{1,2})?[ \t]{0,3}"
    r"(?:each|ea|/unit|per[ \t]{1,3}unit)?[ \t]{0,3}=[ \t]{0,3}$",
    re.IGNORECASE,
)
_CORRECTION_GAP = re.compile(
    r"[ \t.,;:!\u2026-]{0,6}(?:(?:sorry|i[ \t]{1,3}mean[t]?|rather|correction|make[ \t]{1,3}that"
    r"|that[ \t]{1,3}should[ \t]{1,3}be)[ \t.,:!\u2014-]{0,4}){1,2}$",
    re.IGNORECASE,
)


def _clause_count(
    text: str,
    counts: Sequence[TermAmount],
    starts: Sequence[int],
    amount: Amount,
    corrected: tuple[int, float] | None,
) -> tuple[float | None, bool]:
    """The count a sum is the total for by the grammar of its clause (`_FOR_COUNT_GAP`,
    `_ORDER_TOTALS_GAP`, `_CORRECTION_GAP`), and whether a verb of totalling joins them; (None, False)."""
    if _FOR_COUNT_GAP is None:
        return None, False
    if (
        corrected is not None
        and 0 <= amount.start - corrected[0] <= 24
        and _CORRECTION_GAP.fullmatch(_window(text, corrected[0], amount.start)) is not None
    ):
        return corrected[1], True
    k = bisect.bisect_left(starts, amount.start) - 1
    if k < 0 or not counts[k].end <= amount.start <= counts[k].end + 48:
        return None, False
    gap = _window(text, counts[k].end, amount.start)
    if len(gap) > 32:
        return None, False
    if _ORDER_TOTALS_GAP.fullmatch(gap) is not None or _PRODUCT_GAP.fullmatch(gap) is not None:
        return counts[k].high, True
    if _COUNT_TOTALS_GAP is not None and _COUNT_TOTALS_GAP.fullmatch(gap) is not None:
        return counts[k].high, True
    opened = _FOR_BEFORE.search(_window(text, counts[k].start - 6, counts[k].start)) is not None
    if opened and _FOR_COUNT_GAP.fullmatch(gap) is not None:
        return counts[k].high, False
    return None, False


@dataclass(frozen=True, slots=True)
class _Passage:
    """What the restating passes of `term_amounts` read: the terms, the text, its mentions (in order)
    and the offsets where its sentences start."""

    terms: Sequence[BoundaryTerm]
    text: str
    mentions: Sequence[Amount]
    bounds: Sequence[int]

    def sentence(self, position: int) -> int:
        """The index of the sentence holding position."""
        return bisect.bisect_right(self.bounds, position) - 1

    def sentence_start(self, position: int) -> int:
        """The offset where the sentence holding position starts."""
        return self.bounds[max(self.sentence(position), 0)] if self.bounds else 0

    def term(self, kind: str, unit: str) -> BoundaryTerm | None:
        """The first term of that kind and unit."""
        return next((t for t in self.terms if t.kind == kind and t.unit == unit), None)


def _restate(results: list[TermAmount], restated: dict[int, TermAmount]) -> list[TermAmount]:
    """results with the attribution of each mention in `restated` (by id of the mention) replaced by
    the one given there, in text order."""
    if not restated:
        return results
    kept = [r for r in results if id(r.mention) not in restated]
    return sorted([*kept, *restated.values()], key=lambda r: (r.start, r.end))


# A quantity tier after a price: "$2.40 at 10k, $2.20 at 25k", "$3.10 @ 5,000".
_TIER_GAP = re.compile(r"[ \t]{1,3}(?:at|@|for)[ \t]{1,3}$|[ \t]{0,3}@[ \t]{0,3}$", re.IGNORECASE)


def _tier_volumes(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """Add the order volume of a price tier: a bare figure right after a price and "at" ("$2.20 at
    25k") is the quantity that price is for, whatever its size against the volume's band."""
    volume, text = passage.term("quantity", "units"), passage.text
    if volume is None:
        return results
    taken = {id(r.mention) for r in results}
    added: dict[int, TermAmount] = {}
    for price, amount in pairwise(passage.mentions):
        if (
            id(amount) in taken
            or price.kind != "money"
            or price.per not in (None, "unit")
            or price.scaled
            or amount.kind not in ("number", "count")
            or (amount.kind == "count" and amount.unit != "units")
            or amount.is_range
            or amount.incidental
            or amount.high < 2
            or amount.start - price.end > 6
            or _TIER_GAP.match(text[price.end : amount.start]) is None
        ):
            continue
        added[id(amount)] = TermAmount(volume.name, amount.low, amount.high, amount.start, amount.end, amount)
    return _restate(results, added)


# The verb between a package of units and its price: "A box of 12 sells for $30", "a case of 24 is $60".
_PACKAGE_PRICE_GAP = re.compile(
    r"[ \t]{0,3}(?:\w+[ \t]{1,3})?(?:sells|goes|costs?|is|are|comes|runs|priced)?[ \t]{0,3}(?:for|at|to)?"
    r"[ \t]{0,3}[:=]?[ \t]{0,3}$",
    re.IGNORECASE,
)


def _package_prices(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """The price of one unit from the price of a package ("A box of 12 sells for $30" is 2.50 a unit):
    a money figure with no rate right after a count one package holds, in its sentence, divided by it."""
    price, text = passage.term("money", "unit"), passage.text
    if price is None:
        return results
    divided: dict[int, TermAmount] = {}
    for count, amount in pairwise(passage.mentions):
        if (
            not (count.incidental and count.kind in ("count", "number"))
            or count.high < 2
            or count.is_range
            or amount.kind != "money"
            or amount.per is not None
            or amount.is_range
            or amount.start - count.end > 24
            or passage.sentence(count.start) != passage.sentence(amount.start)
            or _PACKAGE_PRICE_GAP.match(text[count.end : amount.start]) is None
        ):
            continue
        value = round(amount.high / count.high, 6)
        divided[id(amount)] = TermAmount(price.name, value, value, amount.start, amount.end, amount)
    for amount in passage.mentions:  # "A dozen costs $30", "two dozen sell for $54"
        if amount.kind != "money" or amount.per is not None or amount.is_range or id(amount) in divided:
            continue
        dozen = _DOZEN_PRICE.search(_window(text, amount.start - 40, amount.start))
        if dozen is not None:
            value = round(amount.high / (12.0 * _DOZENS[dozen.group(1).lower()]), 6)
            divided[id(amount)] = TermAmount(price.name, value, value, amount.start, amount.end, amount)
    return _restate(results, divided)


# A price of so many dozen right before a sum: "A dozen costs $30", "two dozen sell for".
_DOZENS = {"a": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0}
_DOZEN_PRICE = re.compile(
    r"\b(a|one|two|three|four|five|six)[ \t]+dozen[ \t]{1,3}(?:(?:units?|pieces?|pcs|items?)[ \t]{1,3})?"
    r"(?:sells?|goes|go|costs?|is|are|comes?|runs?|priced)[ \t]{0,3}(?:for|at|to)?[ \t]{0,3}[:=]?[ \t]{0,3}$",
    re.IGNORECASE,
)


# Packages that hold a number of units each ("3 containers of 11,000 pieces each").
_HOLDERS = frozenset(
    {*_PACKAGES, "container", "truck", "truckload", "shipment", "lot", "batch", "load", "skid"}
)
_OF_GAP = re.compile(
    r"[ \t]{1,3}of[ \t]{1,3}|[ \t]{0,3}[×x*][ \t]{0,3}", re.IGNORECASE
)  # "12 cartons × 50 units"
# What each package holds, said in a clause of its own: "6 containers; each holds 12,000 pcs", "40 pallets,
# each with 500 units", "10 cartons, each carton containing 24 pieces".
_EACH_HOLDS = re.compile(
    r"[ \t]{0,3}[,;:(\u2014\u2013-][ \t]{0,3}(?:and[ \t]{1,3})?each(?:[ \t]{1,3}(?:one|[a-z]{3,12}))?"
    r"[ \t]{1,3}(?:holds|holding|contains|containing|carries|carrying|has|having|with|of|takes|taking"
    r"|fits|is)[ \t]{1,3}",
    re.IGNORECASE,
)


def _each_of(amount: Amount) -> bool:
    """Whether a figure read as a price per unit is what one package holds, with no currency and "each"
    after it ("pallets of 400 each"): the caller checks that "of" joins it to a count of packages."""
    return (
        amount.kind == "money"
        and amount.currency is None
        and amount.per == "unit"
        and not amount.is_range
        and amount.high >= 2
        and amount.high == int(amount.high)
        and amount.text.rstrip().lower().endswith(("each", "apiece"))
    )


_EACH_OF: Callable[[Amount], bool] = _each_of
# A package defined before its count: "Boxes of 24; we need 150 boxes" (150 boxes of 24 units).
_PACKAGE_OF = re.compile(r"\b([a-z]{3,14})[ \t]{1,3}of[ \t]{1,3}(\d{1,6})\b(?![.,]?\d)", re.IGNORECASE)
_PACKAGE_REACH = 80  # characters from the definition to the count of packages
_PER_HOLDER = re.compile(r"[ \t]{0,3}(?:per|a|an|each|in each|/)[ \t]{0,3}([a-z]{2,12})", re.IGNORECASE)


def _holder(unit: str | None) -> str | None:
    """The package a count counts ("containers" -> "container"), or None."""
    if unit is None:
        return None
    single = unit[:-2] if unit.endswith("es") and unit[:-2] in _HOLDERS else unit.rstrip("s")
    return single if single in _HOLDERS else None


_VOLUME_RATE_MISFIT = 6.0  # a volume over a period may be far past one order's band (a factor of 400)


def _volume_rates(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """Add a figure with a period and no currency as an order volume when no money term of the domain
    has that period ("Could you handle 50,000 a month, so 600,000 a year?", "monthly call-offs of about
    200k"): a quantity over time, as stated, within a wide reach of the volume's band."""
    volume = passage.term("quantity", "units")
    if volume is None:
        return results
    periods = {t.unit for t in passage.terms if t.kind == "money"}
    taken = {id(r.mention) for r in results}
    added = [
        TermAmount(volume.name, m.low, m.high, m.start, m.end, m)
        for m in passage.mentions
        if m.kind == "money"
        and m.currency is None
        and m.per in ("day", "week", "month", "year")
        and m.per not in periods
        and not m.incidental
        and id(m) not in taken
        and m.high >= 2
        and _misfit(volume, m.high) <= _VOLUME_RATE_MISFIT
    ]
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


def _packed_volumes(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """The order volume of so many packages of so many units ("3 containers of 11,000 pieces each" is
    33,000; "Two pallets of 480 cartons each, 10 units per carton" is 9,600): the product, stated once
    for the units, and the counts of packages are no volume."""
    volume, text, mentions = passage.term("quantity", "units"), passage.text, passage.mentions
    if volume is None:
        return results
    restated: dict[int, TermAmount | None] = {}
    counted: set[int] = set()  # figures read as a price per unit that count what one package holds
    for k in range(len(mentions) - 1):
        outer, inner = mentions[k], mentions[k + 1]
        each = _EACH_OF(inner) and _OF_GAP.fullmatch(text, outer.end, inner.start) is not None
        if (
            outer.kind != "count"
            or (inner.kind != "count" and not each)
            or outer.is_range
            or inner.is_range
            or _holder(outer.unit) is None
            or (
                _OF_GAP.fullmatch(text, outer.end, inner.start) is None
                and _EACH_HOLDS.fullmatch(_window(text, outer.end, inner.start)) is None
            )
        ):
            continue
        if each:  # "a dozen pallets of 400 each": 400 units a pallet, no price
            counted.add(id(inner))
        total, last = outer.high * inner.high, inner
        inner_holder = _holder(inner.unit)
        if inner_holder is not None:  # "480 cartons each, 10 units per carton"
            third = mentions[k + 2] if k + 2 < len(mentions) else None
            per = None if third is None else _PER_HOLDER.match(_window(text, third.end, third.end + 24))
            if (
                third is None
                or per is None
                or _holder(per.group(1).lower()) != inner_holder
                or third.kind != "count"
                or third.unit != "units"
                or third.is_range
                or passage.sentence(third.start) != passage.sentence(inner.start)
            ):
                continue
            total, last = total * third.high, third
            restated[id(inner)] = None
        elif inner.unit != "units" and not each:
            continue
        restated[id(outer)] = None
        sentence = passage.sentence(last.start)
        stated = any(  # "50 boxes of 100 each, so 5,000 screws in total": the product is said once
            m.high == total and m.kind in ("count", "number") and passage.sentence(m.start) == sentence
            for m in mentions[k + 2 : k + 5]
        )
        restated[id(last)] = (
            None if stated else TermAmount(volume.name, total, total, last.start, last.end, last)
        )
    restated.update(_defined_packages(passage, volume, restated))
    if not restated:
        return results
    kept = [
        r
        for r in results
        if not (id(r.mention) in restated and (r.term == volume.name or id(r.mention) in counted))
    ]
    added = [r for r in restated.values() if r is not None]
    return sorted([*kept, *added], key=lambda r: (r.start, r.end))


def _defined_packages(
    passage: _Passage, volume: BoundaryTerm, restated: dict[int, TermAmount | None]
) -> dict[int, TermAmount | None]:
    """Counts of packages whose size was defined just before them ("Boxes of 24; we need 150 boxes" is
    3,600): the product, and the size is no volume."""
    found: dict[int, TermAmount | None] = {}
    by_start = {a.start: a for a in passage.mentions}
    for amount in passage.mentions:
        holder = _holder(amount.unit)
        if amount.kind != "count" or holder is None or amount.is_range or id(amount) in restated:
            continue
        window = _window(passage.text, amount.start - _PACKAGE_REACH, amount.start)
        sizes = [m for m in _PACKAGE_OF.finditer(window) if _holder(m.group(1).lower()) == holder]
        if not sizes:
            continue
        size = float(sizes[-1].group(2))
        if size < 2:
            continue
        size_mention = by_start.get(amount.start - len(window) + sizes[-1].start(2))
        if size_mention is not None:
            found[id(size_mention)] = None  # the size of one package is no order volume
        total = amount.high * size
        found[id(amount)] = TermAmount(volume.name, total, total, amount.start, amount.end, amount)
    return found


# A sum for the whole term of a lease: "Total rent over the 3-year lease: $324,000", "rent for the whole
# 24-month term comes to 216,000 dollars in total".
_WHOLE_TERM = re.compile(
    r"\b(?:total|in all|altogether|whole|entire|full|over the life"
    r"|over the[ \t]+[\w-]{1,24}[ \t]+(?:term|lease))\b",
    re.IGNORECASE,
)


def _term_totals(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """The monthly rent of a total for the whole term: a money figure with no rate in a sentence that
    names a total and states one length of the term, divided by its months, when that fits the rent's
    band (a sum that does not is left as it was read)."""
    rent, text, bounds = passage.term("money", "month"), passage.text, passage.bounds
    if rent is None:
        return results
    by_sentence: dict[int, list[Amount]] = {}
    for amount in passage.mentions:
        by_sentence.setdefault(passage.sentence(amount.start), []).append(amount)
    divided: dict[int, TermAmount] = {}
    for s, found in by_sentence.items():
        low, high = bounds[s], bounds[s + 1] if s + 1 < len(bounds) else len(text)
        spans = [a for a in found if a.kind == "duration" and not a.incidental and not a.is_range]
        money = [a for a in found if a.kind == "money" and a.per is None and not a.is_range and a.high > 0]
        if len(spans) != 1 or len(money) != 1 or _WHOLE_TERM.search(text, low, high) is None:
            continue
        months = convert_duration(spans[0].high, spans[0].unit or "", "months")
        if months is None or months < 2:
            continue
        value = round(money[0].high / months, 6)
        if _misfit(rent, value) <= 0.7:  # within a factor of two of the band
            divided[id(money[0])] = TermAmount(
                rent.name, value, value, money[0].start, money[0].end, money[0]
            )
    return _restate(results, divided)


# A figure named the rent right before or after it ("rent of $6,000", "$5,000 rent", "5.000 € Monatsmiete").
_RENT_BEFORE = re.compile(r"(?:\brent|miete)\w{0,3}[ \t]{0,3}(?:(?:of|is|at|:)[ \t]{0,3})?$", re.IGNORECASE)
_RENT_AFTER = re.compile(r"[ \t]{0,3}(?:monthly[ \t]+)?(?:rent|\w{0,6}miete)", re.IGNORECASE)
# A deposit waived: "no deposit", "no security deposit", "deposit: none", "deposit waived".
_NO_DEPOSIT = re.compile(
    r"\bno[ \t]+(?:security[ \t]+)?(?:deposit|kaution)\b|\b(?:deposit|kaution)\b[ \t:=,-]{0,4}"
    r"(?:or[ \t]{1,3}|(?:is|will[ \t]be|would[ \t]be|can[ \t]be|gets|to[ \t]be)[ \t]{1,3})?"
    r"(?:none|nil|zero|waived|keine)\b"
    r"|\bwaive[sd]?[ \t]+(?:the[ \t]+)?(?:security[ \t]+)?deposit\b",
    re.IGNORECASE,
)


def _scaled_sum(amount: Amount) -> bool:
    """Whether a figure with a multiplier and no currency may be a sum of money ("rent 6k, deposit 18k")."""
    return amount.kind == "number" and amount.scaled


_NAMED_SUM_REACH = 14  # characters from the term's keyword to the bare figure it names ("deposit of 12,000")


# A bare sum the deposit names right after it, as "$12,000 deposit" names a sum with its currency ("Rent
# 3,300/mo and 6,600 deposit": set v15; writers of sets v6-v16 name a deposit in money so). A switch of the
# measure's --ablation (`named_after`): 0 switches it off.
_NAMED_AFTER_REACH = 3  # characters from the bare figure's end to the keyword after it


def _named_sum(amount: Amount, keywords: Sequence[int]) -> bool:
    """Whether a bare figure in the hundreds or more is named right before (or right after, within
    `_NAMED_AFTER_REACH`) by the keyword of a term counted in months of rent ("Rent 4,000/month, deposit
    12,000", "6,600 deposit"): a sum of money, not months."""
    return (
        amount.kind == "number"
        and not amount.scaled
        and amount.high >= 100
        and (
            _nearest(keywords, amount.start, amount.start - _NAMED_SUM_REACH, amount.start) is not None
            or _nearest(keywords, amount.end, amount.end, amount.end + _NAMED_AFTER_REACH) is not None
        )
    )


# A sum after a number of months "at" it is the monthly rent: "three months at $9,800".
_MONTHS_AT = re.compile(r"\bmonths?(?:'s?)?(?:[ \t]+(?:of[ \t]+)?rent)?[ \t]+at[ \t]{0,3}$", re.IGNORECASE)


def _restated_sum(amount: Amount) -> bool:
    """Whether a bare figure may be a sum restating the months of rent its sentence gives ("Deposit of 3
    months on the 7,000 rent, so 21,000"): a whole figure in the hundreds or more, with no multiplier."""
    return amount.kind == "number" and not amount.scaled and amount.high >= 100


_RESTATED_SUMS: Callable[[Amount], bool] = _restated_sum


def _monthly(rent: Amount) -> float:
    """A rent's monthly value: a rent for a year in twelfths ("Annual rent 144,000" is 12,000 a month)."""
    return rent.high / 12 if rent.per == "year" else rent.high


def _rent_for(money: Sequence[Amount], k: int, rents: Sequence[Amount], rent_ids: set[int]) -> float | None:
    """The monthly rent a sum is counted in: the one rent its sentence states, or with several, the rent
    right after it or else right before it ("$8,000 if rent is $4,000, or $13,500 if rent is $4,500")."""
    if len({_monthly(a) for a in rents}) == 1:
        return _monthly(rents[0])
    for j in (k + 1, k - 1):
        if 0 <= j < len(money) and id(money[j]) in rent_ids:
            return _monthly(money[j])
    return None


def _rents_in(text: str, money: Sequence[Amount]) -> list[Amount]:
    """The sums of a sentence that are a rent: a monthly figure, one a rent keyword names right before
    or after, or a sum after months "at" it; never a range (a deposit "between $20,000 and $30,000")."""
    return [
        a
        for a in money
        if not a.is_range
        and (
            a.per == "month"
            or _RENT_BEFORE.search(_window(text, a.start - 24, a.start)) is not None
            or (a.per is None and _MONTHS_AT.search(_window(text, a.start - 24, a.start)) is not None)
            or (a.per is None and _RENT_AFTER.match(_window(text, a.end, a.end + 24)) is not None)
        )
    ]


def _neighbour_rent(rents_of: dict[int, list[Amount]], s: int, named: Callable[[int], bool]) -> list[Amount]:
    """The rent a sentence with a deposit in money and no rent borrows from the sentence right after or
    right before it ("Security deposit: $18,000. Monthly rent: $9,000."; "Deposit $10,000. Monthly rent
    $5,000."): that sentence's one monthly rent, when it names no deposit itself and only one neighbour
    states a rent (sets v13 and v14)."""
    found: list[Amount] = []
    for n in (s + 1, s - 1):
        rents = rents_of.get(n, [])
        if not rents or named(n):
            continue
        if len({_monthly(a) for a in rents}) != 1 or found:
            return []
        found = list(rents)
    return found


_NEIGHBOUR_RENTS = True  # `_neighbour_rent` and deposits as ranges on (a switch of the measure's --ablation)


def _months_of_rent(
    terms: Sequence[BoundaryTerm],
    text: str,
    mentions: Sequence[Amount],
    bounds: Sequence[int],
    keywords: dict[str, list[int]],
    results: list[TermAmount],
) -> list[TermAmount]:
    """Add the mentions of a term counted in months of rent (a deposit) written as money: a sum in a
    sentence naming the term, divided by the one monthly rent that sentence states ("Deposit of $18,000
    on rent of $6,000" is 3 months), and a waived one ("No deposit required" is 0)."""
    rent_terms = [t for t in terms if t.kind == "money" and t.unit == "month"]
    month_terms = [t for t in terms if t.kind == "quantity" and t.unit == "months"]
    if not rent_terms or not month_terms:
        return results
    term = month_terms[0]
    # clauses joined by ";" are one sentence here ("Rent $5,500; deposit $11,000")
    bounds = [b for b in bounds if b == 0 or b > len(text) or text[b - 1] != ";"]
    added: list[TermAmount] = []
    by_sentence: dict[int, list[Amount]] = {}
    plain: set[int] = set()  # bare figures read as sums only where they restate the term's months
    for amount in mentions:
        typed = amount.kind == "money" or _scaled_sum(amount) or _named_sum(amount, keywords[term.name])
        yearly_rent = (
            amount.per == "year"
            and _RENT_BEFORE.search(_window(text, amount.start - 24, amount.start)) is not None
        )
        if (
            (typed or _RESTATED_SUMS(amount))
            and (not amount.is_range or (_NEIGHBOUR_RENTS and amount.kind == "money"))
            and (amount.per in (None, "month") or (_NEIGHBOUR_RENTS and yearly_rent))
            and amount.high > 0
        ):
            by_sentence.setdefault(bisect.bisect_right(bounds, amount.start) - 1, []).append(amount)
            if not typed:
                plain.add(id(amount))

    def span(s: int) -> tuple[int, int]:
        return bounds[s], bounds[s + 1] if s + 1 < len(bounds) else len(text)

    def named(s: int) -> bool:
        return _nearest(keywords[term.name], bounds[s], *span(s)) is not None

    rents_of = {s: _rents_in(text, money) for s, money in by_sentence.items()}
    for s, money in by_sentence.items():
        low, high = span(s)
        # the months the sentence already gives the term: a sum that restates them needs no keyword
        # ("We hold 3 months, i.e. $27,000 at your rent of $9,000"; sets v11 and v12)
        held = {r.high for r in results if r.term == term.name and low <= r.start < high}
        rents = rents_of[s]
        borrowed = not rents and _NEIGHBOUR_RENTS and named(s)
        if borrowed:
            rents = _neighbour_rent(rents_of, s, named)
        elif len(money) < 2 or (
            _nearest(keywords[term.name], money[0].start, low, high) is None and not held
        ):
            continue
        if not rents:
            continue
        rent_ids = {id(a) for a in rents}
        for k, amount in enumerate(money):
            if id(amount) in rent_ids or amount.per is not None or (borrowed and id(amount) in plain):
                continue
            rent = _monthly(rents[0]) if borrowed else _rent_for(money, k, rents, rent_ids)
            if rent is None:
                continue
            months = round(amount.high / rent, 6)
            least = round(amount.low / rent, 6)
            restates = any(abs(months - h) <= 0.01 for h in held)
            keyworded = _nearest(keywords[term.name], amount.start, low, high) is not None
            if (id(amount) in plain or not keyworded) and not restates:
                continue
            # whole or half months, each end of a range too
            if all(0 < m <= 24 and abs(m * 2 - round(m * 2)) <= 0.02 for m in (least, months)):
                added.append(TermAmount(term.name, least, months, amount.start, amount.end, amount))
    if added:
        restated = {id(a.mention) for a in added}
        kept = [r for r in results if not (r.term != term.name and id(r.mention) in restated)]
        results = sorted([*kept, *added], key=lambda r: (r.start, r.end))
    return _waived(terms, text, results)


def _waived(terms: Sequence[BoundaryTerm], text: str, results: list[TermAmount]) -> list[TermAmount]:
    """Add a waived deposit ("No deposit required", "Deposit: none") as 0 months to the term counted in
    months of rent, unless a figure of that term follows it ("no deposit beyond 2 months")."""
    if not any(t.kind == "money" and t.unit == "month" for t in terms):
        return results
    name = next((t.name for t in terms if t.kind == "quantity" and t.unit == "months"), None)
    if name is None:
        return results
    added: list[TermAmount] = []
    folded, offsets = fold(text[:MAX_READ_CHARS])
    stated = sorted(r.start for r in results if r.term == name)
    for found in _NO_DEPOSIT.finditer(folded):
        start, end = offsets.start(found.start()), offsets.end(found.end())
        k = bisect.bisect_left(stated, start)
        if k < len(stated) and stated[k] < end + 40:
            continue  # "no deposit beyond 2 months" states one
        zero = Amount(0.0, 0.0, "number", start, end, text[start:end])
        added.append(TermAmount(name, 0.0, 0.0, start, end, zero))
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


# A rent per foot with its period after a money figure ("$36 per foot per year"): said of floor area, the
# foot is a square foot.
_PER_FOOT = re.compile(r"[ \t]{0,3}(?:per|/|a|an)[ \t]{0,3}(?:foot|ft)\b\.?", re.IGNORECASE)

# A price per square foot after a money figure ("$28 per square foot per year", "$3/sf a month", "$40 psf").
_PER_AREA = re.compile(
    r"[ \t]{0,3}(?:(?:per|/|a|an)[ \t]{0,3}"
    r"(?:sq\.?[ \t]{0,2}(?:ft|feet|foot)\b\.?|square[ \t]+(?:foot|feet|ft)\b|sf\b|sqft\b)|psf\b)",
    re.IGNORECASE,
)
_AREA_PERIOD = re.compile(
    r"[ \t]{0,3}(?:(?:per|/|a|an|each)[ \t]{0,3}(year|yr|annum|month|mo)\b"
    r"|(annually|yearly|monthly)\b|(p\.[ \t]?a)\b)",
    re.IGNORECASE,
)


# A year's pay or rent in instalments: "paid in 12 instalments of 10 500" (126,000 a year), "14 monthly
# payments of 6,000" (84,000 a year). Counts of a year's pay periods only: 12, 13, 14 (a thirteenth and
# fourteenth month's salary), 24, 26, 52; the figure is then a sum for the year.
_INSTALMENTS_BEFORE = re.compile(
    r"\b(12|13|14|24|26|52|twelve|thirteen|fourteen|twenty-four|twenty-six|fifty-two)[ \t]{1,3}"
    r"(?:equal[ \t]{1,3}|monthly[ \t]{1,3}|weekly[ \t]{1,3})?(?:instal(?:l)?ments|payments|tranches)"
    r"[ \t]{1,3}of[ \t]{0,3}$",
    re.IGNORECASE,
)
_INSTALMENT_COUNTS = {
    "twelve": 12.0,
    "thirteen": 13.0,
    "fourteen": 14.0,
    "twenty-four": 24.0,
    "twenty-six": 26.0,
    "fifty-two": 52.0,
}


def _instalments(text: str, mentions: list[Amount]) -> list[Amount]:
    """mentions with each instalment of a year's sum restated as that sum, by the year."""
    out: list[Amount] = []
    for amount in mentions:
        found = _INSTALMENTS_BEFORE.search(_window(text, amount.start - 48, amount.start))
        if found is None or amount.kind not in ("money", "number") or amount.per not in (None, "year"):
            out.append(amount)
            continue
        count = _INSTALMENT_COUNTS.get(found.group(1).lower()) or float(found.group(1))
        phrase = amount.start - len(_window(text, amount.start - 48, amount.start)) + found.start()
        out = [m for m in out if not phrase <= m.start < amount.start]  # "twelve monthly": the count
        low, high = round(amount.low * count, 6), round(amount.high * count, 6)
        out.append(replace(amount, low=low, high=high, kind="money", per="year", alternative=None))
    return out


def _per_area(text: str, mentions: list[Amount]) -> list[Amount]:
    """Prices per square foot multiplied by the area the text names ("$28 per square foot per year on
    3,000 sq ft" is 84,000 a year): the one area written (a count of sqft), and the period after the
    price ("per year", "a month"; by the year when none is written, as such rents are quoted). A price per
    square foot with no single area named is dropped: it is no figure of a rent as written."""
    areas = {a.high for a in mentions if a.kind == "count" and a.unit == "sqft" and not a.is_range}
    feet = {a.high for a in mentions if a.kind == "count" and a.unit == "feet" and not a.is_range}
    out: list[Amount] = []
    for amount in mentions:
        found = _PER_AREA.match(text, amount.end) if amount.kind in ("money", "number") else None
        period = _AREA_PERIOD.match(text, found.end()) if found is not None else None
        if found is None and amount.kind == "money":
            # "per foot" names floor area only with a rent's period after it and a count of feet
            by_foot = _PER_FOOT.match(text, amount.end)
            by_foot_period = _AREA_PERIOD.match(text, by_foot.end()) if by_foot is not None else None
            if by_foot_period is not None and len(feet | areas) == 1:
                found, period, areas = by_foot, by_foot_period, feet | areas
        if found is None or amount.per not in (None, "month", "year"):
            out.append(amount)
            continue
        if len(areas) != 1:
            continue
        area = next(iter(areas))
        word = (
            amount.per or "year" if period is None else (period.group(1) or period.group(2) or "year").lower()
        )
        per = "month" if word in ("month", "mo", "monthly") else "year"
        end = period.end() if period is not None else found.end()
        out.append(
            replace(
                amount,
                low=amount.low * area,
                high=amount.high * area,
                kind="money",
                per=per,
                end=end,
                text=text[amount.start : end],
            )
        )
    return out


# Another cost right before a term keyword makes a compound that names that cost ("equity package",
# "relocation package", "bonus base"): the keyword is not the term's there.
_OTHER_BEFORE = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w in _OTHER_MONEY if w.isalpha()) + r")[ \t-]{1,3}$", re.IGNORECASE
)


# Another cost named only to say the figure includes or excludes it ("14/u incl. freight", "$12.80
# excluding shipping"), or the idiom "for what it's worth": no cost with a figure of its own.
_MODIFYING = re.compile(
    r"(?:\b(?:incl|including|inclusive[ \t]+of|excl|excluding|exclusive[ \t]+of|without|net[ \t]+of)\.?"
    r"|\bw/o|\bwhat[ \t]+it(?:'s|’s|[ \t]+is|[ \t]+was))[ \t]{1,3}$",
    re.IGNORECASE,
)


def _modifier_cost(text: str, k: int) -> bool:
    """Whether the other cost named at offset k only modifies a figure (`_MODIFYING`)."""
    return _MODIFYING.search(text, max(0, k - 24), k) is not None


def _own_keywords(text: str, positions: list[int]) -> list[int]:
    """The keyword offsets that do not close a compound naming another cost ("an equity package")."""
    return [k for k in positions if _OTHER_BEFORE.search(text, max(0, k - 24), k) is None]


# A total named right after a money figure: "$150,000 for the whole batch", "$1.2M in total".
_TOTAL_AFTER = re.compile(
    r"\s{0,3}(?:for (?:the |all (?:the )?)?(?:whole|entire|full|complete)\b|in total\b)"
)
_DETACHING = re.compile(r"[,;+]|\b(?:plus|and|with|also|if|when|once|provided|unless|but|so)\b")


def _led_by_other(text: str, others: Sequence[int], own: Sequence[int], amount: Amount) -> bool:
    """Whether another cost names the amount from before it ("The TI allowance is $60,000 and rent is
    $6,250"): within 30 characters before it, with no keyword of the term between them, while the term's
    nearest keyword after it is set off by a connector (it names the next figure)."""
    k = bisect.bisect_left(others, amount.start)
    if k == 0 or amount.start - others[k - 1] > 30:
        return False
    j = bisect.bisect_left(own, others[k - 1])
    if j < len(own) and own[j] < amount.start:
        return False  # "bonus and base of $95k": the term's own keyword is nearer
    if j < len(own) and own[j] >= amount.end:
        return _DETACHING.search(text, amount.end, own[j]) is not None
    # no keyword of the term after it either: the cost names the figure when only a verb or a colon
    # stands between ("CAM is $600 per month", "TI $60k")
    after = bisect.bisect_left(own, amount.end)
    return after == len(own) and _NAMED_BY.fullmatch(text, others[k - 1], amount.start) is not None


# Between another cost's name and the figure it names: the rest of the word, then a verb or a sign.
_NAMED_BY = re.compile(r"[\w-]{0,24}[ \t]{0,3}(?:(?:is|are|was|of|at|costs?|runs|comes to|:|=)[ \t]{0,3})?")


def _detached_other(text: str, others: Sequence[int], amount: Amount, high_bound: int) -> bool:
    """Whether the nearest other cost after amount is set off from it ("ninety-four thousand, plus a
    target bonus") while none stands right before it: that cost names the next item, not this one."""
    k = bisect.bisect_left(others, amount.start)
    before = k > 0 and amount.start - others[k - 1] <= 30
    if before or k >= len(others) or others[k] >= min(high_bound, amount.end + 25):
        return False
    return _DETACHING.search(text, amount.end, others[k]) is not None


# A bare figure before "free" and a time unit counts a rent-free period ("the 2 free months stay"), no
# term of the boundary (the term reader reads it as its own term).
_FREE_PERIOD = re.compile(r"[ \t]{1,3}free[ \t]{1,3}(?:months?|weeks?|years?|days?)\b", re.IGNORECASE)


def _free_after(text: str, amount: Amount) -> bool:
    """Whether a figure counts a rent-free period (`_FREE_PERIOD` right after its digits, whatever type
    a figure compared with it gave it: "No rent for 4 free months, deposit 3 months")."""
    return amount.currency is None and _FREE_PERIOD.match(text, amount.figure_end) is not None


# (issue 14, sets v12 and v14) a rent-free period named before its figure in the same clause: "Rent-free
# period of 2 months", "Rent-free: two months", "if the rent-free goes to 3 months" (not "3 months
# rent-free and a deposit of 2 months": a term's keyword between them names the figure).
_FREE_BEFORE = re.compile(
    r"(?:\brent[ \t-]?free|\bfree[ \t]+rent|mietfrei\w{0,2})\b([^.;!?\d]{0,28})$", re.IGNORECASE
)
# what may stand between the period's name and its figure ("The first 4 months are rent-free on a 5-year
# lease" names the lease's figure)
_FREE_TO_FIGURE = re.compile(
    r"(?:[ \t]{1,3}period)?[ \t]{0,3}(?::|(?:of|is|for|at|to|goes[ \t]{1,3}to|stays[ \t]{1,3}at"
    r"|would[ \t]{1,3}be|will[ \t]{1,3}be|up[ \t]{1,3}to|von|bis)[ \t]{1,3})?[ \t]{0,3}"
    r"(?:(?:about|another|just|only|up[ \t]{1,3}to)[ \t]{1,3})?",
    re.IGNORECASE,
)


def _free_before(text: str, amount: Amount) -> bool:
    """Whether a figure with no currency is the length of a rent-free period named before it."""
    if amount.currency is not None:
        return False
    found = _FREE_BEFORE.search(_window(text, amount.start - 48, amount.start))
    return found is not None and _FREE_TO_FIGURE.fullmatch(found.group(1)) is not None


_FREE_BEFORE_ON = True  # `_free_before` on (a switch of the measure's --ablation)


def _other_has_figure(others: Sequence[int], starts: Sequence[int], amount: Amount) -> bool:
    """Whether the other cost named nearest before amount (within 30 characters) has a figure of its own
    between them ("Tooling $8,000 one-off, then $2.75 per part"): it names that figure, not this one."""
    k = bisect.bisect_left(others, amount.start)
    if k == 0 or amount.start - others[k - 1] > 30:
        return False
    after = k < len(others) and others[k] - amount.end <= 25
    j = bisect.bisect_right(starts, others[k - 1])
    return not after and j < len(starts) and starts[j] < amount.start


def _attribute(
    terms: Sequence[BoundaryTerm],
    amount: Amount,
    keywords: dict[str, list[int]],
    others: list[int],
    low_bound: int,
    high_bound: int,
    other_after: bool = False,
    total: bool = False,
) -> _Candidate | None:
    position = amount.start
    candidates: list[_Candidate] = []
    for term in terms:
        if total and term.kind == "money":
            continue  # a total for a whole lot is no rate or price of one
        converted = _convert(term, amount)
        if converted is None:
            continue
        low, high, explicit = converted
        # a count of things is whole: "75.000 pcs" is 75,000 (no one writes 75 pieces to three decimals)
        if amount.alternative is not None and _misfit(term, high) > 1.5 and amount.kind not in _WHOLE_KINDS:
            alt_low, alt_high = amount.alternative
            if _misfit(term, alt_high) < _misfit(term, high):
                low, high = alt_low, alt_high
        distance = _nearest(
            keywords[term.name],
            position,
            max(low_bound, position - _KEYWORD_REACH),
            min(high_bound, amount.end + _KEYWORD_REACH),
        )
        misfit = _misfit(term, high)
        typed = amount.kind != "number" or amount.per is not None
        shorthand = not typed and distance is not None and distance <= _SHORTHAND_REACH and misfit > 1.2
        if shorthand and _in_thousands(term, amount):
            low, high = low * 1000.0, high * 1000.0  # "107 on base", "i can do 125 base"
            misfit = _misfit(term, high) + _SHORTHAND_PENALTY
        if not typed:
            if distance is None and not (amount.scaled and misfit < 1.2):
                continue
            label = _nearest(keywords[term.name], position, max(low_bound, position - 15), position)
            # a figure written to the cent beside a price word is a price whatever its size ("we paid
            # 0.45 last year"): unit prices range over orders of magnitude between goods
            cents = (
                term.unit == "unit" and distance is not None and _CENTS_SHAPE.search(amount.text) is not None
            )
            # a count written with a multiplier right after a volume's label ("Forecast 1 million") is
            # a volume however far past one order's band
            limit = 1.2 if label is None else _LABELLED_COUNT_MISFIT if _labelled_count(term, amount) else 2.5
            if misfit > limit and not (cents and misfit < 100.0):
                continue  # far outside the band, unless named right before it ("Volume: 18k")
        if amount.kind == "duration" and not explicit:
            continue
        if amount.kind == "duration" and distance is None and misfit > 1.2:
            continue
        score = misfit + (0.0 if explicit else 0.3) + (distance / 40.0 if distance is not None else 1.5)
        candidates.append(_Candidate(term, round(low, 6), round(high, 6), score))
    if not candidates:
        return None
    best = min(candidates, key=lambda c: c.score)
    other = _nearest(others, position, max(low_bound, position - 30), min(high_bound, amount.end + 25))
    if other is not None and other_after:
        other = None  # the cost named after it belongs to the next item ("$94K, plus a target bonus")
    own = _nearest(keywords[best.term.name], position, low_bound, high_bound)
    if other is None or (own is not None and other >= own):
        return best
    # another cost named nearer than the term's own keyword: no price of the term, and no bare figure of
    # any term ("Lease 5 years; fit-out 40" is no lease term of 40 months)
    bare = amount.kind == "number" and amount.per is None
    return None if best.term.kind == "money" or (bare and best.term.kind in _OTHER_NAMES_BARE) else best


# The kinds of term whose bare figure another cost named nearer than the term's keyword takes from it
# (a spurious lease term misread, 2026-11-29).
_OTHER_NAMES_BARE = frozenset({"duration"})


_PERIOD_SIBLING_RATIO = math.log(1.5)  # a sibling sum within a factor of 1.5 is a sum for the same period


def _sibling_periods(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """A sum with a currency but no period of its own, beside a sum of the same size and term that
    states its period, is a sum for that period ("The owner wants $90,000 per annum; we countered at
    $84,000" is 7,000 a month): restated when the period brings it into the term's band or nearer."""
    terms = {t.name: t for t in passage.terms if t.kind == "money" and t.unit in _PER_YEAR}
    typed = [
        r for r in results if r.term in terms and r.mention.per in _PER_YEAR and r.mention.kind == "money"
    ]
    if not typed:
        return results
    starts = [t.start for t in typed]
    out: list[TermAmount] = []
    for r in results:
        term = terms.get(r.term)
        mention = r.mention
        if term is None or mention.per is not None or mention.kind != "money" or mention.inherited:
            out.append(r)
            continue
        window = typed[
            bisect.bisect_left(starts, r.start - _SIBLING_REACH) : bisect.bisect_right(
                starts, r.start + _SIBLING_REACH
            )
        ]
        near = [
            t
            for t in window  # within _SIBLING_REACH characters: a bounded number of figures
            if t.term == r.term
            and abs(math.log(max(mention.high, 1e-9) / max(t.mention.high, 1e-9))) <= _PERIOD_SIBLING_RATIO
        ]
        if not near:
            out.append(r)
            continue
        sibling = min(near, key=lambda t: abs(t.start - r.start))
        per = sibling.mention.per or ""
        low, high = (
            convert_rate(mention.low, per, term.unit or ""),
            convert_rate(mention.high, per, term.unit or ""),
        )
        if low is None or high is None or _misfit(term, high) >= _misfit(term, r.high):
            out.append(r)
            continue
        out.append(replace(r, low=round(low, 6), high=round(high, 6)))
    return out


# -- bare figures of a passage ----------------------------------------------------------------------------
# A bare figure (no currency, rate, unit or keyword) is read as a value of a term under negotiation when
# the passage says which term it is by its other figures: a figure of the same size as one attributed
# near it ("our budget was 100 but the CFO approved 104.5k", "The owner wants 11,000; we offered 10,200
# monthly", "2,000 in January ... then 4k a month"), or, with no attributed figure, a series of two or
# more bare figures that all fit one term and no other ("We went 99 -> 103 -> 106", "Last year 2.80,
# this year 2.95, your target 2.60"). A lone bare figure that nothing names stays unattributed.
_SIBLING_REACH = 160  # characters between a bare figure and the attributed figure it is read beside
_SIBLINGS_READ = 4  # the nearest attributed figures a bare figure is compared with
_SIBLING_RATIO = math.log(2.0)  # a sibling's value within a factor of 2
# a count written with a multiplier beside another count within a factor of 10 ("ten thousand units, not
# a hundred thousand", "forecast 1 million, firm 150 thousand"): corrections and forecasts of a volume
_SCALED_COUNT_RATIO = math.log(10.5)
_SERIES_MISFIT = {"money": 0.7, "quantity": 2.5}  # how far outside a term's band a series figure may lie
_DECIMAL_SHAPE = re.compile(r"\d[.,]\d{1,2}$")


_LABELLED_COUNT_MISFIT = (
    8.0  # a factor of 3,000 past the band: a forecast of millions against orders of thousands
)


def _labelled_count(term: BoundaryTerm, amount: Amount) -> bool:
    """Whether a figure with a multiplier may be read as a count of a quantity term far past its band."""
    return term.kind == "quantity" and amount.scaled and amount.high == int(amount.high)


def _bare(amount: Amount) -> bool:
    """A figure with nothing written beside it: no currency, rate, unit or multiplier."""
    return (
        amount.kind == "number" and amount.per is None and amount.currency is None and not amount.incidental
    )


def _bare_readings(term: BoundaryTerm, amount: Amount) -> list[tuple[float, float, float]]:
    """The readings of a bare figure for a money or quantity term: (low, high, extra misfit), as written
    and, for a money term paid in tens of thousands or more, in thousands ("99" for 99,000)."""
    readings = [(amount.low, amount.high, 0.0)]
    band = _band(term)
    thousands = term.kind == "money" and band is not None and band[0] >= 10_000 and not amount.scaled
    if thousands and 20 <= amount.low <= amount.high < 1000 and amount.high * 2 == int(amount.high * 2):
        readings.append((amount.low * 1000.0, amount.high * 1000.0, 0.0))
    return readings


def _labelled_otherwise(
    amount: Amount,
    term: str,
    keywords: dict[str, list[int]],
    others: Sequence[int],
    sentence_start: int = 0,
    counts: frozenset[str] = frozenset(),
) -> bool:
    """Whether another cost ("a 5k sign-on") or another term's keyword ("deposit 21,600") names a bare
    figure: right before it, or (another cost) right after it. A figure written to the cent is named by
    no keyword of a count (`counts`: "we need 5,35 to move" is no order volume)."""
    if _nearest(others, amount.start, amount.start - 30, amount.end + 12) is not None:
        return True
    # not across the end of a sentence ("Would 6 bucks a unit work? Or 5.75 if you take 10k?")
    low = max(amount.start - 20, sentence_start)
    return any(
        _nearest(offsets, amount.start, low, amount.start) is not None
        for name, offsets in keywords.items()
        if name != term and not (name in counts and _DECIMAL_SHAPE.search(amount.text) is not None)
    )


def _packed_sibling(term: BoundaryTerm, sibling: TermAmount) -> bool:
    """Whether a sibling count's value is no rate to apply to a bare figure (a product of packages)."""
    return term.kind == "quantity" and sibling.mention.per is None


def _sibling_floor(passage: _Passage, amount: Amount) -> int:
    """Where the words that may name a bare figure otherwise start: its sentence ("Would 6 bucks a unit
    work? Or 5.75 if you take 10k?": "unit" before the "?" names no figure after it)."""
    return passage.sentence_start(amount.start)


def _count_terms(passage: _Passage) -> frozenset[str]:
    """The quantity terms, whose keywords name no figure written to the cent ("we need 5,35 to move")."""
    return frozenset(t.name for t in passage.terms if t.kind == "quantity")


def _bare_siblings(
    passage: _Passage, results: list[TermAmount], keywords: dict[str, list[int]], others: Sequence[int]
) -> list[TermAmount]:
    """Add each bare figure that no term took to the term of the nearest attributed figure within reach
    of it, when its value (read as written or in thousands, and converted by the same rate as that
    figure) lies within a factor of 2 of that figure's and nothing else names it."""
    taken = {id(r.mention) for r in results}
    named = [r for r in results if r.mention.kind in ("number", "money", "count") and r.mention.high > 0]
    starts = [r.start for r in named]  # in text order, so a window is two bisections (linear overall)
    by_name = {t.name: t for t in passage.terms}
    counts = _count_terms(passage)
    restated: dict[int, TermAmount] = {}
    for amount in passage.mentions:
        if (
            not _bare(amount)
            or id(amount) in taken
            or amount.high <= 0
            or _SKIPPED_BARE(passage.text, amount)
        ):
            continue
        k = bisect.bisect_left(starts, amount.start)
        near = sorted(
            (
                r
                for r in named[max(0, k - _SIBLINGS_READ) : k + _SIBLINGS_READ]
                if abs(r.start - amount.start) <= _SIBLING_REACH
            ),
            key=lambda r: abs(r.start - amount.start),
        )
        for sibling in near:
            term = by_name.get(sibling.term)
            if term is None or term.kind not in ("money", "quantity"):
                continue
            if _labelled_otherwise(
                amount, term.name, keywords, others, _sibling_floor(passage, amount), counts
            ):
                break
            # a count's product of packages is no rate ("12 cartons × 50 units, plus 40 loose units")
            packed = _packed_sibling(term, sibling)
            rate = 1.0 if packed else sibling.high / sibling.mention.high
            ratio = _SCALED_COUNT_RATIO if _labelled_count(term, amount) else _SIBLING_RATIO
            fits = [
                (low * rate, high * rate)
                for low, high, _ in _bare_readings(term, amount)
                if abs(math.log(high * rate / sibling.high)) <= ratio
            ]
            if fits:
                low, high = fits[0]
                restated[id(amount)] = TermAmount(
                    term.name, round(low, 6), round(high, 6), amount.start, amount.end, amount
                )
                break
    return _restate(results, restated)


# -- a bare follow-up figure that carries the duration of the figure before it ------------------------------
# "a 15 yr lease? no way. max 10." is 120 months; "Eighteen months is too short; we want 48." is 48: a bare
# figure (no unit, rate or currency) that no term took inherits the term and the unit of the nearest
# duration attributed before it in the same message, when nothing between them names another term or cost
# and the converted value lies near the term's band (the error form of sets v10, v13 and v14).
_CARRY_REACH = 120  # characters from the attributed duration to the bare figure that carries its unit
_CLAUSE_MARKS = (";", ",", ".", "?", "!", "\u2014")  # where the clause of a carried figure starts
_CARRY_MISFIT = math.log(3.0)  # how far outside the term's band a carried figure may lie (a move past it)


def _carries_duration(
    passage: _Passage,
    amount: Amount,
    sibling: TermAmount,
    keywords: dict[str, list[int]],
    others: Sequence[int],
) -> bool:
    """Whether nothing between an attributed duration and a bare figure after it names another term, nothing
    in the figure's own clause names another cost ("too short for the fit-out; we want 48" is the term's),
    the figure is a whole or half number and no date, percentage or count (`_SKIPPED_BARE`)."""
    if amount.start - sibling.end > _CARRY_REACH or _SKIPPED_BARE(passage.text, amount):
        return False
    if amount.high * 2 != int(amount.high * 2) or amount.low != amount.high:
        return False
    window = passage.text[sibling.end : amount.start]  # at most _CARRY_REACH characters
    clause = sibling.end + max(window.rfind(mark) for mark in _CLAUSE_MARKS) + 1  # its own clause
    if _nearest(others, amount.start, clause, amount.end + 12) is not None:
        return False
    return not any(
        _nearest(offsets, amount.start, sibling.end, amount.end + 12) is not None
        for name, offsets in keywords.items()
        if name != sibling.term
    )


def _carried_durations(
    passage: _Passage, results: list[TermAmount], keywords: dict[str, list[int]], others: Sequence[int]
) -> list[TermAmount]:
    """Add each bare figure no term took after an attributed duration (a lease term, a deposit in months)
    as a figure of the same term in the same unit (`_carries_duration`); one pass over the mentions."""
    durations = {t.name: t for t in passage.terms if t.kind == "duration" or t.unit in ("months", "years")}
    if not durations or not results:
        return results
    taken = {id(r.mention) for r in results}
    ordered = sorted(results, key=lambda r: r.start)
    starts = [r.start for r in ordered]
    added: list[TermAmount] = []
    for amount in passage.mentions:
        if not _bare(amount) or id(amount) in taken or amount.high <= 0:
            continue
        k = bisect.bisect_left(starts, amount.start) - 1  # the nearest attributed figure before it
        if k < 0:
            continue
        sibling = ordered[k]
        term = durations.get(sibling.term)
        if (
            term is None
            or sibling.mention.kind != "duration"
            or sibling.mention.high <= 0
            or not _carries_duration(passage, amount, sibling, keywords, others)
        ):
            continue
        rate = sibling.high / sibling.mention.high
        if _misfit(term, amount.high * rate) > _CARRY_MISFIT:
            continue
        added.append(
            TermAmount(
                term.name,
                round(amount.low * rate, 6),
                round(amount.high * rate, 6),
                amount.start,
                amount.end,
                amount,
            )
        )
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


# -- a bare follow-up figure that carries the money term of the figure before it --------------------------
# "Can you do 65 an hour? I'm at 70", "68 an hour but for a 12-month commitment I can do 63", "9.90 if you
# commit to 10k units; list is 11.20": a bare figure (no unit, rate or currency, or a type it only inherited
# from a figure no term took) that no term took inherits the term and the rate of the nearest money figure
# attributed before it in the same message, when its value lies within a factor of 2 of that figure's, no
# other cost is named in its own clause and no other term's keyword stands between them outside the figures
# that keyword names (the error form of sets v13 and v15; a general rule, not a phrase list).
_MONEY_CARRY_RATIO = math.log(2.0)  # the carried figure's value within 0.5x-2x of the figure before it
_MONEY_CARRY_BACK = 3  # attributed figures looked back over for the nearest money figure
# a word before the figure that makes it a count, a label or a point in time rather than a money move
# ("9.90 for 12", "a box of 12", "in 30", "net 30", "room 12")
_NOT_CARRIED_AFTER = frozenset(
    {"for", "of", "x", "\u00d7", "in", "on", "by", "every", "after", "within", "net", "#", "no", "number",
     "room", "unit", "suite", "floor", "month", "year", "week", "day", "per", "each", "times", "top", "first"}
)  # fmt: skip
_MONEY_CARRY_ON = True  # `_carried_money` on (the `money_carry` switch of the measure's --ablation)


def _carry_candidate(amount: Amount) -> bool:
    """A figure that may carry a money term: bare, or typed only by inheritance as a count or a duration
    from a figure before it, without a multiplier ("a 12-month commitment I can do 63")."""
    if amount.high <= 0 or amount.incidental or amount.low != amount.high:
        return False
    return _bare(amount) or (
        amount.inherited
        and amount.kind in ("count", "duration")
        and not amount.scaled
        and amount.currency is None
    )


def _carries_money(
    passage: _Passage,
    amount: Amount,
    sibling: TermAmount,
    keywords: dict[str, list[int]],
    others: Sequence[int],
    spans: Sequence[tuple[int, int]],
) -> bool:
    """Whether a candidate figure follows the attributed money figure sibling closely, names no other cost
    in its own clause, is no count of its own noun (`_SKIPPED_BARE`) and no other term's keyword stands
    between them except inside an attributed figure ("10k units")."""
    if amount.start - sibling.end > _CARRY_REACH or amount.start < sibling.end:
        return False
    if _SKIPPED_BARE(passage.text, amount):
        return False
    before = passage.text[max(sibling.end, amount.start - 12) : amount.start].split()
    if before and before[-1].lower().strip(".,:;()") in _NOT_CARRIED_AFTER:
        return False
    if amount.end < len(passage.text) and passage.text[amount.end : amount.end + 1] in ("%", "/", "-", ":"):
        return False
    window = passage.text[sibling.end : amount.start]  # at most _CARRY_REACH characters
    clause = sibling.end + max(window.rfind(mark) for mark in _CLAUSE_MARKS) + 1
    if _nearest(others, amount.start, clause, amount.end + 12) is not None:
        return False
    for name, offsets in keywords.items():
        if name == sibling.term:
            continue
        k = bisect.bisect_left(offsets, sibling.end)
        while k < len(offsets) and offsets[k] <= amount.end + 12:
            if not any(low <= offsets[k] < high for low, high in spans):
                return False
            k += 1
    return True


def _carried_money(
    passage: _Passage, results: list[TermAmount], keywords: dict[str, list[int]], others: Sequence[int]
) -> list[TermAmount]:
    """Add each candidate figure no term took after an attributed money figure as a figure of the same
    term at the same rate (`_carries_money`), within a factor of 2 of it; one pass over the mentions."""
    money = {t.name: t for t in passage.terms if t.kind == "money"}
    if not _MONEY_CARRY_ON or not money or not results:
        return results
    taken = {id(r.mention) for r in results}
    ordered = sorted(results, key=lambda r: r.start)
    starts = [r.start for r in ordered]
    added: list[TermAmount] = []
    for amount in passage.mentions:
        if id(amount) in taken or not _carry_candidate(amount):
            continue
        k = bisect.bisect_left(starts, amount.start) - 1
        sibling = next(
            (
                ordered[j]
                for j in range(k, max(-1, k - _MONEY_CARRY_BACK), -1)
                if ordered[j].term in money and ordered[j].mention.kind in ("money", "number")
            ),
            None,
        )
        if sibling is None or sibling.mention.high <= 0 or sibling.high <= 0:
            continue
        spans = [(r.start, r.end) for r in ordered[max(0, k - _MONEY_CARRY_BACK) : k + 1]]
        if not _carries_money(passage, amount, sibling, keywords, others, spans):
            continue
        rate = sibling.high / sibling.mention.high
        value = amount.high * rate
        if abs(math.log(value / sibling.high)) > _MONEY_CARRY_RATIO:
            continue
        term = money[sibling.term]
        added.append(
            TermAmount(term.name, round(value, 6), round(value, 6), amount.start, amount.end, amount)
        )
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


_AT_BEFORE = re.compile(r"(?:\bat|@)[ \t]{0,3}$", re.IGNORECASE)


def _count_prices(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """Add each bare figure written to the cent after "at" or "@" that follows an order volume in its
    sentence as a unit price ("250 pcs part 7731 at 18.40", "400 pcs of item 5512 at 9.60")."""
    price, volume = passage.term("money", "unit"), passage.term("quantity", "units")
    if price is None or volume is None:
        return results
    taken = {id(r.mention) for r in results}
    volumes = sorted(r.start for r in results if r.term == volume.name)
    added: list[TermAmount] = []
    for amount in passage.mentions:
        if (
            not _bare(amount)
            or id(amount) in taken
            or _CENTS_SHAPE.search(amount.text) is None
            or _misfit(price, amount.high) > 2.5
        ):
            continue
        if _AT_BEFORE.search(_window(passage.text, amount.start - 6, amount.start)) is None:
            if _tier_before(passage.text, volumes, amount):
                added.append(
                    TermAmount(price.name, amount.low, amount.high, amount.start, amount.end, amount)
                )
            continue
        k = bisect.bisect_left(volumes, amount.start) - 1  # the last volume before it (linear overall)
        if k >= 0 and volumes[k] >= passage.sentence_start(amount.start):
            added.append(TermAmount(price.name, amount.low, amount.high, amount.start, amount.end, amount))
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results


_TIER_AFTER = re.compile(r"[ \t]{1,3}(?:at|for|@)[ \t]{1,3}$|[ \t]{0,3}[@(][ \t]{0,3}$", re.IGNORECASE)


def _tier_before(text: str, volumes: Sequence[int], amount: Amount) -> bool:
    """Whether a bare figure written to the cent is the price of the order volume right after it ("We
    can do 7.10 at 5k units or 6.85 at 10k", "2.15 (5k)"): the mirror of "5k units at 7.10"."""
    k = bisect.bisect_left(volumes, amount.end)  # the first volume after it (linear overall)
    return (
        k < len(volumes)
        and volumes[k] - amount.end <= 6
        and _TIER_AFTER.search(text[amount.end : volumes[k]]) is not None
    )


def _bare_series(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """Attribute a series of two or more bare figures of a passage that no term took, none of whose
    figures any term took, to the one money or quantity term every figure of it fits (within its band,
    or a little outside: a move past the band is still a figure of the term), the term they fit best
    when several do. A figure to the cent fits a unit price at any size (goods' prices vary by orders
    of magnitude); a whole figure fits no unit price unless it lies in the band."""
    if results:
        return results
    series = [a for a in passage.mentions if _bare(a) and a.high > 0 and not _SKIPPED_BARE(passage.text, a)]
    if len(series) < 2:
        return results
    best: tuple[float, BoundaryTerm, list[tuple[float, float]]] | None = None
    tie = False
    for term in passage.terms:
        limit = _SERIES_MISFIT.get(term.kind)
        if limit is None or _band(term) is None:
            continue
        total, values = 0.0, list[tuple[float, float]]()
        for amount in series:
            fit = _series_fit(term, amount, limit)
            if fit is None:
                break
            total += fit[2]
            values.append((fit[0], fit[1]))
        else:
            if best is None or total < best[0] - 0.05:
                best, tie = (total, term, values), False
            elif total <= best[0] + 0.05:
                tie = True
    if best is None or tie:
        return results
    _, term, values = best
    return [
        TermAmount(term.name, round(low, 6), round(high, 6), a.start, a.end, a)
        for a, (low, high) in zip(series, values, strict=True)
    ]


def _series_fit(term: BoundaryTerm, amount: Amount, limit: float) -> tuple[float, float, float] | None:
    """The closest reading of a bare figure for term, with its misfit, or None if none is close."""
    if term.kind == "quantity" and (amount.high != int(amount.high) or amount.high < 10):
        return None
    cents = term.unit == "unit" and _DECIMAL_SHAPE.search(amount.text) is not None
    readings = [(low, high, _misfit(term, high) + extra) for low, high, extra in _bare_readings(term, amount)]
    low, high, misfit = min(readings, key=lambda r: r[2])
    if misfit <= limit:
        return low, high, misfit
    if cents and _misfit(term, high) < 100.0 and high < (_band(term) or (0.0, 0.0))[1]:
        return low, high, limit
    return None


# -- a term written as the span between two dates ---------------------------------------------------------
# "Lease from 1 March 2027 to 28 February 2030" is 36 months; "March 2027 through February 2030" too.
_MONTH_NUMBERS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH_NAME = r"(?:" + "|".join(sorted(_MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_DATE = (
    r"(?:(?P<{p}d1>[0-3]?\d)(?:st|nd|rd|th)?[ \t]{{1,3}}(?P<{p}m1>"
    + _MONTH_NAME
    + r")[ \t,]{{1,3}}(?P<{p}y1>(?:19|20)\d\d)"
    r"|(?P<{p}m2>"
    + _MONTH_NAME
    + r")[ \t]{{1,3}}(?:(?P<{p}d2>[0-3]?\d)(?:st|nd|rd|th)?,?[ \t]{{1,3}})?(?P<{p}y2>(?:19|20)\d\d)"
    r"|(?P<{p}y3>(?:19|20)\d\d)-(?P<{p}m3>[01]\d)-(?P<{p}d3>[0-3]\d))"
)
_DATE_SPAN = re.compile(
    r"\b(?:from[ \t]{1,3})?"
    + _DATE.format(p="a")
    + r"[ \t]{0,3}(?:to|until|till|through|thru|-|–|—)[ \t]{0,3}"
    + _DATE.format(p="b")
    + r"\b",
    re.IGNORECASE,
)


def _date_of(match: re.Match[str], side: str) -> datetime.date | None:
    """The date one side of a span names: with no day written, the first day of its month, or for the
    end of the span the first day of the month after ("March 2027 through February 2030" is 36 months)."""
    for form in ("1", "2", "3"):
        year = match.group(f"{side}y{form}")
        if year is None:
            continue
        month_text = match.group(f"{side}m{form}").rstrip(".").lower()
        month = int(month_text) if month_text.isdigit() else _MONTH_NUMBERS.get(month_text, 0)
        day = match.group(f"{side}d{form}")
        if not 1 <= month <= 12:
            return None
        if day is None and side == "b":
            year, month = (str(int(year) + 1), 1) if month == 12 else (year, month + 1)
        try:
            return datetime.date(int(year), month, int(day) if day else 1)
        except ValueError:
            return None
    return None


def _date_spans(passage: _Passage, results: list[TermAmount]) -> list[TermAmount]:
    """Add the length of a span between two dates to the duration term (in months or years) a keyword
    of its sentence names: the days between them in months (30.44 days each), to the nearest month."""
    durations = [t for t in passage.terms if t.kind == "duration" and t.unit in ("months", "years")]
    text = passage.text[:MAX_READ_CHARS]
    if not durations or _DATE_SPAN.search(text) is None:
        return results
    folded, offsets = fold(text)  # keywords located once, so the pass is linear in the text
    keywords = {t.name: _keyword_offsets(folded, t.keywords, offsets) for t in durations}
    added: list[TermAmount] = []
    for match in _DATE_SPAN.finditer(text):
        first, last = _date_of(match, "a"), _date_of(match, "b")
        if first is None or last is None or last <= first:
            continue
        s = passage.sentence(match.start())
        low = passage.bounds[s]
        high = passage.bounds[s + 1] if s + 1 < len(passage.bounds) else len(passage.text)
        term = next((t for t in durations if _keyword_in({t.name: keywords[t.name]}, low, high)), None)
        if term is None:
            continue
        months = float(round((last - first).days / (365.25 / 12.0)))
        value = months if term.unit == "months" else round(months / 12.0, 6)
        fake = Amount(months, months, "duration", match.start(), match.end(), match.group(0), unit="months")
        added.append(TermAmount(term.name, value, value, match.start(), match.end(), fake))
    return sorted([*results, *added], key=lambda r: (r.start, r.end)) if added else results

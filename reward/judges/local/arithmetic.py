"""Figures a claim works out in the open from figures it states and the evidence gives (`stated_arithmetic`): a
sum or difference, a rate, a count times what it counts, a quantity per unit times a count of that unit, a share of
a figure ("half of 227 g"); and the figures the evidence spells out (`spelled_numbers`). Pure functions of strings.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from reward.format import strip_citations
from reward.judges.local.clock import race_seconds
from reward.judges.local.figures import _SPELLED, _SPELLING, _YEAR_UNIT, _given, _quantities, _unit
from reward.judges.local.spots import (CENTS_AFTER, COUNTED_AFTER, PER_AFTER, figure_spots, first_total, in_per_cent, makes,
                                       near_any, paired, text_before)
from reward.judges.local.text import STOPWORDS, numbers, stem

_COUNT = r"(\d+|" + "|".join(_SPELLED) + r")"
_PRODUCTS = (
    # a count before a quantity: "two 200 mg tablets", "2 x 200 mg", "2 cups × 125 g", "3 times 40", "3 doses of 5 ml"
    re.compile(r"(?<![\d.,])\b" + _COUNT + r"(?:\s*(?:[a-z]+\s*)?(?:x|×|\*|times)\s*|\s+[a-z]+\s+of\s+|\s+)[$€£¥]?(\d+(?:[.,]\d+)*)"
               r"(?![\d:])",
               re.IGNORECASE),
    # a quantity in each of a count: "800 in each of the two tents", "€12 for each of 3 nights"
    re.compile(r"(?<![\d:])[$€£¥]?(\d+(?:[.,]\d+)*)\s+(?:[a-z]+\s+){0,2}each\s+of\s+(?:the\s+|those\s+|these\s+|your\s+)?" + _COUNT + r"\b",
               re.IGNORECASE),
    # a count of things at a price each: "four day tickets at £27 each", "two extra weeks at £184 each"
    re.compile(r"(?<![\d.,])\b" + _COUNT + r"\s+(?:[a-z'-]+\s+){1,4}(?:at|for|of)\s+[$€£¥]?(\d+(?:[.,]\d+)*)"
               r"(?:\s*[a-z]+)?\s+(?:each|apiece)\b", re.IGNORECASE),
)


_PER_UNIT = re.compile(r"(?<![\d.,])[$€£¥]?(\d+(?:[.,]\d+)*)(?:\s*[a-z%]+)?\s*(?:per\s+|/\s*|an?\s+)([a-z]+)",
                       re.IGNORECASE)
"""A quantity per unit ("125 g per cup", "€4/kg", "€12 a night"): the figure and the unit it is per."""


_PER_COUNT = re.compile(r"(?<![\d.,])[$€£¥]?(\d+(?:[.,]\d+)*)(?:\s*[a-z%]+)?\s*(?:per|/|in\s+every|in\s+each|for\s+every)\s*"
                        r"(\d+(?:[.,]\d+)*)\s*([a-z]+)", re.IGNORECASE)
"""A quantity per a count of a unit ("120 mg per 5 ml", "120 mg/5 ml"): the figure, the count and the unit."""


_SHARE = re.compile(r"\b(half|a third|one third|a quarter|one quarter)\s+(?:of\s+)?(?:the\s+)?[$€£¥]?"
                    r"(\d+(?:[.,]\d+)*)(?![\d:])", re.IGNORECASE)
_PER_CENT_OF = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s?(?:%|per\s?cent)\s+(?:[a-z]+\s+){0,2}(?:of|on)\s+(?:the\s+|your\s+|a\s+|an\s+)?"
                          r"[$€£¥]?(\d[\d,]*(?:\.\d+)?)(?![\d:])", re.IGNORECASE)
"""A share in per cent of a figure: "4% of £180,000", "a 10% fee on £64", "25% discount on the £2,184"."""
_SHARES = {"half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25, "one quarter": 0.25}
"""A share of a figure: "half of 227 g". Not a multiple: "double the 400 mg dose" is a doubled dose, not working."""
_RATE_BEFORE = re.compile(r"\b(?:each|per|every)\s+[a-z]+\s+(?:costs?|is|comes to|works out at)\s*[$€£¥]?\s*$",
                          re.IGNORECASE)
"""A rate said before its figure: "each gigabyte costs €0.30"."""
_PER_PERIOD = re.compile(r"\d[\d.,]*\s?(?:p|pence|cents?)?\s+(?:(?:for\s+)?(?:a|an|per|each|every)\s+|/\s*)(day|night|week|month)\b",
                         re.IGNORECASE)
_OVER = re.compile(r"\b(?:a|an|per|each|every|one|the|over|for|in)\s+(?:(?:full|whole|typical)\s+)?(week|month|year)\b|\b(weekly|monthly|yearly|annual(?:ly)?)\b",
                   re.IGNORECASE)
_PERIOD_FACTORS = {("day", "week"): 7, ("night", "week"): 7, ("day", "year"): 365, ("week", "year"): 52, ("month", "year"): 12}
"""How many of a shorter period a longer one holds, for a figure per period worked out over a longer one: counts of
the calendar (a year is 52 weeks), not `figures._HOURS`'s lengths, which `numbercheck.in_other_units` converts by."""


_PERIOD_NAMES = {"weekly": "week", "monthly": "month", "yearly": "year", "annual": "year", "annually": "year"}


def _periods(pattern: re.Pattern, text: str) -> set[str]:
    return {_PERIOD_NAMES.get(w.lower(), w.lower()) for m in pattern.finditer(text) for w in m.groups() if w}


def _plain_figure(written: str) -> bool:
    return re.fullmatch(r"\d+(?:\.\d+)?", written) is not None


def _as_written(value: float, written: str) -> bool:
    """Whether a value is the written figure, rounded as written ("12.6" for 12.595)."""
    decimals = len(written.split(".")[1]) if "." in written else 0
    return abs(value - float(written)) <= 0.5 * 10 ** -decimals + 1e-9


def _value(written: str) -> float:
    return float(_SPELLED.get(written.lower(), written.replace(",", "")))


def stated_arithmetic(claim: str, haystack: str, asked: str = "", changed: frozenset[str] = frozenset()) -> set[str]:
    """The claim's numbers that the evidence does not give but that the claim works out in the open from figures it
    states and the evidence gives: a sum or difference of two in one unit, a rate as the ratio of two ("€0.30 per
    GB" from "€27 for 90 GB"), a count times a quantity it counts
    ("two 200 mg tablets", "800 in each of two tents"), or a figure plus such a product ("6,100: 4,500 plus 800 in
    each of two tents"), rounded as written. The working is in the claim for a reader to check; a figure the claim
    gives without it is no derivation. Such a figure is no invented number, but it stays in what the consistency
    model reads (unlike `claims.derived_numbers`, whose words of relation say what was worked out).

    >>> sorted(stated_arithmetic("By 11,400 people: 48,300 against 36,900.", "It had 48,300. It had 36,900."))
    ['11400']
    >>> sorted(stated_arithmetic("Up to 6,100 (4,500 plus 800 in each of two tents).", "Holds 4,500; two tents 800 each."))
    ['6100']
    >>> sorted(stated_arithmetic("200 to 400 mg, one or two 200 mg tablets.", "Take one or two 200 mg tablets."))
    ['400']
    >>> sorted(stated_arithmetic("By 11,400 people.", "It had 48,300. It had 36,900."))
    []
    >>> sorted(stated_arithmetic("€27 for 90 GB, or €0.30 per GB.", "It costs €27 for 90 GB."))
    ['0.30']
    >>> sorted(stated_arithmetic("Flour: 2 cups; 125 g per cup; 250 g.", "Use 2 cups of flour. 1 cup of flour = 125 g."))
    ['250']
    >>> sorted(stated_arithmetic("250 g (2 cups × 125 g) and 113.5 g (half of 227 g).", "2 cups. 1 cup = 125 g; 227 g."))
    ['113.5', '250']
    >>> sorted(stated_arithmetic("€27 for 90 GB, so each gigabyte costs €0.30.", "It costs €27 for 90 GB."))
    ['0.30']
    >>> sorted(stated_arithmetic("£2.25 for each day, so a week of daily use adds £15.75.", "£2.25 a day."))
    ['15.75']
    >>> sorted(stated_arithmetic("60.9p a day, about £222.29 a year.", "60.9p a day.")), stated_arithmetic("£2.25 a day, £17 a week.", "£2.25 a day.")
    (['222.29'], set())

    A rate may be per several units ("120 mg per 5 ml"), and one figure of the working may be the user's own (the
    strength on their bottle), as long as another is the evidence's:

    >>> sorted(stated_arithmetic("10 ml, which is 240 mg (10 ml at 120 mg per 5 ml).", "Ages 4 to 6: 10 ml.", "120 mg/5 ml"))
    ['240']
    >>> sorted(stated_arithmetic("That is 480 mg (20 ml at 120 mg per 5 ml).", "Ages 4 to 6: 10 ml.", "120 mg/5 ml"))
    []
    >>> sorted(stated_arithmetic("90 GB for €27 works out at 30 cents a GB.", "€27 a month for 90 GB."))
    ['30']
    >>> sorted(stated_arithmetic("90 GB for €27 works out at 40 cents a GB.", "€27 a month for 90 GB."))
    []

    A count of things at a price each, the count the evidence's (in figures or words) or the user's own:

    >>> ranger = "A Ranger day ticket costs £27."
    >>> [sorted(stated_arithmetic(f"{n} day tickets at £27 each come to £{t}.", ranger, "I travel on 4 days."))
    ...  for n, t in (("Four", 108), ("4", 118), ("Five", 135))]
    [['108'], [], []]
    >>> sorted(stated_arithmetic("The 2 extra weeks are at £184 each, £368 in all.", "Two further weeks at £184 a week."))
    ['368']

    Figures in different units add to nothing, and two figures of one sentence multiply only as a count and what it
    counts: "every 2 hours, up to 8 doses" is no working (4 doses a day, ages 2 to 4).

    >>> sorted(stated_arithmetic("Give 4 ml every 2 hours, up to 8 doses a day.", "Ages 2 to 4: 4 ml."))
    []
    >>> sorted(stated_arithmetic("It seats 4500, or 2000 more.", "It seats 4500."))
    []

    A share in per cent the evidence gives is of a figure the claim states:

    >>> sorted(stated_arithmetic("£2,184 less the 25% discount: £1,638 (£546 off).", "Band D: £2,184. A 25% discount."))
    ['1638', '546']
    >>> [sorted(stated_arithmetic(f"A 4% charge on £180,000 is about {c}.", "A charge of 4% of the amount repaid.",
    ...                          "I owe £180,000")) for c in ("£7,200", "£7,500")]
    [['7200'], []]
    >>> sorted(stated_arithmetic("£50, or £25 if paid within 14 days.", "£50. Reduced by 50% if paid within 14 days."))
    ['25']
    >>> sorted(stated_arithmetic("£50, or £20 if paid within 14 days.", "£50. Reduced by 50% if paid within 14 days."))
    []
    >>> sorted(stated_arithmetic("£50, rising to £75 after 28 days.", "£50. Reduced by 50% if paid within 14 days."))
    []
    >>> sorted(stated_arithmetic("Within 14 days it is reduced by 50%: £25, or £7.", "£70. Reduced by 50% if paid within 14 days."))
    []

    ... and a change in per cent is of two figures it states in one unit:

    >>> sorted(stated_arithmetic("From £262m to £295m, about 12.6%.", "£262m in 2022, £295m in 2023."))
    ['12.6']
    >>> sorted(stated_arithmetic("From £262m to £295m, about 14.6%.", "£262m in 2022, £295m in 2023."))
    []
    >>> sorted(stated_arithmetic("From £262m to 295 staff, about 12.6%.", "£262m in 2022, 295 staff in 2023."))
    []
    >>> sorted(stated_arithmetic("It added 3,700 on a base of 31,200, roughly 11.9%.", "31,200 ... 3700", changed=frozenset({"3700"})))
    ['11.9']

    """
    given = _given(haystack)
    users = _given(asked)
    text = strip_citations(claim)
    figures = {n for n in numbers(text) if _plain_figure(n)}  # not a time of day ("10:00")
    if not figures - given:
        return set()  # every figure is the evidence's: nothing to work out (most claims)
    lowered = haystack.lower()
    unit_of = {written: unit for _, written, unit in _quantities(text)}
    stated = [(float(n), unit_of.get(n, "")) for n in figures if n in given]

    def known(written: str) -> bool:
        # (a count in figures that the evidence spells out: "2 weeks" read from "two further weeks")
        word = _SPELLING.get(written, written.lower())
        return written.replace(",", "") in given or (word in _SPELLED and re.search(r"\b" + word + r"\b", lowered) is not None)

    products = set()
    for pattern in _PRODUCTS:
        for match in pattern.finditer(text):
            count, quantity = match.groups() if pattern is not _PRODUCTS[1] else match.groups()[::-1]
            # (the count may be the user's own, "I'll travel on 4 days", where what it counts is the evidence's)
            if (known(count) or _SPELLED.get(count.lower(), count.replace(",", "")) in users) and known(quantity):
                products.add(_value(count) * _value(quantity))
    reachable = set(products) | {a + p for a, _ in stated for p in products}
    reachable |= {_SHARES[m.group(1).lower()] * _value(m.group(2)) for m in _SHARE.finditer(text) if known(m.group(2))}
    # ... and a share in per cent the evidence gives of a figure the evidence or the user gives, and what it leaves:
    # "4% of £180,000, about £7,200", "the 10% fee on your £64 ticket is £6.40"
    reachable |= {factor * _value(m.group(2)) for m in _PER_CENT_OF.finditer(text)
                  if m.group(1) in given and (known(m.group(2)) or m.group(2).replace(",", "") in users)
                  for factor in (float(m.group(1)) / 100, 1 - float(m.group(1)) / 100)}
    # a share in per cent the evidence gives, of a figure the claim states, taken off or added: "£2,184 less the 25%
    # discount, £1,638", also where the claim does not restate the share ("£50, or £25 if paid within 14 days" beside
    # "reduced by 50% if paid within 14 days")
    # (of a figure in the unit of the one worked out: "£25" is no half of the "50%" or of "14 days")
    shares = {float(m.group(1)) / 100 for m in re.finditer(_PER_CENT, text, re.IGNORECASE) if m.group(1) in given}
    shared = {(a * factor, u) for a, u in stated if u != "percent" for share in shares
              for factor in (share, 1 - share, 1 + share)}
    # ... where the claim does not restate it, only the way the evidence applies it: a share "off" or a reduction
    # leaves 1 - share, a rise adds it ("£50, rising to £75" is no working of "reduced by 50%")
    shared |= {(a * factor, u) for a, u in stated if u != "percent" for factor in _applied_shares(haystack)}
    # a change in per cent between two figures it states in one unit, of either ("from 31,200 to 34,900, about
    # 11.9%", "19 m (about 12%) less than the 161 m"); which of two changes is the larger is `growth_verdict`'s
    # ... or of the size of a change the evidence gives (`growth.change_sizes`) on a base the claim states: "3,700 on
    # a base of 31,200, roughly 11.9%"
    changes = _changes(stated, changed)
    # a quantity per unit times a count of that unit: "125 g per cup" and "2 cups" make 250 g
    for match in _PER_UNIT.finditer(text):
        if known(match.group(1)):
            per = _unit(None, match.group(2))
            reachable |= {_value(match.group(1)) * a for a, u in stated if u == per}
    # ... or per a count of that unit: "120 mg per 5 ml" and "10 ml" make 240 mg; the rate's figures may be the
    # user's (the strength on their bottle), the quantity it multiplies is the evidence's
    for match in _PER_COUNT.finditer(text):
        figure, count = match.group(1), match.group(2)
        if all(known(f) or f.replace(",", "") in users for f in (figure, count)) and _value(count):
            per = _unit(None, match.group(3))
            reachable |= {_value(figure) / _value(count) * a for a, u in stated if u == per}
    pairs = paired(stated)
    for i, (a, u) in enumerate(pairs):
        for b, v in pairs[i + 1:]:
            if u == v or not u or not v:
                reachable |= {a + b, abs(a - b)}
    # a figure per day, week or month over a longer period the claim names: "£2.25 for each day, so a week costs
    # £15.75", "60.9p a day, about £222.29 a year" (in pence, a hundredth of the pound)
    factors = {_PERIOD_FACTORS.get((per, over)) for per in _periods(_PER_PERIOD, text) for over in _periods(_OVER, text)} - {None}
    reachable |= {a * f for a in {a for a, _ in stated} | reachable for f in factors} | factors  # ("× 365")
    if re.search(r"\d\s?(?:p|pence|cents?)\b", text):
        reachable |= {r / 100 for r in reachable}
    # a rate ("€0.30 per GB") may be the ratio of two figures: "€27 for 90 GB, which is €0.30 per GB"
    rates = {a / b for a, _ in pairs for b, _ in pairs if b and a != b}
    out = set()
    plain = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # figures as `numbers` writes them
    where = figure_spots(plain)
    reach, per_unit = sorted(r for r in reachable if r > 0), sorted(r for r in rates if r > 0)
    for n in figures - given:
        spots = where.get(n, [])
        # a figure in cents or pence is a hundredth of the currency's: "30 cents a GB" is €0.30 per GB
        if any(CENTS_AFTER.match(plain, end) for _, end in spots):
            hundredth = float(n) / 100
            if hundredth and any(abs(r - hundredth) <= 0.005 + 1e-9 for r in reachable | rates | {float(g) for g in given
                                                                                                   if _plain_figure(g)}):
                out.add(n)
                continue
        if in_per_cent([end for _, end in spots], plain) and any(_as_written(c, n) for c in changes):
            out.add(n)
            continue
        rate = any(PER_AFTER.match(plain, end) or _RATE_BEFORE.search(text_before(plain, start)) for start, end in spots)
        if near_any(reach, n) or (rate and near_any(per_unit, n)) or any(
                _as_written(r, n) for r, u in shared if r > 0 and (u == unit_of.get(n, "") or not u or not unit_of.get(n))):
            out.add(n)
    return out


_PER_CENT = r"(\d+(?:\.\d+)?)\s?(?:%|per\s?cent\b)"
_LESS = re.compile(r"\b(?:reduc\w*|discount\w*|off|less|lower\w*|cut|halved|saves?|saving)\b", re.IGNORECASE)
_MORE = re.compile(r"\b(?:ris\w*|rose|increas\w*|more|higher|surcharge\w*|added|extra|up|plus)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def _applied_shares(haystack: str) -> frozenset[float]:
    """The factors the evidence's shares in per cent apply, by the words around each: "reduced by 50%" leaves 0.5 (and
    takes 0.5 off), "a 10% surcharge" makes 1.1 (and adds 0.1); a share with neither way, none.

    >>> sorted(_applied_shares("Both are reduced by 50% if paid within 14 days.")), sorted(_applied_shares("A 10% surcharge applies."))
    ([0.5], [0.1, 1.1])
    """
    out = set()
    for match in re.finditer(_PER_CENT, haystack, re.IGNORECASE):
        share = float(match.group(1)) / 100
        near = haystack[max(0, match.start() - 40):match.end() + 25]
        if _LESS.search(near):
            out |= {share, 1 - share}
        if _MORE.search(near):
            out |= {share, 1 + share}
    return frozenset(out)


def _changes(stated: list[tuple[float, str]], changed: frozenset[str] = frozenset()) -> set[float]:
    """Each change in per cent between two stated figures of one unit, of either as its base; and of each size of a
    change the evidence gives (`changed`), on a stated base larger than it."""
    pairs = paired(stated)
    return {100 * abs(a - b) / base for i, (a, u) in enumerate(pairs) for b, v in pairs[i + 1:]
            if u == v and a != b for base in (a, b) if base} | {
        100 * float(d) / base for d in changed for base, _ in stated if base > float(d) > 0}


_PER_CENT_SAID = r"(?:\s*\(\s*|,\s*)?(?:(?:about|around|roughly|approximately|nearly|almost|some|just\s+(?:over|under))\s+|[~≈+−-]\s?)?"


def spelled_numbers(haystack: str, claim: str, wanted: set[str]) -> set[str]:
    """Which of the claim's `wanted` figures the evidence spells out, counting what the claim's figure counts: "1-2
    tablets" and "one or two 500 mg tablets" (the spelled number, then the same word within five words). A spelled
    number elsewhere ("three months", "at most two") gives no "3 hours" or "2 tablets".

    >>> sorted(spelled_numbers("Take one or two 500 mg tablets.", "Take 1-2 tablets.", {"1", "2"}))
    ['1', '2']
    >>> spelled_numbers("Wait two hours; stop after three months.", "Wait 3 hours.", {"3"})
    set()
    >>> spelled_numbers("Take one or two tablets.", "Take 1-2 tablets, at least 2 hours apart.", {"2"})
    set()
    >>> spelled_numbers("Items can be renewed twice.", "3 weeks, with 2 renewals.", {"2"})
    {'2'}
    >>> sorted(spelled_numbers("Two months' notice, or four months' after two years.", "2 months (4 if 2+ years).", {"2", "4"}))
    ['2', '4']
    """
    found, unfound = set(), set()
    text = strip_citations(claim)
    for match in re.finditer(r"(?<![\d.,])\d+(?:[.,]\d+)*", text):
        number = match.group(0)
        if number not in wanted:
            continue  # (a figure with a separator, "€50,000", is no count in words)
        counted = COUNTED_AFTER.match(text, match.end())
        spelled = _SPELLING.get(number)
        unit = stem(counted.group(1).lower().rstrip("s")) if counted and counted.group(1).lower() not in STOPWORDS else ""
        if not unit:  # counting nothing ("4 if you've lived there 2+ years"), it is any number the evidence spells
            if spelled and re.search(r"\b" + spelled + r"\b", haystack, re.IGNORECASE):
                found.add(number)
            continue
        # the spelled number, then the word it counts within five words; or "twice" for 2, what it counts within three
        # words either side ("can be renewed twice" for "2 renewals")
        near = ([re.compile(r"\b" + spelled + r"\b((?:\W+\w+){1,5})", re.IGNORECASE)] if spelled else []) + (
            [re.compile(r"((?:\w+\W+){0,3})\btwice\b((?:\W+\w+){0,3})", re.IGNORECASE)] if number == "2" else [])
        if unit and any(unit in {stem(w.rstrip("s")) for w in re.findall(r"[a-z]+", "".join(m.groups()).lower())}
                        for pattern in near for m in pattern.finditer(haystack)):
            found.add(number)
        else:
            unfound.add(number)  # every time the claim states the figure, it must count what the evidence's counts
    return found - unfound


_FIG = r"([$€£¥]?)(\d+(?:,\d{3})*(?:\.\d+)?)"
_DIFFERENCE = re.compile(
    _FIG + r"(?:\s?([a-z]+))?\s*(?:,|;|:|\(|—|–|-|which is|that is|that's|so|or)\s*" + _FIG + r"(?:\s?([a-z]+))?\s+"
    r"(more|less|cheaper|dearer|higher|lower|fewer|longer|shorter|bigger|smaller|over|under|above|below)\s+"
    r"(?:than|on|compared\s+with|against)\s+(?:[\w'’]+\s+){0,4}?" + _FIG + r"(?:\s?([a-z]+))?", re.IGNORECASE)
_LOWER = frozenset(("less", "cheaper", "lower", "fewer", "shorter", "smaller", "under", "below"))


def wrong_difference(claim: str) -> str:
    """Why a difference the claim states between two of its figures is not theirs, or "": "€2.60, €1.30 less than
    the €3.40 fare" says the two differ by €1.30 where they differ by €0.80 (a difference of two other figures of the
    evidence would pass the number check). The three figures share a currency or a unit word; rounded as written.

    >>> wrong_difference("It's €22 — €4 more than the previous €18 fare."), wrong_difference("£34.99 — £5 more than £29.99.")
    ('', '')
    >>> wrong_difference("Your 17-year-old pays €2.60, €1.30 less than the adult fare of €3.40.")
    'says €2.60 is €1.30 less than €3.40, where the evidence says they differ by €0.80'
    >>> wrong_difference("It costs €26, €4 less than the €22 fare.")
    'says €26 is €4 less than €22, where the evidence says €26 is more'
    """
    for match in _DIFFERENCE.finditer(strip_citations(claim)):
        (sign_a, a, unit_a, sign_d, d, unit_d, word, sign_b, b, unit_b) = match.groups()
        if not (sign_a == sign_d == sign_b and (sign_a or (unit_a and unit_a.lower() == (unit_d or "").lower()
                                                            == (unit_b or "").lower()))):
            continue
        first, step, second = (float(x.replace(",", "")) for x in (a, d, b))
        decimals = len(d.split(".")[1]) if "." in d else 0
        said = f"says {sign_a}{a} is {sign_d}{d} {word.lower()} than {sign_b}{b}"
        if (first < second) != (word.lower() in _LOWER) and first != second:
            return f"{said}, where the evidence says {sign_a}{a} is {'more' if first > second else 'less'}"
        if abs(round(abs(first - second), decimals) - step) > 10 ** -decimals / 2:
            return f"{said}, where the evidence says they differ by {sign_a}{abs(first - second):.{max(decimals, 2) if sign_a else decimals}f}"
    return ""


_RATE_PER = re.compile(r"(?<![\d.,])([$€£¥]?)(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s*(?:-|–|to)\s*[$€£¥]?(\d+(?:,\d{3})*(?:\.\d+)?))?"
                       r"(?:\s*[a-z%]+){0,2}?\s*(?:per|/|an?|(?:for\s+)?(?:each|every))\s+([a-z]+)(?:\s+([a-z]+))?",
                       re.IGNORECASE)
"""A rate the evidence gives per one of a unit ("£38 a day", "10-12 hours per kg", "£4 per SEPA payment"): its
currency sign, its figure (or the two ends of its range) and the unit it is per (the word after "per", or the one after
that: "per SEPA payment")."""
_PRICE_OF = re.compile(r"\b([a-z]+)(?:\s+(?!is\b|are\b|costs?\b|pays?\b)[a-z]+)?(?:\s*\([^()]{0,20}\))?"
                       r"(?:\s+(?:is|are|costs?|pays?))?:?\s+([$€£¥])(\d+(?:,\d{3})*(?:\.\d+)?)"
                       r"(?![\d.,]*\s*(?:per|/|an?|each|every)\b)", re.IGNORECASE)
"""... or a price of one named just before it ("adult £14", "Adults: £27", "child (5-15) £7", "Adult admission is
£18", "seniors pay £15")."""


def counted_totals(claim: str, haystack: str, asked: str) -> dict[str, str]:
    """The claim's figures the evidence does not give that are a total of the user's own count (`asked`: "for 5
    days", "a 6 kg turkey") at a rate the evidence gives per one of that count's unit ("£38 a day", "10-12 hours per
    kg"), alone or plus one other figure of the rate's currency (a fee). Each maps to the rate it is worked from,
    with its currency sign and what it is per: the total stands for that rate in every check of which item or row a
    figure belongs to (Kestrel's £190 is Kestrel's £38 a day for five days, not Roadline's). A count in another unit
    multiplies nothing: a 4-year-old is no count of days.

    >>> ev = "Roadline: compact cars £32 a day, plus a £25 airport fee. Kestrel: £38 a day, no airport fee."
    >>> counted_totals("Roadline comes to £185 and Kestrel to £190.", ev, "Which is cheaper for 5 days?")
    {'185': '£32 per day', '190': '£38 per day'}
    >>> counted_totals("It comes to £200.", ev, "Which is cheaper for 5 days?")
    {}
    >>> counted_totals("Allow 60-72 hours in the fridge.", "Allow 10-12 hours per kg in the fridge.", "My turkey is 6 kg.")
    {'60': '10 per kg', '72': '12 per kg'}
    >>> counted_totals("That is £160.", ev, "My son is 5. How much?")
    {}
    >>> counted_totals("£28 for the two of you.", "Weekend tickets: adult £14, child £7.", "For two adults on Sunday?")
    {'28': '£14 per adult'}
    >>> counted_totals("£63 at the door.", "Adult admission is £18. Children pay £9.", "For three adults and a child?")
    {'63': '£18 per adult'}
    >>> [counted_totals(c, "1 week for each full year worked.", "I've done seven full years.")
    ...  for c in ("Service: 7 full years.", "7 weeks' notice.")]
    [{}, {'7': '1 per full'}]
    """
    given = _given(haystack)
    text = strip_citations(claim)
    counts = [(value, unit) for value, _, unit in _quantities(spelled_out(asked)) if unit and value]
    # (the user's count restated is theirs, not a total: "7 full years" at "1 week for each full year"; "7 weeks" is one)
    restated = {written for value, written, unit in _quantities(text) if (value, unit) in counts}
    wanted = sorted(n for n in numbers(text) if n not in given and _plain_figure(n) and n not in restated)
    if not wanted:
        return {}
    # (total, the rate as read, its currency sign) for each rate per one of a count's unit
    rates = [(float(figure.replace(",", "")) * value, f"{sign}{figure.replace(',', '')} per {word.lower()}", sign)
             for sign, figure, word in _rates_of(haystack) for value, unit in counts if unit == _unit(None, word)]
    if not rates:
        return {}
    fees = {sign: {value for value, _, unit in _quantities(haystack) if unit == _unit(sign, None)}
            for sign in {sign for _, _, sign in rates if sign}}
    totals, extras = [(total, sign) for total, _, sign in rates], {sign: sorted(f) for sign, f in fees.items()}
    first = {written: first_total(totals, extras, written, _as_written) for written in wanted}
    return {written: rates[i][1] for written, i in first.items() if i is not None}


@functools.lru_cache(maxsize=1024)
def _rates_of(haystack: str) -> tuple[tuple[str, str, str], ...]:
    """(currency sign, figure, the word it is per) of every rate the evidence gives per one of a unit, once per
    evidence text (every claim of every rollout reads it)."""
    text = strip_citations(haystack)
    pairs = [(match.group(1), figure, word) for match in _RATE_PER.finditer(text)
             for figure in match.group(2, 3) if figure for word in match.group(4, 5) if word]
    return tuple(pairs + [(sign, figure, word) for word, sign, figure in _PRICE_OF.findall(text)])


def with_rates(claim: str, totals: dict[str, str]) -> str:
    """The claim with each total worked from a rate written as that rate ("Kestrel: £190" as "Kestrel: £38 per day").

    >>> with_rates("Kestrel comes to £1,190.", {"1190": "£38 per day"})
    'Kestrel comes to £38 per day.'
    """
    for figure, rate in totals.items():
        digits = ",?".join(re.escape(c) for c in figure)
        claim = re.sub(r"(?<![\d.,])[$€£¥]?" + digits + r"(?![\d])", rate, claim)
    return claim


_COUNTED_SPELLING = re.compile(r"(?<![\w-])(" + "|".join(w for w in _SPELLED if w not in ("one", "hundred"))
                               + r")\s+(?!(?:of|" + "|".join(_SPELLED) + r"|thousand|million)\b)([a-z][a-z'’]*)",
                               re.IGNORECASE)
_NUMBERED_BEFORE = re.compile(r"\b(?:the|these|those|dose|day|step|stage|phase|part|level|tier|band|zone|option|plan|"
                              r"number|no|round|grade|class|page|line|platform|gate|terminal|type|year|week|month)\s+$",
                              re.IGNORECASE)


_COMPARED_TO = re.compile(r"\s+(?:later|earlier|sooner|longer|shorter|more|less|fewer)\s+than\b", re.IGNORECASE)
"""... a difference to something the claim names in words ("two hours later than the usual winter close"), which no
reading resolves to a figure, stays a difference in words for the consistency model, as it was."""


@functools.lru_cache(maxsize=4096)
def counted_in_figures(claim: str) -> str:
    """The claim with a number in words that counts something written as a figure ("three months' notice": "3
    months' notice"), so a figure reads the same however it is spelt: the number check cannot be passed by spelling a
    number out. A number word that counts nothing ("two of them", "twenty-five"), counts what was named already ("the two
    routes") or numbers the noun before it ("dose two", "stage three") stays, as does "one", which mostly counts what
    the user has one of ("one child ticket") or stands for a noun ("one of them", "no one").

    >>> counted_in_figures("Give three months' notice; one of the two plans, and twenty-five more, stay.")
    "Give 3 months' notice; one of the two plans, and twenty-five more, stay."
    >>> counted_in_figures("Dose two comes at three years; two documents.")
    'Dose two comes at 3 years; 2 documents.'
    >>> counted_in_figures("Notice: two months. No one may take two hundred tablets or any one dose.")
    'Notice: 2 months. No one may take two hundred tablets or any one dose.'
    >>> counted_in_figures("Open until 15:00, two hours later than the usual close, for three hours more.")
    'Open until 15:00, two hours later than the usual close, for 3 hours more.'
    """
    def figure(match: re.Match) -> str:
        # (the word that numbers it stands just before it: looked for there, not in the whole claim again for each)
        if (match.group(2).lower() in STOPWORDS or _NUMBERED_BEFORE.search(claim, max(0, match.start() - 64),
                                                                           match.start())
                or _COMPARED_TO.match(claim, match.end())):
            return match.group(0)
        return _SPELLED[match.group(1).lower()] + match.group(0)[len(match.group(1)):]

    return _COUNTED_SPELLING.sub(figure, claim)


@functools.lru_cache(maxsize=4096)
def spelled_out(text: str) -> str:
    """The text with small numbers in words written as figures ("four days": "4 days")."""
    return re.sub(r"\b(" + "|".join(_SPELLED) + r")\b", lambda m: _SPELLED[m.group(1).lower()], text,
                  flags=re.IGNORECASE)


_DENIED_NUMBER = re.compile(r"(?:(?:\bnot|n't|\bnever|\brather than|\binstead of)\s+(?:(?:charges?|costs?|has|have|"
                            r"requires?|needs?|offers?|includes?|applies|apply)\s+)?(?:(?:the|an?|any|about|around)\s+)?"
                            r"[$€£¥]?|\bno\s+[$€£¥]?(?=\d+(?:[.,]\d+)*(?:-|\s?[a-z%])))(\d+(?:[.,:]\d+)*)",
                            re.IGNORECASE)


def denied_numbers(claim: str) -> set[str]:
    """Numbers the claim denies rather than states ("18 euros, not 30"): a premise correction names the wrong figure
    without claiming it.

    >>> sorted(denied_numbers("Tickets cost 18 euros, not 30, at the door."))
    ['30']
    >>> sorted(denied_numbers("There isn't a £25 charge, and there is no £10 fee either; it costs not more than 4."))
    ['10', '25']
    >>> sorted(denied_numbers("The scheme has no 60-day period, and Calder doesn't charge a £25 fee."))
    ['25', '60']
    >>> sorted(denied_numbers("It doesn't exceed 4 doses; no more than 3 a day; no, 5 ml."))
    []
    """
    return {m.group(1).replace(",", "") for m in _DENIED_NUMBER.finditer(strip_citations(claim))}


_RELATION_WORDS = frozenset((
    "difference", "apart", "earlier", "later", "before", "after", "more", "less", "fewer", "than", "against",
    "older", "younger", "longer", "shorter", "taller", "higher", "lower", "larger", "smaller", "bigger", "greater",
    "total", "combined", "together", "sum", "first", "second", "came", "year", "years", "cheaper", "dearer",
    "pricier", "costlier", "faster", "slower", "heavier", "lighter", "warmer", "colder", "remaining", "rest"))

_DERIVING = re.compile(r"\b(?:" + "|".join(sorted(_RELATION_WORDS - {"first", "second", "came", "year", "years"}) + [
    "past", "over", "under", "above", "below", "beyond", "short", "left", "off", "saves?", "saving", "extra",
    "additional", "minus", "plus", "gap", "span", "altogether", "outside", "inside", "behind", "ahead", "quicker",
    "in all", "versus", "vs", r"by\s+[$€£¥]?\d"]) + r")\b", re.IGNORECASE)
"""What a sentence that derives a figure says: a comparison, a sum, a span. Without one, a figure that happens to be
the difference of two of the evidence's ("Volt costs €29 a month", 54 - 25) is a figure the evidence does not give."""


def derived_numbers(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's numbers that the evidence does not give but that follow from two figures by one subtraction or
    addition, both in the unit the claim gives ("25 metres taller" from 212 and 187 metres), or a span of years
    between two years ("12 years later" from 1998 and 2010). At least one figure is the evidence's; the other may be
    the user's own ("10 weeks past that" from the user's 30 weeks and the evidence's 20 weeks). A number in no unit
    is never derived: any small number is the difference of some two figures.

    >>> sorted(derived_numbers("The Harbour Tower is 25 metres taller.", "It is 212 metres tall. The mill rises 187 metres."))
    ['25']
    >>> sorted(derived_numbers("It is 25 floors taller.", "It is 212 metres tall. The mill rises 187 metres."))
    []
    >>> sorted(derived_numbers("It opened 11 years later.", "The first line opened in 1998; the second in 2009."))
    ['11']
    >>> sorted(derived_numbers("40 days is 12 days past the limit.", "The appeal limit is 28 days.", "a fine 40 days ago"))
    ['12']
    >>> sorted(derived_numbers("Volt is cheaper by €15 a month.", "Volt costs €39 a month. Arc costs €54 a month."))
    ['15']
    >>> sorted(derived_numbers("The remaining cascades make up 107 m.", "It is 271 metres tall; its free fall is 164 metres."))
    ['107']
    >>> sorted(derived_numbers("It is 15 cheaper.", "Volt costs €39 a month. Arc costs €54 a month."))
    []
    >>> sorted(derived_numbers("Volt costs €29 a month.", "Volt costs €54 a month, and €25 to sign up."))
    []
    >>> [sorted(derived_numbers(c, "Record: 2:07.12. She won in 2:07.84; Dunn swam 2:07.53.")) for c in ("Her 2:07.84 "
    ...  "was 0.72 seconds off the record.", "She was 0.72 seconds off.", "Her 2:07.84 was 0.41 seconds off 2:07.12.")]
    [['0.72'], [], []]
    >>> sorted(derived_numbers("That is 4,600 more people than the 52,300 of 2018.", "52,300 in 2018; 56,900 in 2023."))
    ['4600']
    >>> [sorted(derived_numbers(c, "The visa lasts 12 months and can be extended once by 12 months.")) for c in (
    ...  "24 months in all: 12 months plus a 12-month extension.", "You can stay more than 24 months.")]
    [['24'], []]
    """
    if not _DERIVING.search(strip_citations(claim)):
        return set()
    evidence, user, claimed = _quantities(haystack), _quantities(asked), _quantities(claim)
    stated = Counter((v, u) for v, _, u in claimed)  # (a figure added to itself only where the claim states it twice)
    out, given_here = set(), {(v, u) for v, _, u in evidence}
    for value, written, unit in claimed:
        if not unit or (value, unit) in given_here:  # given, not derived
            continue
        if unit == _YEAR_UNIT:
            found = {v for v, _, _ in evidence if 1000 <= v <= 2100 and v == int(v)}
            given = found | {v for v, _, _ in user if 1000 <= v <= 2100 and v == int(v)}
        else:
            found = {v for v, _, u in evidence if u == unit}
            given = found | {v for v, _, u in user if u == unit}
            if unit == "second":  # a gap between two times, one the claim's (both where it states two: "78 s" beside 77)
                times = given | race_seconds(haystack) | race_seconds(asked)
                mine = times & (race_seconds(claim) | {v for v, u in stated if u == unit and v != value})
                found, given = mine, (mine if len(mine) > 1 else times)
            elif not found:  # a count the evidence gives bare ("a population of 56,900"), from one the claim names too
                given = {v for v, _, u in evidence if u == "" and not (1000 <= v <= 2100 and v == int(v))}  # no year
                found = given & {v for v, _ in stated}
        if makes(found, given, value, lambda a, b: a != b or stated[a, unit] > 1):
            out.add(written)
    return out

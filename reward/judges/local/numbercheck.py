"""The number check of a claim: which of its figures the evidence gives, which arithmetic makes of given ones (a
derivation, a working, a change's size, a time or date, a span in other units), and which nothing does
(`figures_read`); and the figures an answer works out in one sentence for its others (`answer_figures`). The claim
check and the answer check read figures with this one reading. Pure functions of strings and evidence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from reward.judges.local.arithmetic import (_applied_shares, _as_written, counted_in_figures, counted_totals,
                                            denied_numbers, derived_numbers, spelled_numbers, spelled_out,
                                            stated_arithmetic)
from reward.judges.local.bands import bands
from reward.judges.local.clock import (calendar_arithmetic, clock_arithmetic, month_arithmetic, spans_in_minutes,
                                       spans_of_known_length, year_arithmetic)
from reward.judges.local.figures import _CURRENCY, _DURATIONS, _HOURS, _given, _quantities, _unit
from reward.judges.local.growth import _SCALE, change_sizes
from reward.judges.local.spots import NEAR, clause_start
from reward.judges.local.text import content_words, doc_text, numbers, stem, stems, strip_citations
from reward.judges.local.working import answer_working, miscalculated
from reward.schema import Evidence


def dated_text(doc: Evidence) -> str:
    """The document's title and text, and its publication date when it has one: a figure or a year taken from the
    date ("the 2024 guide") is the document's, not the answer's own.

    >>> import datetime as dt
    >>> dated_text(Evidence(id="1", title="Guide", text="It is 3,390 m.", published=dt.date(2024, 3, 24)))
    'Guide. It is 3,390 m. Published 24 March 2024.'
    """
    published = f" Published {doc.published.day} {doc.published:%B %Y}." if doc.published else ""
    return doc_text(doc) + published


_MONEY = frozenset(_CURRENCY.values())


def _counted(plain: str, figure: str) -> frozenset[str]:
    """The stems of the words that follow a figure in a text (`_plain`, in lower case), up to three: what it counts
    ("22 return trips")."""
    found = re.search(_figure_at(figure) + r"((?:\s+[a-z'’-]+){1,3})", plain)
    return stems(found.group(1)) - _CONNECTING if found else frozenset()


_CONNECTING = stems("a an the each per every of for at in on to and or is are costs cost month year week day")
"""Words around a figure that say nothing of what it is for."""
_PER_THING = re.compile(r"\s*(?:per|each|for each|for every|a|an)\s+([a-z]+)", re.IGNORECASE)
_MULTIPLE = re.compile(r"\b(\d+)\s+times\s+(?:the\s+|your\s+|their\s+)?([a-z]+)", re.IGNORECASE)


def claimed_arithmetic(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's figures that neither the evidence nor the user gives but that two figures the claim itself states
    make: the user's count of something at the price the evidence gives for it, in the price's currency ("an
    off-peak return costs £6.80": "your 22 return trips total £149.60"), a multiple the evidence gives of what the
    user's figure is ("three times the deposit": "on your £1,200 deposit, up to £3,600"), or the time left of a limit
    the evidence gives at the user's point in it, in the unit both give ("14 days from delivery": "at day 10 you have
    about 4 days"). Both operands are in the claim for a reader to check. A price the evidence gives for something else than
    what the user counts ("£20 per applicant" for "4 travellers", "£3 a day" for "40 hours"), a count the user never
    gave, or the user's own price make no total.

    >>> ev = "An off-peak return costs £6.80. Consumers may cancel within 14 days of delivery."
    >>> q = "I make 22 return trips a month; it came 10 days ago."
    >>> [sorted(claimed_arithmetic(f"At £6.80 each, your 22 trips total £{t}.", ev, q)) for t in ("149.60", "150.60")]
    [['149.60'], []]
    >>> sorted(claimed_arithmetic("At £6.80, your 22 trips total £149.60.", "An off-peak day return between Ashby and "
    ...                           "Colmere costs £6.80.", "I make 22 return trips a month."))
    ['149.60']
    >>> sorted(claimed_arithmetic("Your 22 trips total £149.60.", ev, q))
    []
    >>> sorted(claimed_arithmetic("At €20 per applicant, your 4 travellers total €80.", "The travel authorisation "
    ...                           "costs €20 per applicant.", "There are 4 of us travelling."))
    []
    >>> sorted(claimed_arithmetic("Between 1 and 3 times the deposit: on £1,200, up to £3,600.",
    ...                           "between one and three times the deposit amount", "my £1,200 deposit"))
    ['3600']
    >>> [sorted(claimed_arithmetic(f"You have 14 days, so at day 10 you have {n} days left.", ev, q)) for n in (4, 24)]
    [['4'], []]
    >>> sorted(claimed_arithmetic("The guarantee is 2 years, so at 6 years you have 4 years left.", "2 years.",
    ...                           "It was fitted 6 years ago."))
    []
    >>> sorted(claimed_arithmetic("Less the £250 excess, the insurer pays £850 of your £1,100.", "A £250 excess.",
    ...                           "My repair quote is £1,100."))
    []
    >>> sorted(claimed_arithmetic("At least 12 weeks, so at 5 weeks you have 7 weeks to go.", "12 months apart.",
    ...                           "He had it 5 weeks ago."))
    []
    """
    given, users = _given(haystack), _given(asked)
    text = counted_in_figures(strip_citations(claim))
    quantities = _quantities(text)
    wanted = {(written, unit) for _, written, unit in quantities if written not in given | users}
    if not wanted:
        return set()
    theirs = {(value, unit) for value, _, unit in _quantities(asked)}
    evidence = {(value, unit) for value, _, unit in _quantities(haystack)}
    stated = {written for _, written, _ in quantities}
    # the user's count at a price the evidence gives for what it counts (the words near the price name it)
    totals = set()
    plain = _plain(haystack)
    # (the user's words read once, and each figure's words once: a long session must not be read again per price)
    counted = functools.cache(functools.partial(_counted, _plain(asked).lower()))
    clauses = [m.end() for m in re.finditer(r"[.;:!?]\s|\d", plain)]  # where the clause before a figure may start
    for value, written, unit in _quantities(haystack):
        if unit in _MONEY and written in stated:
            at = re.search(_figure_at(written), plain)
            if not at:
                continue
            # (what it is per, where the evidence says: "€20 per applicant"; else what its clause names before it, back
            # to the sentence's start or the figure before: "An off-peak day return between Ashby and Colmere costs")
            per = _PER_THING.match(plain, at.end())
            near = stems(per.group(1)) if per else stems(plain[clause_start(clauses, at.start()):at.start()])
            totals |= {(value * count, unit) for count, figure, _ in _quantities(asked)
                       if figure in stated and count and counted(figure) & near}
    # ... and a multiple the evidence gives of what the user's figure is ("3 times the deposit", "my £1,200 deposit")
    for times, what in _MULTIPLE.findall(counted_in_figures(haystack)):
        if times in stated:
            totals |= {(value * float(times), unit) for value, figure, unit in _quantities(asked)
                       if figure in stated and stem(what) in counted(figure)}
    # what is left between the user's figure and the evidence's, each in the unit its own words give
    # (a limit less the time gone, "14 days" at "day 10", never a limit already passed, "2 years" at "6 years"; not money:
    # which of several excesses or fees a quote is reduced by is a row the evidence's sentences do not set out)
    left = {(a - b, u) for a, u in evidence for b, v in theirs
            if u and u == v and u not in _MONEY and a > b and {_plain_number(a), _plain_number(b)} <= stated}
    return {written for written, unit in wanted
            if any(u == unit and _as_written(t, written) for t, u in totals | left)}


def _plain(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text)


def _figure_at(written: str) -> str:
    """A pattern of where a figure is written in `_plain` text, as itself, not inside a longer figure."""
    return r"(?<![\d.,])" + re.escape(written) + r"(?![\d.,]*\d)"


def _plain_number(value: float) -> str:
    """A value as `numbers` writes a whole figure ("14"), or a decimal one ("6.8" for 6.80 is not matched: the
    differences read here are of whole counts: days, weeks, months or years left)."""
    return str(int(value)) if value == int(value) else repr(value)


class FiguresRead(NamedTuple):
    """How `figures_read` read a claim's figures."""
    missing: set[str]
    """The figures the evidence neither gives nor makes: a number the claim invents."""
    derived: set[str]
    """Figures derived from two of the evidence's by the words of a relation (`derived_numbers`)."""
    sizes: set[str]
    """The size of a change the evidence gives, and what the claim works out of it (`change_sizes`)."""
    spans: set[str]
    """The figures of spans of time worked out: between two times of day (`clock_arithmetic`), or in hours as long as
    a known span in minutes (`clock.spans_of_known_length`)."""
    totals: dict
    """The user's count at a rate the evidence gives, by total (`counted_totals`)."""


def figures_read(claim: str, docs: Sequence[Evidence], asked: str = "", worked: frozenset[str] = frozenset()) -> FiguresRead:
    """The claim's figures read against the evidence (`docs`), the user's words (`asked`) and the figures the answer
    works out elsewhere (`worked`): which the evidence gives, which arithmetic makes of given ones, which nothing
    does. The claim check and the answer check (`relevance`) read figures with this one reading.

    >>> figures_read("Six days at £38 is £228.", [Evidence(id="1", text="£38 a day.")], "six days").missing
    set()
    >>> figures_read("Six days at £38 is £238.", [Evidence(id="1", text="£38 a day.")], "six days").missing
    {'238'}
    """
    haystack = " ".join(dated_text(d) for d in docs)
    # A number in words that counts something is read as its figure: "three months' notice" is checked as "3 months'"
    # (the evidence's own numbers in words count where they count the same thing, `spelled_numbers`).
    claim = counted_in_figures(claim)
    derived = derived_numbers(claim, haystack, asked)
    missing_numbers = numbers(claim) - _given(haystack) - derived - denied_numbers(claim)
    # the size of a change the evidence gives ("added 3,700 people" to a population from 31,200 to 34,900) is worked
    # out, and a figure the claim works out of it too ("3,700 on a base of 31,200, about 11.9%")
    sizes = change_sizes(claim, docs) if missing_numbers else set()
    missing_numbers -= sizes | worked  # ... and what the answer works out in the open (`working.worked_figures`)
    # times of day and dates worked out from the evidence's, and the spans between them
    clocked = clock_arithmetic(claim, haystack, asked) if missing_numbers else set()
    spans = {n for n in clocked & missing_numbers if ":" not in n}  # worked out, not the evidence's
    missing_numbers -= clocked | (calendar_arithmetic(claim, haystack, asked) | year_arithmetic(claim, haystack, asked)
                                  if missing_numbers else set())
    # ... and a count of months the range it counts makes: a span, which no other sentence of the answer may state
    # ("Your tenancy lasts 12 months." lets no "12 months' notice" through)
    months = month_arithmetic(claim, haystack, asked) & missing_numbers if missing_numbers else set()
    missing_numbers -= months
    spans |= months
    if missing_numbers:
        missing_numbers -= spelled_numbers(haystack, claim, missing_numbers) | in_other_units(claim, haystack,
                                                                                              missing_numbers)
    # Figures worked out so far (a change's size, the answer's working) are operands of the claim's own arithmetic, a
    # step at a time: "12 × £48 = £576, £36 more than the £540", then "£36 and the £25 fee: £61".
    operands = sizes | (worked & numbers(claim))
    for _ in range(3):
        found = missing_numbers & stated_arithmetic(
            claim, f"{haystack} {' '.join(sorted(operands))}" if operands else haystack, asked, frozenset(sizes))
        missing_numbers -= found
        operands |= found
        if not found or not missing_numbers:
            break
    if missing_numbers:  # ... and two figures the claim states, the user's among them ("22 trips at £6.80: £149.60")
        missing_numbers -= claimed_arithmetic(claim, haystack, asked)
    # (the user's own figures, in figures or in words: "two adults" restated as "2 × £14")
    missing_numbers -= numbers(spelled_out(asked)) - contradicted_numbers(claim, haystack, spelled_out(asked))
    # a total of the user's own count at a rate the evidence gives ("£190" for five days at £38 a day) is the rate's
    # figure for every check of which row or item it belongs to: the claim is read with the rate in its place too
    totals = counted_totals(claim, haystack, asked) if missing_numbers else {}
    missing_numbers -= set(totals)
    # a span in hours as long as one in minutes the evidence gives, the claim states or the answer works out ("110
    # minutes" worked out: "about 1 h 50 min")
    if missing_numbers and re.search(r"\d\s*(?:-\s*)?(?:hours?|hrs?|h)\b", claim, re.IGNORECASE):
        minutes = spans_in_minutes(haystack) | {float(n) for n in (numbers(claim) - missing_numbers) | worked
                                                if re.fullmatch(r"\d+(?:\.\d+)?", n)}
        lengths = spans_of_known_length(claim, minutes) & missing_numbers
        missing_numbers -= lengths
        spans |= lengths
    missing_numbers |= miscalculated(claim) - _given(haystack)  # (a working that does not hold, whatever else makes it)
    return FiguresRead(missing_numbers, derived, sizes, spans, totals)


_COUNTED = frozenset(_unit(None, w) for w in ("doses", "times", "tablets", "capsules", "caplets", "pills", "sachets",
                                               "puffs", "sprays", "drops", "lozenges", "applications", "spoonfuls"))
"""What a count of doses counts: "4 doses", "three times", "3 tablets"."""
_PERIOD = re.compile(r"\b(?:(?:a|per|each|every|in (?:a|one|any)) (?:day|week)|daily|weekly|(?:in|within|over|per|"
                     r"every|each|a|any) (?:any )?24[- ]?(?:hours?|hrs?|h)\b)", re.IGNORECASE)


_TIED = re.compile(r"\b(each|every|one|a|an|per|1|\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten)\s+"
                   r"(?:\d+(?:\.\d+)?[\s-]*(?:ml|[a-z]+)?\s+)?([a-z]+)(?:\s+of\s+[a-z]+)?\s+(?:contains?|delivers?|"
                   r"provides?|gives?|holds?|has|have|is|are|equals?)\s+(?:about\s+|around\s+|up\s+to\s+)?"
                   r"(\d[\d.,]*)\s*([a-zµ]+)|(\d[\d.,]*)\s*([a-zµ]+)\s+(?:per|in\s+each|for\s+each|each|a)\s+([a-z]+)",
                   re.IGNORECASE)
"""An amount the evidence gives per so many of something ("Each puff delivers 100 micrograms", "5 drops contain 10
micrograms", "Each 5 ml spoonful contains 15 mg", "Each gram of ointment contains 10 mg", "100 micrograms per puff")."""
_PER_USE = re.compile(r"^[^.;:—–]{0,40}?\b(?:each|every|per|a|at a)\s+(?:time|use|dose|go)\b", re.IGNORECASE)
"""What follows an amount that makes it one use's, no total ("800 micrograms each time you use it")."""


_DOSE, _TIMES = _unit(None, "doses"), _unit(None, "times")
_PERIOD_AFTER = re.compile(r"[^.;]{0,25}?" + _PERIOD.pattern, re.IGNORECASE)
"""A period named shortly after a count ("5 lozenges in 24 hours", "four times a day with food")."""


def _family(unit: str) -> str:
    """A counted unit, "times" read as doses."""
    return _DOSE if unit == _TIMES else unit


@functools.lru_cache(maxsize=1024)
def _counts_per_period(haystack: str) -> frozenset[tuple[float, str]]:
    """The counts of a thing the evidence gives for a period: (4, doses) of "up to four times in 24 hours", (5,
    lozenge) of "Do not take more than 5 lozenges in 24 hours"."""
    text = counted_in_figures(strip_citations(haystack))
    found = set()
    for match in re.finditer(r"(?<![\d.,])(\d+(?:\.\d+)?)\s*([a-z]+)", text, re.IGNORECASE):
        unit = _unit(None, match.group(2))
        if unit in _COUNTED and _PERIOD_AFTER.match(text, match.end()):
            found.add((float(match.group(1)), _family(unit)))
    return frozenset(found)


@functools.lru_cache(maxsize=1024)
def _ties(text: str) -> dict[tuple[float, str], set[tuple[bool, str]]]:
    """What a passage gives each amount per: (value, unit) -> {(one of it, the thing it is per)}."""
    tied: dict[tuple[float, str], set[tuple[bool, str]]] = {}
    for match in _TIED.finditer(text):
        per, thing, figure, measure = (match.group(1, 2, 3, 4) if match.group(3) else
                                       ("each", match.group(7), match.group(5), match.group(6)))
        try:
            value = float(figure.replace(",", ""))
        except ValueError:
            continue
        one = per.lower() in ("each", "every", "one", "a", "an", "per", "1")
        tied.setdefault((value, _unit(None, measure)), set()).add((one, _family(_unit(None, thing))))
    return tied


def dose_totals(claim: str, stated: Sequence[str], worked: frozenset[str] | set[str] = frozenset(),
                passages: Sequence[str] | str = ()) -> dict[str, str]:
    """The claim's figures that are a period's total of the doses it counts, in a claim that names the period ("a
    day", "in 24 hours"): a count the evidence gives for a period ("up to four times in 24 hours", "no more than 5
    lozenges in 24 hours") times one's amount in the figure's unit. For a thing counted (a tablet, a puff, a lozenge)
    that is what the evidence gives each ("Each tablet contains 220 mg"); for a dose, what the answer states (in
    `stated`, its sentences) or works out (`worked`), or the evidence's one amount in that unit. Each total maps to
    the doses it counts.

    >>> dose_totals("Give 7.5 ml up to three times in 24 hours, so at most 22.5 ml a day.", [],
    ...             passages="Age 4-6: 7.5 ml. Age 7-9: 10 ml. Give up to three times in 24 hours.")
    {'22.5': '3 doses of 7.5'}
    >>> sorted(dose_totals("At most 4 doses in 24 hours: 40 ml (960 mg) a day.", ["Give 10 ml."], {"240"},
    ...                    passages="Age 4-6: 10 ml. Do not give more than 4 doses in 24 hours."))
    ['40', '960']
    >>> dose_totals("The limit is 3 tablets in 24 hours, which is 660 mg.", [],
    ...             passages="Each tablet contains 220 mg. Do not take more than 3 tablets in 24 hours.")
    {'660': '3 doses of 220'}

    None where the period is not named or is the count's own span ("22.5 ml per dose", "3 times in 24 hours, 8 hours
    apart"), where what follows the figure makes it one use's ("8 puffs (800 micrograms) each time you use it"), at
    one of several amounts only the evidence gives (a day's total at another row's dose would pass for its own); where
    the count is not one the evidence gives for a period, of that thing ("up to 10 pastilles a day" counts no
    lozenges, "Pack of 16 lozenges" no day's); where a thing counted (a puff, a drop, a lozenge) is not given that
    amount each by the evidence, nor a dose an amount the evidence gives per something else ("5 drops contain 10
    micrograms" makes no 50 micrograms of 5 drops, whatever the answer says one drop holds; "Each 5 ml spoonful
    contains 15 mg", no 60 mg of 4 doses of 10 ml). A count or a dose the evidence does not give is the number check's
    to fail where the answer states it.

    >>> dose_totals("Give 22.5 ml per dose, up to three times.", ["Give 7.5 ml."], passages="Up to 3 times a day."), \\
    ...     dose_totals("At most 3 doses a day: 30 ml.", [], passages="Age 2-3: 7.5 ml. Age 4-5: 10 ml. 3 doses a day.")
    ({}, {})
    >>> inhaler = "Each puff delivers 100 micrograms. Use no more than 8 puffs in 24 hours. Each 2-puff dose of the "
    >>> inhaler += "preventer delivers 200 micrograms."
    >>> [dose_totals(f"Up to 8 puffs in 24 hours, so {total} micrograms a day.", [], passages=inhaler) for total in (
    ...     "800", "1,600")]
    [{'800': '8 doses of 100'}, {}]
    >>> [dose_totals("At most 3 tablets, or 600 mg, in 24 hours.", [], passages=texts) for texts in (
    ...     ["Each tablet contains 200 mg. Do not take more than 6 tablets in 24 hours.",
    ...      "Max Strength: do not take more than 3 tablets in 24 hours."],
    ...     ["Each tablet contains 200 mg. Do not take more than 3 tablets in 24 hours."])]
    [{}, {'600': '3 doses of 200'}]
    >>> dose_totals("Each drop has 10 micrograms, so 5 drops a day is 50 micrograms a day.", [],
    ...             passages="5 drops contain 10 micrograms. Give 5 drops a day.")
    {}
    >>> dose_totals("Each dose has 15 mg; 4 doses in 24 hours is 60 mg a day.", [],
    ...             passages="Each 5 ml spoonful contains 15 mg. Take 10 ml. No more than 4 doses in 24 hours.")
    {}
    >>> [dose_totals(f"Up to {n} lozenges a day, which is {total} mg.", [], passages="Each lozenge contains 8.75 mg. "
    ...              "No more than 5 lozenges in 24 hours. Up to 10 pastilles a day. Pack of 16 lozenges.")
    ...  for n, total in (("5", "43.75"), ("10", "87.5"), ("16", "140"))]
    [{'43.75': '5 doses of 8.75'}, {}, {}]
    """
    claim = counted_in_figures(claim)
    if not _PERIOD.search(claim):
        return {}
    # (a span of time is no dose: "3 times in 24 hours, 8 hours apart" makes no total of 24 hours)
    quantities = tuple(q for q in _quantities(claim) if q[2] not in _DURATIONS)
    # ... and a count the evidence gives for a period, of the same thing ("Do not take more than 5 lozenges in 24
    # hours"; not "up to 10 pastilles a day", nor "Pack of 16 lozenges"), a thing's count with the amount of one in the
    # same passage: another passage's count (another product's daily count of tablets of this one's strength) makes
    # nothing
    texts = [passages] if isinstance(passages, str) else list(passages)
    counts = {(value, _family(unit)) for value, _, unit in quantities if unit in _COUNTED and value >= 2}
    if not counts or not any(counts & _counts_per_period(text) for text in texts):
        return {}
    amounts: dict[str, set[float]] = {}
    for value, _, unit in (q for text in (claim, *stated) for q in _quantities(counted_in_figures(text))):
        if unit and unit not in _COUNTED:
            amounts.setdefault(unit, set()).add(value)
    given: dict[str, set[float]] = {}
    for value, _, unit in _quantities(" ".join(texts)):
        given.setdefault(unit, set()).add(value)
    for unit, values in given.items():
        if unit and unit not in _COUNTED and len(values) == 1:
            amounts.setdefault(unit, set()).update(values)
    loose = {float(n) for n in worked if re.fullmatch(r"\d+(?:\.\d+)?", n)}

    def candidates(text: str, unit: str, counted: str) -> set[float]:
        # One of a thing the passage counts (a puff, a tablet, a lozenge) holds what the passage gives one of it; a
        # dose, what the answer says the passage gives (its row is the row check's to read) unless the passage gives
        # that amount per something else, or what the answer works out.
        tied = _ties(text)
        if counted != _DOSE:
            return {value for (value, measure), ties in tied.items() if measure == unit and (True, counted) in ties}
        present = {value for value, _, measure in _quantities(text) if measure == unit}
        return {amount for amount in amounts.get(unit, set()) & present
                if not tied.get((amount, unit)) or (True, _DOSE) in tied[(amount, unit)]} | loose

    # (a dose's count and amount may be given apart, a dosing table in one passage and how often in another; a
    # thing's count and what one holds, in one passage)
    readings = {_DOSE: [" ".join(texts)]}
    cleaned = strip_citations(claim).replace(",", "")
    totals = {}
    for value, written, unit in quantities:
        if not unit or unit in _COUNTED:
            continue
        after = re.search(r"(?<![\d.,])" + re.escape(written) + r"(?![\d])\s*[^\W\d_]*", cleaned)
        if after and _PER_USE.match(cleaned[after.end():]):
            continue
        made = next(((count, amount) for count, counted in sorted(counts) for text in readings.get(counted, texts)
                     if (count, counted) in _counts_per_period(text)
                     for amount in sorted(candidates(text, unit, counted))
                     if amount != value and _as_written(count * amount, written)), None)
        if made:
            totals[written] = f"{made[0]:g} doses of {made[1]:g}"
    return totals


_TOTAL_CLAUSE = re.compile(r"\s*(?:[;:(),—–]|\s-\s)\s*(?:(?:so|which|that)(?:['’]s|\s+is|\s+makes|\s+comes\s+to)?"
                           r"\s+)?", re.IGNORECASE)


def without_dose_totals(claim: str, totals: dict[str, str]) -> str | None:
    """The claim as the consistency model reads it without the clauses that state a day's total of its doses
    (`dose_totals`), which the arithmetic has checked and the model cannot compute; None when nothing else is left.

    >>> without_dose_totals("Up to 4 doses in 24 hours, so no more than 30 ml a day.", {"30": "4 doses of 7.5"})
    'Up to 4 doses in 24 hours.'
    >>> without_dose_totals("That's no more than 40 ml (960 mg) a day.", {"40": "", "960": ""}) is None
    True
    """
    clauses = [c for c in _TOTAL_CLAUSE.split(strip_citations(claim).strip().rstrip(".")) if c and c.strip()]
    kept = [c.strip() for c in clauses if not numbers(c) & set(totals)]
    if len(kept) == len(clauses):
        return claim
    kept = [c for c in kept if len(content_words(c)) >= 2]  # (not what is left of the total's clause: "a day")
    return f"{', '.join(kept)}." if kept else None


_SPAN_PAIRS = (("week", "day"), ("year", "month"), ("day", "hour"))
"""The units a span is read across, each pair's factor the ratio of their lengths in `figures._HOURS`."""


_SCALED = re.compile(r"([$€£¥]\s?)?(?<![\w.,])(\d+(?:,\d{3})*(?:\.\d+)?)\s*(" + "|".join(sorted(_SCALE, key=len, reverse=True))
                     + r")?\b", re.IGNORECASE)


def _scaled(text: str, only: bool = False) -> dict[str, tuple[float, str]]:
    """Each figure of the text as written (no thousands commas) -> its value with its scale word ("€1.12 billion"
    is 1.12e9, "€1,120m" 1.12e9; "m" and "k" only after a currency sign, where they cannot be metres) and its currency
    sign ("" for none); with `only`, just the figures that have a scale word.

    >>> _scaled("€1.12 billion and €1,120m, 12m away, 3k")
    {'1.12': (1120000000.0, '€'), '1120': (1120000000.0, '€'), '12': (12.0, ''), '3': (3.0, '')}
    """
    out = {}
    for match in _SCALED.finditer(strip_citations(text)):
        scale = (match.group(3) or "").lower()
        if scale in ("m", "k") and not match.group(1):
            scale = ""
        if scale or not only:
            written = match.group(2).replace(",", "")
            out[written] = (float(written) * _SCALE.get(scale, 1.0), (match.group(1) or "").strip())
    return out


def in_other_units(claim: str, haystack: str, wanted: set[str]) -> set[str]:
    """Which of the claim's `wanted` spans (its numbers in words already figures, `counted_in_figures`) the evidence
    gives in another unit: "2 weeks" for "14 days", "2 years" for a "24-month" warranty, "2 days" for "48 hours", and
    the other way round; "€1,120m" for "€1.12 billion" (a scale word: thousand, million, billion).

    >>> sorted(in_other_units("2 years, so 2 weeks and 3 days.", "a 24-month warranty; 14 days; 48 hours", {"2", "3"}))
    ['2']
    >>> sorted(in_other_units("€1,120m, then €1.3bn", "€1.12 billion, up from €1.03 billion", {"1120", "1.3"}))
    ['1120']
    >>> sorted(in_other_units("€1,125m, 1,120 thousand visitors", "€1.12 billion", {"1125", "1120"}))
    []
    """
    given = {(value, unit) for value, _, unit in _quantities(haystack)}
    mine = {written: said for written, said in _scaled(claim, True).items() if written in wanted}
    scaled = _scaled(haystack).values() if mine else ()
    found = {written for written, (value, sign) in mine.items()
             if any(sign == theirs and abs(value - other) <= 1e-9 * value for other, theirs in scaled)}
    for value, written, unit in _quantities(claim):
        if written in wanted and any((unit == big and (value * _HOURS[big] / _HOURS[small], small) in given)
                                     or (unit == small and (value * _HOURS[small] / _HOURS[big], big) in given)
                                     for big, small in _SPAN_PAIRS):
            found.add(written)
    return found


def answer_figures(sentences: Sequence[str], docs: Sequence[Evidence], asked: str = "") -> frozenset[str]:
    """The figures an answer works out (`working.answer_working`), and those the claim check reads as worked out in
    one of its sentences (`figures_read`), which any other sentence may state: "90 + 20 = 110 minutes", then "about 1 h
    50 min". Not the user's figures (one the evidence contradicts elsewhere stays so), nor totals at a rate.

    >>> oven = [Evidence(id="1", text="Beef: 50 minutes per kg, plus an extra 20 minutes at the start.")]
    >>> sorted(answer_figures(["About 1 hour 50 minutes.", "1.8 kg × 50 = 90 minutes, plus 20 minutes = 110 minutes."],
    ...                       oven, "A 1.8 kg beef joint?"))
    ['110', '50', '90']
    >>> fine = [Evidence(id="1", text="A PCN is £70, or £50 for lower-level ones, reduced by 50% if paid within 14 days.")]
    >>> [sorted(answer_figures(["You'd pay £35 today.", f"The full charge is {full}."], fine)) for full in ("£70", "£50")]
    [['35'], []]
    >>> sorted(answer_figures(["You'd pay £35 today."], fine, "I got a £70 ticket.")), answer_figures(["£35."], fine)
    (['35'], frozenset())
    """
    passages = [dated_text(d) for d in docs]
    haystack = " ".join(passages)
    worked = answer_working(sentences, haystack, asked)
    given, users = _given(haystack), numbers(spelled_out(asked))
    # a share the evidence applies ("reduced by 50%") of a figure of the evidence's that the answer states in any
    # sentence, or the user does: "You'd pay £35 today. The full penalty is £70, halved within 14 days."
    factors = _applied_shares(haystack)
    bases = {(value, unit) for s in [*sentences, asked] for value, written, unit in _quantities(s)
             if written in given and unit} if factors else set()
    worked |= {written for s in sentences for value, written, unit in _quantities(s)
               if written not in given and any(u == unit and _as_written(base * factor, written) for base, u in bases
                                               for factor in factors)} if bases else set()
    for _ in range(2):  # a figure read as worked out in one sentence may make another's
        more: set[str] = set()
        for sentence in sentences:
            new = numbers(sentence) - given - users - worked
            if new:
                read = figures_read(sentence, docs, asked, worked)
                more |= new - read.missing - set(read.totals) - read.spans  # (a span's "1" of "1 h 50 min" is none)
                # ... and a day's total of the doses it counts, at a dose the answer states or works out ("Give 10
                # ml." then "At most 4 doses in 24 hours: 40 ml a day.")
                more |= new & set(dose_totals(sentence, sentences, worked, passages))
        if not more:
            break
        worked |= more
    return worked


@functools.lru_cache(maxsize=4096)
def _around(text: str, written: str, unit: str) -> frozenset[str]:
    """The words next to each place a figure is written (four before, three after), less its unit's and words that
    say nothing of what it is: what the figure is of ("Tickets cost 30 euros": ticket)."""
    plain = _plain(text).lower()
    out: set[str] = set()
    for at in re.finditer(_figure_at(written), plain):
        out |= stems(" ".join(plain[max(0, at.start() - NEAR):at.start()].split()[-4:] + plain[at.end():at.end() + NEAR].split()[:3]))
    return frozenset(out - _CONNECTING - {unit, stem(unit)} - stems(f"{unit} {unit}s") - _FIRST_PERSON)


_FIRST_PERSON = stems("i i'm i've me my we we're we've our us you your")
_OWN = re.compile(r"\b(?:i|i'm|i've|i'll|my|we|we're|we've|we'll|our|me|us)\b", re.IGNORECASE)
_RULE_SAID = re.compile(r"\b(?:can|could|may|might|must|should|shall|allowed|entitled|supposed|have to|has to|need to|"
                        r"needs to|read|heard|told|tells|said|says|say|think|thought|believe|seen|saw|according|"
                        r"apparently|reckons?|claims?|suggests?|recommends?|insists?|swears?|leaflet|website|advert|"
                        r"right|correct|true|isn't it|aren't|fine|ok|okay|safe|covered|enough|valid|guarantee\w*|"
                        r"warrant\w*|limit|maximum|minimum|max|min|only|free)\b", re.IGNORECASE)


def _own(asked: str, written: str) -> bool:
    """Whether the user gives a figure of their own situation: in its clause, after "I", "my", "we" or "our", with no
    rule or hearsay about it ("My £1,200 deposit", "I'm going to Spain for 9 days", "it arrived 10 days ago" after "I
    ordered"; not "The tour costs 30 euros, right?", "I can take 10 tablets a day", "I read the fine is £100")."""
    plain = _plain(asked)
    for at in re.finditer(_figure_at(written), plain):
        before = plain[max(0, at.start() - NEAR):at.start()]
        clause = re.split(r"[.;:!?—–]|,\s|\b(?:that|so|but|because|which|if)\b", before)[-1]
        after = re.split(r"[.;:!?—–]|,\s", plain[at.end():at.end() + NEAR])[0]
        if not _OWN.search(clause) or _RULE_SAID.search(clause) or _RULE_SAID.search(after):
            return False
    return True


def contradicted_numbers(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's numbers in a unit for which the evidence gives only other figures ("30 euros" where the evidence
    says "18 euros"; not "a 2-week trip" against a "30-day" entry). A figure of the user's (`asked`) is a premise the
    evidence contradicts unless the user gives it of their own situation (`_own`: "my £1,200 deposit", not "the tour
    costs 30 euros, right?") and no evidence figure in its unit shares a neighbouring word with it, in the user's words
    or the claim's: "my £1,200 deposit" beside "annual rent under £50,000" is the user's; "all 40 hours are free" of
    the user's 40 hours a week, beside "30 hours of free childcare", is not.

    >>> sorted(contradicted_numbers("Tickets cost 30 euros.", "Tickets cost 18 euros at the door."))
    ['30']
    >>> sorted(contradicted_numbers("A 2-week trip fits.", "The 30-day visa-free entry."))
    []
    >>> sorted(contradicted_numbers("40 days is 12 days past the 28-day limit.", "Appeal within 28 days."))
    []
    >>> sorted(contradicted_numbers("A 4-year-old gets £20 back.", "Children 2 to 5 years: £10 back."))
    ['20']
    >>> sorted(contradicted_numbers("For 6 days the daily rate applies.", "From 7 days or more: a weekly rate."))
    []
    >>> sorted(contradicted_numbers("A 1.8 m fence is within the limit.", "Fences up to 1.0 m by a road, up to 2.0 m elsewhere."))
    ['1.8']
    >>> rules = "Cancel with 30 days' notice. The court may award up to three times the deposit if rent is under £50,000."
    >>> [sorted(contradicted_numbers(c, rules, q)) for c, q in (
    ...     ("You can cancel with 7 days' notice.", "They let you cancel with 7 days' notice, right?"),
    ...     ("Your £1,200 deposit was not protected.", "My £1,200 tenancy deposit was never protected."))]
    [['7'], []]
    >>> [sorted(contradicted_numbers(c, "Tickets cost 18 euros at the door.", q)) for c, q in (
    ...     ("The tour costs 30 euros.", "The Kessel factory tour costs 30 euros, right?"),
    ...     ("Yes, you can bring 30 euros.", "I can bring 30 euros, right?"),
    ...     ("With your 30 euros you can buy one ticket.", "I have 30 euros with me."))]
    [['30'], ['30'], []]
    >>> [sorted(contradicted_numbers(c, "Parents can get 30 hours of free childcare a week.",
    ...                              "My son will be there 40 hours a week.")) for c in (
    ...     "All 40 hours are free.", "30 of your 40 hours a week are free, so 10 are charged.")]
    [['40'], []]
    """
    evidence: dict[str, set[float]] = {}
    for value, _, unit in _quantities(haystack):
        if unit:
            evidence.setdefault(unit, set()).add(value)
    denied = denied_numbers(claim)
    stated = {unit for value, written, unit in _quantities(claim) if unit in evidence and value in evidence[unit]
              and written not in denied}
    # ... and not one in a unit the evidence gives bands in: its figures there are where a band ends, not a value the
    # claim's competes with (a "4-year-old" where a row is for "2 to 5 years"; "6 days" where a weekly rate is for
    # "7 days or more"); a limit ("up to 1.0 m") is no band: "a 1.8 m fence is within it" must set the limit against it
    banded = {unit for _, _, unit in bands(haystack, limits=False)}
    theirs = _given(asked)

    def premise(written: str, unit: str) -> bool:  # (not the user's own: `_own`, and no evidence figure of the same thing)
        if written not in theirs or not _own(asked, written):
            return True
        mine = _around(asked, written, unit) | _around(claim, written, unit)
        return any(mine & _around(haystack, other, u) for _, other, u in _quantities(haystack) if u == unit)

    return {written for value, written, unit in _quantities(claim)
            if unit in evidence and value not in evidence[unit] and unit not in stated and unit not in banded
            and premise(written, unit)}

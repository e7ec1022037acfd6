"""A figure stated as current that a newer evidence item replaces (`superseded_figure`): "the minimum wage is €11.20"
where a later page says it rose to €12.40. Pure functions of strings and dates."""

from __future__ import annotations

import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.clock import _A_YEAR
from reward.judges.local.dates import dates_in
from reward.judges.local.figures import _YEAR_UNIT, _quantities
from reward.judges.local.text import content_words, days_in, stem, stems
from reward.memo import by_content

_CLOCK_TIME = re.compile(r"(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])")
_REPLACED_VALUE = re.compile(r"\b(?:instead of|rather than|replacing|up from|down from|no longer)\s+(?:the\s+)?[$€£¥]?\s?"
                             r"\d[\d.,:]*", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:rise|rises|rose|risen|raised?|raises|increase[sd]?|decrease[sd]?|cut|reduced?|lowered|"
                     r"change[sd]?|new|now|instead of|up from|down from|no longer|replace[sd]?|extended|postponed|moved|"
                     r"from now on)\b", re.IGNORECASE)
"""Words by which a newer item says that a figure changed ("rises to €12.40", "5:42 instead of 5:12", "the new
timetable"): a newer page that merely gives another figure (another medicine's dose) replaces nothing."""
_AS_PAST = re.compile(r"\b(?:was|were|had|used to|before|previous(?:ly)?|formerly|earlier|older|old|archived|outdated|"
                      r"no longer|instead of|changed|up from|down from|rose|fell|replaced|superseded|out of date|"
                      r"until recently)\b", re.IGNORECASE)
"""Words that place a figure in the past or in an older source ("before that it was €11.20", "the archived page")."""


_CALLED_OLD = re.compile(r"(?:\b(?:old|older|previous|former|earlier|original|outdated)(?:\s+[a-z-]+){0,2}\s+(?:of\s+)?|"
                         r"\b(?:was|were|used\s+to\s+be|up\s+from|down\s+from|instead\s+of|previously|formerly)\s+)"
                         r"[$€£¥]?$", re.IGNORECASE)
"""The words right before a figure that call it old ("the old £2.40", "up from £2.40", "was £2.40")."""
_OLD_REACH = 80
"""How far before a figure those words are looked for: a long sentence of many figures is not read again whole for each."""
_HOLDS = re.compile(r"\b(?:still|now|current(?:ly)?|today|remains?|remained|stays?|stayed|unchanged|frozen|applies|"
                    r"apply|as\s+before|continues?)\b", re.IGNORECASE)
"""Words that say a figure holds, whatever calls it old ("the old £2.40 still applies")."""
_A_DATE = r"\s+(?:(?:\d{1,2}(?:st|nd|rd|th)?\s+)?[A-Za-z]+\s+)?(?:19|20)\d\d\b"
_HELD_SINCE = re.compile(r"\bsince" + _A_DATE, re.IGNORECASE)
"""A figure held since a date, which is still held ("has had 41,800 residents since 2018")."""
_NOW = re.compile(r"\b(?:current(?:ly)?|latest|still|now|today|at\s+present|presently|these\s+days)\b", re.IGNORECASE)
"""Words that state a figure as today's, whatever year the claim also names ("the 2019 estimate is the latest")."""
_SINCE = re.compile(r"\b(?:since|from|starting|effective)" + _A_DATE, re.IGNORECASE)
"""A date a figure holds from ("in force since 1 April 2022"): no year the claim dates the figure to."""


def _current_values(text: str) -> dict[str, set]:
    """A text's figures by unit (a currency, a unit, what it counts, "time of day"; "" for a count with no unit after
    it, "a population of 56,900"), without years and without the figures it names only as replaced ("5:42 instead
    of 5:12", "up from €10.70")."""
    text = _REPLACED_VALUE.sub(" ", text)
    out: dict[str, set] = {}
    for value, written, unit in _quantities(text):
        if unit == "" and _A_YEAR.fullmatch(written):
            continue  # a calendar year ("in 2023") is when, not how many
        if unit != _YEAR_UNIT:
            out.setdefault(unit, set()).add(value)
    for time in _CLOCK_TIME.findall(text):
        out.setdefault("time of day", set()).add(time.zfill(5))
    return out


def _shown(value: float | str) -> str:
    """A figure as a reason shows it: a time of day as written, a number without a trailing ".0"."""
    return value if isinstance(value, str) else f"{value:g}"


@by_content
def superseded_figure(claim: str, items: Sequence[tuple[str, object]], now) -> str:
    """A figure stated as current that a newer evidence item replaces: the claim states, with no word that places it
    in the past or in an older source (`_AS_PAST`), a figure that only items published before another one give, and
    that newer item, published by `now` and naming no date after `now` (a change not yet in force), gives another
    figure of that unit in a sentence that says it changed (`_CHANGE`: "the minimum wage is €11.20" where a later
    page says it rose to €12.40; "departs at 5:12" where the new timetable says 5:42 instead of 5:12). `items` are each evidence item's (text, publication date);
    items without a date, and interactions without `now`, are not read. Returns why, or "" for none.

    >>> import datetime as dt
    >>> pages = [("The wage is €11.20 per hour.", dt.date(2022, 3, 1)),
    ...          ("The minimum wage rose to €12.40 per hour.", dt.date(2024, 12, 10))]
    >>> superseded_figure("The minimum wage is €11.20 per hour.", pages, dt.date(2025, 6, 1))
    'states 11.2 as current, where a newer item (2024-12-10) gives 12.4'
    >>> superseded_figure("Before that it was €11.20 per hour.", pages, dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("The minimum wage is €11.20 per hour, since 1 April 2022.", pages, dt.date(2025, 6, 1))
    'states 11.2 as current, where a newer item (2024-12-10) gives 12.4'
    >>> superseded_figure("The 2022 minimum wage is €11.20 per hour.", pages, dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("The 2022 minimum wage of €11.20 per hour is still the latest.", pages, dt.date(2025, 6, 1))
    'states 11.2 as current, where a newer item (2024-12-10) gives 12.4'
    >>> superseded_figure("The minimum wage is €12.40 per hour (2025), up from the 2022 minimum wage of €11.20.",
    ...                   pages, dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("An older page lists €11.20 per hour, but the minimum wage rose to €12.40 from 1 January "
    ...                   "2025, so €11.20 is out of date.", pages, dt.date(2025, 6, 1))
    ''
    >>> tolls = [("The car toll is £2.40.", dt.date(2023, 3, 1)),
    ...          ("From 1 June 2024 the car toll rose to £2.90 and vans pay £4.50.", dt.date(2024, 4, 15))]
    >>> superseded_figure("Cars pay £2.90 since June 2024, 50p more than the old £2.40 car toll.", tolls, dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("The car toll is £2.40 since June 2024.", tolls, dt.date(2025, 6, 1))
    'states 2.4 as current, where a newer item (2024-04-15) gives 2.9'
    >>> [bool(superseded_figure(t, tolls, dt.date(2025, 6, 1))) for t in (
    ...     "The old car toll of £2.40 still applies since June 2024.", "Since June 2024, as before, cars pay £2.40.",
    ...     "Since June 2024 the car toll has stayed at the old £2.40.")]
    [True, True, True]
    >>> superseded_figure("The minimum wage is €11.20 per hour.", pages, dt.date(2024, 12, 1))
    ''
    >>> superseded_figure("Apprentices earn €9.10 per hour.", pages + [("Apprentices earn €9.10 per hour.",
    ...                   dt.date(2022, 3, 1))], dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("It holds the charge between 75% and 80%.", [("It holds the charge at 75%.", dt.date(2023, 1, 1)),
    ...                   ("The charge now stops at 80%.", dt.date(2025, 3, 4))], dt.date(2025, 6, 1))
    ''
    >>> superseded_figure("Ibuprofen: one or two 200 mg tablets 3 times a day.", [("Ibuprofen: one or two 200 mg "
    ...     "tablets 3 times a day.", dt.date(2025, 2, 4)), ("Paracetamol: one or two 500 mg tablets up to 4 times a day.",
    ...     dt.date(2025, 3, 12))], dt.date(2025, 11, 18))
    ''
    >>> superseded_figure("Adults pay €12.", [("Adults pay €12.", dt.date(2023, 1, 1)),
    ...                   ("Students now pay €8.", dt.date(2024, 6, 1))], dt.date(2025, 6, 1))
    ''
    """
    text = strip_citations(claim)
    # (a word of the past does not place a figure held "since" a date there: "has had 41,800 residents since 2018")
    if now is None or (_AS_PAST.search(text) and not _HELD_SINCE.search(text)):
        return ""
    dated = [(split_sentences(t), p, _current_values(t), dates_in(t)) for t, p in items if p is not None and p <= now]
    words = {stem(w) for w in content_words(text) if not any(c.isdigit() for c in w)}
    days = days_in(text)
    # the years the claim dates each figure to, near it ("the mid-2018 estimate of 52,300", "52,300 (2018)"; not "in
    # force since 2022" nor "the 2019 estimate is the latest", which say now)
    undated = _SINCE.sub(lambda m: " " * len(m.group(0)), text)
    near = {float(m.group(0).replace(",", "")): {int(y) for y in _A_YEAR.findall(
        undated[max(0, m.start() - 60):m.end() + 25])} for m in re.finditer(r"\d[\d,]*(?:\.\d+)?", text)}
    mine = _current_values(text)
    stated = {value for values in mine.values() for value in values}
    # (... nor does it keep a figure the claim itself calls old there, "£2.90 since June 2024, 50p more than the old
    # £2.40", where nothing in the sentence says it still holds)
    past = set() if _HOLDS.search(text) else {
        float(m.group(1).replace(",", "")) for m in re.finditer(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)", text)
        if _CALLED_OLD.search(text[max(0, m.start() - _OLD_REACH):m.start()])}
    # Each figure under its own unit, and a count the claim names what it counts of ("52,300 people") under none too:
    # the evidence may give it bare ("a population of 52,300").
    # (... and a bare figure under any unit the evidence gives it in: "membership stands at 340" of "340 members")
    claimed = sorted({(given, value) for unit, values in mine.items() for value in values
                      for given in ((unit, "") if unit else {"", *(u for _, _, found, _ in dated for u, vs in found.items()
                                                                  if value in vs)})},
                     key=str)  # the first found is named: the same in every process
    for unit, value in claimed:
        if value in past:
            continue
        holders = [p for _, p, found, _ in dated if value in found.get(unit, ())]
        years = set() if _NOW.search(text) else near.get(value, set())
        if not holders or (years and min(years) <= max(holders).year):
            continue  # (a figure the claim dates to the older item's time, "the mid-2018 estimate", is no "now")
        for sentences, p, found, dates in dated:
            if p <= max(holders) or value in found.get(unit, ()) or any(d > now for d in dates):
                continue
            # The newer item's other figure must be said of what the claim is about: a sentence of it sharing
            # (with the item's title or first sentence, which names its topic) at least half the claim's words,
            # and two, and not about other days (the new weekday time, not the unchanged time "on Saturdays and
            # Sundays"; not the students' new fare for "adults pay €12").
            # It replaces the claim's figure where it says it changed, or dates its own figure after the older
            # item was published ("56,900 as of mid-2023" beside a page of 2019).
            head = stems(sentences[0]) if sentences else frozenset()
            for sentence in sentences:
                theirs = _current_values(sentence).get(unit, set()) - stated  # none the claim states too
                # (a bare figure's successor is a count of its size: not "a median age of 41" beside 52,300 people)
                theirs = {v for v in theirs if unit or 0.5 <= v / value <= 2.0} if value else theirs
                said_of = days_in(sentence)
                later = any(int(y) > max(holders).year for y in _A_YEAR.findall(sentence))
                if (theirs and (_CHANGE.search(sentence) or later)
                        and not (days and said_of and days.isdisjoint(said_of))
                        and len(words & (stems(sentence) | head)) >= max(2.0, 0.5 * len(words))):
                    return (f"states {_shown(value)} as current, where a newer item ({p}) gives "
                            f"{_shown(sorted(theirs)[0])}")
    return ""

"""Dates written out in text ("1 January 2025", "January 1, 2025", "2025-01-01"), a sentence that presents a past one
as still to come, and the days or months a text names, in a range too. Pure functions of strings."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import Counter

_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_DATE = re.compile(
    r"\b(?:(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(\d{4})|(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})"
    r"|(\d{4})-(\d{2})-(\d{2}))\b", re.IGNORECASE)
_FUTURE = re.compile(r"\b(?:will|upcoming|is scheduled|are scheduled|goes on sale|go on sale|is coming|are coming|"
                     r"premieres on|opens on|starts on|begins on)\b", re.IGNORECASE)


def _date_of(match: re.Match) -> dt.date | None:
    """The date a `_DATE` match writes, or None when it is no date (the 31st of a 30-day month)."""
    g = match.groups()
    try:
        if g[0]:
            return dt.date(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
        if g[3]:
            return dt.date(int(g[5]), _MONTHS[g[3].lower()], int(g[4]))
        return dt.date(int(g[6]), int(g[7]), int(g[8]))
    except ValueError:
        return None


def dates_in(text: str) -> list[dt.date]:
    """The dates a text writes out ("1 January 2025", "January 1, 2025", "2025-01-01")."""
    return [d for d in (_date_of(m) for m in _DATE.finditer(text)) if d is not None]


def stale_future(sentence: str, now: dt.date | None) -> str | None:
    """A sentence that presents an explicit date before `now` as still to come ("will premiere on 27 August
    2025" read in January 2026): the temporal hallucination of answers built from outdated evidence."""
    if now is None or not _FUTURE.search(sentence):
        return None
    for match in _DATE.finditer(sentence):
        when = _date_of(match)
        if when is not None and when < now:
            return f"presents {when.isoformat()} as upcoming although today is {now.isoformat()}"
    return None


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_FRAME = r"(?:" + _WEEKDAY + "|" + "|".join(_MONTHS) + r")"
_RANGE = re.compile(r"\b(" + _FRAME + r")s?\b(?:\s+\d{1,2}(?:st|nd|rd|th)?)?\s*(?:to|until|till|through|thru|and|[-–—])\s*"
                    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(" + _FRAME + r")s?\b", re.IGNORECASE)


def frame_named(frame: str, lowered: str) -> bool:
    """Whether a lower-cased text names a day or month (`frame`, singular, lower-cased), as itself or inside a range it
    names ("Monday to Saturday", "from 1 March to 30 September", "between April and September", "October-March"
    running over the year's end).

    >>> [frame_named(f, "open monday to saturday; permits from 1 march to 30 september.") for f in ("friday", "july",
    ...  "sunday", "december")]
    [True, True, False, False]
    >>> frame_named("january", "closed october–march"), frame_named("may", "may: 10am to 4pm")
    (True, True)
    """
    if re.search(r"\b" + frame + r"s?\b", lowered):
        return True
    order = _DAYS if frame in _DAYS else tuple(_MONTHS)
    at = order.index(frame)
    for start, end in _RANGE.findall(lowered):
        first, last = (order.index(w) if w in order else None for w in (start, end))
        if first is not None and last is not None and (at - first) % len(order) <= (last - first) % len(order):
            return True
    return False


_DATED = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+(" + "|".join(_MONTHS) + r")\b|\b(" + "|".join(_MONTHS)
                    + r")\s+(?:\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d|\s*(?:am|pm)\b)|\d{4}\b)", re.IGNORECASE)
_MONTH_WORD = re.compile(r"\b(?:" + "|".join(_MONTHS) + r")\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def dated_months(text: str) -> frozenset[str]:
    """The months (lower-cased) a text gives only inside dates ("on 10 March", "March 3rd", "issued in March 2019"):
    the day of something the user reports, not the month a question asks about ("in March", "March opening hours"),
    which the evidence must name. Cached by text: every claim check of a rollout group reads the same query.

    >>> [sorted(dated_months(q)) for q in ("I had a tattoo done on 10 March.", "Issued in March 2019, right?",
    ...                                     "Is it open in March?", "Paid on 1 March; what about March fees?")]
    [['march'], ['march'], [], []]
    >>> sorted(dated_months("Ticket issued on 3 March; can I pay in April? What about 2 May and May's fees?"))
    ['march']
    """
    return _only_dated(text, _MONTH_WORD, _DATED)


_DAY_WORD = re.compile(r"\b" + _WEEKDAY + r"\b", re.IGNORECASE)
_DATED_DAY = re.compile(r"\b(" + _WEEKDAY + r"),?\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d|\s*(?:am|pm)\b)|"
                        r"(?:" + "|".join(_MONTHS) + r")\s+\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d))", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def dated_weekdays(text: str) -> frozenset[str]:
    """The days of the week (lower-cased) a text gives only as part of a date ("my train on Monday 3 March", "Saturday,
    March 14th"): which day the user's date falls on, not the day a question asks about ("on Saturdays", "this
    Friday"), which the evidence must name.

    >>> [sorted(dated_weekdays(q)) for q in ("The train is on Monday 3 March.", "Is it open on Saturdays?",
    ...  "Saturday, March 14th; and Sunday at 10am?", "Thursday 26 February; Thursday?")]
    [['monday'], [], ['saturday'], []]
    """
    return _only_dated(text, _DAY_WORD, _DATED_DAY)


def _only_dated(text: str, word: re.Pattern, dated_pattern: re.Pattern) -> frozenset[str]:
    """The words (lower-cased) `word` finds whose every mention in `text` is inside a date (`dated_pattern`, whose first
    group that matched is the word)."""
    mentions = Counter(m.group(0).lower() for m in word.finditer(text))
    dated = Counter(next(g for g in m.groups() if g).lower() for m in dated_pattern.finditer(text))
    return frozenset(w for w, count in mentions.items() if dated[w] == count)

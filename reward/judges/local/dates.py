"""Dates written out in text ("1 January 2025", "January 1, 2025", "2025-01-01"), a sentence that presents a past one
as still to come, and the days or months a text names, in a range too. Pure functions of strings."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import Counter

from reward.judges.local.figures import _SPELLED
from reward.memo import by_content

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


_AFTER_SPAN = re.compile(r"\b(\d{1,3}|" + "|".join(_SPELLED) + r"|a)[\s-]+(working\s+|business\s+|clear\s+)?"
                         r"(hours?|days?|nights?|weeks?)(?:['’]s?)?\s+(after|before|from|of|since|later|"
                         r"beforehand)\b|\bwithin\s+(\d{1,3}|" + "|".join(_SPELLED) + r"|a)[\s-]+"
                         r"(working\s+|business\s+|clear\s+)?(hours?|days?|nights?|weeks?)\b", re.IGNORECASE)
"""A span counted from an event ("for at least 48 hours after finishing the course", "within 14 days of delivery",
"2 working days later", "within 24 hours"): a rule the user's own day is worked through."""


def _shifted(day: int, count: int, unit: str, working: bool) -> set[int]:
    """The days of the week (0 Monday) a span from `day` may end on: hours as the days they make, rounded either way
    (36 hours ends a day or two later), weeks as seven days, working days skipping Saturday and Sunday."""
    unit = unit.lower().rstrip("s")
    if unit == "hour":
        steps = {count // 24, -(-count // 24)}
    else:
        steps = {count * 7 if unit == "week" else count}
    ends = set()
    for step in steps:
        if working and unit == "day":
            at, left = day, abs(step)
            while left:
                at = (at + (1 if step > 0 else -1)) % 7
                left -= at < 5
            ends.add(at)
        else:
            ends.add((day + step) % 7)
    return ends


def _count(written: str) -> int:
    return int(written if written.isdigit() else _SPELLED.get(written.lower(), "1"))  # "a day after": 1


@by_content
def worked_weekdays(asked: str, evidence: str) -> frozenset[str]:
    """The days of the week an answer may name where the user gives days of the week (the day a course ends, a party,
    an order) and the evidence a span counted from an event ("48 hours after finishing", "within 14 days of
    delivery"): the user's days, to which the answer applies that rule, and each day the span from one of them ends
    on. Without such a span, none (a day the user asks about must be the evidence's: "do trains run on Sundays?").

    >>> sorted(worked_weekdays("I finish my course on Friday. Can I drink on Saturday night?",
    ...                        "Do not drink alcohol for at least 48 hours after finishing the course."))
    ['friday', 'monday', 'saturday', 'sunday']
    >>> sorted(worked_weekdays("I ordered at 10pm on Tuesday.", "Orders arrive 2 working days after dispatch.")), sorted(
    ...     worked_weekdays("I ordered on Friday.", "Delivery within 2 working days."))
    (['thursday', 'tuesday'], ['friday', 'tuesday'])
    >>> sorted(worked_weekdays("Do trains run on Sundays?", "Trains run every 30 minutes, Monday to Saturday.")), sorted(
    ...     worked_weekdays("We'll go on Sunday.", "Last entry is one hour before closing."))
    ([], [])
    """
    spans = [(m.group(1) or m.group(5), m.group(2) or m.group(6), m.group(3) or m.group(7), m.group(4) or "within")
             for m in _AFTER_SPAN.finditer(evidence)]
    # (a span of hours counts days from 24 hours: "last entry one hour before closing" moves no day)
    spans = [span for span in spans if not span[2].lower().startswith("hour") or _count(span[0]) >= 24]
    users = {w.lower() for w in re.findall(r"\b" + _WEEKDAY + r"(?=s?\b)", asked, re.IGNORECASE)}
    if not spans or not users:
        return frozenset()
    days = set(users)
    for user in users:
        for count, working, unit, direction in spans:
            number = _count(count)
            sign = -1 if direction.lower() in ("before", "beforehand") else 1
            days |= {_DAYS[d] for d in _shifted(_DAYS.index(user), sign * number, unit, bool(working))}
    return frozenset(days)

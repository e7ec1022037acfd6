"""A figure stated as current that a newer evidence item replaces (`superseded_figure`): "the minimum wage is €11.20"
where a later page says it rose to €12.40. Pure functions of strings and dates."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.arithmetic import denied_numbers
from reward.judges.local.dates import _MONTHS, dates_in
from reward.judges.local.figures import _YEAR_UNIT, _quantities
from reward.judges.local.text import content_words, days_in, stem, stems
from reward.memo import by_content

_CLOCK_TIME = re.compile(r"(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])")
_REPLACED_VALUE = re.compile(r"\b(?:instead of|rather than|replacing|up from|down from|no longer)\s+(?:the\s+)?[$€£¥]?\s?"
                             r"\d[\d.,:]*", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:rise|rises|rose|risen|raised?|raises|increase[sd]?|decrease[sd]?|cut|reduced?|lowered|"
                     r"falls?|fell|fallen|go(?:es)? up|went up|go(?:es)? down|went down|"
                     r"change[sd]?|new|now|instead of|up from|down from|no longer|replace[sd]?|extended|postponed|moved|"
                     r"from now on)\b", re.IGNORECASE)
"""Words by which a newer item says that a figure changed ("rises to €12.40", "5:42 instead of 5:12", "the new
timetable"): a newer page that merely gives another figure (another medicine's dose) replaces nothing."""
_AS_PAST = re.compile(r"\b(?:was|were|had|used to|before|previous(?:ly)?|formerly|earlier|older|old|archived|outdated|"
                      r"no longer|instead of|changed|up from|down from|rose|fell|replaced|until recently)\b", re.IGNORECASE)
"""Words that place a figure in the past or in an older source ("before that it was €11.20", "the archived page")."""


def _current_values(text: str) -> dict[str, set]:
    """A text's figures by unit (a currency, a unit, what it counts, "time of day"), without years and without the
    figures it names only as replaced ("5:42 instead of 5:12", "up from €10.70")."""
    text = _REPLACED_VALUE.sub(" ", text)
    out: dict[str, set] = {}
    for value, _, unit in _quantities(text):
        if unit and unit != _YEAR_UNIT:
            out.setdefault(unit, set()).add(value)
    for time in _CLOCK_TIME.findall(text):
        out.setdefault("time of day", set()).add(time.zfill(5))
    return out


_WHEN = re.compile(r"\b(?:will|shall|going to|rises|rising|goes up|going up|increasing|changing|falling|next|later|"
                   r"soon|due|starting|until|till|before|yet|upcoming|planned|announced|autumn|winter|spring|summer|"
                   r"season|in force|kicks? in|kicked in|takes? effect|comes? in|appl(?:y|ies) (?:only|after|from)|"
                   r"only applies|(?:" + "|".join(_MONTHS) + r"))\b"
                   r"|\d{4}", re.IGNORECASE)
"""Words by which a claim places a figure in time ("rises to £16 from September", "£16 next year", "the autumn
timetable", "isn't in force yet"): not stated as current. Not "after the rise", "from now on" or "with the increase",
which say it is."""


def _things(text: str) -> frozenset[str]:
    """A text's word stems without figures, a plural read as its singular ("cars" and "car")."""
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                     for w in stems(text) if not any(ch.isdigit() for ch in w))


def _ahead_of_time(text: str, items: Sequence[tuple[str, object]], now: dt.date) -> str:
    """A figure stated as current, with no word that places it in time (`_WHEN`), that the evidence gives only in a
    sentence of a change starting after `now` ("From 1 September, adult admission rises to £16", read in July: "Adult
    admission is £16 now"), said of what the claim speaks of (a word of it besides the figure). Returns why, or "".

    >>> pages = [("Adult admission is £14.", dt.date(2024, 3, 14)),
    ...          ("From 1 September, adult admission rises to £16.", dt.date(2025, 6, 20))]
    >>> _ahead_of_time("Adult admission is £16.", pages, dt.date(2025, 7, 8))
    'states 16 as current, which a newer item (2025-06-20) gives from 2025-09-01'
    >>> [_ahead_of_time(c, pages, d) for c, d in (("Adult admission is £14, rising to £16.", dt.date(2025, 7, 8)),
    ...                                          ("Adult admission is £16.", dt.date(2025, 9, 2)))]
    ['', '']
    """
    if _WHEN.search(text):
        return ""
    dated = [(t, p) for t, p in items if p is not None and p <= now]
    things = _things(text)
    denied = {n.zfill(5) if ":" in n else float(n) for n in denied_numbers(text)}  # "£14, not £16" states £14
    for unit, values in ((u, v - denied) for u, v in _current_values(text).items()):
        for value in sorted(values, key=str):
            later, current = None, False
            for t, p in dated:
                for sentence in split_sentences(t):
                    if value not in _current_values(sentence).get(unit, ()):
                        continue
                    starts = [d for d in _starts(sentence, p) if d > now]
                    if starts and _CHANGE.search(sentence) and things & _things(sentence):
                        later = later or (p, min(starts))
                    else:
                        current = True  # given without a change still to come: it may be current
            if later and not current:
                return f"states {_shown(value)} as current, which a newer item ({later[0]}) gives from {later[1]}"
    return ""


_UNTIL = re.compile(r"\b(?:until|till|up to and including|ending|expires?(?:\s+on)?)\s+(?:(?:the|end|of|"
                    + "|".join(_MONTHS) + r"|\d{1,4}(?:st|nd|rd|th)?),?\s*){1,5}", re.IGNORECASE)
"""The day something ends ("applies until 28 February 2026"): no day anything starts."""
_MONTH_NAMES = "|".join(_MONTHS)
_YEARLESS = re.compile(r"\b(?:from|on|starting|effective|beginning)\s+(?:the\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?("
                       + _MONTH_NAMES + r")|(" + _MONTH_NAMES + r")(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?)\b(?![,\s]*\d{4})",
                       re.IGNORECASE)


def _starts(text: str, published: dt.date) -> list[dt.date]:
    """The dates a dated page's text names, a day without a year as the next one after publication, and not the day
    something ends ("applies until 28 February 2026")."""
    begun = _UNTIL.sub(" ", text)  # (and only the date after "until": "until 31 December 2025 and from 1 January")
    return [*dates_in(begun), *_yearless_starts(begun, published)]


def _yearless_starts(text: str, published: dt.date) -> list[dt.date]:
    """The dates a dated page says something starts on without a year ("From 1 October the subscription rises"): the
    next such day on or after the page's publication.

    >>> _yearless_starts("From 1 October the fee rises to £52. From January 2026 bins are collected weekly.",
    ...                  dt.date(2025, 7, 20))
    [datetime.date(2025, 10, 1)]
    >>> _yearless_starts("Starting March, fares rise.", dt.date(2025, 7, 20))
    [datetime.date(2026, 3, 1)]
    """
    found = []
    for match in _YEARLESS.finditer(text):
        day = int(match.group(1) or match.group(4) or 1)
        month = _MONTHS[(match.group(2) or match.group(3)).lower()]
        try:
            when = dt.date(published.year, month, day)
            found.append(when if when >= published else dt.date(published.year + 1, month, day))
        except ValueError:  # ("30 February")
            continue
    return found


def _shown(value: float | str) -> str:
    """A figure as a reason shows it: a time of day as written, a number without a trailing ".0"."""
    return value if isinstance(value, str) else f"{value:g}"


@by_content
def superseded_figure(claim: str, items: Sequence[tuple[str, object]], now) -> str:
    """A figure stated as current that a newer evidence item replaces: the claim states, with no word that places it
    in the past or in an older source (`_AS_PAST`), a figure that only items published before another one give, and
    that newer item, published by `now` and naming no date after `now` (a change not yet in force; a day it names
    without a year, "from 1 October", is the next one after its publication), gives another
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
    if now is None:
        return ""
    ahead = _ahead_of_time(text, items, now)
    if ahead or _AS_PAST.search(text):
        return ahead
    dated = [(t, p, _current_values(t)) for t, p in items if p is not None and p <= now]
    words = {stem(w) for w in content_words(text) if not any(c.isdigit() for c in w)}
    days = days_in(text)
    for unit, values in _current_values(text).items():
        for value in sorted(values, key=str):  # the first found is named: the same in every process
            holders = [p for _, p, found in dated if value in found.get(unit, ())]
            if not holders:
                continue
            for t, p, found in dated:
                if p <= max(holders) or value in found.get(unit, ()):
                    continue
                # A change still to come replaces nothing yet: one whose sentence starts it after `now`, or, where the
                # sentence names no start of its own, in an item that names a date after `now` ("The new fees take
                # effect on 1 March 2026"). One page may announce a change in force and another still to come.
                later = any(d > now for d in _starts(t, p))
                # The newer item's other figure must be said of what the claim is about: a sentence of it sharing
                # at least half the claim's words, and two, and not about other days (the new weekday time, not the
                # unchanged time "on Saturdays and Sundays"; not the students' new fare for "adults pay €12").
                for sentence in split_sentences(t):
                    own = _starts(sentence, p)
                    if (any(d > now for d in own) if own else later):
                        continue
                    theirs = _current_values(sentence).get(unit, set()) - values  # none the claim states too
                    said_of = days_in(sentence)
                    if (theirs and _CHANGE.search(sentence) and not (days and said_of and days.isdisjoint(said_of))
                            and len(words & stems(sentence)) >= max(2.0, 0.5 * len(words))):
                        return (f"states {_shown(value)} as current, where a newer item ({p}) gives "
                                f"{_shown(sorted(theirs)[0])}")
    return ""

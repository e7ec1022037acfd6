"""Times of day and dates a claim works out from the evidence's (`clock_arithmetic`, `calendar_arithmetic`): a span
between two times it states ("opens at 7:45, 1 hour 5 minutes before the 8:50 start"), a time a stated time and a
span give ("the 07:15 crossing takes 35 minutes: you land at 07:50"), a date a date and a span in days give
("delivered on 3 March, 30 days to return it: 2 April"). Pure functions of strings.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.figures import _SPELLED
from reward.judges.local.text import stems
from reward.memo import by_content

_TIME = re.compile(r"(?<![\d:.£$€])(\d{1,2})(?::([0-5]\d))?\s?(am|pm|a\.m\.|p\.m\.)?(?![\d:])", re.IGNORECASE)
_WORD = r"(?:\d+(?:\.\d+)?|an?|" + "|".join(_SPELLED) + r")"
_SPAN = re.compile(r"\b(?:(half\s+an?)\s+hour|(" + _WORD + r")\s*(?:-\s*)?(?:hours?|hrs?|h)\b(?:\s*(?:and\s+)?(\d+)\s*"
                   r"(?:minutes?|mins?)\b)?|(" + _WORD + r")\s*(?:-\s*)?(?:minutes?|mins?)\b)", re.IGNORECASE)


def _times(text: str) -> list[tuple[int, int, int, str]]:
    """(start, end, minutes after midnight, the number as `numbers` writes it) of each time of day: "07:50", "7:45am",
    "3pm" (a bare number is no time)."""
    out = []
    for m in _TIME.finditer(text):
        hours, minutes, half = int(m.group(1)), m.group(2), (m.group(3) or "").lower().replace(".", "")
        if minutes is None and not half:
            continue
        if half and not 1 <= hours <= 12 or hours > 23:
            continue
        hours = hours % 12 + (12 if half == "pm" else 0) if half else hours
        written = f"{m.group(1)}:{minutes}" if minutes is not None else m.group(1)
        out.append((m.start(), m.end(), hours * 60 + int(minutes or 0), written))
    return out


def _amount(word: str) -> float:
    word = word.lower()
    return 1.0 if word in ("a", "an") else float(_SPELLED.get(word, word))


def _spans(text: str) -> list[tuple[int, int, float, tuple[str, ...]]]:
    """(start, end, minutes, the numbers it is written with) of each span of time: "1 hour 5 minutes", "an hour",
    "35 minutes", "half an hour"."""
    out = []
    for m in _SPAN.finditer(text):
        half, hours, extra, minutes = m.groups()
        if half:
            value = 30.0
        elif hours:
            value = _amount(hours) * 60 + (int(extra) if extra else 0)
        else:
            value = _amount(minutes)
        written = tuple(w for w in (hours, extra, minutes) if w and re.fullmatch(r"\d+(?:\.\d+)?", w))
        out.append((m.start(), m.end(), value, written))
    return out


@functools.lru_cache(maxsize=256)
def _known(haystack: str) -> tuple[frozenset[int], frozenset[float]]:
    """The times of day and the spans of time a text gives."""
    text = strip_citations(haystack)
    return frozenset(t for *_, t, _ in _times(text)), frozenset(s for *_, s, _ in _spans(text))


def clock_arithmetic(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's times of day that the evidence (or the user) gives, in any writing ("9am" for "09:00"), and its
    numbers that the evidence does not give but that are worked out from times of day in one sentence
    of the claim: a span between the two times on either side of it, or the two before it ("00:30-05:30 = 5 hours");
    or a time that another time of that sentence and a span give, where the span is one the evidence states ("last entry at 16:00" of an 11:00-17:00 day where the evidence says last entry is an hour before closing).
    Each time it reads must be the evidence's or the user's, or worked out so. A span is read only against the times
    beside it, never any two the claim names.

    >>> sorted(clock_arithmetic("It opens at 7:45am, 1 hour 5 minutes before school starts at 8:50.", "Opens 7:45am. School: 8:50."))
    ['1', '5', '7:45', '8:50']
    >>> sorted(clock_arithmetic("It opens at 7:45am, 2 hours before school starts at 8:50.", "Opens 7:45am. School: 8:50."))
    ['7:45', '8:50']
    >>> sorted(clock_arithmetic("Take the 07:15; you land at 07:50.", "Boats leave at 07:15. The crossing takes 35 minutes."))
    ['07:15', '07:50']
    >>> sorted(clock_arithmetic("Take the 07:15; you land at 08:15.", "Boats leave at 07:15. The crossing takes 35 minutes."))
    ['07:15']
    >>> sorted(clock_arithmetic("Charging window: 00:30–05:30 = 5 hours", "Cheap rate from 00:30 to 05:30."))
    ['00:30', '05:30', '5']

    A span is read against the times beside it, not against any two (9:00 to 11:15 is 2 hours 15 minutes, but the
    span stands between 10:00 and 11:15):

    >>> sorted(clock_arithmetic("It opens at 10:00am, an hour and 15 minutes before the 11:15am tour.", "Tour 11:15am."))
    ['11:15']
    >>> sorted(clock_arithmetic("It opens at 10:00am, 2 hours 15 minutes before the 11:15am tour, as at 9:00am on "
    ...                         "weekdays.", "Weekdays from 9:00am. Tour 11:15am."))
    ['11:15', '9:00']
    """
    times_known, spans_known = _known(haystack)
    # the user's times are their own (when they leave, when they arrive): a time worked out from one is worked out,
    # though the user's time itself is theirs to state, not the evidence's (a premise the evidence contradicts stays
    # one); a span the user states is no evidence (a false premise: "the crossing takes 2 hours, so I'm in at 17:50?")
    users = _known(asked)[0] - times_known
    out: set[str] = set()
    for sentence in split_sentences(strip_citations(claim)) or [strip_citations(claim)]:
        times = _times(sentence)
        if not times:
            continue
        # (a span the evidence gives is the evidence's figure, not one worked out)
        spans = [span for span in _spans(sentence) if span[2] not in spans_known and span[3]]
        known, worked = _worked_out(times, spans, {i for i, (*_, t, _) in enumerate(times) if t in times_known | users},
                                    set(), spans_known, lambda a, b: abs(a - b))
        out |= {times[i][3] for i in known if times[i][2] not in users} | worked  # ("9am" for "09:00" too)
    return out


def _worked_out(points: list, spans: list, known: set[int], anchors: set, steps: frozenset | set,
                apart) -> tuple[set[int], set[str]]:
    """Of one sentence's points in time (start, end, value, as written), the indices known: those `known` at first, and
    each that a known point (or an anchor, a point of the user's outside the sentence) and one of the known `steps`
    make, either way. And the figures of each span (start, end, value, figures as written) that is how far apart the
    known points beside it are: one on either side, else the two before it (never any two the sentence names)."""
    known, anchors = set(known), set(anchors) | {points[i][2] for i in known}
    changed = True
    while changed:
        changed = False
        for i, (*_, value, _) in enumerate(points):
            if i not in known and any(abs(apart(value, a) - step) < 0.5 for a in anchors for step in steps):
                known.add(i)
                anchors.add(value)
                changed = True
    worked: set[str] = set()
    for start, end, value, figures in spans:
        before = [i for i, (_, p_end, *_) in enumerate(points) if p_end <= start]
        after = [i for i, (p_start, *_) in enumerate(points) if p_start >= end]
        pairs = ([(before[-1], after[0])] if before and after else []) + \
            ([(before[-2], before[-1])] if len(before) >= 2 else [])
        if any(i in known and j in known and abs(apart(points[i][2], points[j][2]) - value) < 0.5 for i, j in pairs):
            worked |= set(figures)
    return known, worked


def spans_in_minutes(text: str) -> frozenset[float]:
    """The lengths in minutes of the spans of time a text gives ("2 hours 35 minutes": 155.0)."""
    return _known(text)[1]


def spans_of_known_length(claim: str, minutes: set[float] | frozenset[float]) -> set[str]:
    """The figures of each span of time the claim writes in hours (and minutes) that is as long as a known span in
    minutes (`minutes`: one the evidence gives, or one worked out): "1 h 50 min" for the 110 minutes a roast takes,
    "1 hour" for the evidence's "60 minutes".

    >>> sorted(spans_of_known_length("About 1 hour 50 minutes, so 2 hours with resting.", {110.0}))
    ['1', '50']
    """
    return {figure for *_, value, written in _spans(strip_citations(claim)) if len(written) > 1 or value >= 60
            if any(abs(value - m) < 0.5 for m in minutes) for figure in written}


_CLOCKED = re.compile(r"\d:[0-5]\d|\d\s?[ap]\.?m\b", re.IGNORECASE)


def answer_times(sentences: Sequence[str], haystack: str, asked: str = "") -> frozenset[str]:
    """The times of day and spans an answer works out (`clock_arithmetic`) in any of its sentences, and the times a
    sentence gives that a time the answer states elsewhere (and knows) and a span the evidence gives make: the
    headline "You arrive at 18:25." where another sentence works it out from the 15:50 and the 2 hours 35 minutes
    crossing, "check in by 15:20" where the evidence says check-in is 30 minutes before departure.

    >>> ev = "Departs 15:50. The crossing takes 2 hours 35 minutes. Check in 30 minutes before departure."
    >>> sorted(answer_times(["You arrive at 18:25.", "The 15:50 takes 2 hours 35 minutes, so 18:25.",
    ...                      "Check in by 15:20."], ev))
    ['15:20', '18:25']
    >>> sorted(answer_times(["You arrive at 18:45.", "The 15:50 gets in at 18:25."], ev))
    ['18:25']
    >>> sorted(answer_times(["About 18:25."], ev, "When does the 15:50 get in?")), sorted(answer_times(["About 18:05."], ev, "The 15:30?"))
    (['18:25'], [])
    """
    if not any(_CLOCKED.search(s) for s in sentences):
        return frozenset()  # no time of day (most answers)
    out: set[str] = set()
    for sentence in sentences:
        out |= clock_arithmetic(sentence, haystack, asked)
    times_known, spans_known = _known(haystack)
    stated = [t for sentence in sentences for t in _times(strip_citations(sentence))]
    # (a time the user names that the evidence gives is known too: "About 18:25." to "When does the 15:50 get in?")
    values = {t for *_, t, written in stated if written in out} | (_known(asked)[0] & times_known)
    seeded = {i for i, (*_, t, _) in enumerate(stated) if t in values}
    known, _ = _worked_out(stated, [], seeded, values, spans_known, lambda a, b: abs(a - b))
    return frozenset({written for *_, t, written in stated if written in out and t not in times_known}
                     | {n for n in out if ":" not in n and not any(w == n for *_, w in stated)}  # (worked out)
                     | {stated[i][3] for i in known - seeded})


_MONTH = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
          "december")
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_WORD = r"(" + "|".join(m for m in _MONTH) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_DAY_OF = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_WORD + r"\b|\b" + _MONTH_WORD
                     + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!:)", re.IGNORECASE)
_DAY_SPAN = re.compile(r"\b(\d+|" + "|".join(_SPELLED) + r")[\s-]+(days?|weeks?)\b", re.IGNORECASE)


@by_content
def _calendar(text: str) -> tuple[tuple[int, int, int, str], ...]:
    """(start, end, day of the year, the day as `numbers` writes it) of each date by day and month: "3 March",
    "March 3rd", "2 April 2025" (any year read as one of 365 days). Read once per text: every claim of an answer is
    read against the same evidence and the same user's words."""
    out = []
    for m in _DAY_OF.finditer(text):
        day, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        index = next(i for i, name in enumerate(_MONTH) if name.startswith(month.lower().rstrip(".")[:3]))
        if 1 <= int(day) <= _MONTH_DAYS[index]:
            out.append((m.start(), m.end(), sum(_MONTH_DAYS[:index]) + int(day), day))
    return tuple(out)


def _day_spans(text: str) -> list[tuple[int, int, int, tuple[str]]]:
    """(start, end, days, the figure as written) of each span in days or weeks: "30 days", "two weeks"."""
    out = []
    for m in _DAY_SPAN.finditer(text):
        count = int(_SPELLED.get(m.group(1).lower(), m.group(1)))
        out.append((m.start(), m.end(), count * (7 if m.group(2).lower().startswith("week") else 1), (m.group(1),)))
    return out


def _apart(a: int, b: int) -> int:
    """Days from one day of the year to another, the short way round the year's end."""
    gap = abs(a - b)
    return min(gap, 365 - gap)


def calendar_arithmetic(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's numbers that are dates worked out from a date and a span in days the evidence gives ("30 days
    from delivery": delivered on 3 March, so "2 April"), from a date of the sentence or the user's own; or a span
    between the two dates on either side of it ("from 16 June to 10 July, a window of 24 days"). A span only the
    user states proves nothing (a false premise: "60 days, so early May?").

    >>> ev = "Online orders: return any unused item within 30 days of delivery."
    >>> sorted(calendar_arithmetic("It's 30 days from delivery, so about 2 April.", ev, "It was delivered on 3 March."))
    ['2']
    >>> sorted(calendar_arithmetic("You have until 2 May.", ev, "Delivered on 3 March; they give 60 days, right?"))
    []
    >>> sorted(calendar_arithmetic("From 16 June to 10 July, a window of 24 days.", "Registration: 16 June to 10 July."))
    ['10', '16', '24']
    """
    return _calendar_read(claim, haystack, asked)[0]


def worked_months(claim: str, haystack: str, asked: str = "") -> frozenset[str]:
    """The months (lower-cased, in full) of the claim's dates worked out from a date and the evidence's span
    (`calendar_arithmetic`), not given: "2 April" from "delivered on 3 March" and "within 30 days" names no month the
    claim invents.

    >>> worked_months("It's 30 days from delivery, so until 2 April.", "Return within 30 days.", "Delivered on 3 March.")
    frozenset({'april'})
    >>> worked_months("Until 12 April.", "Return within 30 days.", "Delivered on 3 March.")
    frozenset()
    >>> worked_months("From 10 March, you can donate from 10 July.", "Wait 4 months after a tattoo.", "Tattoo: 10 March.")
    frozenset({'july'})
    >>> worked_months("You can donate from 10 August.", "Wait 4 months after a tattoo.", "Tattoo: 10 March.")
    frozenset()
    """
    return _calendar_read(claim, haystack, asked)[1]


@functools.lru_cache(maxsize=1024)
def _calendar_read(claim: str, haystack: str, asked: str) -> tuple[frozenset[str], frozenset[str]]:
    users_dates = {d for *_, d, _ in _calendar(asked)}
    known_dates = {d for *_, d, _ in _calendar(haystack)} | users_dates
    spans = {d for *_, d, _ in _day_spans(haystack)}
    # ... and a span in months the evidence gives, from a date to the same day that many months on ("a 4-month wait"
    # from 10 March: 10 July)
    month_spans = {int(_SPELLED.get(m.group(1).lower(), m.group(1))) % 12 for m in _MONTH_SPAN.finditer(haystack)}
    days_given = {(int(day), _month_of(value)) for *_, value, day in _calendar(f"{asked} {haystack}")}
    out: set[str] = set()
    months: set[str] = set()
    for sentence in split_sentences(strip_citations(claim)) or [strip_citations(claim)]:
        dates = _calendar(sentence)
        if not dates:
            continue
        given = {i for i, (*_, d, _) in enumerate(dates) if d in known_dates}
        known, worked = _worked_out(dates, _day_spans(sentence), given, users_dates, spans, _apart)
        anchors = days_given | {(int(dates[i][3]), _month_of(dates[i][2])) for i in known}
        known |= {i for i, (*_, value, day) in enumerate(dates) if month_spans - {0} and any(
            int(day) == a_day and (_month_of(value) - a_month) % 12 in month_spans for a_day, a_month in anchors)}
        out |= {dates[i][3] for i in known} | worked
        months |= {_MONTH[_month_of(dates[i][2])] for i in known - given}
    return frozenset(out), frozenset(months)


_MONTH_SPAN = re.compile(r"\b(\d+|" + "|".join(_SPELLED) + r")[\s-]+months?\b", re.IGNORECASE)


def _month_of(day_of_year: int) -> int:
    """The month (0-11) of a day of the year (1-365)."""
    return (dt.date(2025, 1, 1) + dt.timedelta(days=day_of_year - 1)).month - 1  # a year of 365 days, as `_calendar`


def dated_days(month: str, text: str) -> frozenset[str]:
    """The days a text gives a month (lower-cased) with (`_calendar`): "by 17 March", "March 3rd": 17, 3.

    >>> sorted(dated_days("march", "Pay by 17 March, not March 3rd; in March 2024 or the end of March."))
    ['17', '3']
    """
    return frozenset(day for start, end, _, day in _calendar(text) if month in text[start:end].lower())


def days_since(answer: str, asked: str, now: dt.date | None) -> frozenset[str]:
    """The counts of days the answer gives ("today is 9 days after the ticket was issued") that run from a date the
    user gives (`_calendar`, in a year of 365 days as every date here) to today: worked out, not invented.

    >>> sorted(days_since("It is 9 days since then, not 12 days.", "A ticket on 3 March.", dt.date(2025, 3, 12)))
    ['9']
    >>> days_since("It is 9 days since then.", "A ticket on 3 March.", None)
    frozenset()
    """
    if now is None:
        return frozenset()
    today = sum(_MONTH_DAYS[:now.month - 1]) + min(now.day, _MONTH_DAYS[now.month - 1])
    counts = {str((today - day) % 365) for *_, day, _ in _calendar(asked)}
    return frozenset(n for n in counts if re.search(r"(?<![\d.,])" + n + r"\s+(?:whole\s+)?days?\b", answer))


_ORDINALS = {w: n for n, w in enumerate("zeroth first second third fourth fifth sixth seventh eighth ninth tenth".split())}
_A_YEAR = re.compile(r"(?<![\d.,£$€])((?:19|20)\d\d)(?!\d|,\d)")
_YEARS_SPAN = re.compile(r"\b(\d{1,3}|" + "|".join(_SPELLED) + r")[\s-]+(years?|months?)\b|\b(\d{1,2})?(?:st|nd|rd|th)?"
                         r"(" + "|".join(_ORDINALS) + r")?\s+(?:registration\s+|birthday\s+)?anniversary\b", re.IGNORECASE)


def _year_spans(text: str) -> dict[str, int]:
    """Spans in whole years a text gives, by the figure as written: "3 years", "three-year", "36 months", "the third
    anniversary" (3), "the 2nd anniversary" (2)."""
    out = {}
    for m in _YEARS_SPAN.finditer(text):
        if m.group(1):
            count = int(_SPELLED.get(m.group(1).lower(), m.group(1)))
            if m.group(2).lower().startswith("month"):
                if count % 12:
                    continue
                count //= 12
            out[m.group(1)] = count
        elif m.group(3) or m.group(4):
            out[m.group(3) or m.group(4).lower()] = int(m.group(3) or _ORDINALS[m.group(4).lower()])
    return out


def year_arithmetic(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's years worked out from a year the evidence or the user gives and a span in years the evidence gives,
    which the claim's sentence names ("registered in May 2024; the first inspection is due by the third anniversary,
    in May 2027"), and a span in years it states as a count where the evidence gives the anniversary ("3 years").
    A span only the user states proves nothing.

    >>> ev = "Cars must have their first inspection by the third anniversary of first registration."
    >>> sorted(year_arithmetic("It is due by the third anniversary, so May 2027 (3 years on).", ev, "Registered May 2024."))
    ['2027', '3']
    >>> sorted(year_arithmetic("It is due in May 2026.", ev, "Registered May 2024.")), sorted(year_arithmetic(
    ...     "Two years on, in May 2026.", ev, "Registered May 2024, and it's due after two years?"))
    ([], [])
    """
    given = _year_spans(haystack)
    known = {int(y) for y in _A_YEAR.findall(haystack) + _A_YEAR.findall(asked)}
    out: set[str] = set()
    for sentence in split_sentences(strip_citations(claim)) or [strip_citations(claim)]:
        spans = {written: count for written, count in _year_spans(sentence).items() if count in given.values()}
        out |= {written for written in spans if written not in given}  # "3 years" for "the third anniversary"
        steps = set(spans.values())
        out |= {y for y in _A_YEAR.findall(sentence) if any(int(y) - s in known or int(y) + s in known for s in steps)}
    return out


_MONTH_NAME = re.compile(r"\b(" + "|".join(m.capitalize() for m in _MONTH) + r")\b")
_MONTHS_COUNTED = re.compile(r"(?<![\d.,])(\d{1,2})[\s-]+months?\b", re.IGNORECASE)
_DAY = r"(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)"
_EDGE = r"(?:(?:the\s+)?(start|beginning|end)\s+of\s+)"
_RANGE = re.compile(r"(?<![-\w])(between\s+)?(?:" + _DAY + "|" + _EDGE + r")?(" + "|".join(m.capitalize() for m in _MONTH)
                    + r")(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?\s*(-|–|—|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b|\band\b)"
                    r"\s*(?:" + _DAY + "|" + _EDGE + r")?(?<![-\w])(" + "|".join(m.capitalize() for m in _MONTH)
                    + r")(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?![\s,]*(?:19|20)\d\d)")
_ABOUT = re.compile(r"\b(?:about|around|roughly|nearly|almost|approximately|some|(?:just\s+|a\s+little\s+)?(?:over|under))"
                    r"\s+$", re.IGNORECASE)


def _range_months(m: re.Match) -> float | None:
    """The length in months of a range of months (`_RANGE`): by its days where both ends
    give one ("1 March to 31 July": 153 days, 5.0 months), else in whole months, both counted ("March to July",
    "the start of May to the end of September": 5). None for "X and Y" without "between" (a list, not a range)."""
    between, day_a, edge_a, month_a, day_a2, joint, day_b, edge_b, month_b, day_b2 = m.groups()
    if joint == "and" and not between:
        return None
    a, b = _MONTH.index(month_a.lower()), _MONTH.index(month_b.lower())
    first, last = day_a or day_a2, day_b or day_b2
    if first and last and 1 <= int(first) <= _MONTH_DAYS[a] and 1 <= int(last) <= _MONTH_DAYS[b]:
        start, end = sum(_MONTH_DAYS[:a]) + int(first), sum(_MONTH_DAYS[:b]) + int(last)
        return ((end - start) % 365 + 1) / (365 / 12)
    if first or last or (edge_a or "start").lower() == "end" or (edge_b or "end").lower() != "end":
        return None  # (half a month at one end, or a range from the end of one month: no whole count)
    return float((b - a) % 12 + 1)


_RANGE_WORDS = frozenset(stems("mid start beginning end from until till through between month months early late "
                               "last lasts run runs long length period total whole year"))
_CLAUSES = re.compile(r"\s*(?:;|,\s*(?:and|but|while|whereas|though|although)\b)\s*", re.IGNORECASE)
_LABEL = re.compile(r"^([^:;]{1,60}):\s")


def _topic(clause: str) -> frozenset[str]:
    """What a clause is about, to tell which range a count is of: its stems without months and range words."""
    return stems(_MONTH_NAME.sub(" ", clause)) - _RANGE_WORDS


def _clauses(sentence: str) -> list[tuple[str, frozenset[str]]]:
    """The clauses of an evidence sentence (split at ";", ", and", ", but", ...), each with what it is about:
    its own words and those of a label the sentence opens with ("Trout season: 15 March to 30 September")."""
    label = _LABEL.match(sentence)
    head = _topic(label.group(1)) if label and not _RANGE.search(label.group(1)) else frozenset()
    body = sentence[label.end():] if head else sentence
    return [(clause, head | _topic(clause)) for clause in _CLAUSES.split(body) if clause.strip()]


def month_arithmetic(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's counts of months ("5 months", "a 6-month season") that a range of months the evidence gives runs
    over: the range the claim is about, that of the evidence clause sharing most of its words, and one the claim
    names if it names one (naming a range is not enough: "9 months, June to March" of the trout season names the
    grayling's). A range given by its days is counted by them ("1 March to 31 July": 5 months;
    "16 June to 14 March": 9), one by its months in whole months, both counted ("April to September", "the start of
    May to the end of September": 6, 5); a count said to be about ("about 6 months") may be either whole number
    around the length. A range the user gives proves nothing, nor does a list ("July and August"), a range of
    another sentence, one with a year inside it or half a month at an end ("mid-April to the end of May").

    >>> ev = "Dogs must be kept on a lead between 1 March and 31 July. Outside that period dogs may be off the lead."
    >>> sorted(month_arithmetic("For 5 months of the year, March through July, a lead is required.", ev))
    ['5']
    >>> sorted(month_arithmetic("A lead is required for 5 months.", ev)), sorted(month_arithmetic("Dogs need a lead for 4 months.", ev))
    (['5'], [])
    >>> sorted(month_arithmetic("For 5 months.", "", ev)), sorted(month_arithmetic("Closed for 2 months.", "Guided walks in July and August."))
    ([], [])
    >>> ev = "Trout season: 15 March to 30 September. Grayling season: 16 June to 14 March."
    >>> sorted(month_arithmetic("The trout season is about 6 months long.", ev)), sorted(month_arithmetic("The trout season lasts 9 months.", ev))
    (['6'], [])
    >>> sorted(month_arithmetic("The trout season is 9 months long, from June to March.", ev))
    []
    >>> sorted(month_arithmetic("The window is about 2 months.", "Plant from mid-April to the end of May."))
    []

    Each range is read with its own clause, and ranges as close to the claim that differ tell nothing:

    >>> ev = "The castle is open from April to October, and guided tours run in July and August."
    >>> sorted(month_arithmetic("Guided tours run for 7 months.", ev)), sorted(month_arithmetic("The castle opens for 7 months.", ev))
    ([], ['7'])
    >>> ev = "Sow outdoors from April to May. Pick the pods from June to September."
    >>> sorted(month_arithmetic("After you sow them outdoors, you can pick the pods for 2 months.", ev))
    []
    >>> sorted(month_arithmetic("You can pick the pods for 4 months, from March to June.", ev))
    []
    >>> ev = "The tenancy runs from 1 September to 31 August. Landlords must give two months' notice."
    >>> sorted(month_arithmetic("The tenancy lasts 12 months, and a landlord must give 12 months' notice.", ev))
    []
    >>> sorted(month_arithmetic("The tenancy lasts 12 months, and a landlord must give 2 months' notice.", ev))
    ['12']
    >>> sorted(month_arithmetic("The museum is open for 5 months.", "The museum is open 1 May – 30 September."))
    ['5']
    >>> ev = "Summer pass: June to August. Flex membership: 12-month minimum term."
    >>> sorted(month_arithmetic("The Flex pass has a 3-month minimum term.", ev)), sorted(month_arithmetic("The summer pass lasts 3 months.", ev))
    ([], ['3'])
    >>> ev = "Open seasons for red deer: stags from 1 July to 20 October; hinds from 21 October to 15 February."
    >>> sorted(month_arithmetic("The red hind season lasts about 4 months.", ev)), sorted(month_arithmetic("Stags: 6 months.", ev))
    (['4'], [])
    """
    ranges = []  # (what the clause that gives it is about, its length, the months it runs between)
    topics = []  # what every clause of the evidence is about, one with a range or not
    for sentence in split_sentences(haystack):
        for clause, about in _clauses(sentence):
            topics.append(about)
            for m in _RANGE.finditer(clause):
                length = _range_months(m)
                if length is not None:
                    ranges.append((about, length, (m.group(4), m.group(9))))
    if not ranges:
        return set()
    out: set[str] = set()
    for sentence in split_sentences(strip_citations(claim)) or [strip_citations(claim)]:
        if not _MONTHS_COUNTED.search(sentence):
            continue
        read: dict[str, list[bool]] = {}  # each count's figure: whether each of its counts is the range's length
        for clause in _CLAUSES.split(sentence):
            # (a clause that says nothing but the count, "and lasts 5 months", is read with its sentence)
            words = _topic(_MONTHS_COUNTED.sub(" ", clause)) or _topic(sentence)
            lengths = _closest(ranges, words, clause, max((len(words & t) for t in topics), default=0))
            for m in _MONTHS_COUNTED.finditer(clause):
                rough = bool(_ABOUT.search(clause[:m.start()]))
                read.setdefault(m.group(1), []).append(
                    any(abs(length - int(m.group(1))) < (1.0 if rough else 0.6) for length in lengths))
        # A figure is worked out where each time the sentence gives it is: one true "12 months" lets no "12 months'
        # notice" through.
        out |= {n for n, ok in read.items()
                if all(ok) and len(re.findall(rf"(?<![\d.,]){n}(?!\d|[.,]\d)", sentence)) == len(ok)}
    return out


def _closest(ranges: list, words: frozenset[str], clause: str, most: int) -> list[float]:
    """The lengths of the ranges whose clauses share most of `words`, as many as the evidence clause sharing most
    (`most`) does: a count of what another clause gives without a range is no count of a range ("the Flex pass has a
    3-month term" beside "Flex membership: 12-month minimum term" and "Summer pass: June to August"). None where
    ranges as close differ, or where `clause` names a range that is not one of them."""
    shared = [len(words & about) for about, _, _ in ranges]
    closest = [(length, months) for (_, length, months), n in zip(ranges, shared) if n and n == most]
    # Ranges as close that differ tell nothing; a range the claim names must be the one it counts.
    if not closest or max(c[0] for c in closest) - min(c[0] for c in closest) > 0.5:
        return []
    named = {(m.group(4), m.group(9)) for m in _RANGE.finditer(clause)}
    if named and not named & {months for _, months in closest}:
        return []
    return [length for length, _ in closest]


_RACE_TIME = re.compile(r"(?<![\d:.])(?:(\d{1,2}):)?(\d{1,2}):([0-5]\d(?:\.\d{1,3})?)(?![\d:])")


def race_seconds(text: str) -> set[float]:
    """Seconds of each race time: "2:07.84" is 127.84, "2:05:37" 7537; a time of day ("10:30") is none.

    >>> sorted(race_seconds("She won in 2:07.84; the record is 2:07.12. The marathon record is 2:05:37. Doors at 10:30."))
    [127.12, 127.84, 7537.0]
    """
    return {round(int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), 3)
            for hours, minutes, seconds in _RACE_TIME.findall(text) if hours or "." in seconds}

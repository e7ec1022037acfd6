"""Binding: a figure of the evidence said of what another evidence sentence, with another figure of the figure's
kind, is about (`misbound`). The consistency model reads such a claim as supported, because every word of it is in
the evidence; only which words go with which figure is wrong.

`figures.misattributed` reads the same error where the thing is a capitalised name ("the Nordlink pass"); this reads
it by the words around the figure, whatever they are ("escape of water claims", "sale items", "on Orbital Plus").
`day_misbound` reads a time of day given to days of the week the evidence gives another time for ("On Saturdays
it opens at 9:00", where 9:00 is the weekdays' opening and Saturdays open at 10:00)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.clock import _times
from reward.judges.local.figures import _CALENDAR, _CLAUSE, _UNIT_NAMES, _figures
from reward.judges.local.text import STOPWORDS, content_words, numbers, stem
from reward.schema import Evidence

BOUND_MARGIN = 2
"""How many of the clause's words another sentence must name, that no sentence of the figure names, while the
clause names no word of the figure's own sentence that the other lacks, before the figure reads as given to the other
sentence's thing. Chosen on the fit parts of the generalization corpus and on review sets written from scratch: no
clean or honest answer of theirs is read so."""

_COMPARING = re.compile(r"\b(?:than|versus|vs|against|compared|whereas|while|above|below|beats?|exceeds?)\b",
                        re.IGNORECASE)
"""A sentence comparing things names both of them: its words bind to both figures, so it is not read."""
_DENIAL = re.compile(r"\b(?:not|no|never|neither|nor|none)\b|n[’']t\b", re.IGNORECASE)
"""A clause that denies a figure of a thing ("vacuum cleaners aren't covered for 5 years") corrects the binding."""
_PRONOUN_START = re.compile(r"^\W*(?:it|its|they|their|this|these|he|she|his|her)\b", re.IGNORECASE)


_FIGURE_WORDS = frozenset(stem(w) for w in (
    "cost", "costs", "price", "priced", "pay", "paid", "charge", "charged", "charges", "fee", "fees", "fare", "ticket",
    "tickets", "rate", "excess", "cover", "covered", "guarantee", "notice", "period", "total", "each", "per", "minimum",
    "maximum", "least", "most", "up", "within", "about", "around", "day", "days", "week", "weeks", "month", "months",
    "year", "years", "hour", "hours", "minute", "minutes", "takes", "take", "lasts", "get", "gets", "give", "gives"))
"""Words of a figure rather than of the thing it is for ("tickets cost", "a notice period of"): every thing's figure
may be said with them, so they tell no thing apart."""


_NEAR = 3
"""How many words either side of a figure say what it is a figure of ("an additional £200 excess", "within 28
days")."""
_WORD = re.compile(r"[A-Za-z][\w'’-]*")


def _near(text: str, start: int, end: int) -> frozenset[str]:
    """The words beside a figure (its unit left out): what it is a figure of, "excess" of "a £200 excess", "deep" of
    "40 mm deep"."""
    around = _WORD.findall(text[:start])[-_NEAR:] + _WORD.findall(text[end:])[:_NEAR + 1]
    return frozenset(stem(w.lower()) for w in around
                     if w.lower() not in STOPWORDS and w.lower().rstrip("s") not in _UNIT_NAMES)


def _words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text) if not re.search(r"\d", w)) - _FIGURE_WORDS


@functools.lru_cache(maxsize=256)
def _sentences(evidence: tuple[tuple[str, str], ...]) -> tuple[tuple[frozenset[str], tuple], ...]:
    """Each evidence sentence's words, read with its document's title (and with the sentence before it where it
    opens with a pronoun: "Its discharge is 3,400 m³/s"), and its figures, each with the words beside it; once per
    evidence."""
    haystack = " ".join(text for _, text in evidence)
    out = []
    for title, text in evidence:
        sentences = split_sentences(text)
        for i, sentence in enumerate(sentences):
            before = sentences[i - 1] if i and _PRONOUN_START.match(sentence) else ""
            found = tuple((value, kind, _near(sentence, start, end))
                          for start, end, value, _, kind in _figures(sentence, haystack) if kind)
            out.append((_words(f"{title} {before} {sentence}"), found))
    return tuple(out)


def misbound(claim: str, docs: Sequence[Evidence], worked: frozenset[str] = frozenset()) -> str:
    """Why a figure of the claim is given to what another evidence sentence is about, or "". A clause of the claim
    with one figure (not a year) is read against the evidence sentences that give that figure and those that give
    another figure of its kind but not it: where the clause names at least `BOUND_MARGIN` words of such another
    sentence that no sentence of the figure names, and none of the figure's own sentence that the other lacks, the
    figure has been moved to another thing ("Escape of water claims have a £1,000 excess",
    where £1,000 is for subsidence and escape of water claims carry £200). Every evidence item is read: a figure moved
    from another item is moved all the same. A figure the answer works out (`worked`: "two children pay £16
    altogether", where £16 is also the adult price) is the arithmetic's to check, not read here.

    >>> docs = [Evidence(id="1", title="Home insurance: excesses", text="Escape of water claims carry an additional "
    ...         "£200 excess. Subsidence claims have a fixed £1,000 excess.")]
    >>> misbound("Escape of water claims have a £1,000 excess [Doc 1].", docs)
    'gives 1000 to what another evidence sentence gives 200 for (escape, water)'
    >>> misbound("Subsidence claims have a fixed £1,000 excess.", docs), misbound("It's £1,000 for subsidence.", docs)
    ('', '')

    A clause of two figures, or a comparison, binds its words to both, and is not read; nor is a figure one addition
    or subtraction makes of two others of the evidence ("5 years in total", from 2 and 3), nor a clause that denies:

    >>> misbound("Escape of water claims carry £200, against £1,000 for subsidence claims.", docs)
    ''
    """
    text = strip_citations(claim)
    if _COMPARING.search(text):
        return ""
    evidence = tuple((d.title or "", d.text) for d in docs)
    sentences = _sentences(evidence)
    haystack = " ".join(t for _, t in evidence)
    # every figure of each unit the evidence gives, for what one addition or subtraction makes of two of them
    given: dict[str, set[float]] = {}
    for _, found in sentences:
        for v, k, _ in found:
            given.setdefault(k.split(" per ")[0], set()).add(v)
    for clause in _CLAUSE.split(text):
        if not clause or len(numbers(clause)) != 1 or _DENIAL.search(clause):
            continue
        said = _words(clause)
        for start, end, value, written, kind in _figures(clause, haystack):
            if not kind or kind == _CALENDAR or written in worked:
                continue
            # (a rate is read by its unit: "£6 a day" is the figure of "the daily charge is £6")
            unit = kind.split(" per ")[0]
            pairs = [(a, b) for a in given.get(unit, ()) for b in given.get(unit, ()) if a != b and value not in (a, b)]
            if any(abs(a + b - value) < 1e-9 or abs(a - b - value) < 1e-9 for a, b in pairs):
                continue
            own = [words for words, found in sentences if any(v == value and k.split(" per ")[0] == unit
                                                              for v, k, _ in found)]
            if not own:
                continue
            theirs = frozenset().union(*own)
            beside = _near(clause, start, end)
            for words, found in sentences:
                # another figure of the unit, of what the claim's figure is of ("excess", "within ... days"): a
                # sentence giving a depth in mm is no rival to a claim giving a bit's size in mm
                others = [v for v, k, near in found if k.split(" per ")[0] == unit and v != value and near & beside]
                if not others or any(v == value and k.split(" per ")[0] == unit for v, k, _ in found):
                    continue
                named = said & (words - theirs)
                mine = max(len(said & (o - words)) for o in own)
                if len(named) >= BOUND_MARGIN and not mine:
                    shown = list(dict.fromkeys(w for w in content_words(clause) if stem(w) in named))
                    return (f"gives {written} to what another evidence sentence gives {others[0]:g} for "
                            f"({', '.join(shown[:3])})")
    return ""


_WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = r"(?:(?i:mon|tues|wednes|thurs|fri|satur|sun)(?i:days?)|(?:Mon|Tues?|Wed|Thu(?:rs)?|Fri|Sat|Sun)\b\.?)"
"""A day's name, or its abbreviation written as one ("Sat", not "sat")."""
_DAY_RANGE = re.compile(rf"\b({_DAY})\s*(?:to|through|until|till|–|—|-)\s*({_DAY})")
_ONE_DAY = re.compile(rf"\b({_DAY})")
_WEEK_PARTS = ((re.compile(r"\bweekdays?\b|\bworking days?\b", re.IGNORECASE), _WEEK[:5]),
               (re.compile(r"\bweekends?\b", re.IGNORECASE), _WEEK[5:]),
               (re.compile(r"\bdaily\b|\bevery day\b|\b(?:7|seven) days a week\b", re.IGNORECASE), _WEEK))
_DAY_PART = re.compile(r"\s*[;,]\s*|\s+(?:and|but|while|whereas)\s+|(?<=\))\s+", re.IGNORECASE)
"""Where one day's times end and another's begin: "Monday to Friday 9:00-20:00, Saturday 10:00-16:00"."""
_NOT_A_DAYS_TIME = re.compile(r"\b(?:except|apart from|other than|not|closed|excluding|(?:bank|public) holidays?)\b",
                              re.IGNORECASE)
"""A part that says when something is not open, or an exception, gives no time to the days it names."""


def _day_of(word: str) -> str:
    return next(d for d in _WEEK if word.lower().startswith(d[:3]))


def week_days(text: str) -> frozenset[str]:
    """The days of the week a text names: by name, in a range ("Tuesday to Friday", wrapping past Sunday) or by the
    part of the week ("weekdays", "daily").

    >>> sorted(week_days("Tue-Thu"), key=_WEEK.index), sorted(week_days("Saturdays and weekdays"), key=_WEEK.index)
    (['tuesday', 'wednesday', 'thursday'], ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'])
    >>> sorted(week_days("friday to monday"), key=_WEEK.index), week_days("We sat in the sun.")
    (['monday', 'friday', 'saturday', 'sunday'], frozenset())
    """
    out = set()
    for m in _DAY_RANGE.finditer(text):
        first, last = _WEEK.index(_day_of(m.group(1))), _WEEK.index(_day_of(m.group(2)))
        out |= {_WEEK[(first + i) % 7] for i in range((last - first) % 7 + 1)}
    out |= {_day_of(m.group(1)) for m in _ONE_DAY.finditer(_DAY_RANGE.sub(" ", text))}
    return frozenset(out.union(*(days for pattern, days in _WEEK_PARTS if pattern.search(text))))


@functools.lru_cache(maxsize=256)
def _timetable(texts: tuple[str, ...]) -> dict[int, list[frozenset[str]]]:
    """Each time of day (minutes after midnight) the evidence gives with days of the week: the days of each part of a
    sentence that gives it."""
    table: dict[int, list[frozenset[str]]] = {}
    for text in texts:
        for sentence in split_sentences(text):
            for part in _DAY_PART.split(sentence):
                days = week_days(part) if part and not _NOT_A_DAYS_TIME.search(part) else frozenset()
                for _, _, minutes, _ in _times(part) if days else ():
                    table.setdefault(minutes, []).append(days)
    return table


def day_misbound(claim: str, docs: Sequence[Evidence]) -> str:
    """Why a time of day of the claim is given to days of the week that the evidence gives another time, or "": a
    part of the claim that names days and a time the evidence gives only with other days, where the evidence gives
    another time with a day the claim names.

    >>> pool = [Evidence(id="1", text="The pool opens at 6:30 on weekdays and at 8:00 at weekends.")]
    >>> day_misbound("On Saturdays the pool opens at 6:30 [Doc 1].", pool)
    'gives 6:30 to saturday, where the evidence gives that day 8:00'
    >>> day_misbound("It opens at 8:00 on Saturdays and at 6:30 Monday to Friday.", pool)
    ''
    """
    table = _timetable(tuple(d.text for d in docs))
    for part in _DAY_PART.split(strip_citations(claim)):
        said = week_days(part) if part and not _NOT_A_DAYS_TIME.search(part) else frozenset()
        for _, _, minutes, written in _times(part) if said else ():
            held = table.get(minutes)
            if not held or any(said & days for days in held):
                continue
            theirs = sorted(t for t, parts in table.items() if t != minutes and any(said & days for days in parts))
            if theirs:
                day = next(d for d in _WEEK if d in said and any(d in days for days in table[theirs[0]]))
                hours, mins = divmod(theirs[0], 60)
                return f"gives {written} to {day}, where the evidence gives that day {hours}:{mins:02d}"
    return ""

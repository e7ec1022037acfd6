"""Where figures stand in a text, read in one pass, and the bounds that keep the arithmetic checks (`arithmetic`,
`growth`) linear on a long sentence of many figures: what they look at around each figure, and how many figures they
pair.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

CENTS_AFTER = re.compile(r"\s*(?:cents?|pence|p)\b", re.IGNORECASE)
PER_AFTER = re.compile(r"\s*[a-z]*\s*(?:per|/|each|an?)\s+[a-z]", re.IGNORECASE)
PER_CENT_AFTER = re.compile(r"\s?(?:%|per\s?cent\b)", re.IGNORECASE)
"""What follows a figure in cents, one that is a rate ("30 cents a GB") and one that is a share in per cent; each is
matched at the figure's end, not on a copy of the rest of the text."""
COUNTED_AFTER = re.compile(r"(?:\s*(?:-|to|or|and)?\s*\d++)*+\+?\s*([a-z]+)", re.IGNORECASE)
"""The word a figure counts, past the figures of a range or a list ("1-2 tablets", "2 or 3 days"); possessive, so a
list of figures that counts nothing ("2019 2020 2021 ... [") is not split every way before it fails, which took
seconds at six figures and hours at twelve."""

BEFORE_REACH = 120
"""How far before a figure a rate said in front of it ("each gigabyte costs €0.30") is looked for: a rate's words are
a few, and searching the whole text before each figure would cost a long sentence the square of its length."""

NEAR = 400
"""How far from a figure the words that say what it is of are read (a few words, a clause), not the whole text again
for each place the figure is written."""

MOST_PAIRED = 100
"""The most figures of the evidence one sentence may state for any two of them to be worked into a sum, a difference,
a ratio or a change in per cent: a sentence stating more works out nothing from pairs of them. Every pair would cost
a long, hostile sentence the square of its figures, and no answer gives a reader that many in one sentence."""


def figure_spots(text: str) -> dict[str, list[tuple[int, int]]]:
    r"""Where each figure written in digits stands in the text, read in one pass: the spans of "5" and of "5.30" in
    "5.30", but not of "30" (a figure inside a longer one), as `(?<![\d.])5(?!\d)` finds them.

    >>> figure_spots("£5.30 or 15 or 5")
    {'5': [(1, 2), (15, 16)], '5.30': [(1, 5)], '15': [(9, 11)]}
    """
    out: dict[str, list[tuple[int, int]]] = {}
    for run in re.finditer(r"(?<![\d.])\d[\d.]*", text):
        start, end = run.span()
        for i in range(start + 1, end + 1):
            if text[i - 1].isdecimal() and (i == end or not text[i].isdecimal()):
                out.setdefault(text[start:i], []).append((start, i))
    return out


def text_before(text: str, end: int) -> str:
    """The `BEFORE_REACH` characters before `end`, from a word's start (the whole text before it when shorter).

    >>> text_before("x" * 200 + " each gigabyte costs ", 221)
    'each gigabyte costs '
    """
    start = end - BEFORE_REACH
    if start <= 0:
        return text[:end]
    space = text.find(" ", start, end)
    return text[space + 1:end] if space >= 0 else ""


def clause_start(bounds: list[int], at: int) -> int:
    """The last of the sorted `bounds` (where a clause may start) at or before `at`, else 0: the start of the clause
    before a figure, found by bisection instead of splitting the whole text before it.

    >>> clause_start([4, 9], 9), clause_start([4, 9], 8), clause_start([4, 9], 2)
    (9, 4, 0)
    """
    i = bisect.bisect_right(bounds, at)
    return bounds[i - 1] if i else 0


def in_per_cent(ends: list[int], plain: str) -> bool:
    """Whether a figure ending at one of `ends` is a share in per cent ("12.6%", "12.6 per cent")."""
    return any(PER_CENT_AFTER.match(plain, end) for end in ends)


def near_any(values: list[float], written: str) -> bool:
    """Whether any of the sorted `values` is the written figure rounded as written ("12.6" for 12.595, as
    `arithmetic._as_written` reads it), found by bisection.

    >>> near_any([3.0, 12.595, 40.0], "12.6"), near_any([3.0, 12.595, 40.0], "12.7")
    (True, False)
    """
    decimals = len(written.split(".")[1]) if "." in written else 0
    value, slack = float(written), 0.5 * 10 ** -decimals + 1e-9
    i = bisect.bisect_left(values, value - slack)
    return i < len(values) and values[i] <= value + slack


def paired(stated: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The stated figures arithmetic may pair: all of them, or none past `MOST_PAIRED`."""
    return stated if len(stated) <= MOST_PAIRED else []


def _slack(written: str) -> tuple[float, float]:
    decimals = len(written.split(".")[1]) if "." in written else 0
    return float(written), 0.5 * 10 ** -decimals + 1e-9


def _within(values: list[float], low: float, high: float) -> range:
    """The positions of the sorted `values` from `low` to `high` (a hair wider, so that the exact test applied to each
    decides, as it did when every value was tried)."""
    return range(bisect.bisect_left(values, low - 1e-7), bisect.bisect_right(values, high + 1e-7))


def first_total(totals: list[tuple[float, str]], extras: dict[str, list[float]], written: str,
                exact: Callable[[float, str], bool]) -> int | None:
    """The first of `totals` (value, currency sign) that is the written figure (`exact`, rounded as written), alone or
    plus one of the `extras` of its sign, found by bisection: a sentence of thousands of figures beside an evidence
    list of thousands of prices no longer tries every total with every extra for every figure.

    >>> first_total([(190.0, "£"), (160.0, "£"), (185.0, "£")], {"£": [25.0]}, "185", lambda v, w: abs(v - float(w)) < 0.5)
    1
    >>> first_total([(190.0, "£")], {"£": [25.0]}, "200", lambda v, w: abs(v - float(w)) < 0.5) is None
    True
    """
    value, slack = _slack(written)
    found: list[int] = []
    for sign in {sign for _, sign in totals}:
        kept = sorted((total, i) for i, (total, s) in enumerate(totals) if s == sign)
        keys = [total for total, _ in kept]
        for extra in [0.0, *extras.get(sign, ())]:
            found += [kept[j][1] for j in _within(keys, value - extra - slack, value - extra + slack)
                      if exact(kept[j][0] + extra, written)]
    return min(found, default=None)


def makes(found: set[float], given: set[float], value: float, paired: Callable[[float, float], bool]) -> bool:
    """Whether `value` is the difference or the sum of one of `found` and one of `given` (within 1e-6) that
    `paired` allows, each of `found` looked up in the sorted `given` instead of tried against all of it.

    >>> makes({212.0}, {212.0, 187.0}, 25.0, lambda a, b: a != b), makes({212.0}, {212.0, 180.0}, 25.0, lambda a, b: a != b)
    (True, False)
    """
    ordered = sorted(given)
    return any(abs(abs(a - ordered[j]) - value) < 1e-6 or abs(a + ordered[j] - value) < 1e-6
               for a in found for target in (a - value, a + value, value - a)
               for j in _within(ordered, target - 1e-6, target + 1e-6) if paired(a, ordered[j]))

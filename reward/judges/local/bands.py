"""Bands the evidence gives a rule for ("Children 2 to 5 years: 2.5 ml", "aged 12 and over", "under 16s"), and the
user's own figure read against them: a 4-year-old is inside "2 to 5 years", so restating the user's age is no figure
the evidence contradicts; giving that 4-year-old the figure of the "6 to 11 years" row is a swap."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

from reward.format import strip_citations
from reward.judges.local.figures import _SPELLED, _quantities, _unit

_NUMBER = r"(\d+(?:\.\d+)?)"
_UNIT = r"(?:-|\s*)([a-z]+|%)?"
_CLOSED = re.compile(r"(?:\bbetween\s+" + _NUMBER + r"\s+and\s+|\b" + _NUMBER + r"\s*(?:to|–|—|-)\s*)" + _NUMBER + _UNIT,
                     re.IGNORECASE)
_FROM = re.compile(_NUMBER + _UNIT + r"\s+(?:and|or)\s+(?:over|above|older|more|upwards)\b|" + _NUMBER + _UNIT + r"\+",
                   re.IGNORECASE)
_BELOW = re.compile(r"\b(?:under|below|younger than|less than)\s+" + _NUMBER + _UNIT, re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def bands(text: str) -> tuple[tuple[float, float, str], ...]:
    """(low, high, unit stem) of every band a text gives, ends included ("under 2 years" ends below 2).

    >>> bands("Children 2 to 5 years: 2.5 ml. Aged 12 years and over: 10 ml. Not for under 2s.")
    ((2.0, 5.0, 'year'), (12.0, inf, 'year'), (-inf, 1.999, ''))
    """
    text = strip_citations(text)
    out = []
    for match in _CLOSED.finditer(text):
        low = float(match.group(1) or match.group(2))
        high = float(match.group(3))
        if low < high:
            out.append((low, high, _unit(None, match.group(4))))
    for match in _FROM.finditer(text):
        out.append((float(match.group(1) or match.group(3)), math.inf, _unit(None, match.group(2) or match.group(4))))
    for match in _BELOW.finditer(text):
        out.append((-math.inf, float(match.group(1)) - 0.001, _unit(None, match.group(2))))
    return tuple(out)


def inside_band(value: float, unit: str, text: str) -> bool:
    """Whether a figure in `unit` falls inside a band `text` gives in that unit: a "4-year-old" inside "2 to 5
    years", which the evidence does not contradict, though it never writes the figure.

    >>> inside_band(4, "year", "Children 2 to 5 years: 2.5 ml."), inside_band(7, "year", "Children 2 to 5 years: 2.5 ml.")
    (True, False)
    """
    return any(low <= value <= high and band_unit == unit for low, high, band_unit in bands(text))


_ROW = re.compile(r"^\W*[^\W\d_][\w '’()+/-]{0,40}:\s")
"""A labelled row of a table ("Adults: €3.40"): a band of its own, though no figure says it."""
_SPELLED_FIGURE = re.compile(r"\b(" + "|".join(_SPELLED) + r")\b", re.IGNORECASE)


def _figures_of(text: str) -> str:
    """The text with small numbers in words written as figures ("a four-year-old": "a 4-year-old")."""
    return _SPELLED_FIGURE.sub(lambda m: _SPELLED[m.group(1).lower()], text)


def band_swapped(claim: str, sentences: Sequence[str], asked: str) -> str:
    """Why the claim gives the user's figure (`asked`) the figures of another band, or "": the user's figure falls
    inside the band of one evidence sentence (or of one of its parts between semicolons), and a figure of the claim in
    another unit is given only by another row of the same table (one with a band in the user's unit that leaves the
    figure out, or a labelled row). A
    claim that names a band of its own (another figure in the user's unit) is about that band.

    >>> rows = ["Children 2 to 5 years: 2.5 ml twice a day.", "Children 6 to 11 years: 5 ml twice a day.", "Adults: 10 ml."]
    >>> band_swapped("For a 4-year-old the dose is 5 ml twice a day.", rows, "How much for my 4-year-old?")
    "gives 5 to '4' where the evidence says 5 is for another band"
    >>> band_swapped("At four, give 10 ml.", rows, "How much for my four-year-old?")
    "gives 10 to '4' where the evidence says 10 is for another band"
    >>> band_swapped("A 4-year-old can have 5 ml.", rows, "My son is 4. How much can I give him?")
    "gives 5 to '4' where the evidence says 5 is for another band"
    >>> band_swapped("For a 4-year-old the dose is 2.5 ml twice a day.", rows, "How much for my 4-year-old?")
    ''
    >>> notice = ["At least one week for each year if employed between 2 and 12 years; 12 weeks if employed 12 years or more."]
    >>> band_swapped("With 6 years' service you get 12 weeks' notice.", notice, "I've worked here 6 years.")
    "gives 12 to '6' where the evidence says 12 is for another band"
    >>> band_swapped("5 ml is for 6 to 11 years, so a 4-year-old takes 2.5 ml.", rows, "Is 5 ml right for my 4-year-old?")
    ''
    """
    claim, asked = _figures_of(strip_citations(claim)), _figures_of(asked)
    rows = [row for sentence in sentences for row in re.split(r";\s+", sentence)]  # "...: 1 week; 12 weeks if ..."
    user = {written: unit for _, written, unit in _quantities(asked)}
    quantities = _quantities(claim)
    for value, written, unit in quantities:
        # the user's figure in the unit either gives it ("My son is 4" and "a 4-year-old", "a 4-year-old" and "at 4")
        unit = unit or user.get(written, "")
        if written not in user or user[written] not in ("", unit) or not unit:
            continue
        if any(u == unit and w != written for _, w, u in quantities):
            continue  # the claim names a band of its own ("5 ml is for 6 to 11 years")
        inside = [row for row in rows if inside_band(value, unit, row)]
        outside = [row for row in rows if row not in inside and (_ROW.match(row) or any(
            band_unit == unit for _, _, band_unit in bands(row)))]
        if not inside or not outside:
            continue
        own = {(v, u) for row in inside for v, _, u in _quantities(row)}
        theirs = {(v, u) for row in outside for v, _, u in _quantities(row)} - own
        for other, figure, other_unit in quantities:
            if other_unit and other_unit != unit and (other, other_unit) in theirs:
                return f"gives {figure} to '{written}' where the evidence says {figure} is for another band"
    return ""

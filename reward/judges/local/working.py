"""Working an answer writes out ("6 days × £38 = £228", "£1,249 × 0.80 = £999.20", "(£1.45 − £1.09) ÷ £1.09 ≈
33.0%"): each result whose arithmetic holds and whose operands are known (the evidence's figures, the user's, a
share the evidence gives in per cent, a unit of the calendar, or a result worked out before it in the answer) is a
figure the answer works out in the open, not one it invents. Pure functions of strings.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections.abc import Sequence

from reward.format import strip_citations
from reward.judges.local.arithmetic import spelled_out
from reward.judges.local.clock import answer_times
from reward.judges.local.figures import _given, _quantities, _unit
from reward.judges.local.growth import answer_changes
from reward.judges.local.text import content_words, numbers
from reward.memo import by_content

_CALENDAR = frozenset({7.0, 12.0, 24.0, 52.0, 60.0, 100.0, 365.0})
"""Units of the calendar and of per cent a working may use without the evidence giving them: days in a week, months
in a year, hours in a day, weeks in a year, minutes in an hour, per cent, days in a year."""
_TOKEN = re.compile(r"(?P<number>[$€£¥]?\d[\d,]*(?:\.\d+)?(?:\s?(?:p\b|pence\b|%))?)|(?P<op>[×*÷/+−–-]|(?<![a-z])x(?![a-z])|[()])",
                    re.IGNORECASE)
_EQUALS = re.compile(r"\s*(=|≈)\s*")
_OF_SHARE = re.compile(r"(\d%|\d\s?per\s?cent)\s+of\s+(?=(?:the\s+)?[$€£¥]?\d)", re.IGNORECASE)
_RANGE = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)[-–](\d[\d,]*(?:\.\d+)?)(?![\d.,]*\d)")
"""A range written with a hyphen or dash and no spaces ("10-12", "2–3"), not a subtraction ("£92 − £86", "92 - 86")."""
_RANGE_RESULT = re.compile(r"[$€£¥]?(\d[\d,]*(?:\.\d+)?)\s?[-–]\s?[$€£¥]?(\d[\d,]*(?:\.\d+)?)")
_OPERATOR = r"(?:[×*÷+]|\sx\s|%\s+of\s)"
_LABELLED = re.compile(r"^(?P<left>[^:;\n]*?" + _OPERATOR + r"[^:;\n]*?):\s+(?P<result>[$€£¥]?\d[\d,]*(?:\.\d+)?(?:\s?(?:p\b|pence\b|%))?)"
                       r"(?=\s*(?:[a-z%]+\b)?\s*(?:[.;,\n(]|$))", re.IGNORECASE | re.MULTILINE)
_PARENTHESISED = re.compile(r"(?P<result>[$€£¥]?\d[\d,]*(?:\.\d+)?(?:\s?(?:p\b|pence\b|%))?)(?:\s+[a-z]+){0,3}\s*"
                            r"\((?P<left>[^()=≈\n]*?" + _OPERATOR + r"[^()=≈\n]*?)\)", re.IGNORECASE)
"""Working with its result after a colon ("4 days × £27: £108") or before it in brackets ("£2.80 a night (35 kWh ×
8p)"): read where it holds, as a result after "=" is, but never read as a miscalculation, since a layout's label or a
bracket may restate rather than work out ("2 tablets (2 × 200 mg)"). Not a range or a slash ("Ages 2–4: 5 ml",
"120 mg/5 ml"), which writes no arithmetic."""
_BOUNDARY = re.compile(r"[:;,]\s|\.\s|\n|\bis\b|\bso\b|\bthat's\b", re.IGNORECASE)
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _figure(written: str) -> tuple[float, str]:
    """(value, kind) of a written figure: "£1,249" (1249.0, ""), "24.5p" (24.5, "p"), "7.9%" (7.9, "%")."""
    kind = "%" if written.endswith("%") else "p" if re.search(r"p(?:ence)?$", written, re.IGNORECASE) else ""
    digits = re.sub(r"[^\d.]", "", written.split("p")[0] if kind == "p" else written)
    return float(digits), kind


def _known(written: str, known: set[float]) -> bool:
    """Whether an operand is a known figure, or a known share as a per cent ("25%" for 0.25)."""
    value, kind = _figure(written)
    return value in known or round(value / (100 if kind == "%" else 1), 6) in known


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError("not arithmetic")


def _expression(segment: str) -> tuple[float, list[str], bool] | None:
    """(value, the figures as written, whether one is in pence) of the arithmetic a segment writes, words between
    its figures and operators left out ("6 days × £38 per day"); None where it writes no operator or no arithmetic."""
    parts, figures, pence = [], [], False
    segment = _OF_SHARE.sub(r"\1 × ", segment)  # a share of a figure: "10% of £186.40"
    for match in _TOKEN.finditer(segment):
        if match.group("number"):
            value, kind = _figure(match.group("number"))
            figures.append(match.group("number"))
            pence |= kind == "p"
            parts.append(repr(value / 100 if kind == "%" else value))
        else:
            parts.append({"×": "*", "x": "*", "X": "*", "÷": "/", "−": "-", "–": "-"}.get(match.group("op"), match.group("op")))
    if len(figures) < 2 or not any(p in "*/+-" for p in parts):
        return None
    try:
        return _evaluate(ast.parse("".join(parts), mode="eval")), figures, pence
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _holds(value: float, written: str, approximate: bool) -> bool:
    result, kind = _figure(written)
    if kind == "%":
        value *= 100
    decimals = len(written.split(".")[1].rstrip("%p ")) if "." in written else 0
    tolerance = max(0.5 * 10 ** -decimals, 0.005 * abs(result) if approximate else 0.0) + 1e-9
    return abs(value - result) <= tolerance


def _writes_working(text: str) -> bool:
    """Whether the text writes out a working; read without citations, as `_workings` reads it (a layout's line
    "Coastline Ranger, 4 days × £27: £108 [Doc 2]" works out £108)."""
    text = strip_citations(text)
    return ("=" in text or "≈" in text or (":" in text and _LABELLED.search(text) is not None)
            or ("(" in text and _PARENTHESISED.search(text) is not None))


@functools.lru_cache(maxsize=1024)
def _workings(answer: str) -> tuple[tuple[tuple[float, list[str], bool], str, bool, bool], ...]:
    """Each working the answer writes out: (its expression's `_expression`, its result as written, whether it is
    approximate: "≈" or "~", whether a result that does not hold is a miscalculation: a figure alone after "=",
    rather than more arithmetic or a colon's or a bracket's working)."""
    # (emphasis marks are no operators, and counts may be words: "two flights")
    text = spelled_out(re.sub(r"\*\*|__|`", "", strip_citations(answer)).replace("\u2009", " "))
    workings = []
    for pattern in (_LABELLED, _PARENTHESISED):
        for match in pattern.finditer(text):
            left = _BOUNDARY.split(match["left"])[-1]
            expression = _expression(left)
            if expression:
                workings.append((expression, match["result"], "~" in left, False))
    for clause in _BOUNDARY.split(text):
        pieces = _EQUALS.split(clause)
        # [segment, "=", segment, "≈", segment, ...]: each segment after an equals sign is checked against the one before
        for i in range(0, len(pieces) - 2, 2):
            left, sign, right = pieces[i], pieces[i + 1], pieces[i + 2]
            if _RANGE.search(left):
                # a range is no subtraction: "6 kg × 10-12 hours = 60-72 hours" works out each end
                ends = _RANGE_RESULT.match(right.lstrip("( "))
                for end, written in enumerate(ends.groups() if ends else ()):
                    expression = _expression(_RANGE.sub(rf"\g<{end + 1}>", left))
                    if expression:
                        workings.append((expression, written, sign == "≈" or "~" in left, True))
                continue
            result = _TOKEN.match(right.lstrip("( "))
            expression = _expression(left)
            if expression and result and result.group("number"):
                # (a result that is itself arithmetic, "= 3.1 / 6.2 = 50%", is the next working's expression)
                workings.append((expression, result.group("number"), sign == "≈" or "~" in left, _expression(right) is None))
    return tuple(workings)


def miscalculated(claim: str) -> set[str]:
    """The results of the workings a claim writes out whose arithmetic does not hold, whatever their operands: a
    figure the claim says it worked out wrong is wrong, though another sum of the evidence's figures happens to make
    it ("1.8 kg × 50 = 80 minutes", where 60 + 20 is 80).

    >>> sorted(miscalculated("1.8 kg × 50 = 80 minutes, plus 20 = 100 minutes.")), sorted(miscalculated("6 × £38 = £228."))
    (['80'], [])
    >>> sorted(miscalculated("(9.3 − 6.2) / 6.2 = 3.1 / 6.2 = 50% growth."))
    []
    """
    if "=" not in claim and "≈" not in claim:
        return set()  # (a colon's or a bracket's working is never read as a miscalculation)
    return {n for (value, _, pence), result, approximate, alone in _workings(claim)
            if alone and not (_holds(value, result, approximate) or (pence and _holds(value / 100, result, approximate)))
            for n in numbers(result)}


@by_content
def worked_figures(answer: str, haystack: str, asked: str = "", spans: frozenset[str] = frozenset()) -> frozenset[str]:
    """The figures (as `numbers` writes them) the answer works out in the open: the result of a working ("A × B = C",
    "≈" for a rounded one) whose arithmetic holds, rounded as written, and whose every operand is known. Known: the
    evidence's figures, the user's (in figures or words), a share the evidence gives in per cent as a factor ("20%":
    0.20, 0.80, 1.20), a unit of the calendar (`_CALENDAR`), a span the answer works out between two times
    (`spans`: "00:30–05:30 = 5 hours"), and any result worked out so; a figure in pence makes a result in pounds. A
    miscalculation, or a working from a figure nobody gave, works out nothing. Its result may follow a colon ("4 days ×
    £27: £108") or stand before the working in brackets ("£2.80 (35 kWh × 8p)").

    >>> ev = "Compact cars cost £38 a day. Sale: 20% off the £1,249 price."
    >>> sorted(worked_figures("6 days × £38 = £228. £1,249 × 0.80 = £999.20, so £999.20 + £39 = £1,038.20.", ev, "six days"))
    ['0.80', '1249', '228', '38', '999.20']
    >>> sorted(worked_figures("6 × £38 = £238. 5 × £41 = £205.", ev, "for six days"))
    []
    >>> sorted(worked_figures("Two of you × two flights = 4 bags, and 4 × £45 = **£180**.", "£45 per bag per flight.", "two of us"))
    ['180', '4', '45']
    >>> [sorted(worked_figures(f"6 kg × 10-12 hours = {r} hours.", "Allow 10-12 hours per kg.", "a 6 kg turkey"))
    ...  for r in ("60-72", "60-70")]
    [['10', '12', '60', '72'], ['10', '60']]
    >>> working = "Energy: 320 × 24.5p = £78.40, or (£78.40 − £73.28) ÷ £73.28 ≈ 7%."
    >>> sorted(worked_figures(working, "24.5p per kWh; £73.28", "320 kWh"))
    ['24.5', '7', '73.28', '78.40']
    """
    if not _writes_working(answer):
        return frozenset()  # no working written out (most answers)
    users = numbers(spelled_out(asked))
    known = {float(n) for n in _given(haystack) | users | spans if re.fullmatch(r"\d+(?:\.\d+)?", n)}
    shares = [float(m.group(1)) / 100 for m in re.finditer(r"(\d+(?:\.\d+)?)\s?%", haystack)]
    known |= {round(f, 6) for s in shares for f in (s, 1 - s, 1 + s)} | _CALENDAR
    workings = _workings(answer)
    worked: set[str] = set()
    changed = True
    while changed:  # a result may be an operand of a working before it
        changed = False
        for (value, figures, pence), result, approximate, _ in workings:
            written = numbers(result)
            if written <= worked or not all(_known(f, known) for f in figures):
                continue
            if _holds(value, result, approximate) or (pence and _holds(value / 100, result, approximate)):
                # ... and the factors it works with ("0.80"); the user's own figures stay theirs (a figure of the user's
                # that the evidence contradicts is not cleared by multiplying it)
                worked |= written | ({n for f in figures for n in numbers(f)} - users)
                known |= {_figure(result)[0]}
                changed = True
    return frozenset(worked)


def answer_working(sentences: Sequence[str], haystack: str, asked: str = "") -> frozenset[str]:
    """Every figure the answer works out from known ones in any of its sentences, which its other sentences may state
    without working: its written-out working (`worked_figures`, "6 days × £38 = £228"), the times of day it works out
    (`clock.answer_times`, "You arrive at 18:25." beside its working), and the size of a change it states anywhere
    (`growth.answer_changes`, "from 6.24% to 6.74%": "0.50 points, about 8.0%"). The claim check and the answer check
    read an answer's figures with the same set.

    >>> sorted(answer_working(["6 days × £38 = £228.", "So £228 in all."], "Cars cost £38 a day.", "six days"))
    ['228', '38']
    """
    times = answer_times(sentences, haystack, asked)  # (a span worked out from two times is an operand: "7 kW × 5 h")
    return worked_figures("\n".join(sentences), haystack, asked, times) | times | answer_changes(sentences, haystack)


_SPAN_WORDS = frozenset({"hour", "hours", "minute", "minutes", "min", "mins", "h", "hr", "hrs", "total", "roughly",
                         "approximately", "around", "altogether", "overall"})


def figures_only(claim: str, haystack: str) -> bool:
    """Whether the claim states nothing but figures, at least one the evidence does not give (worked out, or the claim
    check would have failed it), with their units: "About 1 hour 50 minutes.", "£228 in total." Its arithmetic was
    checked; nothing is left for a reader of meaning.

    >>> figures_only("About 1 hour 50 minutes.", "Allow 50 minutes per kg."), figures_only("About 50 minutes.", "50 minutes per kg.")
    (True, False)
    >>> figures_only("£228 in total.", "£38 a day."), figures_only("£228 for the Kestrel car.", "£38 a day.")
    (True, False)
    """
    if not numbers(claim) - _given(haystack):
        return False
    units = {unit for _, _, unit in _quantities(claim) if unit}
    return all(w.lower() in _SPAN_WORDS or _unit(None, w) in units or numbers(w) for w in content_words(claim))

"""Figures in text: each with its unit, or as a calendar year (`_quantities`, `_figures`); and how a claim orders two
of the evidence's figures, checked by their arithmetic (`ordering`, `ordered_reading`, `named_verdict`), which the
consistency model cannot do. Pure functions of strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from reward.format import strip_citations
from reward.judges.local.spots import clause_start
from reward.judges.local.text import STOPWORDS, numbers, stem
from reward.memo import by_content

@functools.lru_cache(maxsize=1024)
def _given(haystack: str) -> frozenset[str]:
    """The evidence's numbers, once per evidence text (every claim of every rollout reads the same evidence)."""
    return frozenset(numbers(haystack))


_SPELLED = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
                                                      "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100"}
_SPELLING = {n: w for w, n in _SPELLED.items()}

_QUANTITY = re.compile(r"([$€£¥])?\s?(\d+(?:[.,]\d+)*)(?:-|\s*)(?:(?:more|fewer|less|extra|further)\s+(?=[a-z]))?([a-z]+|%)?",
                       re.IGNORECASE)  # "4 more days" is 4 in days
_YEAR_UNIT = "year"
_CURRENCY = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen"}
_UNIT_NAMES = {
    **dict.fromkeys(("m", "metre", "meter"), "metre"), **dict.fromkeys(("km", "kilometre", "kilometer"), "kilometre"),
    **dict.fromkeys(("cm", "centimetre", "centimeter"), "centimetre"),
    **dict.fromkeys(("mm", "millimetre", "millimeter"), "millimetre"), **dict.fromkeys(("kg", "kilogram", "kilo"), "kilogram"),
    **dict.fromkeys(("g", "gram", "gramme"), "gram"), **dict.fromkeys(("mg", "milligram"), "milligram"),
    **dict.fromkeys(("l", "litre", "liter"), "litre"), **dict.fromkeys(("ml", "millilitre", "milliliter"), "millilitre"),
    **dict.fromkeys(("h", "hr", "hour"), "hour"), **dict.fromkeys(("min", "minute"), "minute"),
    **dict.fromkeys(("sec", "second"), "second"), **dict.fromkeys(("yr", "year"), "year"),
    **dict.fromkeys(("ft", "foot", "feet"), "foot"), **dict.fromkeys(("mi", "mile"), "mile"),
    **dict.fromkeys(("lb", "pound"), "pound"), **dict.fromkeys(("euro", "eur"), "euro"),
    **dict.fromkeys(("dollar", "usd"), "dollar"), **dict.fromkeys(("%", "percent", "per cent"), "percent"),
}
"""A unit as written (lower case, plural "s" dropped) -> its name, so "271 m" and "164 metres" are in one unit."""


def _unit(currency: str | None, word: str | None) -> str:
    """The unit of a quantity: its currency sign ("€15 a month" is in euros), else the word after it (abbreviations
    and spellings named alike), "" for none."""
    if currency:
        return _CURRENCY[currency]
    word = (word or "").lower()
    if not word or word in STOPWORDS:
        return ""
    named = _UNIT_NAMES.get(word) or _UNIT_NAMES.get(word.rstrip("s"))
    return named or stem(word.rstrip("s"))


@functools.lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[tuple[float, str, str], ...]:
    """(value, the number as written without thousands commas, the stem of its unit: the word after it, "" for none)
    for every number of the text ("28-day" is 28 in days); a time of day or a date's parts ("10:00", "2025-08-28")
    are no quantities. Cached by text: the claim checks read each evidence text once per claim."""
    text = strip_citations(text)
    out = []
    for match in _QUANTITY.finditer(text):
        start, end = match.span(2)
        if _in_time_or_date(text, start, end):
            continue
        written = match.group(2).replace(",", "")
        try:
            value = float(written)
        except ValueError:
            continue
        out.append((value, written, _unit(match.group(1), match.group(3))))
    return tuple(out)


_CALENDAR = "calendar year"
_ORDER = {
    # a year's order is its time's; any other figure's is its size
    _CALENDAR: ({"before", "earlier", "older", "first", "sooner"},
                {"after", "later", "newer", "younger", "last"}),
    "": ({"less", "fewer", "smaller", "lower", "shorter", "cheaper", "lighter", "colder", "slower", "younger"},
         {"more", "larger", "bigger", "greater", "higher", "longer", "taller", "dearer", "pricier", "costlier",
          "heavier", "warmer", "faster", "quicker", "older"}),
}
_DURATIONS = frozenset({"second", "minute", "hour", "day", "week", "month", "year", "work", "business", "duration"})
_HOURS = {"second": 1 / 3600, "minute": 1 / 60, "hour": 1, "day": 24, "week": 168, "month": 730, "year": 8760}


def _in_hours(values: dict[str, set[float]]) -> dict[str, set[float]]:
    """Spans of time in one kind, "duration", in hours: "24 hours" and "7 days" are two spans of one thing."""
    out: dict[str, set[float]] = {}
    for unit, found in values.items():
        out.setdefault("duration" if unit in _HOURS else unit, set()).update(v * _HOURS.get(unit, 1) for v in found)
    return out
_PRICE_WORDS = frozenset({"cheaper", "dearer", "pricier", "costlier"})
"""Words of order about a price: a verdict in them is checked against figures in a currency only."""


def _sides(kind: str) -> tuple[set[str], set[str]]:
    """The words of order that put the first of two figures of this kind below the second, and above it. A span of
    time is the other way for speed: the faster journey takes fewer minutes."""
    below, above = _ORDER[_CALENDAR if kind == _CALENDAR else ""]
    if kind.split(" per ")[0] in _DURATIONS:
        return (below - {"slower"}) | {"faster", "quicker"}, (above - {"faster", "quicker"}) | {"slower"}
    return below, above

_ORDER_WORDS = frozenset(w for below, above in _ORDER.values() for w in below | above)
_ORDER_STEMS = frozenset(stem(w) for w in _ORDER_WORDS)
_NO_COUNT = STOPWORDS | _ORDER_WORDS | {"against", "versus", "vs", "compared", "came"}
"""Words after a figure that say nothing of what it counts."""
_CONNECTOR = re.compile(r"\b(?:against|versus|vs\.?|compared (?:to|with))(?=\W)", re.IGNORECASE)


_RATE = re.compile(r"(?:\s*[a-z%]+)?\s*(?:(?:a|an|per|each|every)\s+|/\s*)(day|week|month|year|hour|minute|night|"
                   r"person|people|head|capita|kilo|kg|litre|liter|unit|piece|ticket|adult|child|student|visit|trip|"
                   r"ride|use|dose|gb|mb)s?\b"
                   r"|(?:\s*[a-z%]+)?\s*(daily|weekly|monthly|yearly|annually|hourly)\b", re.IGNORECASE)


def _figures(text: str, haystack: str) -> list[tuple[int, int, float, str, str]]:
    """(start, end, value, as written, kind) of each figure of `text` the evidence gives: its unit (a currency, a
    unit of measure, what it counts: "400 beds"), or a calendar year."""
    given = _given(haystack)
    out = []
    for match in _QUANTITY.finditer(text):
        start, end = match.span(2)
        written = match.group(2).replace(",", "")
        if _in_time_or_date(text, start, end) or written not in given or not re.fullmatch(r"\d+(?:\.\d+)?", written):
            continue
        value = float(written)
        word = (match.group(3) or "").lower()
        unit = _CURRENCY.get(match.group(1) or "") or _UNIT_NAMES.get(word) or _UNIT_NAMES.get(word.rstrip("s")) or ""
        if not unit and value.is_integer() and 1000 <= value <= 2100:
            unit = _CALENDAR
        elif not unit and word not in _NO_COUNT:
            unit = stem(word.rstrip("s"))  # what it counts ("400 beds")
        # a rate is part of the kind: "€120" is no figure of the kind "€12 a month" is
        rate = _RATE.match(text, end)
        out.append((start, end, value, written, unit + (f" per {stem(rate.group(1) or rate.group(2))}" if rate else "")))
    return out


_FROM_TO_GAP = re.compile(r"\s*[a-z%]{0,12}\s*(?:to|→|->)\s*[$€£¥]?\s?", re.IGNORECASE)
_DIFFERENCE_GAP = re.compile(r"\s*(?:[,;:(]|[—–-]|which is|that is|that's|so|or)?\s*[$€£¥]?\s*", re.IGNORECASE)


_COMPOUND = re.compile(r"-[A-Za-z]|\s+(?:(?!than\b)[a-z]+\s+)?(?:sources?|pages?|versions?|editions?|copy|copies|"
                       r"documents?|articles?|listings?|websites?|sites?|reports?|leaflets?|guides?|updates?|notices?)\b")
"""A word of order joined to the next word ("a lower-level offence", "the higher-rate band") names a kind, not which
of two figures is the larger; so does one before a source it says is the older or newer ("An older page from 2004
gives 1931", "the more recent version"): it orders sources, not the figures beside it."""


def _orderings(text: str, haystack: str) -> list[tuple[bool, str, str, str, tuple[int, int]]]:
    """(holds, word, first figure, second figure, span of the word) for each pair of figures `text` orders."""
    out = []
    figures = _figures(text, haystack)
    stops = [m.end() for m in re.finditer(r"[.;!?]", text)]  # where the clause before a figure may start
    for (a_start, a_end, a, a_text, kind), (b_start, _, b, b_text, b_kind) in zip(figures, figures[1:]):
        below, above = _sides(kind)
        gap = text[a_end:b_start]
        if kind != b_kind or a == b or len(re.findall(r"[a-z]+", gap, re.IGNORECASE)) > 8:
            continue
        if _FROM_TO_GAP.fullmatch(gap) and re.search(r"\bfrom\s+[$€£¥]?\s?$", text[:a_start], re.IGNORECASE):
            continue  # one thing's change ("grew faster: from £262m to £295m"), no two things ordered
        # A word of order in lower case ("First for Women" is a name), not "first"/"last" between the figures (there
        # they name which: "came before the first (1269)").
        words = list(re.finditer(r"[a-z]+", gap))
        said = [m for m in words
                if m.group(0) in (below | above) - {"first", "last"} and not _COMPOUND.match(gap, m.end())][:1]
        if said and re.fullmatch(r"\s*(?:than\s*)?[$€£¥(]*\s*", gap[said[0].end():]):
            continue  # a bound on the second figure ("top up to 1.5 bar if it shows less than 1 bar"), no comparison
        offset, swapped = a_end, False
        if not said and not any(m.group(0) in _ORDER_WORDS for m in words):
            # the verdict before both figures ("X came first: founded in 1844, Y in 1989", "earlier: 1977 against 1985")
            clause = text[clause_start(stops, a_start):a_start]
            offset = a_start - len(clause)
            said = [] if re.search(r"\d", clause) else [m for m in list(re.finditer(r"[A-Za-z]+", clause))[-8:]
                    if m.group(0).lower() in below | above and not _COMPOUND.match(clause, m.end())
                    and (m.group(0).islower() or not clause[:m.start()].strip())][-1:]
            if said:
                # Whose figure the first is: the verdict's subject's, unless another name stands before it ("Nordlink is
                # cheaper: Coastline costs €74, while Nordlink costs €89" orders Nordlink's €89 first).
                subject = _names(clause[:said[0].start()])
                before, between = _names(clause[said[0].end():]), _names(gap)
                if before - subject:
                    if not subject & between:
                        continue
                    swapped = True
        if not said:
            continue
        word = said[0].group(0).lower()
        # a difference between ("£55 at the gate: £33 more than the £22 at booking, and £25 more than the £30"): the
        # word orders what it is the difference of, any figure of the claim; none, and the number check reads it
        between = re.findall(r"\d+(?:\.\d+)?", gap[:said[0].start()].replace(",", "")) if offset == a_end else []
        if between:
            fits = [c for _, _, c, _, c_kind in figures if c_kind.split(" per ")[0] == kind.split(" per ")[0]
                    and abs(abs(c - b) - float(between[-1])) < 0.005]
            if fits:
                out.append((any((c < b) if word in below else (c > b) for c in fits), word, a_text, b_text,
                            (offset + said[0].start(), offset + said[0].end())))
            continue
        first, second = (b, a) if swapped else (a, b)
        # "€22 — €4 more than the €18 fare": the figure before the first (or any, of any rate) is what it orders
        whole = [c for _, c_end, c, _, c_kind in figures if c_kind == kind and c_end <= a_start
                 and _DIFFERENCE_GAP.fullmatch(text, c_end, a_start)][-1:]
        if whole and not swapped:
            holds = (abs(abs(whole[0] - second) - first) < 0.005
                     and ((whole[0] < second) if word in below else (whole[0] > second)))
            out.append((holds, word, a_text, b_text, (offset + said[0].start(), offset + said[0].end())))
            continue
        first = next((c for _, _, c, _, c_kind in figures if c_kind.split(" per ")[0] == kind and c not in (first, second)
                      and abs(abs(c - second) - first) < 0.005), first)
        holds = (first < second) if word in below else (first > second)
        out.append((holds, word, b_text if swapped else a_text, a_text if swapped else b_text,
                    (offset + said[0].start(), offset + said[0].end())))
    return out


def _names(text: str) -> set[str]:
    """Capitalised words of `text` that are no stop words ("The", "It")."""
    return {w.lower() for w in re.findall(r"\b[A-Z][\w'’-]*", text) if w.lower() not in STOPWORDS}


_CHOICE = re.compile(r"\b(?i:which|who|what)\b[^?]*?[,:]?\s*(?:the\s+)?(?P<a>[A-Z][^,?]*?)\s+(?:or|vs\.?|versus)\s+"
                     r"(?:the\s+)?(?P<b>[A-Z][^,?]*?)\s*(?:[,?]|$)"
                     # "Is Roadline or Kestrel cheaper?": the two things, then the word of order
                     r"|\b(?i:is|are|was|were|would|will)\s+(?:the\s+)?(?P<a2>[A-Z][^,?]*?)\s+(?:or|vs\.?|versus)\s+"
                     r"(?:the\s+)?(?P<b2>[A-Z][^,?]*?)\s+(?:be\s+|work\s+out\s+|come\s+out\s+)?(?:the\s+)?(?i:"
                     + "|".join(sorted(_ORDER_WORDS)) + r")\b"
                     # "Which of A and B has ...?", "Should I pick A or B if I want the cheaper one?"
                     r"|\b(?i:which\s+of)\s+(?:the\s+)?(?P<a3>[A-Z][^,?]*?)\s+and\s+(?:the\s+)?(?P<b3>[A-Z][^,?]*?)"
                     r"\s*(?:[,?]|\s+(?i:is|was|are|were|has|had|costs?|takes?|gets?|gives?|offers?|would|will|does|do)\b|$)"
                     r"|\b(?i:pick|choose|go\s+for|go\s+with|take|book|buy|get|use|opt\s+for)\s+(?:the\s+)?(?P<a4>[A-Z][^,?]*?)"
                     r"\s+or\s+(?:the\s+)?(?P<b4>[A-Z][^,?]*?)\s*(?:[,?]|\s+(?i:if|for|to|when|as)\b|$)")
_VERDICT_CLAUSE = re.compile(r"\s+[—–-]\s+|\s*[:;,(]\s*|\s+(?=(?:because|since|while|whereas|but|so|as)\b)", re.IGNORECASE)
"""Where a sentence's clauses part: a dash, a colon, a semicolon, a comma, a bracket, a word that joins a reason."""


_VERDICT_LINE = re.compile(r"^\W*(?:the\s+)?(?P<word>[A-Za-z]+)(?:\s+one)?\s*:\s*(?P<value>[^:]+?)\s*([.!]?)\s*$")


def verdict_line(claim: str) -> str:
    """A labelled line whose label is a word of order ("Older: Halvard University") as the verdict it states
    ("Halvard University is older."), so that it is checked as the same verdict in prose is; any other claim as it is.

    >>> verdict_line("Older: Halvard University."), verdict_line("Founded: 1764")
    ('Halvard University is older.', 'Founded: 1764')
    """
    match = _VERDICT_LINE.match(strip_citations(claim))
    if not match or match.group("word").lower() not in _ORDER_WORDS:
        return claim
    return f"{match.group('value')} is {match.group('word').lower()}."


_CHOICE_REACH = 600, 4000
"""How much of each question `_CHOICE` reads (its last 600 characters) and of the user's words (questions ending in
their last 4,000 characters): a choice question is a short one, and its lazy scans cost a long text without a
question mark the cube of its length."""


@by_content
def _choice_texts(asked: str) -> tuple[str, str] | None:
    """The two things a choice question names, as it writes them ("Which is older, A or B?": "A", "B"): the first
    choice question of the text, searched question by question (no choice crosses a question mark), once per text."""
    start = 0
    for end in [m.end() for m in re.finditer(r"\?", asked)] + [len(asked)]:
        if end > start and end > len(asked) - _CHOICE_REACH[1]:
            choice = _CHOICE.search(asked, max(start, end - _CHOICE_REACH[0]), end)
            if choice:
                a, b = (next(g for g in choice.groups()[i::2] if g).strip() for i in (0, 1))
                return a, b
        start = end
    return None


def choice_sides(asked: str) -> tuple[set[str], set[str]] | None:
    """The names of the two things a choice question names ("Which is older, A or B?"), each without the other's."""
    texts = _choice_texts(asked)
    if not texts:
        return None
    a, b = (_names(t) for t in texts)
    return (a - b, b - a) if a - b and b - a else None


def choice_verdict(fragment: str, asked: str) -> str | None:
    """A terse answer to a choice question that opens with one of its two things, as the verdict it gives: "Kilbride
    Park (1898 vs 1905)." to "Which ground is older, Kilbride Park or Harcourt Lane?" says "Kilbride Park is older than
    Harcourt Lane (1898 vs 1905).", which the verdict check and the model read as a statement (beside the question,
    the model reads a question). None where the question gives no word of order or the answer opens with neither.

    >>> choice_verdict("Kilbride Park (1898 vs 1905).", "Which ground is older, Kilbride Park or Harcourt Lane?")
    'Kilbride Park is older than Harcourt Lane (1898 vs 1905).'
    >>> choice_verdict("Roadline, £185 against £190.", "For 5 days, is Roadline or Kestrel Car Rental cheaper?")
    'Roadline is cheaper than Kestrel Car Rental, £185 against £190.'
    >>> [choice_verdict(t, "Which ground is older, Kilbride Park or Harcourt Lane?") for t in ("1898.", "Harcourt Lane: 1905.",
    ...                                                                                    "Kilbride Park wins.")]
    [None, None, None]
    """
    sides = _choice_texts(asked)
    word = next((w for w in re.findall(r"[a-z]+", asked.lower()) if w in _ORDER_WORDS), None)
    if not sides or not word:
        return None
    text = strip_citations(fragment).strip()
    opening = re.match(r"(?:the\s+)?([A-Za-z][\w'’-]*)", text, re.IGNORECASE)
    if not opening:
        return None
    first = re.sub(r"['’]s$", "", opening.group(1)).lower()
    named = [i for i, side in enumerate(sides) if re.sub(r"['’]s$", "", side.split()[0]).lower() == first]
    if len(named) != 1:
        return None
    side, other = sides[named[0]], sides[1 - named[0]]
    # what follows the side's words the answer repeats ("Kilbride Park", "Roadline's"): its figures, its reason
    rest = text[opening.start():]
    for token in side.split():
        step = re.match(r"\s*" + re.escape(re.sub(r"['’]s$", "", token)) + r"(?:['’]s)?(?=\W|$)", rest, re.IGNORECASE)
        if not step:
            break
        rest = rest[step.end():]
    rest = rest.rstrip(" .!")
    # The thing alone, or before its figures or reason set apart ("(1898 vs 1905)", ", £185 against £190", "- it
    # opened first"); not a label ("Harcourt Lane: opened 1905"), nor a verdict in words of its own ("Halden gives you
    # longer", "Roam Daily comes out ahead"), which are read as they stand.
    if rest and not re.match(r"\s*[(,;]|\s+[—–-]\s", rest):
        return None
    return f"{side} is {word} than {other}{rest}."


def side_of(names: set[str], a: set[str], b: set[str]) -> set[str] | None:
    """Which of two sides the names name, where they name one only."""
    return (a if names & a else b) if bool(names & a) != bool(names & b) else None


def named_verdict(claim: str, sentences: Sequence[str], asked: str) -> tuple[bool, str] | None:
    """A verdict between the two things a question names ("Which is older, Halvard University or the Teschen
    Institute?") that gives no figures itself ("The Teschen Institute is older."), checked against the one figure
    of the right kind (a year for words of time, one unit for words of size) that the evidence sentences naming each
    give: (whether it holds, why not); None where the question names no two things, the claim names neither as its
    subject, or either has no single such figure.

    >>> docs = ["Halvard University was founded in 1764.", "The Teschen Institute began in 1829."]
    >>> ask = "Which is older, Halvard University or the Teschen Institute?"
    >>> named_verdict("The Teschen Institute is older.", docs, ask)[0], named_verdict("Halvard University is older.", docs, ask)
    (False, (True, ''))
    >>> named_verdict("Halvard University is older.", docs + ["Halvard University moved in 1872."], ask) is None
    True
    >>> named_verdict("The Teschen Institute is not older.", docs, ask)
    (True, '')

    The verdict is the clause that says it, whatever a dash, a colon or a reason joins to it (a sentence copied from
    the evidence); so is one asked as "Is A or B older?":

    >>> named_verdict("The Teschen Institute is older - the Teschen Institute began in 1829.", docs, ask)[0]
    False
    >>> named_verdict("Teschen is older.", docs, "Is Halvard University or the Teschen Institute older?")[0]
    False
    >>> named_verdict("The Teschen Institute is older with its 1829 start.", docs, ask)[0]
    False

    Its subject may follow the word of order ("The older one is ...") or stand before it in the sentence; the faster
    of two journeys takes fewer minutes:

    >>> named_verdict("The older one is the Teschen Institute.", docs, ask)[0], named_verdict(
    ...     "Go with Teschen; it is the older one.", docs, "Should I pick Halvard University or Teschen?")[0]
    (False, False)
    >>> trips = ["The Number 42 bus takes 35 minutes.", "The Blue Line tram takes 20 minutes."]
    >>> named_verdict("The Blue Line tram is faster.", trips, "Which is faster, the Number 42 bus or the Blue Line tram?")
    (True, '')
    >>> named_verdict("The Number 42 bus costs £1 less.", trips, "Which is faster, the Number 42 bus or the Blue Line tram?") is None
    True

    Spans in hours and in days are spans of one kind: of two a thing is given, neither is the one compared.

    >>> pools = ["The main pool at Pinewood is 25 metres long.", "The pool at Marlow Baths is 50 metres long."]
    >>> named_verdict("Pinewood is 25 metres long, while Marlow Baths is 50 metres - so Pinewood has the longer pool.",
    ...               pools, "Which of Pinewood and Marlow Baths has the longer pool?")
    (False, 'says it is longer, where the evidence says 25 against 50')
    >>> kettles = ["The Hollis K2 holds 1.7 litres and has a 2-year warranty.", "The Brenna Pour holds 1.5 litres and "
    ...            "has a 3-year warranty."]
    >>> named_verdict("The longer warranty is on the Brenna Pour, 3 years; the Hollis K2 has 2 years.", kettles,
    ...               "Which has the longer warranty, the Hollis K2 or the Brenna Pour?")
    (True, '')
    >>> claims = ["Report it to the police within 24 hours and notify Halden within 7 days.", "Notify Pryor within 48 hours."]
    >>> named_verdict("Halden gives you longer.", claims, "Which gives me longer, Halden or Pryor?") is None
    True
    """
    sides = choice_sides(asked)
    joined = " ".join(sentences)
    # The verdict is the clause that says it: what a dash, a colon or a reason joins to it ("The Harlow Museum is
    # cheaper - adult tickets at the Harlow Museum cost £12", copied from the evidence) is not the verdict.
    whole = strip_citations(claim)
    text = next((c for c in _VERDICT_CLAUSE.split(whole) if any(w in _ORDER_WORDS for w in re.findall(r"[a-z]+", c))), "")
    said = [m for m in re.finditer(r"[a-z]+", text) if m.group(0) in _ORDER_WORDS]
    # (a verdict with the figures it orders is `ordering`'s where that reads it: a word of order between them or in
    # the clause before both; one drawn after them, "A is 25 m long, while B is 50 m - so A has the longer pool", is
    # read here against the evidence)
    stated = _figures(whole, joined)
    if not sides or not said or (len(stated) >= 2 and ordering(whole, joined) is not None):
        return None
    a, b = sides

    def side(names: set[str]) -> set[str] | None:
        return side_of(names, a, b)

    # Its subject: the one of the two named before the word of order ("B is cheaper"), else after it ("The cheaper
    # one is B"), else before it in the sentence ("Go with B; it is the cheaper one").
    first = (side(_names(text[:said[0].start()])) or side(_names(text[said[0].end():]))
             or side(_names(whole[:whole.find(text) + said[0].start()])))
    if first is None:
        return None
    other = b if first is a else a
    if re.search(r"\b(?:not|never|no)\b|n't", text[:said[0].start()]):
        first, other = other, first  # "B is not the cheaper one": of two, A is
    word = said[0].group(0)
    kind = _CALENDAR if word in _ORDER[_CALENDAR][0] | _ORDER[_CALENDAR][1] else None

    def values(names: set[str]) -> dict[str, set[float]]:
        out: dict[str, set[float]] = {}
        for sentence in sentences:
            if _names(sentence) & names:
                for _, _, value, _, unit in _figures(sentence, joined):
                    if (unit == _CALENDAR) == (kind == _CALENDAR) and unit:
                        out.setdefault(unit, set()).add(value)
        return out

    mine, theirs = _in_hours(values(first)), _in_hours(values(other))
    # A figure in the verdict's clause says what it compares ("costs £10 less": prices, whatever else is less).
    said_units = {u for _, _, u in _quantities(text) if u in _MEASURES}
    units = [u for u in mine.keys() & theirs.keys() if len(mine[u]) == 1 and len(theirs[u]) == 1
             and (word not in _PRICE_WORDS or u.split(" per ")[0] in _CURRENCY.values())
             and (not said_units or u.split(" per ")[0] in said_units)]
    # ... and so do the figures the claim states beside it ("The longer warranty is on B, 3 years": years, not litres)
    if len(stated) >= 2:
        claimed = _in_hours({unit: {value} for *_, value, _, unit in stated})
        units = [u for u in units if u in claimed]
    if len(units) != 1 or mine[units[0]] == theirs[units[0]]:
        return None
    # Other figures of that kind in the evidence (an off-peak fare beside the peak one, a child's price in a sentence
    # of its own) leave open which the verdict is about.
    if units[0] != _CALENDAR and sum(u == units[0] for s in sentences for *_, u in _figures(s, joined)) > 2:
        return None
    [x], [y] = mine[units[0]], theirs[units[0]]
    below, _ = _sides(units[0])
    if (x < y) if word in below else (x > y):
        return True, ""
    return False, f"says it is {word}, where the evidence says {x:g} against {y:g}"


def ordering(claim: str, haystack: str) -> tuple[bool, str] | None:
    """How a claim orders two figures the evidence gives, in one unit (or two years), by a word of order between them
    ("the second (1264) came before the first (1269)", "5,000, more than the 4,000 of 1990") or in the clause before
    both ("earlier: 1977 against 1985", "X came first: founded in 1844, Y in 1989"): (whether the figures are so
    ordered, why not); None when it orders none. Years are ordered by words of time, other figures by words of size
    ("fewer people came in 2010 than in 2000" orders no years). The first figure named is the one ordered, as it is
    in these phrasings.

    >>> ordering("The second (1264) came before the first (1269).", "in 1269 ... in 1264")
    (True, '')
    >>> ordering("The first is earlier: 1985 [Doc 1] against 1977 [Doc 2].", "in 1985 ... in 1977")[0]
    False
    >>> ordering("It costs €15, €5 more than the €10 plan.", "€15 ... €10"), ordering("In 1990 it had 400 beds.", "1990 400")
    ((True, ''), None)
    >>> ordering("It costs €15, €5 more than the €10 plan.", "€15 ... €10 ... a €5 bicycle")
    (True, '')
    >>> ordering("It costs €2.60, €1.30 less than the €3.40 fare.", "€2.60 ... €1.30 ... €3.40")[0]
    False
    >>> ordering("In 1975 it began, and in 1977 it was created, followed by 1978.", "1975 1977 1978") is None
    True
    >>> ordering("Top up to 1.5 bar if the gauge shows less than 1 bar.", "1.5 bar 1 bar") is None
    True
    >>> ordering("Nordlink is cheaper: Coastline costs €74, while Nordlink costs €89.", "€74 €89")
    (False, 'orders 89 cheaper 74, where the evidence says its figures are the other way')
    >>> ordering("Fewer people came in 2010 than in 2000.", "2000 2010"), ordering("Mir came first: 1844, Tor 1989.", "1844 1989")
    (None, (True, ''))
    >>> ordering("The first (1599) came before the second (1884): in 1599 it was founded.", "1599 1884")
    (True, '')
    >>> ordering("B is cheaper: 120 euros a year, against 12 euros a month for A.", "120 euros 12 euros") is None
    True
    >>> ordering("B is cheaper: €120, against €12 a month.", "€120 €12") is None, ordering("B is cheaper: €10 against €12.", "€10 €12")
    (True, (True, ''))

    A word of order before a source says which source is the older, not which figure:

    >>> ordering("An older page from 2004 gives 1931 instead.", "in 1894 ... in 1931. Published 27 November 2004.") is None
    True
    >>> ordering("It is older: 2004 against 1931.", "1931 2004")[0]
    False
    """
    verdict = None
    for holds, word, a, b, _ in _orderings(strip_citations(claim), haystack):
        if not holds:
            return False, f"orders {a} {word} {b}, where the evidence says its figures are the other way"
        verdict = (True, "")
    return verdict


def ordered_reading(claim: str, haystack: str) -> str:
    """The claim as the consistency model reads it where it rightly orders two of the evidence's figures: without the
    words of order (and "than", "against"), which the model cannot check and the arithmetic has, so that what is left
    says which figure goes with what.

    >>> ordered_reading("Arthur's Magazine (1844) is older than First for Women (1989).", "1844 1989")
    "Arthur's Magazine (1844) and First for Women (1989)."
    >>> ordered_reading("Mir is earlier: 1844 against 1989.", "1844 1989")
    'Mir: 1844 and 1989.'
    """
    text = strip_citations(claim)
    found = _orderings(text, haystack)
    if not found or not all(holds for holds, *_ in found):
        return claim
    for *_, (start, end) in sorted(found, key=lambda f: -f[4][0]):
        before = re.sub(r"(?:\s+(?:is|was|are|were|came|comes|come|has been))?\s*$", "", text[:start])
        after = text[end:]
        text = before + (after.lstrip() if re.match(r"\s*[:,]", after) else
                         " and " + re.sub(r"^\s*(?:than|to)\b\s*", "", after))
    text = _CONNECTOR.sub("and", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def _in_time_or_date(text: str, start: int, end: int) -> bool:
    """Whether the number at text[start:end] is part of a time or a date (a colon, slash or hyphen joins it to
    another number)."""
    before, after = text[max(0, start - 1):start], text[end:end + 2]
    return bool(re.match(r"[:/-]\d", after)) or before in (":", "/", "-")


_CLAUSE = re.compile(r"\s*[;:]\s*|,\s+|\s+(?:while|whereas|but|against|versus|vs\.?|compared (?:to|with))\s+",
                     re.IGNORECASE)
_PRONOUN_SUBJECT = re.compile(r"(?:it|its|they|their|she|her|he|his)\b", re.IGNORECASE)


def _evidence_names(windows: Sequence[str]) -> frozenset[str]:
    """Words the evidence capitalises where no sentence starts, spelt as names are ("Nordlink", "Kvernes"): not an
    acronym or a code ("EPS", "Q1", "SARS-CoV-2"), nor a compound ("AI-powered")."""
    return frozenset(w.lower() for window in windows
                     for w in re.findall(r"(?<![.!?:]\s)(?<!^)\b[A-Z][\w'’-]*", window)
                     if w.lower() not in STOPWORDS and re.fullmatch(r"[A-Z][a-z]+(?:['’]s)?", w))


@by_content
def _window_figures(windows: tuple[str, ...]) -> tuple[frozenset[str], list]:
    """The evidence's names and each window's figures, once per evidence (every claim of every rollout reads it)."""
    haystack = " ".join(windows)
    return _evidence_names(windows), [(w, _figures(w, haystack)) for w in windows]


def misattributed(claim: str, windows: Sequence[str]) -> str:
    """A figure of the evidence given to a name the evidence gives another figure of its kind: the clause of the claim
    that states the figure names something (or says "it" after naming it), no evidence window that holds the figure
    names it, and a window that names it holds another figure of the figure's kind ("The Nordlink pass costs €74",
    where €74 is the Coastline pass's and the Nordlink pass costs €89). `windows` are the evidence sentences, each
    with the one before it and its document's title. Returns why, or "" for none. Figures are read clause by clause:
    a clause without a name of its own ("48,300 against 36,900") binds to nothing and is not checked.

    >>> w = ["Rail passes. The Nordlink pass costs €89 a month.", "Coast. The Coastline pass costs €74 a month."]
    >>> misattributed("The Nordlink pass is cheaper: it costs €74 a month, while the Coastline pass costs €89.", w)
    "gives €74 to 'nordlink', where the evidence gives it 89"
    >>> misattributed("The Coastline pass is cheaper: it costs €74 a month, against €89 for the Nordlink pass.", w)
    ''
    >>> misattributed("Kvernes is bigger: 48,300 inhabitants against 36,900.", ["Kvernes had 48,300 inhabitants.",
    ...                                                                       "Dalsby had 36,900 inhabitants."])
    ''
    """
    haystack = " ".join(windows)
    known, figures = _window_figures(tuple(windows))
    subject: set[str] = set()
    for clause in _CLAUSE.split(strip_citations(claim)):
        names = _names(clause) & known
        if not names and _PRONOUN_SUBJECT.match(clause):
            names = subject
        subject = names or subject
        if not names:
            continue
        for _, _, value, written, kind in _figures(clause, haystack):
            if not kind or kind == _CALENDAR:
                continue
            holding = [w for w, found in figures if any(v == value and k == kind for _, _, v, _, k in found)]
            if not holding or any(n in w.lower() for w in holding for n in names):
                continue
            # The figure has an owner of its own: a name its windows give that the claim's name's window does not.
            owners = {n for w in holding for n in known if n in w.lower()} - names
            for window, found in figures:
                named = sorted(n for n in names if n in window.lower())
                others = [f for _, _, v, f, k in found if k == kind and v != value]
                if named and others and owners - {n for n in known if n in window.lower()}:
                    shown = re.search(r"[$€£¥]?\s?" + re.escape(written), clause)
                    return f"gives {shown.group(0) if shown else written} to {named[0]!r}, where the evidence gives it {others[0]}"
    return ""


_MEASURES = frozenset(_UNIT_NAMES.values()) | frozenset(_CURRENCY.values())

"""The lexical checks of one claim against its evidence (`claim_support`): its figures (given by the evidence,
derived from two of its figures, denied by the claim, or the user's own against another figure in the evidence's
unit), a contrasting word swapped in, and how much of its wording is new. Pure functions of strings and evidence.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.text import (_CONTRAST_OF, STOPWORDS, _negated_scope, content_words, doc_text, numbers, stem,
                                      stems)
from reward.schema import Evidence


_FIGURE = re.compile(r"[$€£¥]?\d[\d.,]*%?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
"""A thousands separator ("3,390"), which `numbers` drops."""


def dated_text(doc: Evidence) -> str:
    """The document's title and text, and its publication date when it has one: a figure or a year taken from the
    date ("the 2024 guide") is the document's, not the answer's own.

    >>> import datetime as dt
    >>> dated_text(Evidence(id="1", title="Guide", text="It is 3,390 m.", published=dt.date(2024, 3, 24)))
    'Guide. It is 3,390 m. Published 24 March 2024.'
    """
    published = f" Published {doc.published.day} {doc.published:%B %Y}." if doc.published else ""
    return doc_text(doc) + published


@functools.lru_cache(maxsize=1024)
def _given(haystack: str) -> frozenset[str]:
    """The evidence's numbers, once per evidence text (every claim of every rollout reads the same evidence)."""
    return frozenset(numbers(haystack))


@functools.lru_cache(maxsize=1024)
def _replaced(haystack: str) -> frozenset[str]:
    """Numbers the evidence gives only to deny or replace them ("17:00 instead of 18:00", "not 30")."""
    return frozenset(denied_numbers(haystack) - numbers(_DENIED_NUMBER.sub(" ", strip_citations(haystack))))


def claim_support(claim: str, docs: Sequence[Evidence], similarity: float = 0.0, asked: str = "",
                  closest: str = "") -> tuple[bool, str]:
    """Whether the evidence supports a claim: its numbers all occur in the evidence or follow from two of its figures
    by one subtraction or addition (`derived_numbers`), no word swaps in a contrasting sibling of what the evidence
    says, and few of its content words are new (stems compared) unless it is a close paraphrase (`similarity`, the
    best embedding similarity to an evidence sentence). The user's words (`asked`) are no evidence: a number only the
    query gives is missing where the evidence gives another figure in its unit (a false premise, "30 euros" where
    the evidence says 18 euros), and no name; the query's words, which a claim repeats to say what it is about ("your
    laptop"), are not counted as new words. A figure the evidence names only to deny or replace it ("closes at 17:00
    instead of 18:00") is one it denies. Returns (supported, why not).

    >>> museum = [Evidence(id="1", text="From 2026 the museum closes at 17:00 on Sundays instead of 18:00.")]
    >>> claim_support("The museum closes at 18:00 on Sundays.", museum), claim_support("It closes at 17:00.", museum)
    ((False, 'says 18:00 where the evidence says not 18:00'), (True, ''))
    """
    if not docs:
        return False, "no evidence to support it"
    haystack = " ".join(dated_text(d) for d in docs)
    derived = derived_numbers(claim, haystack, asked)
    missing_numbers = numbers(claim) - _given(haystack) - derived - denied_numbers(claim)
    missing_numbers -= spelled_numbers(haystack, claim, missing_numbers)
    missing_numbers -= numbers(asked) - contradicted_numbers(claim, haystack)
    if missing_numbers:
        return False, f"numbers not in the evidence: {', '.join(sorted(missing_numbers))}"
    # A figure the evidence gives only to deny or replace it ("17:00 instead of 18:00", "not 30") is not stated by it.
    replaced = _replaced(haystack)
    stated = sorted((numbers(claim) - denied_numbers(claim)) & replaced)
    if stated:
        return False, f"says {stated[0]} where the evidence says not {stated[0]}"
    swap = swapped_value(claim, [s for d in docs for s in split_sentences(d.text)])
    if swap:
        return False, swap
    order = ordering(claim, haystack)
    if order and not order[0]:
        return order
    evidence_words = set(content_words(haystack))
    asked_words, closest_words = set(content_words(asked)), set(content_words(closest))
    denied = _negated_scope(strip_citations(claim))
    for word in content_words(claim):
        group = None if stem(word) in denied else _CONTRAST_OF.get(word)  # "never closed" agrees with "open"
        # A word the query gives ("is it optional?", "is it open?") is read against the evidence sentence closest to
        # the claim: "optional" fails where that sentence says "required", not where another passage says "closed"
        # of another date.
        against = closest_words if word in asked_words else evidence_words
        if group and word not in evidence_words and (group - {word}) & against:
            return False, f"says {word!r} where the evidence says {sorted((group - {word}) & against)[0]!r}"
    # Words that say where the claim comes from, and beside a figure derived from the evidence's (or two of its
    # figures rightly ordered) the relation and unit that derive it ("2 years before 2007", "a difference of 8
    # years", "the second came before the first"), state no fact: they are left out of the count, so they neither
    # count as new nor dilute the words that are.
    framing = _ATTRIBUTION | (_RELATION | _ORDER_STEMS if derived or order else frozenset())
    units = {unit for _, _, unit in _quantities(claim) if unit} if derived else set()
    words = [w for w in content_words(claim) if stem(w) not in framing and _unit(None, w) not in units
             and not _FIGURE.fullmatch(w)]  # a figure ("€15") is the number check's
    if not words:
        return True, ""
    known = {stem(w) for w in evidence_words} | stems(asked)
    novel = [w for w in words if stem(w) not in known]
    ratio = len(novel) / len(words)
    if len(novel) <= 1 or ratio <= 0.25 or (ratio <= 0.5 and similarity >= 0.5) or (ratio <= 0.7 and similarity >= 0.7):
        return True, ""
    return False, f"words not in the evidence: {', '.join(novel[:5])} (closest evidence similarity {similarity:.2f})"


_ATTRIBUTION = frozenset(stem(w) for w in (
    "source", "sources", "document", "documents", "passage", "passages", "evidence", "article", "page", "according",
    "says", "gives", "states", "mentions", "reports", "lists", "cites"))
"""Words that say where a claim comes from ("the other year the source gives", "according to the article"), not
what it claims: never new content."""
_RELATION_WORDS = frozenset((
    "difference", "apart", "earlier", "later", "before", "after", "more", "less", "fewer", "than", "against",
    "older", "younger", "longer", "shorter", "taller", "higher", "lower", "larger", "smaller", "bigger", "greater",
    "total", "combined", "together", "sum", "first", "second", "came", "year", "years", "cheaper", "dearer",
    "pricier", "costlier", "faster", "slower", "heavier", "lighter", "warmer", "colder", "remaining", "rest"))
_RELATION = frozenset(stem(w) for w in _RELATION_WORDS)
"""Words of a comparison or a sum that derives a figure from two of the evidence's."""
_DERIVING = re.compile(r"\b(?:" + "|".join(sorted(_RELATION_WORDS - {"first", "second", "came", "year", "years"}) + [
    "past", "over", "under", "above", "below", "beyond", "short", "left", "off", "saves?", "saving", "extra",
    "additional", "minus", "plus", "gap", "span", "altogether",
    "in all", "versus", "vs", r"by\s+[$€£¥]?\d"]) + r")\b", re.IGNORECASE)
"""What a sentence that derives a figure says: a comparison, a sum, a span. Without one, a figure that happens to be
the difference of two of the evidence's ("Volt costs €29 a month", 54 - 25) is a figure the evidence does not give."""


_DENIED_NUMBER = re.compile(r"(?:\bnot|n't|\bnever|\brather than|\binstead of)\s+(?:the\s+|about\s+|around\s+)?"
                            r"(\d+(?:[.,:]\d+)*)", re.IGNORECASE)


_SPELLED = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
                                                      "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100"}
_SPELLED_WORD = re.compile(r"\b(" + "|".join(_SPELLED) + r")\b", re.IGNORECASE)


def spelled_numbers(haystack: str, claim: str, wanted: set[str]) -> set[str]:
    """Which of the claim's `wanted` figures the evidence spells out, counting what the claim's figure counts: "1-2
    tablets" and "one or two 500 mg tablets" (the spelled number, then the same word within five words). A spelled
    number elsewhere ("three months", "at most two") gives no "3 hours" or "2 tablets".

    >>> sorted(spelled_numbers("Take one or two 500 mg tablets.", "Take 1-2 tablets.", {"1", "2"}))
    ['1', '2']
    >>> spelled_numbers("Wait two hours; stop after three months.", "Wait 3 hours.", {"3"})
    set()
    """
    found = set()
    text = strip_citations(claim)
    for match in re.finditer(r"(?<![\d.,])\d+(?![\d.,]\d)", text):
        number = match.group(0)
        counted = re.match(r"(?:\s*(?:-|to|or|and)?\s*\d+)*\s*([a-z]+)", text[match.end():], re.IGNORECASE)
        spelled = [w for w, n in _SPELLED.items() if n == number]
        if number not in wanted or not spelled or not counted:
            continue
        unit = stem(counted.group(1).lower().rstrip("s"))
        after = re.compile(r"\b" + spelled[0] + r"\b((?:\W+\w+){1,5})", re.IGNORECASE)
        if any(unit in {stem(w.rstrip("s")) for w in re.findall(r"[a-z]+", m.group(1).lower())}
               for m in after.finditer(haystack)):
            found.add(number)
    return found


def denied_numbers(claim: str) -> set[str]:
    """Numbers the claim denies rather than states ("18 euros, not 30"): a premise correction names the wrong figure
    without claiming it.

    >>> sorted(denied_numbers("Tickets cost 18 euros, not 30, at the door."))
    ['30']
    """
    return {m.group(1).replace(",", "") for m in _DENIED_NUMBER.finditer(strip_citations(claim))}


_QUANTITY = re.compile(r"([$€£¥])?\s?(\d+(?:[.,]\d+)*)(?:-|\s*)([a-z]+|%)?", re.IGNORECASE)
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


def _quantities(text: str) -> list[tuple[float, str, str]]:
    """(value, the number as written without thousands commas, the stem of its unit: the word after it, "" for none)
    for every number of the text ("28-day" is 28 in days); a time of day or a date's parts ("10:00", "2025-08-28")
    are no quantities."""
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
    return out


_CALENDAR = "calendar year"
_ORDER = {
    # a year's order is its time's; any other figure's is its size
    _CALENDAR: ({"before", "earlier", "older", "first", "sooner"},
                {"after", "later", "newer", "younger", "last"}),
    "": ({"less", "fewer", "smaller", "lower", "shorter", "cheaper", "lighter", "colder", "slower", "younger"},
         {"more", "larger", "bigger", "greater", "higher", "longer", "taller", "dearer", "pricier", "costlier",
          "heavier", "warmer", "faster", "older"}),
}
_ORDER_WORDS = frozenset(w for below, above in _ORDER.values() for w in below | above)
_ORDER_STEMS = frozenset(stem(w) for w in _ORDER_WORDS)
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
        elif not unit and word not in STOPWORDS | _ORDER_WORDS | {"against", "versus", "vs", "compared", "came"}:
            unit = stem(word.rstrip("s"))  # what it counts ("400 beds")
        # a rate is part of the kind: "€120" is no figure of the kind "€12 a month" is
        rate = _RATE.match(text, end)
        out.append((start, end, value, written, unit + (f" per {stem(rate.group(1) or rate.group(2))}" if rate else "")))
    return out


def _orderings(text: str, haystack: str) -> list[tuple[bool, str, str, str, tuple[int, int]]]:
    """(holds, word, first figure, second figure, span of the word) for each pair of figures `text` orders."""
    out = []
    figures = _figures(text, haystack)
    for (a_start, a_end, a, a_text, kind), (b_start, _, b, b_text, b_kind) in zip(figures, figures[1:]):
        below, above = _ORDER[_CALENDAR if kind == _CALENDAR else ""]
        gap = text[a_end:b_start]
        if kind != b_kind or a == b or len(re.findall(r"[a-z]+", gap, re.IGNORECASE)) > 8:
            continue
        # A word of order in lower case ("First for Women" is a name), not "first"/"last" between the figures (there
        # they name which: "came before the first (1269)").
        words = list(re.finditer(r"[a-z]+", gap))
        said = [m for m in words if m.group(0) in (below | above) - {"first", "last"}][:1]
        if said and re.fullmatch(r"\s*(?:than\s*)?[$€£¥(]*\s*", gap[said[0].end():]):
            continue  # a bound on the second figure ("top up to 1.5 bar if it shows less than 1 bar"), no comparison
        offset, swapped = a_end, False
        if not said and not any(m.group(0) in _ORDER_WORDS for m in words):
            # the verdict before both figures ("X came first: founded in 1844, Y in 1989", "earlier: 1977 against 1985")
            clause = re.split(r"[.;!?]", text[:a_start])[-1]
            offset = a_start - len(clause)
            said = [] if re.search(r"\d", clause) else [m for m in list(re.finditer(r"[A-Za-z]+", clause))[-8:]
                    if m.group(0).lower() in below | above and (m.group(0).islower() or not clause[:m.start()].strip())][-1:]
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
        first, second = (b, a) if swapped else (a, b)
        holds = (first < second) if word in below else (first > second)
        out.append((holds, word, b_text if swapped else a_text, a_text if swapped else b_text,
                    (offset + said[0].start(), offset + said[0].end())))
    return out


def _names(text: str) -> set[str]:
    """Capitalised words of `text` that are no stop words ("The", "It")."""
    return {w.lower() for w in re.findall(r"\b[A-Z][\w'’-]*", text) if w.lower() not in STOPWORDS}


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


_FINITE = re.compile(r"\b(?:is|are|was|were|be|been|being|am|has|have|had|does|did|do|can|could|will|would|should|"
                     r"may|might|must|shall)\b|n't\b", re.IGNORECASE)


_ABOUT_SOURCES = re.compile(r"^\W*(?:the|both|all|these|those|two|neither|either|each)\s+(?:\w+\s+)?"
                            r"(?:sources?|documents?|passages?|articles?|evidence|results?|reports?|texts?)"
                            r"\s+(?!of\b)[a-z]", re.IGNORECASE)
_PRONOUN_COPULA = re.compile(r"^\W*(?:it|this|that|they|these|those)(?:'s|’s|\s+(?:is|was|are|were))\s+", re.IGNORECASE)


def is_fragment(claim: str) -> bool:
    """A claim that is no sentence: a name, a figure or a phrase of at most six words with no finite verb of the
    usual kinds, what a terse answer gives ("Zhenjin.", "Patrimonial feudalism.", "1906."), also behind a pronoun
    and a copula ("It is Zhenjin.").

    >>> is_fragment("Patrimonial feudalism."), is_fragment("Twice."), is_fragment("Arthur's Magazine was founded in 1844.")
    (True, True, False)
    >>> is_fragment("It is Zhenjin."), is_fragment("They were the Iroquois.")
    (True, True)

    A sentence about the sources ("The sources disagree.", "Both documents agree.") is a statement with a verb the
    auxiliaries above do not cover, not an answer to the question:

    >>> is_fragment("The sources disagree."), is_fragment("Both documents agree on 1998.")
    (False, False)
    """
    if _ABOUT_SOURCES.match(claim):
        return False
    claim = _PRONOUN_COPULA.sub("", claim, count=1)  # "It is Zhenjin" claims what "Zhenjin" does
    words = re.findall(r"[\w'’-]+", claim)
    return 0 < len(words) <= 6 and not _FINITE.search(claim)


def derived_numbers(claim: str, haystack: str, asked: str = "") -> set[str]:
    """The claim's numbers that the evidence does not give but that follow from two figures by one subtraction or
    addition, both in the unit the claim gives ("25 metres taller" from 212 and 187 metres), or a span of years
    between two years ("12 years later" from 1998 and 2010). At least one figure is the evidence's; the other may be
    the user's own ("10 weeks past that" from the user's 30 weeks and the evidence's 20 weeks). A number in no unit
    is never derived: any small number is the difference of some two figures.

    >>> sorted(derived_numbers("The Harbour Tower is 25 metres taller.", "It is 212 metres tall. The mill rises 187 metres."))
    ['25']
    >>> sorted(derived_numbers("It is 25 floors taller.", "It is 212 metres tall. The mill rises 187 metres."))
    []
    >>> sorted(derived_numbers("It opened 11 years later.", "The first line opened in 1998; the second in 2009."))
    ['11']
    >>> sorted(derived_numbers("40 days is 12 days past the limit.", "The appeal limit is 28 days.", "a fine 40 days ago"))
    ['12']
    >>> sorted(derived_numbers("Volt is cheaper by €15 a month.", "Volt costs €39 a month. Arc costs €54 a month."))
    ['15']
    >>> sorted(derived_numbers("The remaining cascades make up 107 m.", "It is 271 metres tall; its free fall is 164 metres."))
    ['107']
    >>> sorted(derived_numbers("It is 15 cheaper.", "Volt costs €39 a month. Arc costs €54 a month."))
    []
    >>> sorted(derived_numbers("Volt costs €29 a month.", "Volt costs €54 a month, and €25 to sign up."))
    []
    """
    if not _DERIVING.search(strip_citations(claim)):
        return set()
    evidence, user = _quantities(haystack), _quantities(asked)
    out = set()
    for value, written, unit in _quantities(claim):
        if not unit or any(v == value and u == unit for v, _, u in evidence):  # given, not derived
            continue
        if unit == _YEAR_UNIT:
            found = {v for v, _, _ in evidence if 1000 <= v <= 2100 and v == int(v)}
            given = found | {v for v, _, _ in user if 1000 <= v <= 2100 and v == int(v)}
        else:
            found = {v for v, _, u in evidence if u == unit}
            given = found | {v for v, _, u in user if u == unit}
        if any(abs(abs(a - b) - value) < 1e-9 or abs(a + b - value) < 1e-9
               for a in found for b in given if a != b):
            out.add(written)
    return out


def without_derivation(claim: str, haystack: str, asked: str = "") -> str | None:
    """The claim as the consistency model reads it: each figure derived from the evidence's (`derived_numbers`) taken
    out with the relation that derives it ("2 years before 2007", ", a difference of 8 years"), which the model cannot
    compute and the arithmetic has checked. None when nothing is left but such derivations, their units and words
    that say where the claim comes from, or when all it says is how two of the evidence's figures are ordered
    (`_orders_only`); where it rightly orders two figures, without the words of order (`ordered_reading`).

    >>> without_derivation("Mir is older: 1977 against 1985, a difference of 8 years.", "Mir, 1977. Tor, 1985.")
    'Mir: 1977 and 1985.'
    >>> without_derivation("The first is earlier: 1977 against 1985, a difference of 8 years.", "in 1977. in 1985.") is None
    True
    >>> without_derivation("That is 2 years before 2007, the other year the source gives.", "in 2005. in 2007.") is None
    True
    >>> without_derivation("It opened 11 years later than the first line.", "opened in 1998; the second in 2009.")
    'It opened later than the first line.'
    >>> without_derivation("It opened 12 years later.", "opened in 1998; the second in 2009.")
    'It opened 12 years later.'
    """
    derived = derived_numbers(claim, haystack, asked)
    if not derived:
        return None if _orders_only(claim, haystack) else ordered_reading(claim, haystack)
    text = strip_citations(claim)
    for written in sorted(derived):
        text = re.sub(r"(?:,\s*)?(?:\b(?:a|an|the)\s+(?:difference|gap|span)\s+of\s+)?(?<![\d.,])" + re.escape(written)
                      + r"(?![\d.,]\d)[\s-]*[^\W\d_]*(?:\s+(?:" + "|".join(sorted(_RELATION_WORDS)) + r")"
                      r"(?:\s+than)?\s+(?:in\s+)?\d+(?:[.,]\d+)*)?", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,.;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip(" ,;")
    units = {_YEAR_UNIT} | {unit for _, _, unit in _quantities(claim) if unit}
    left = [w for w in content_words(text) if stem(w) not in _ATTRIBUTION and _unit(None, w) not in units]
    return ordered_reading(text, haystack) if (left or numbers(text)) and not _orders_only(text, haystack) else None


_COMPARING = frozenset(stem(w) for w in ("comparing", "compared", "comparison", "two", "both", "one", "other"))


def _orders_only(claim: str, haystack: str) -> bool:
    """Whether all a claim says is that two figures of the evidence are ordered as they are ("Comparing the two, the
    second (1264) came before the first (1269)"): the arithmetic has checked it, and the model cannot compare figures.

    >>> _orders_only("Comparing the two, the second (1264) came before the first (1269).", "1269. 1264.")
    True
    >>> _orders_only("The charter (1599) came before the settlement (1884).", "1599. 1884.")
    False
    """
    if ordering(claim, haystack) != (True, ""):
        return False
    return not [w for w in content_words(strip_citations(claim))
                if stem(w) not in _RELATION | _ATTRIBUTION | _COMPARING and not _FIGURE.fullmatch(w)]


def contradicted_numbers(claim: str, haystack: str) -> set[str]:
    """The claim's numbers in a unit for which the evidence gives only other figures ("30 euros" where the evidence
    says "18 euros"; not "a 2-week trip" against a "30-day" entry).

    >>> sorted(contradicted_numbers("Tickets cost 30 euros.", "Tickets cost 18 euros at the door."))
    ['30']
    >>> sorted(contradicted_numbers("A 2-week trip fits.", "The 30-day visa-free entry."))
    []
    >>> sorted(contradicted_numbers("40 days is 12 days past the 28-day limit.", "Appeal within 28 days."))
    []
    """
    evidence: dict[str, set[float]] = {}
    for value, _, unit in _quantities(haystack):
        if unit:
            evidence.setdefault(unit, set()).add(value)
    denied = denied_numbers(claim)
    stated = {unit for value, written, unit in _quantities(claim) if unit in evidence and value in evidence[unit]
              and written not in denied}
    return {written for value, written, unit in _quantities(claim)
            if unit in evidence and value not in evidence[unit] and unit not in stated}


_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[^\W\d_]+(?:['’-][^\W\d_]+)*")
_YEAR = re.compile(r"^1\d{3}$|^20\d{2}$")


def _value_kind(tokens: Sequence[str], k: int) -> str:
    """What slot tokens[k] fills: "year", "number <unit stem>", "name" (capitalised, not a sentence's first word nor
    a stop word), or "" (an ordinary word)."""
    token = tokens[k]
    if token[0].isdigit():
        if _YEAR.match(token):
            return "year"
        after = tokens[k + 1].lower() if k + 1 < len(tokens) else ""
        return "number " + (stem(after.rstrip("s")) if after and after not in STOPWORDS else "")
    return "name" if token[0].isupper() and k > 0 and token.lower() not in STOPWORDS else ""


SWAP_COPIED_SHARE = 0.6
"""A claim is read as one evidence sentence with a value replaced when at least this share of its words follow that
sentence's words in order (`swapped_value`)."""


def swapped_value(claim: str, sentences: Sequence[str]) -> str:
    """A name or figure of the evidence put in another's place: the claim follows one evidence sentence word for
    word (`SWAP_COPIED_SHARE` of its words, in order) but where that sentence gives a name or figure, the claim
    gives another name or figure of the same kind (a year for a year, a figure in the same unit, a capitalised name
    for a capitalised name) that the sentence does not hold. The claim is checked against the sentence it is about,
    the one it copies the rest from, not against the passage at large, where the swapped value also occurs (the
    lexical checks find every number and name somewhere in it). Returns why, or "" for none.

    >>> s = ["Following the conquest of Dali in 1253, the Duan dynasty were appointed as governors.",
    ...      "He died in 1294."]
    >>> swapped_value("Following the conquest of Dali in 1294, the Duan dynasty were appointed as governors.", s)
    "says '1294' where the evidence sentence it follows says '1253'"
    >>> swapped_value("After Dali was conquered in 1253, the Duan dynasty became governors.", s)
    ''
    >>> swapped_value("The Duan dynasty were appointed as governors after the conquest of Dali in 1253.", s)
    ''
    """
    words = _TOKEN.findall(strip_citations(claim))
    if len(words) < 4:
        return ""
    best = None
    for sentence in sentences:
        theirs = _TOKEN.findall(sentence)
        matcher = difflib.SequenceMatcher(None, [w.lower() for w in words], [w.lower() for w in theirs], autojunk=False)
        copied = sum(block.size for block in matcher.get_matching_blocks())
        if best is None or copied > best[0]:
            best = (copied, theirs, matcher)
    if best is None or best[0] < SWAP_COPIED_SHARE * len(words):
        return ""
    _, theirs, matcher = best
    held = {w.lower() for w in theirs}
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        ours: dict[str, str] = {}
        given: dict[str, str] = {}
        for k in range(i1, i2):
            if words[k].lower() not in held:
                ours.setdefault(_value_kind(words, k), words[k])
        for k in range(j1, j2):
            given.setdefault(_value_kind(theirs, k), theirs[k])
        for kind in ours.keys() & given.keys():
            if kind and ours[kind].lower() != given[kind].lower():
                return f"says {ours[kind]!r} where the evidence sentence it follows says {given[kind]!r}"
    return ""

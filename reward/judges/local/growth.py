"""Changes over time: their sizes and percentages worked out from the evidence's (`change_sizes`, `answer_changes`),
which thing a change belongs to (`changed_elsewhere`, `change_misstated`), and verdicts on which of two things grew the
more (`growth_verdict`, `named_growth`), checked by their arithmetic, which the consistency model cannot do; the
claim as the model reads it without them (`without_changes`). Pure functions of strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.arithmetic import _PER_CENT_SAID, _as_written, _changes, _plain_figure, denied_numbers
from reward.judges.local.figures import (_CHOICE, _SPELLED, _VERDICT_CLAUSE, _given, _names, _quantities, _sides, _unit,
                                         choice_sides, side_of)
from reward.judges.local.spots import in_per_cent
from reward.judges.local.text import content_words, numbers, stem
from reward.schema import Evidence


def _value(written: str) -> float:
    return float(_SPELLED.get(written.lower(), written.replace(",", "")))


_CHANGE_OF = re.compile(r"\bfrom\s+([$€£¥]?)\s?(\d+(?:,\d{3})*(?:\.\d+)?)\s*([a-z]+|%)?\s*(?:to|→|->)\s*([$€£¥]?)\s?"
                        r"(\d+(?:,\d{3})*(?:\.\d+)?)\s*([a-z]+|%)?", re.IGNORECASE)
"""One thing's change, "from £262m to £295m": (sign, figure, unit word) before and after."""
_RELATIVE = re.compile(r"\b(?:faster|quicker|slower|per\s?cent(?:age)?|proportion(?:al|ally|ately)?|relative(?:ly)?|"
                       r"rate)\b|%", re.IGNORECASE)
_ABSOLUTE = re.compile(r"\b(?:absolute|in\s+number|in\s+total|outright)\b", re.IGNORECASE)
_SIZE_BELOW, _SIZE_ABOVE = _sides("")


def growth_verdict(claim: str) -> tuple[bool, str] | None:
    """A verdict on which of two changes the claim states ("from A to B" each, in one unit) is the larger, by a word of
    size before both ("Orsk grew faster: from £262m to £295m, against Veltrane's from £380m to £412m") or between
    them ("..., faster than Veltrane's from £380m to £412m"): (whether their arithmetic bears it out, why not); None
    where the claim states no such verdict. Speed and words of proportion are about the change in per cent; words of
    absolute size about the change itself; "more" alone holds if either does. The first change named is its subject's.

    >>> growth_verdict("Orsk grew faster: from £262m to £295m, against Veltrane's rise from £380m to £412m.")
    (True, '')
    >>> growth_verdict("Veltrane grew faster, from £380m to £412m, ahead of Orsk's increase from £262m to £295m.")[0]
    False
    >>> growth_verdict("Brancote added more in absolute terms: from 52,800 to 57,600, against from 31,200 to 34,900.")
    (True, '')
    >>> growth_verdict("Its revenue went from £262m to £295m, slower than Veltrane's from £380m to £412m.")[0]
    False
    >>> growth_verdict("Orsk grew faster: Veltrane went from £380m to £412m, Orsk from £262m to £295m.") is None
    True
    >>> growth_verdict("Revenue went from £262m to £295m.") is None, growth_verdict("Orsk did not grow faster: from "
    ...     "£262m to £295m, against from £380m to £412m.") is None
    (True, True)
    """
    verdict = _growth(strip_citations(claim))
    return verdict[:2] if verdict else None


def _growth(text: str) -> tuple[bool, str, tuple[int, int]] | None:
    if "from" not in text.lower():
        return None  # no "from A to B" (most claims)
    changes = [(m, _value(m.group(2)), _value(m.group(5))) for m in _CHANGE_OF.finditer(text)]
    changes = [(m, a, b) for m, a, b in changes if a and _unit(m.group(1), m.group(3)) == _unit(m.group(4), m.group(6))]
    if len(changes) < 2:
        return None
    (first, a1, b1), (second, a2, b2) = changes[:2]
    if _unit(first.group(1), first.group(3)) != _unit(second.group(1), second.group(3)):
        return None
    before = re.split(r"[.;!?]", text[:first.start()])[-1]
    between = text[first.end():second.start()]
    said = [m for m in re.finditer(r"[a-z]+", before) if m.group(0) in _SIZE_BELOW | _SIZE_ABOVE][-1:]
    offset = first.start() - len(before)
    if said and _names(before[said[0].end():]) - _names(before[:said[0].start()]):
        return None  # another name before the first change: whose it is, is not read ("A grew faster: B went from")
    if not said:
        said, offset = [m for m in re.finditer(r"[a-z]+", between) if m.group(0) in _SIZE_BELOW | _SIZE_ABOVE][:1], first.end()
    if not said or re.search(r"\b(?:not|never|no)\b|n't", before + between, re.IGNORECASE):
        return None
    word = said[0].group(0)
    span = (offset + said[0].start(), offset + said[0].end())
    relative = (b1 - a1) / a1, (b2 - a2) / a2
    absolute = b1 - a1, b2 - a2
    if all(x < 0 for x in absolute):  # two falls: the faster fall is the larger one
        relative, absolute = (-relative[0], -relative[1]), (-absolute[0], -absolute[1])
    measures = ([relative] if _RELATIVE.search(text) and not _ABSOLUTE.search(text) else
                [absolute] if _ABSOLUTE.search(text) else [relative, absolute])

    def bears(x: float, y: float) -> bool:
        return x < y if word in _SIZE_BELOW else x > y

    if any(bears(*m) for m in measures):
        return True, "", span
    return False, (f"says {word}, where its figures change by {relative[0]:.1%} against {relative[1]:.1%}"
                   if measures[0] is relative else f"says {word}, where its figures change by {absolute[0]:g} against "
                   f"{absolute[1]:g}"), span


_F = r"([$€£¥]?)\s?(?<![\w.,])(\d+(?:,\d{3})*(?:\.\d+)?)%?(?:\s*(million|billion|bn|m|k)\b)?"
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}
"""What a scale word multiplies a figure by ("€1.12 billion", "€1,120m"; `numbercheck.in_other_units` reads them too)."""
_EARLIER_FIRST = (
    # "from €412 million in FY2022 to €455 million", "from 31,200 in 2011 to 34,900"
    re.compile(r"\bfrom\s+" + _F + r"(?:\s+(?:in|at|on|as\s+of)\s+[\w ]{1,12}?)?\s+to\s+" + _F, re.IGNORECASE),
)
_LATER_FIRST = (
    # "rose to £412m from £380m", "€1.21 billion, up from €1.12 billion", "£295m (2022: £262m)"
    re.compile(r"\bto\s+" + _F + r"\s+from\s+" + _F, re.IGNORECASE),
    re.compile(_F + r"(?:\s+[a-z]+){0,3}?(?:\s+in\s+(?:FY)?\d{4})?,?\s+(?:up|down)\s+from\s+" + _F, re.IGNORECASE),
    re.compile(_F + r"\s*\((?:in\s+)?(?:FY)?\d{2,4}\s*:\s*" + _F + r"\)", re.IGNORECASE),
)
_BY_YEAR = re.compile(_F + r"\s+(?:[a-z]+\s+){0,2}in\s+(?:FY)?(\d{4})\s+and\s+" + _F + r"\s+(?:[a-z]+\s+){0,2}in\s+(?:FY)?(\d{4})",
                      re.IGNORECASE)
"""How an evidence text gives one thing's change: the earlier figure first, the later first, or each with its year
("52,800 residents in 2011 and 57,600 in 2021")."""
_SPEED = frozenset(("faster", "quicker", "slower"))
_GREW = re.compile(r"\b(?:gr[eo]w|grows|growing|grown|growth|grower|rose|risen|rise|rising|increased?|expanded|"
                   r"gained|climbed|added|adds|adding)\b", re.IGNORECASE)


def _figure(m: re.Match, at: int, scaled: bool) -> float:
    """The figure a `_F` match gives at group `at`: 0 for a year ("in 2024, up from 40.0 million" is no figure of the
    change), in its units ("€1.12 billion" is 1.12e9) or as written."""
    if not m.group(at) and not m.group(at + 2) and re.fullmatch(r"(?:19|20)\d\d", m.group(at + 1)):
        return 0.0
    return _value(m.group(at + 1)) * (_SCALE.get((m.group(at + 2) or "").lower(), 1.0) if scaled else 1.0)


def _changes_in(text: str, scaled: bool = True) -> set[tuple[float, float]]:
    """(before, after) of each change the text gives, in its units ("€1.12 billion" is 1.12e9), or as written."""
    out = set(_dated(text, scaled))
    for pattern in _EARLIER_FIRST:
        out |= {(_figure(m, 1, scaled), _figure(m, 4, scaled)) for m in pattern.finditer(text) if m.group(1) == m.group(4)}
    for pattern in _LATER_FIRST:
        out |= {(_figure(m, 4, scaled), _figure(m, 1, scaled)) for m in pattern.finditer(text) if m.group(1) == m.group(4)}
    return {(a, b) for a, b in out if a and b and a != b}


def _dated(text: str, scaled: bool = True) -> dict[tuple[float, float], set[str]]:
    """The changes a text gives with each figure's year ("40.0 million in 2019 and 44.5 million in 2023")."""
    out = {}
    for m in _BY_YEAR.finditer(text):
        if m.group(1) == m.group(5) and m.group(4) != m.group(8):
            first, second = _figure(m, 1, scaled), _figure(m, 5, scaled)
            out[(first, second) if m.group(4) < m.group(8) else (second, first)] = {m.group(4), m.group(8)}
    return out


def named_growth(claim: str, evidence: Sequence[Evidence], asked: str) -> tuple[bool, str] | None:
    """A verdict on which of the two things a question names grew the more ("Which grew faster, Aldwick or
    Brancote?" answered "Brancote grew faster."), checked against the one change the evidence gives each (its items
    that name one of them, title included): speed and words of proportion by the change in per cent, words of
    absolute size by the change itself, any other word by either. (whether it holds, why not); None where the claim
    gives no such verdict or either thing has no single change.

    >>> docs = [Evidence(id="1", title="Aldwick census profile", text="Population rose from 31,200 in 2011 to 34,900 in 2021."),
    ...         Evidence(id="2", title="Brancote", text="Brancote had 52,800 residents in 2011 and 57,600 in 2021.")]
    >>> ask = "Which town grew faster between the censuses, Aldwick or Brancote?"
    >>> named_growth("Brancote grew faster than Aldwick.", docs, ask)[0], named_growth("Aldwick grew faster.", docs, ask)
    (False, (True, ''))
    >>> named_growth("Brancote added more people in absolute terms.", docs, ask), named_growth("Brancote is larger.", docs, ask)
    ((True, ''), None)
    >>> named_growth("Brancote did not grow faster.", docs, ask)
    (True, '')
    >>> named_growth("Aldwick added 3,700, so Brancote, which added 4,800, grew faster.", docs, ask)[0]
    False
    >>> named_growth("Proportionally, smaller Aldwick expanded more quickly.", docs, ask)
    (True, '')

    Where an item gives several changes (revenue and profit), the one in a sentence about what the claim or the
    question names is compared:

    >>> docs = [Evidence(id="1", title="Marlow", text="Revenue £212m (2023: £185m). Operating profit £19.4m (2023: £17.9m)."),
    ...         Evidence(id="2", title="Greyhaven", text="Revenue rose to £96.4m, up from £81.0m. Profit rose from £6.1m to £8.9m.")]
    >>> named_growth("Marlow grew its revenue faster.", docs, "Which grew faster, Marlow or Greyhaven?")[0]
    False
    """
    whole = strip_citations(claim)
    if not _GREW.search(whole) and not re.search(r"\b(?:faster|quicker|slower)\b", whole, re.IGNORECASE):
        return None  # no verdict on growth (most claims)
    sides = choice_sides(asked)
    # the word of order of a growth verdict: one of speed, or one beside a word of growth ("grew more", "a larger
    # increase"), not one that describes a thing ("smaller Aldwick expanded more quickly")
    text, said = "", []
    for clause in _VERDICT_CLAUSE.split(whole):
        words = list(re.finditer(r"[A-Za-z]+", clause))
        said = [m for i, m in enumerate(words) if m.group(0) in _SIZE_BELOW | _SIZE_ABOVE and (
            m.group(0) in _SPEED or any(_GREW.fullmatch(w.group(0)) for w in words[max(i - 1, 0):i + 2]))]
        if said:
            text = clause
            break
    # (a word of speed is about growth where the question asks about growth: "Aldwick, faster." to "Which grew faster?")
    if not sides or not said or len(_CHANGE_OF.findall(whole)) >= 2 or not (
            _GREW.search(whole) or (said[0].group(0) in _SPEED and _GREW.search(asked))):
        return None
    a, b = sides

    def side(names: set[str]) -> set[str] | None:
        return side_of(names, a, b)

    # its subject: named before the word of order, else after it, else the last of the two the sentence names before
    # it ("Aldwick grew by 1,650, so Brancote, which added 4,800, grew faster")
    named = [m for m in re.finditer(r"\b[A-Z][\w'’-]*", whole[:whole.find(text) + said[0].start()])
             if side({m.group(0).lower()})]
    first = (side(_names(text[:said[0].start()])) or side(_names(text[said[0].end():]))
             or (side({named[-1].group(0).lower()}) if named else None))
    if first is None:
        return None
    other = b if first is a else a
    if re.search(r"\b(?:not|never|no)\b|n't", text[:said[0].start()]):
        first, other = other, first  # "B did not grow faster": of two, A did

    # what the claim and the question say grew ("revenue", "passengers"): a change in a sentence about it is the one
    # compared where an item gives several (revenue and operating profit)
    topic = {stem(w) for w in content_words(f"{whole} {asked}")} - {stem(w) for w in content_words(" ".join(
        _CHOICE.search(asked).groups("")))} - CHANGE_STEMS

    # ... and over the years asked about: "between 2019 and 2024" is not the change from 2019 to 2023
    years = set(re.findall(r"\b(?:19|20)\d\d\b", f"{whole} {asked}"))

    def changes(names: set[str], on_topic: bool) -> set[tuple[float, float]]:
        found = set()
        for doc in evidence:
            named = _names(f"{doc.title or ''} {doc.text}")
            if bool(named & a) != bool(named & b) and named & names:
                for sentence in split_sentences(doc.text):
                    dated = _dated(sentence)
                    found |= {c for c in _changes_in(sentence)
                              if (not on_topic or {stem(w) for w in content_words(sentence)} & topic)
                              and not (len(years) >= 2 and c in dated and not dated[c] <= years)}
        return found

    # the one pair of changes of a size to compare (a population of 31,200 with one of 52,800, not with a household
    # size of 2.4)
    for on_topic in (False, True):
        pairs = [(m, t) for m in changes(first, on_topic) for t in changes(other, on_topic) if 0.1 <= m[0] / t[0] <= 10]
        if len(pairs) == 1:
            break
    if len(pairs) != 1:
        return None
    [(mine, theirs)] = pairs
    word = said[0].group(0)
    relative = (mine[1] - mine[0]) / mine[0], (theirs[1] - theirs[0]) / theirs[0]
    absolute = mine[1] - mine[0], theirs[1] - theirs[0]
    measures = ([relative] if _RELATIVE.search(whole) and not _ABSOLUTE.search(whole) else
                [absolute] if _ABSOLUTE.search(whole) else [relative, absolute])
    if any((x < y) if word in _SIZE_BELOW else (x > y) for x, y in measures):
        return True, ""
    return False, (f"says {word}, where the evidence's figures change by {relative[0]:.1%} against {relative[1]:.1%}"
                   if measures[0] is relative else f"says {word}, where the evidence's figures change by "
                   f"{absolute[0]:g} against {absolute[1]:g}")


_CLAUSE = re.compile(r"[;()]|,(?!\d)|\s[—–-]\s|\b(?:while|whereas|but|against|versus|vs\.?|compared\s+(?:to|with))\b", re.IGNORECASE)


def _owners(evidence: Sequence[Evidence]) -> tuple[tuple[frozenset[str], frozenset[tuple[float, float]]], ...]:
    """Each evidence item's names (title included, possessives dropped) and the changes it gives, as written."""
    return _owners_of(tuple((d.title or "", d.text) for d in evidence))


@functools.lru_cache(maxsize=256)
def _owners_of(items: tuple[tuple[str, str], ...]) -> tuple[tuple[frozenset[str], frozenset[tuple[float, float]]], ...]:
    return tuple((frozenset(_bare_names(f"{title} {text}")),
                  frozenset(c for s in split_sentences(text) for c in _changes_in(s, scaled=False)))
                 for title, text in items)


def _bare_names(text: str) -> set[str]:
    return {re.sub(r"['’]s$", "", n) for n in _names(text)}


def changed_elsewhere(claim: str, evidence: Sequence[Evidence]) -> str:
    """A change ("from £262m to £295m") the claim gives, in a clause that names one thing, where the evidence gives
    that change only in items that do not name it: another thing's change (why; "" where none).

    >>> docs = [Evidence(id="1", title="Veltrane results", text="Revenue rose to £412m from £380m."),
    ...         Evidence(id="2", title="Orsk Freight", text="Revenue increased to £295m (2022: £262m).")]
    >>> changed_elsewhere("Veltrane grew faster: from £262m to £295m, against Orsk's from £380m to £412m.", docs)
    "gives the change 'Orsk Freight' gives (262 to 295) to Veltrane"
    >>> changed_elsewhere("Orsk grew faster: from £262m to £295m, against Veltrane's from £380m to £412m.", docs)
    ''
    """
    text = strip_citations(claim)
    if not re.search(r"\bfrom\b|\(\d", text, re.IGNORECASE):
        return ""  # no change stated (most claims)
    owners = _owners(evidence)
    everyone = set().union(*(names for names, _ in owners)) if owners else set()
    for clause in _CLAUSE.split(text):
        named = _bare_names(clause or "") & everyone
        if len(named) != 1:
            continue
        for change in _changes_in(clause or "", scaled=False):
            holders = [i for i, (names, found) in enumerate(owners) if change in found]
            if holders and not any(named & owners[i][0] for i in holders):
                title = evidence[holders[0]].title or f"Doc {evidence[holders[0]].id}"
                return f"gives the change {title!r} gives ({change[0]:g} to {change[1]:g}) to {next(iter(named)).title()}"
    return ""


def change_sizes(claim: str, evidence: Sequence[Evidence]) -> set[str]:
    """The claim's numbers that the evidence does not give but that are the size of a change it gives ("added 3,700
    people" where the population rose from 31,200 to 34,900), each in a clause that names no other thing than the
    evidence item giving that change does ("Brancote added 3,700" is not Aldwick's change).

    >>> docs = [Evidence(id="1", title="Aldwick", text="Aldwick's population rose from 31,200 in 2011 to 34,900 in 2021."),
    ...         Evidence(id="2", title="Brancote", text="Brancote had 52,800 residents in 2011 and 57,600 in 2021.")]
    >>> sorted(change_sizes("Brancote added more people (4,800 against 3,700).", docs))
    ['3700', '4800']
    >>> sorted(change_sizes("Brancote added 3,700 people, Aldwick 4,800.", docs)), sorted(change_sizes("It added 3,600.", docs))
    ([], [])
    """
    text = strip_citations(claim)
    wanted = numbers(text) - set().union(*(_given(d.text) for d in evidence))
    if not wanted:
        return set()
    by_doc = [(names, {abs(b - a) for a, b in found}) for names, found in _owners(evidence)]
    everyone = set().union(*(names for names, _ in by_doc)) if by_doc else set()
    out = set()
    for clause in _CLAUSE.split(text):
        named = _bare_names(clause or "") & everyone
        sizes = {size for names, found in by_doc if not named or named <= names for size in found}
        out |= {n for n in numbers(clause or "") & wanted if any(abs(float(n) - size) < 1e-9 for size in sizes)}
    return out


_MEASURE_WORDS = frozenset(("percentage", "per", "cent", "terms", "rate", "relative", "relatively", "proportion",
                            "proportionally", "absolute", "faster", "quicker", "slower", "more", "less", "larger",
                            "smaller", "bigger", "higher", "lower", "greater"))


CHANGE_STEMS = frozenset(stem(w) for w in _MEASURE_WORDS | {"added", "gained", "grew", "growth", "rose", "rise",
                                                            "increase", "climbed", "expanded", "change", "base"})
"""What a claim says of a change besides its figures: checked by the arithmetic where it checked the change."""


def growth_only(claim: str, asked: str) -> bool:
    """Whether all a claim says is which of the things asked about grew the more ("Brightwater Foods grew faster in
    percentage terms."): what `named_growth` has checked, with nothing else for the model to read.

    >>> ask = "Which grew faster, Aldwick or Brancote?"
    >>> growth_only("Aldwick grew faster in percentage terms.", ask), growth_only("Aldwick grew faster thanks to a new estate.", ask)
    (True, False)
    """
    asked_stems = {stem(w) for w in content_words(asked)}
    return not [w for w in content_words(strip_citations(claim)) if stem(w) not in asked_stems
                and w not in _MEASURE_WORDS and not _GREW.fullmatch(w)]


def answer_changes(sentences: Sequence[str], haystack: str) -> frozenset[str]:
    """The figures an answer works out of a change it states anywhere ("rises from 6.24% to 6.74%", "£212m (2023:
    £185m)") between two of the evidence's figures: its size ("0.50 percentage points") and its size in per cent of
    where it started ("an increase of about 8.0%"), in any sentence of the answer, rounded as written.

    >>> ev = "The SVR will rise from 6.24% to 6.74%."
    >>> sorted(answer_changes(["The SVR rises from 6.24% to 6.74%.", "That's 0.50 points, about 8.0% more."], ev))
    ['0.50', '8.0']
    >>> sorted(answer_changes(["The SVR rises from 6.24% to 6.74%.", "That's about 7.4% more."], ev))
    []
    """
    text = " ".join(strip_citations(s) for s in sentences)
    if not re.search(r"\bfrom\b|\(", text, re.IGNORECASE):
        return frozenset()  # no change stated (most answers)
    given = _given(haystack)
    values = {float(n) for n in given if re.fullmatch(r"\d+(?:\.\d+)?", n)}
    changes = {(a, b) for s in sentences for a, b in _changes_in(strip_citations(s), scaled=False)
               if a in values and b in values}
    if not changes:
        return frozenset()
    sizes = {abs(b - a) for a, b in changes}
    shares = {100 * abs(b - a) / a for a, b in changes}
    out = set()
    for m in re.finditer(r"(?<![\d.,])(\d+(?:,\d{3})*(?:\.\d+)?)(\s?(?:%|per\s?cent\b))?", text, re.IGNORECASE):
        written = m.group(1).replace(",", "")
        if written in given:
            continue
        if any(_as_written(v, written) for v in (shares if m.group(2) else sizes)):
            out.add(written)
    return frozenset(out)


_SAID_CHANGE = re.compile(r"\b(?:up|rose|risen|rising|grew|grown|growth|increased?|increases|rise|climbed|fell|fallen|down|"
                          r"dropped|declined?|gain(?:ed)?)\b[^.;%\d]{0,40}?(?:\d[\d,.]*[^.;%\d]{1,30}?){0,2}"
                          r"(\d+(?:\.\d+)?)\s?(?:%|per\s?cent\b)"
                          r"|\b(\d+(?:\.\d+)?)\s?(?:%|per\s?cent\b)\s+(?:rise|increase|growth|jump|fall|drop|decline|"
                          r"gain)\b", re.IGNORECASE)


def change_misstated(claim: str, evidence: Sequence[Evidence]) -> str:
    """A change in per cent the claim gives one thing ("Marlow was up about 27%"), in a clause naming only it, where the
    evidence items naming it give changes of other sizes (£185m to £212m is 14.6%): why, or "".

    >>> docs = [Evidence(id="1", title="Marlow", text="Revenue £212m (2023: £185m)."),
    ...         Evidence(id="2", title="Greyhaven", text="Revenue rose to £96.4m, up from £81.0m.")]
    >>> change_misstated("With revenue up about 27%, Marlow grew faster than Greyhaven.", docs)
    "says Marlow changed by 27%, where the evidence's figures for it change by 14.6%"
    >>> change_misstated("Marlow's revenue rose about 14.6%.", docs), change_misstated("Greyhaven rose 19%.", docs)
    ('', '')
    >>> change_misstated("Marlow's £27m rise on £212m is 12.7% growth.", docs)[:35]
    'says Marlow changed by 12.7%, where'
    >>> change_misstated("Its gain of £27m on £212m is 12.7%, while Greyhaven's rose 19.0%.", docs)
    ''
    >>> docs[0] = Evidence(id="1", title="Marlow & Finch", text="Revenue £212m (2023: £185m).")
    >>> change_misstated("With revenue up about 27%, Marlow & Finch grew faster than Greyhaven.", docs)[:31]
    'says Marlow changed by 27%, whe'
    >>> change_misstated("Marlow's revenue rose by £27 million, not 27%.", docs)
    ''

    """
    text = strip_citations(claim)
    if "%" not in text and "per" not in text or not _SAID_CHANGE.search(text):
        return ""  # no change in per cent (most claims)
    owners = _owners(evidence)
    given = set().union(*(_given(d.text) for d in evidence))
    denied = denied_numbers(text)
    everyone = set().union(*(names for names, _ in owners)) if owners else set()
    spots = [(m.start(), re.sub(r"['’]s$", "", m.group(0).lower())) for m in re.finditer(r"\b[A-Z][\w'’-]*", text)]
    spots = [(at, name) for at, name in spots if name in everyone]
    for m in _SAID_CHANGE.finditer(text):
        clause = next((c for c in _clauses(text) if c[0] <= m.start() < c[1]), (0, len(text)))
        named = {name for at, name in spots if clause[0] <= at < clause[1]}
        # in a clause naming nothing, the name nearest it ("With revenue up 27%, Marlow ..."), unless a pronoun says
        # it is about a thing named before ("Its gain ..."), which is not read
        if not named and spots and not re.search(r"\b(?:it|its|they|their)\b", text[clause[0]:clause[1]], re.IGNORECASE):
            named = {min(spots, key=lambda spot: abs(spot[0] - m.start()))[1]}
        if len(named) != 1:
            continue
        # (the items about it alone: not one naming the other thing the claim names too, "Greyhaven")
        about = [(names, found) for names, found in owners if named <= names]
        others = {name for _, name in spots} - set().union(*(names for names, _ in about)) if about else set()
        theirs = {c for names, found in about if not names & others for c in found}
        written = m.group(1) or m.group(2)
        if written in given or written in denied:
            continue  # a change the evidence states in per cent itself ("sales were up 5%"), or one denied ("not 27%")
        sizes = {100 * abs(b - a) / a for a, b in theirs} | {abs(b - a) for a, b in theirs if max(a, b) < 100}
        if theirs and not any(_as_written(v, written) or abs(v - float(written)) <= 0.05 * v for v in sizes):
            shown = ", ".join(f"{100 * abs(b - a) / a:.1f}%" for a, b in sorted(theirs))
            return f"says {next(iter(named)).title()} changed by {written}%, where the evidence's figures for it change by {shown}"
    return ""


def _clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause `_CLAUSE` parts."""
    cuts = [0] + [i for m in _CLAUSE.finditer(text) for i in (m.start(), m.end())] + [len(text)]
    return list(zip(cuts[::2], cuts[1::2], strict=True))


def without_changes(claim: str, haystack: str, changed: frozenset[str] = frozenset()) -> str:
    """The claim as the consistency model reads it where it states a change in per cent between two of its figures
    (`stated_arithmetic`) or rightly says which of two changes is the larger (`growth_verdict`): without those
    percentages and that word, which the arithmetic has checked and the model cannot.

    >>> without_changes("Orsk grew faster: from £262m to £295m, about 12.6%, against Veltrane's from £380m to £412m.",
    ...                 "£262m, £295m. £380m, £412m.")
    "Orsk grew: from £262m to £295m, against Veltrane's from £380m to £412m."
    >>> without_changes("Veltrane grew faster: from £380m to £412m, against Orsk's from £262m to £295m.", "")
    "Veltrane grew faster: from £380m to £412m, against Orsk's from £262m to £295m."
    >>> without_changes("It went from 31,200 to 34,900 (+11.9%), faster than Brancote's from 52,800 to 57,600.",
    ...                 "31,200 34,900 52,800 57,600")
    "It went from 31,200 to 34,900, Brancote's from 52,800 to 57,600."
    """
    text = strip_citations(claim)
    if "%" not in text and "per" not in text and "from" not in text.lower():
        return claim  # no percentage and no change (most claims)
    given = _given(haystack)
    unit_of = {written: unit for _, written, unit in _quantities(text)}
    stated = [(float(n), unit_of.get(n, "")) for n in numbers(text) if n in given and _plain_figure(n)]
    changes = _changes(stated, changed)
    out = text
    verdict = _growth(text)
    if verdict and verdict[0]:
        start, end = verdict[2]
        out = text[:start].rstrip() + re.sub(r"^\s*than\b", "", text[end:])
    for n in sorted({n for n in numbers(text) if n not in given and _plain_figure(n)}, key=len, reverse=True):
        spots = list(re.finditer(r"(?<![\d.,])" + re.escape(n) + r"(?![\d])", out))
        if in_per_cent([m.end() for m in spots], out) and any(_as_written(c, n) for c in changes):
            out = re.sub(_PER_CENT_SAID + r"(?<![\d.,])" + re.escape(n) + r"\s?(?:%|per\s?cent\b)(?:\s*\))?", "", out,
                         flags=re.IGNORECASE)
    return claim if out == text else re.sub(r"\s{2,}", " ", out)

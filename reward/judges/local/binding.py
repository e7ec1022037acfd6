"""Binding: a figure of the evidence said of what another evidence sentence, with another figure of the figure's
kind, is about (`misbound`). The consistency model reads such a claim as supported, because every word of it is in
the evidence; only which words go with which figure is wrong.

`figures.misattributed` reads the same error where the thing is a capitalised name ("the Nordlink pass"); this reads
it by the words around the figure, whatever they are ("escape of water claims", "sale items", "on Orbital Plus")."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from reward.format import split_sentences, strip_citations
from reward.judges.local.figures import _CLAUSE, _CALENDAR, _figures
from reward.judges.local.text import content_words, numbers, stem
from reward.schema import Evidence

BOUND_MARGIN = 2
"""How many more of the clause's words the other sentence must name than the figure's own sentence does (and at
least this many in all) before the figure reads as given to the other sentence's thing. Fitted on the fit parts of
the generalization corpus (`benchmarks/GENERALIZATION.md`): at 2, no clean or honest answer of theirs is read so."""

_COMPARING = re.compile(r"\b(?:than|versus|vs|against|compared|whereas|while|above|below|beats?|exceeds?)\b",
                        re.IGNORECASE)
"""A sentence comparing things names both of them: its words bind to both figures, so it is not read."""
_PRONOUN_START = re.compile(r"^\W*(?:it|its|they|their|this|these|he|she|his|her)\b", re.IGNORECASE)


def _words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text) if not re.search(r"\d", w))


@functools.lru_cache(maxsize=256)
def _sentences(evidence: tuple[tuple[str, str], ...]) -> tuple[tuple[frozenset[str], tuple], ...]:
    """Each evidence sentence's words, read with its document's title (and with the sentence before it where it
    opens with a pronoun: "Its discharge is 3,400 m³/s"), and its figures; once per evidence."""
    haystack = " ".join(text for _, text in evidence)
    out = []
    for title, text in evidence:
        sentences = split_sentences(text)
        for i, sentence in enumerate(sentences):
            before = sentences[i - 1] if i and _PRONOUN_START.match(sentence) else ""
            found = tuple((value, kind) for _, _, value, _, kind in _figures(sentence, haystack) if kind)
            out.append((_words(f"{title} {before} {sentence}"), found))
    return tuple(out)


def misbound(claim: str, docs: Sequence[Evidence]) -> str:
    """Why a figure of the claim is given to what another evidence sentence is about, or "". A clause of the claim
    with one figure (not a year) is read against the evidence sentences that give that figure and those that give
    another figure of its kind but not it: where the clause names at least `BOUND_MARGIN` words of such another
    sentence that no sentence of the figure names, and `BOUND_MARGIN` more of them than it names words of the figure's
    own sentence, the figure has been moved to another thing ("Escape of water claims have a £1,000 excess",
    where £1,000 is for subsidence and escape of water claims carry £200). Every evidence item is read: a figure moved
    from another item is moved all the same.

    >>> docs = [Evidence(id="1", title="Home insurance: excesses", text="Escape of water claims carry an additional "
    ...         "£200 excess. Subsidence claims have a fixed £1,000 excess.")]
    >>> misbound("Escape of water claims have a £1,000 excess [Doc 1].", docs)
    'gives 1000 to what another evidence sentence gives 200 for (escape, water)'
    >>> misbound("Subsidence claims have a fixed £1,000 excess.", docs), misbound("It's £1,000 for subsidence.", docs)
    ('', '')

    A clause of two figures, or a comparison, binds its words to both, and is not read:

    >>> misbound("Escape of water claims carry £200, against £1,000 for subsidence claims.", docs)
    ''
    """
    text = strip_citations(claim)
    if _COMPARING.search(text):
        return ""
    evidence = tuple((d.title or "", d.text) for d in docs)
    sentences = _sentences(evidence)
    haystack = " ".join(t for _, t in evidence)
    for clause in _CLAUSE.split(text):
        if not clause or len(numbers(clause)) != 1:
            continue
        said = _words(clause)
        for _, _, value, written, kind in _figures(clause, haystack):
            if not kind or kind == _CALENDAR:
                continue
            # (a rate is read by its unit: "£6 a day" is the figure of "the daily charge is £6")
            unit = kind.split(" per ")[0]
            own = [words for words, found in sentences if (value, unit) in {(v, k.split(" per ")[0]) for v, k in found}]
            if not own:
                continue
            theirs = frozenset().union(*own)
            for words, found in sentences:
                others = [v for v, k in found if k.split(" per ")[0] == unit and v != value]
                if not others or any(v == value and k.split(" per ")[0] == unit for v, k in found):
                    continue
                named = said & (words - theirs)
                mine = max(len(said & (o - words)) for o in own)
                if len(named) >= BOUND_MARGIN and len(named) >= mine + BOUND_MARGIN:
                    shown = list(dict.fromkeys(w for w in content_words(clause) if stem(w) in named))
                    return (f"gives {written} to what another evidence sentence gives {others[0]:g} for "
                            f"({', '.join(shown[:3])})")
    return ""

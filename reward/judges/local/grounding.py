"""How much of an answer the evidence gives, read lexically: the features the answer-level claim score
(`local.support.claim_hallucination`, the artifact's `AnswerStack`) weighs beside the consistency model's verdicts.
Each is a share in [0, 1] that can only fall when the answer says something the evidence does not (a new word, a
word pair or phrase the evidence never writes, a number or name it lacks), so no wording raises one by adding
unsupported content; sentences copied from the evidence are left out by the caller, so pasting cannot raise them
either. An answer with nothing to measure scores 1.0 on each, as the lexical baseline does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from reward.judges.local.text import content_words, numbers, stem, tokens
from reward.memo import by_content

LEXICAL_FEATURES = ("coverage", "bigrams", "trigrams", "best_passage", "numbers", "names", "phrases")
"""The lexical features, in the order the answer stack reads them."""

_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-zA-Z]+")


@by_content
def _evidence_view(texts: tuple[str, ...]) -> tuple:
    """The evidence's stems, stem pairs (adjacent or one apart), stem triples, word triples, numbers, the stems of
    each passage and the lower-cased text: read once per evidence set (a GRPO group's rollouts share it)."""
    joined = " ".join(texts)
    sequence = [stem(w) for w in content_words(joined)]
    raw = tokens(joined)
    return (frozenset(sequence), frozenset(zip(sequence, sequence[1:])) | frozenset(zip(sequence, sequence[2:])),
            frozenset(zip(sequence, sequence[1:], sequence[2:])), frozenset(zip(raw, raw[1:], raw[2:])),
            frozenset(numbers(joined)), tuple(frozenset(stem(w) for w in content_words(t)) for t in texts),
            joined.lower())


def _share(found: Sequence[bool], empty: float = 1.0) -> float:
    return sum(found) / len(found) if found else empty


def lexical_features(answer: str, evidence_texts: Sequence[str]) -> dict[str, float]:
    """The answer's lexical grounding in the evidence (`LEXICAL_FEATURES`): the share of its content words found
    (stems compared, the lexical baseline's signal), of its adjacent content-word pairs and triples found in the
    evidence's order, the best single passage's word coverage (support in one place, not scattered), the share of
    its numbers and of its capitalised names the evidence gives, and of its three-word phrases.

    >>> f = lexical_features("Ada Lovelace wrote the first program in 1843.",
    ...                      ["Ada Lovelace wrote the first program, published in 1843."])
    >>> f["coverage"], f["numbers"], f["names"]
    (1.0, 1.0, 1.0)
    >>> g = lexical_features("Ada Lovelace wrote the first program in 1851 in Paris.",
    ...                      ["Ada Lovelace wrote the first program, published in 1843."])
    >>> g["coverage"] < 1.0, g["numbers"], g["names"]
    (True, 0.0, 0.5)
    """
    words, pairs, triples, raw_triples, evidence_numbers, passages, lowered = _evidence_view(tuple(evidence_texts))
    sequence = [stem(w) for w in content_words(answer)]
    if not sequence:
        return dict.fromkeys(LEXICAL_FEATURES, 1.0)
    coverage = _share([w in words for w in sequence])
    raw = tokens(answer)
    names = {m.lower() for m in _NAME.findall(answer)}
    return {
        "coverage": coverage,
        "bigrams": _share([p in pairs for p in zip(sequence, sequence[1:])], coverage),
        "trigrams": _share([t in triples for t in zip(sequence, sequence[1:], sequence[2:])], coverage),
        "best_passage": max((_share([w in passage for w in sequence]) for passage in passages), default=0.0),
        "numbers": _share([n in evidence_numbers for n in numbers(answer)]),
        "names": _share([n in lowered for n in names]),
        "phrases": _share([t in raw_triples for t in zip(raw, raw[1:], raw[2:])]),
    }

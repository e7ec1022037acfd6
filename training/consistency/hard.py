"""Hard pairs for the claim-consistency model, from the same public passages as `training.consistency.data`: what
the local tier's rules pass and the model read wrong on interactions written from scratch.

- **Beside a negation** (`beside_negation_pairs`): the evidence window holds a negated sentence ("Do not take more
  than 8 tablets in 24 hours") and another sentence ("Take 1 or 2 tablets"). Either restated is supported; the other
  sentence negated, or the negated one with its negation dropped, is contradicted. Without them a model learns from
  the negation pairs that a "not" anywhere in the window makes a positive claim contradicted; with only the first
  half, that a "not" in the claim makes it contradicted.
- **A denial of the opposite** (`denial_pairs`): the evidence says "the light is still operating" or "a permit is
  required" and the claim denies the opposite ("it is not closed", "a permit is not optional"): supported, as a
  premise correction is. The claim that asserts the opposite is contradicted.

Both are built from sentences of whole passages, and `held` passages (the recipe's held-out passages) give the
held-out pairs, so no sentence of an evaluated passage is trained on.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

from reward.format import split_sentences, strip_citations
from training.consistency.data import (
    HEDGES,
    ROOT,
    SOURCES,
    Pair,
    compress,
    evidence_window,
    example_passages,
    negate,
    rte_rows,
    squad_passages,
    verified,
)

_NEGATED = re.compile(r"\b(?:not|never|no longer|cannot|no)\b|n't\b", re.IGNORECASE)
OPPOSITES = [("open", "closed"), ("required", "optional"), ("allowed", "banned"), ("present", "absent"),
             ("legal", "illegal"), ("alive", "dead"), ("active", "inactive"), ("public", "private"),
             ("available", "unavailable"), ("successful", "unsuccessful"), ("possible", "impossible"),
             ("common", "rare"), ("safe", "dangerous"), ("married", "unmarried"), ("included", "excluded"),
             ("accepted", "rejected"), ("approved", "rejected"), ("independent", "dependent"),
             ("permanent", "temporary"), ("full", "empty"), ("correct", "incorrect"), ("true", "false"),
             ("operating", "closed"), ("running", "closed"), ("in use", "abandoned"), ("complete", "incomplete")]
_COPULA = r"\b(is|are|was|were|remains|remained|stays|stayed|became|becomes|is still|was still|are still|were still)\s+"


def _sentences(text: str) -> list[str]:
    return [s for s in split_sentences(strip_citations(text)) if 5 <= len(s.split()) <= 45]


def beside_negation_pairs(passages: Sequence[tuple[str, str]], seed: int) -> Iterator[Pair]:
    """(negated sentence + the sentence a claim restates, claim) pairs: the restatement supported, its negation
    contradicted."""
    rng = random.Random(f"beside-negation-{seed}")
    for passage_id, text in passages:
        sentences = _sentences(text)
        negated = [i for i, s in enumerate(sentences) if _NEGATED.search(s)]
        plain = [i for i, s in enumerate(sentences) if not _NEGATED.search(s)]
        if not negated or not plain:
            continue
        for i in rng.sample(plain, min(2, len(plain))):
            j = rng.choice(negated)
            window = " ".join(sentences[k] for k in sorted((i, j)))
            sentence = sentences[i]
            claim = rng.choice([sentence, compress(sentence, rng) or sentence,
                                rng.choice(HEDGES) + sentence[:1].lower() + sentence[1:]])
            yield Pair(window, claim, 0, "supported:beside_negation", passage_id)
            flipped = negate(sentence, rng)
            if flipped and flipped != sentence:
                yield Pair(window, flipped, 1, "contradicted:beside_negation", passage_id)
            # The negated sentence restated is supported and with its negation dropped contradicted, so that a
            # negation in the claim says nothing on its own.
            denied = sentences[j]
            yield Pair(window, rng.choice([denied, rng.choice(HEDGES) + denied[:1].lower() + denied[1:]]), 0,
                       "supported:negated_restated", passage_id)
            dropped = negate(denied, rng)
            if dropped and dropped != denied and not _NEGATED.search(dropped):
                yield Pair(window, dropped, 1, "contradicted:negation_dropped_beside", passage_id)


def denial_pairs(passages: Sequence[tuple[str, str]], seed: int) -> Iterator[Pair]:
    """(window, "X is not <opposite>") pairs where the evidence says "X is <word>": supported; "X is <opposite>":
    contradicted."""
    rng = random.Random(f"denial-{seed}")
    for passage_id, text in passages:
        sentences = _sentences(text)
        for sentence in sentences:
            for word, opposite in rng.sample(OPPOSITES, len(OPPOSITES)):
                for said, other in ((word, opposite), (opposite, word)):
                    match = re.search(_COPULA + r"(" + re.escape(said) + r")\b", sentence, re.IGNORECASE)
                    if not match or _NEGATED.search(sentence):
                        continue
                    window = evidence_window(sentence, sentences, 2)
                    if sentence not in window:
                        window = sentence
                    verb = match.group(1)
                    denial = sentence[:match.start()] + f"{verb} not {other}" + sentence[match.end():]
                    asserted = sentence[:match.start()] + f"{verb} {other}" + sentence[match.end():]
                    yield Pair(window, denial, 0, "supported:denial_of_opposite", passage_id)
                    yield Pair(window, asserted, 1, "contradicted:opposite", passage_id)
                    break
                else:
                    continue
                break


def hard_pairs(passages: Sequence[tuple[str, str]], seed: int, held: set[str]) -> tuple[list[Pair], list[Pair]]:
    """(train, held-out) hard pairs of both kinds, held out by passage; the training list shuffled with `seed`."""
    pairs = list(beside_negation_pairs(passages, seed)) + list(denial_pairs(passages, seed))
    train = [p for p in pairs if p.passage not in held]
    random.Random(f"hard-{seed}").shuffle(train)
    return train, [p for p in pairs if p.passage in held]


def hard_pairs_of_sources(seed: int, held: set[str], root=ROOT) -> tuple[list[Pair], list[Pair]]:
    """`hard_pairs` over the passages `training.consistency.data.paraphrase_pairs` reads (SQuAD dev passages, RTE
    train premises, the project's example evidence)."""
    squad = squad_passages(verified(SOURCES[0], root))
    rte_train = rte_rows(verified(SOURCES[1], root))
    passages = squad + [(f"rte-premise:{i}", r["sentence1"]) for i, r in enumerate(rte_train)] + example_passages(root)
    return hard_pairs(passages, seed, held)

"""The usability methods: `answer_useful` (substantive, relevant content rather than filler or copies),
`answer_firstness` (the answer comes before the preamble) and `redundant_repetition`.
"""

from __future__ import annotations

import re

from reward.judges.local.context import Context, _answer_parts, clip
from reward.judges.local.evidence import _distinct_relevant, _substantive_relevance
from reward.judges.local.relevance import _answer_checks, _copy_weights, _declining, _plain
from reward.judges.local.text import list_marker_removed, numbers, stems
from reward.rules.verdicts import is_premise_verdict

"""What a sentence copied from the evidence counts for in usefulness and claim diversity, against one of the answer's
own."""


_FILLER = re.compile(r"\b(?:it is always a good idea|keep in mind|in summary|every (?:investor|person|case) is different|"
                     r"journey|at the end of the day|it is worth (?:noting|keeping in mind))\b", re.IGNORECASE)


async def answer_useful(ctx: Context) -> tuple[float, str]:
    """Share of the answer (by characters) in sentences related to the need and not generic filler; restated
    queries and stuffed keywords are not useful, and a copied sentence counts half (`COPY_CREDIT`). A sentence that
    relatedness does not credit (too short to judge, or "Arthur's Magazine [Doc 1]." to a choice question, which
    repeats the question's words) counts by its `_answer_checks` score: useful when its cited evidence holds what
    the question asks for."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    checks = await _answer_checks(ctx)
    present = {_plain(s) for s in sentences}
    credited = {_plain(s) for s, c in zip(sentences, cleaned, strict=True) if c}
    # What relatedness cannot credit (too short to judge, or a choice question's answer, which repeats its words)
    # counts by the answer check.
    answering = [c for c in checks if c.text not in credited and c.answers > 0]
    if not sentences and not answering:
        return 0.0, "no answer"
    # A verdict on the premise ("That premise is not right.") is the lead of the correction after it, neither useful
    # nor filler on its own: the same answer said as "The premise is wrong: X" would count X alone.
    total = (sum(len(s) for s in sentences if not is_premise_verdict(s))
             + sum(len(c.text) for c in answering if c.text not in present))
    # Beside what a declining answer does say, its sentence saying the sources do not answer ("Beyond that, the
    # documents give no answer") is its answer to the question, however little its words resemble the question's;
    # whether declining was right is `no_supply_reject`'s to judge. One such sentence says it: more, and what the
    # sources cover instead ("[Doc 1] covers Warsaw, but not this."), add nothing and take nothing away. An answer
    # that only says the sources do not answer is read as before.
    # (A decline that quotes the question, "The sources do not answer 'Who ...?'", declines all the same.)
    said = _declining(ctx, sentences)
    if all(said):
        said = [False] * len(said)
    first = said.index(True) if any(said) else -1
    kinds = [kind for _, kind in _answer_parts(ctx)]
    left_out = [(d and i != first) or k == "scope" for i, (d, k) in enumerate(zip(said, kinds, strict=True))]
    total -= sum(len(s) for s, out in zip(sentences, left_out, strict=True) if out and not is_premise_verdict(s))
    # What a declining answer quotes of the sources is what they do say: its first quote counts whole, no paste.
    weights = _copy_weights(ctx)
    quoted = [i for i, w in enumerate(weights) if w < 1.0]
    if first >= 0 and quoted:
        weights[quoted[0]] = 1.0
    rows = enumerate(zip(sentences, cleaned, relevance, weights, said, strict=True))
    useful = sum(len(s) if i == first else len(c) * w for i, (s, c, r, w, d) in rows
                 if i == first or (not d and c and r >= 0.2 and not _FILLER.search(c)))
    useful += sum(len(c.text) * c.answers for c in answering)
    share = min(1.0, useful / total) if total else 0.0
    return clip((share - 0.2) / 0.7), f"{share:.0%} of the answer is on-topic, non-filler text"


async def answer_firstness(ctx: Context) -> tuple[float, str]:
    """Position of the first sentence that answers: the first whose similarity to the need is within 0.05 of the
    best sentence's (restatements never answer; stuffed keywords do not count). First sentence 1.0, within the
    first three 0.75, middle 0.5, end 0.25. An answer with no sentence long enough to judge by relatedness is
    placed by the answer check (`_answer_checks`), as `answer_useful` credits it."""
    sentences, cleaned, relevance = await _substantive_relevance(ctx, credit_copies=True)
    if not sentences:
        # An answer too short for relatedness to judge ("1906 [Doc 2].") is placed as `answer_useful` reads it: by
        # the answer check, where its first part that answers stands.
        checks = await _answer_checks(ctx)
        first = next((i for i, c in enumerate(checks) if c.answers > 0), None)
        if first is None:
            return 0.0, "no answer"
        if first == 0:
            return 1.0, "the first sentence answers"
        return 0.5, f"the answering sentence is sentence {first + 1} of {len(checks)}"
    answering = [float(r) if c else -1.0 for c, r in zip(cleaned, relevance, strict=True)]
    best = max(answering)
    # A sentence too short for relatedness to judge ("In short, Rankine [Doc 2].") answers where the answer check
    # credits it as much as the best sentence it credits, as `answer_useful` counts it.
    checks = [c for c in await _answer_checks(ctx) if c.answers > 0]
    strongest = max((c.answers for c in checks), default=0.0)
    terse = {c.text for c in checks if c.answers >= 0.5 * strongest}
    # Any sentence the answer check credits as much answers where it stands, whatever relatedness says of it: "In
    # short, Rankine [Doc 2]." before the passage it comes from, "Answer: Energiprojekt AB" before a "Source:" line.
    placed = [i for i, s in enumerate(sentences) if _plain(list_marker_removed(s)) in terse]
    # In a declining answer that says more than that it declines, its first sentence saying the sources do not answer
    # is its answer, wherever relatedness places it, as `answer_useful` counts it; an answer that only declines is
    # read as before.
    said = _declining(ctx, sentences)
    if any(said) and not all(said):
        placed.append(said.index(True))
    if best < 0 and not placed:
        return 0.0, "the answer only restates the query"
    first = min([i for i, r in enumerate(answering) if best >= 0 and r >= best - 0.05] + placed)
    # A verdict on the premise ("That premise is not right.") leads the correction after it: the correction, said
    # next, is said first, as "The premise is wrong: X" says it in one sentence.
    if first and all(is_premise_verdict(s) for s in sentences[:first]):
        return 1.0, "the first sentence answers (after a verdict on the premise)"
    if first == 0:
        return 1.0, "the first sentence answers"
    position = first / len(sentences)
    score = 0.75 if first <= 2 and position < 0.5 else (0.5 if position < 0.67 else 0.25)
    return score, f"the answering sentence is sentence {first + 1} of {len(sentences)}"


async def redundant_repetition(ctx: Context) -> tuple[float, str]:
    """Share of answer sentences that paraphrase an earlier one (similarity > 0.8 and at most half of its content
    words and figures new against it: two sentences on one topic that state different facts are alike to the
    embedding, not repeats), combined with the n-gram repetition rule (the lower of the two)."""
    sentences, _, pairwise = await _distinct_relevant(ctx)
    repetition = ctx.rule("repetition.ngram")
    if len(sentences) < 2:
        return repetition.score, repetition.explanation
    repeats = sum(1 for i in range(1, len(sentences))
                  if any(float(pairwise[i, j]) > 0.8 and _new_share(sentences[i], sentences[j]) <= 0.5 for j in range(i)))
    semantic = 1.0 - repeats / (len(sentences) - 1)
    score = min(semantic, repetition.score)
    return score, f"{repeats} of {len(sentences)} sentences repeat an earlier one; {repetition.explanation}"


def _new_share(sentence: str, earlier: str) -> float:
    """Share of the sentence's content words (stems) and figures that the earlier sentence does not have.

    >>> _new_share("It costs €39 a month, €54 for Arc.", "Volt costs €39 a month against €54 for Arc.")
    0.0
    >>> _new_share("After the €25 fee it is cheaper: €493 a year against €648.", "It costs €39 a month, €54 for Arc.")
    1.0
    """
    words = set(stems(sentence)) | numbers(sentence)
    if not words:
        return 0.0
    return len(words - set(stems(earlier)) - numbers(earlier)) / len(words)

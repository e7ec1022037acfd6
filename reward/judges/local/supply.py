"""Supply: does the evidence hold what the user's need asks for (`_supply_value`), and `no_supply_reject`, which
weighs a refusal or an answer against it (refusing where the evidence answers, or answering where it does not)."""

from __future__ import annotations

import re

import numpy as np

from reward.format import split_sentences
from reward.judges.local.claims import _YEAR
from reward.judges.local.context import Context, _answer_parts, clip
from reward.judges.local.dates import frame_named, worked_weekdays
from reward.judges.local.figures import choice_sides
from reward.judges.local.kinds import asked_names, missing_kind, names_covered, other_variant
from reward.judges.local.relevance import _answer_checks, asked_kind_of
from reward.judges.local.support import claim_hallucination
from reward.judges.local.text import TIME_FRAME, doc_text, lexical_coverage, names_in, numbers
from reward.rules.declining import declines

_MONEY_FIGURE = re.compile(r"[£$€¥₹]\s?\d[\d,.]*")
"""A sum of money the query names: its figures are no year."""


SUPPLY_RELEVANCE = 0.4
"""An evidence sentence supplies the need when the question-relevance head reads it as answering it at least this
likely (and its passage names what the query names, and it holds the kind of answer asked for)."""
SUPPLY_DOUBT = 0.2
"""Around SUPPLY_RELEVANCE, the band in which the supply reading is doubtful (the head tells the sentence holding a
question's answer from a plausible one of an unanswerable question only at AUC 0.64): `no_supply_reject` scores each
side by its expectation across it."""


async def _supply(ctx: Context) -> tuple[bool, str]:
    """Whether the evidence supplies the need (`_supply_value` at least `SUPPLY_RELEVANCE`), and why."""
    value, why = await _supply_value(ctx)
    return value >= SUPPLY_RELEVANCE, why


async def _supply_value(ctx: Context) -> tuple[float, str]:
    """How likely the evidence holds what the need asks for (0 to 1), and why. What the need asks for, not merely
    its topic: some evidence sentence that the question-relevance head (`reward.judges.question_relevance`, fitted
    to tell the sentence holding a question's answer from the rest of its passage) reads as answering the need, in
    a passage that names the query's names (a venue, a product, a day), holding the kind of answer asked for (a
    number for "how many", a date or number for "when"). A passage on the right topic that lacks the asked fact
    (weekday hours when asked about Sundays) does not supply it."""
    from reward.judges.question_relevance import shipped_relevance

    if not ctx.item.evidence:
        return 0.0, "no evidence"
    rows = [(d, s) for d in ctx.item.evidence
            for s in dict.fromkeys(x for x in (d.title, *split_sentences(d.text)) if x and x.strip())]
    if not rows:
        return 0.0, "no evidence sentence"
    vectors = await ctx.embedder.embed([ctx.need, *(s for _, s in rows)])
    overlap = np.array([lexical_coverage(ctx.need, s) for _, s in rows], dtype=np.float32)
    relevance = shipped_relevance().probability(vectors[0], vectors[1:], overlap)
    # (the user's own days of the week, where the evidence gives a span counted from an event, are days the answer
    # works that rule through, not days the evidence must name: "I finish on Friday; can I drink on Saturday?")
    everywhere = " ".join(doc_text(d) for d in ctx.item.evidence)
    weekdays = worked_weekdays(f"{ctx.item.query} {ctx.need}", everywhere)
    names = {n for n in asked_names(ctx.item.query, ctx.need) if n.removesuffix("s") not in weekdays}
    years = {n for n in numbers(_MONEY_FIGURE.sub(" ", ctx.item.query)) if _YEAR.match(n)}  # not "£1,200"
    # the query's days or months (in a range too: "Friday" of "Monday to Saturday") fail a passage naming none of them
    frames = {n for n in names if TIME_FRAME.match(n)}
    # The two things a choice question names ("Is Roadline or Kestrel cheaper?") are each read of a passage of
    # their own: a thing of the choice is covered where any evidence item names it, not only the answering one.
    apart: set[str] = set()
    sides = choice_sides(ctx.item.query)
    if sides:
        everywhere_lower = everywhere.lower()
        sided = {re.sub(r"['’]s$", "", w) for w in sides[0] | sides[1]}  # "Pelican's" names Pelican
        apart = {n for n in names if set(n.split()) & sided and names_in({n}, everywhere_lower)}
    kind_asked = asked_kind_of(ctx)
    best, best_value, best_note = None, -1.0, ""
    for k in np.argsort(-relevance)[:8].tolist():
        doc, sentence = rows[k]
        text = (passage := doc_text(doc)).lower()
        named = sum(frame_named(n.rstrip("s"), text) for n in frames - apart)
        coverage = (names_covered(names - apart - frames, passage) + len(apart) + named) / len(names) if names else 1.0
        coverage = coverage if named or not frames - apart else 0.0
        # a year asked about that the passage neither names nor was published in: its figures are another year's
        if years and not any(y in text or (doc.published and str(doc.published.year) == y) for y in years):
            coverage = 0.0
        # "Fixed Saver 12" asked about the Fixed Saver 24, a download speed about the upload, a sentence of a page
        # titled "Summer timetable" about this winter's buses
        missing = missing_kind(kind_asked, sentence, passage, supplied=True) or ("the asked variant" if other_variant(
            ctx.item.query, sentence, doc.title, passage) else None)
        # A name of the need the passage never mentions (a venue, a day) usually means it answers for something else;
        # a demonym ("French" vs "France") is the usual exception, so half the names pass when the head is sure.
        value = float(relevance[k]) * (1.0 if coverage == 1.0 else 0.7 if coverage >= 0.5 else 0.0) * (0.0 if missing else 1.0)
        if value > best_value:
            best, best_value = k, value
            best_note = f"names covered {coverage:.0%}" + (f", lacks {missing}" if missing else "")
    doc = rows[best][0]
    return max(0.0, best_value), (f"best answering sentence [Doc {doc.id}] relevance {float(relevance[best]):.2f}, "
                                  f"{best_note}")


async def no_supply_reject(ctx: Context) -> tuple[float, str]:
    """Refusal (the refusal rule) against supply (does an evidence sentence hold what the need asks for,
    `_supply_value`): refusing without supply or answering with supply scores 1; inventing without supply scores
    half the answer's claim support; refusing despite supply scores 0.2, unless the answer answers part of the
    question beside its decline. Where the supply reading is in doubt (within `SUPPLY_DOUBT` of
    `SUPPLY_RELEVANCE`), each side scores its expectation between the two readings."""
    value, why = await _supply_value(ctx)
    # How sure the reading of supply is: none at or below SUPPLY_RELEVANCE - SUPPLY_DOUBT, full at or above
    # SUPPLY_RELEVANCE + SUPPLY_DOUBT, a half at the threshold. Each side's score is its expectation over that
    # doubt, so an honest refusal where the evidence only seems to answer is not punished as if it surely did, and a
    # confident answer there is not paid as if it surely could be given.
    supplied = clip((value - SUPPLY_RELEVANCE + SUPPLY_DOUBT) / (2 * SUPPLY_DOUBT))
    # An answer that only says what the sources cover instead ("[Doc 2] covers Warsaw, but not this.") declines too.
    refusal = ctx.rule("refusal.detect").findings["refusal"] or _only_scope(ctx)
    if refusal:
        score = 1.0 - 0.8 * supplied
        verdict = "correct refusal" if supplied <= 0.5 else "refuses although evidence seems to answer"
        # A decline beside an answer ("£95 a year [Doc 1]. Whether you can get a second permit isn't stated.", to a
        # question of two parts) is no refusal of what it answers: it scores the better of the two readings, the
        # answer's no more than its sentences answer the question (`_answer_checks`, as `query_satisfaction` reads
        # them, its declining sentences left out) nor than the same answer given without the decline. A decline that
        # answers nothing keeps its score.
        answered = max((check.answers for check in await _answer_checks(ctx) if not declines(check.text)), default=0.0)
        if answered > score:
            support = 1.0 if supplied >= 1.0 else (await claim_hallucination(ctx))[0]
            partial = min(answered, supplied + (1.0 - supplied) * support * 0.5)
            if partial > score:
                return partial, (f"answers part of the question beside a decline (answers {answered:.2f}; supply "
                                 f"{supplied:.2f}: {why})")
        return score, f"{verdict} (supply {supplied:.2f}: {why})"
    if supplied >= 1.0:
        return 1.0, f"answers; evidence supplies an answer ({why})"
    support, reasons, _ = await claim_hallucination(ctx)
    score = supplied + (1.0 - supplied) * support * 0.5
    verdict = "answers; evidence supplies an answer" if supplied > 0.5 else "answers although no evidence supplies an answer"
    return score, f"{verdict} (supply {supplied:.2f}: {why}); " + reasons


def _only_scope(ctx: Context) -> bool:
    """Whether every sentence of the answer that carries content says what the sources cover instead of the answer."""
    kinds = [kind for _, kind in _answer_parts(ctx)]
    return bool(kinds) and all(kind == "scope" for kind in kinds)

"""The hallucination methods: `claim_hallucination` (every answer claim checked against the evidence closest to it
by the consistency model, number / date / contrast / negation checks and lexical coverage, combined as the
shipped artifact says) and `highlight_hallucination` (the lead claims); `no_supply_reject`, which weighs an answer or a
refusal against what the evidence supplies, is in `supply`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np

from reward.format import split_sentences, strip_citations
from reward.judges.consistency import is_english
from reward.judges.local.arithmetic import counted_totals, with_rates
from reward.judges.local.working import figures_only
from reward.judges.local.grounding import LEXICAL_FEATURES, lexical_features
from reward.judges.local.claims import (_GOING, _RECENCY, _SOURCES, answer_worked, claim_support, corrects_question,
                                        denies_in_words, is_fragment, swapped_value, without_derivation,
                                        without_users_figures_denied)
from reward.judges.local.figures import _given, _names, choice_verdict, named_verdict, verdict_line
from reward.judges.local.growth import change_sizes, growth_only, named_growth, without_changes
from reward.judges.local.context import (Context, Unscored, _answer_parts, _answer_sentences, clip, lead_readings,
                                         sentence_evidence)
from reward.judges.local.negation import negation_flip, unfounded_denial
from reward.judges.local.numbercheck import dated_text, dose_totals, without_dose_totals
from reward.judges.local.opposites import question_opposite
from reward.judges.local.echo import query_asides_removed
from reward.judges.local.text import (
    MODEL_FLOOR,
    MODEL_SPAN,
    claim_text,
    doc_text,
    lexical_coverage,
    list_marker_removed,
    names_in,
    novel_names,
    numbers,
    stem,
    stems,
)
from reward.judges.local.clock import dated_days, days_since, worked_months
from reward.judges.local.dates import dated_months, stale_future, worked_weekdays
from reward.judges.local.superseded import superseded_figure
from reward.rules.verdicts import scope_topic
from reward.schema import Evidence

_HARD_FAILURE = re.compile(r"numbers not in the evidence|where the evidence says|as upcoming although|figures change by|"
                           r"gives the change")


SUPPORT_WINDOW = 3


def model_support(probability: float, reading: tuple[float, float] | None = None) -> float:
    """Support from P(supported): linear between floor and floor + span (the artifact's combination may carry its
    own reading, chosen on the fit split of the public sets; else MODEL_FLOOR, MODEL_SPAN)."""
    floor, span = reading or (MODEL_FLOOR, MODEL_SPAN)
    return clip((probability - floor) / span)


def model_confidence(probability: float, reading: tuple[float, float] | None = None) -> float:
    """How far P(supported) is from the point where the claim's support (`model_support`, same reading) crosses 0.5,
    as a share of the way to 0 or 1: the support saturates (any P above floor + span is full support), the
    confidence does not.

    >>> [round(model_confidence(p, (0.1, 0.4)), 3) for p in (0.0, 0.15, 0.3, 0.65, 1.0)]
    [1.0, 0.5, 0.0, 0.5, 1.0]
    """
    floor, span = reading or (MODEL_FLOOR, MODEL_SPAN)
    turn = floor + span / 2
    return clip((probability - turn) / (1.0 - turn) if probability >= turn else (turn - probability) / turn)


@dataclass
class SentenceCheck:
    """The verdict on one answer sentence."""

    sentence: str
    support: float
    """P(supported) from the consistency model, 0 on a hard failure, capped at 0.5 when most words are new."""
    contradiction: float
    reason: str
    hard: bool = False
    confidence: float = 1.0
    """Confidence in the verdict on this sentence (supported when support >= 0.5): `model_confidence` of the model's
    P(supported); a lexical cap's distance from 0.5; 1.0 for a rule (a hard failure, no evidence, not English)."""
    features: dict[str, float] = field(default_factory=dict)
    """What the combination read (model probabilities, coverage, `claim_features`); empty on a hard failure."""


_LABELLED = re.compile(r"^\W*[A-Za-z][\w '’()+-]{0,30}:\s+(?=\S)")
"""A labelled line ("Next change: not before January 2027"): its label says what the fragment after it is about, so
it is read as it stands, not as an answer to the whole question.

>>> [bool(_LABELLED.match(s)) for s in ("Next change: not before January 2027", "Current rate (21+): €12.40", "Zhenjin.")]
[True, True, False]
"""


def claim_features(claim: str, haystack: str, everything: str, closest: str, asked: str = "") -> dict[str, float]:
    """Cheap claim features the artifact's combination may weigh beside P(supported) and coverage: capitalised names
    the cited evidence never mentions (up to 3), coverage by all of the item's evidence (a claim may join facts of
    passages it does not cite), and a negation flipped against the closest evidence sentence (a correction of the
    user's own figure, in `asked`, is none).

    >>> claim_features("Ada Lovelace met Babbage in Turin.", "Ada Lovelace met Charles Babbage in London.",
    ...                "Ada Lovelace met Charles Babbage in London.", "Ada Lovelace met Charles Babbage in London.")
    {'novel_names': 1.0, 'coverage_all': 0.8, 'negation_flip': 0.0}
    """
    return {"novel_names": float(min(len(novel_names(claim, haystack)), 3)),
            "coverage_all": lexical_coverage(claim, everything),
            "negation_flip": float(negation_flip(claim, closest, asked))}


async def _sentence_support(ctx: Context, sentences: list[str]) -> list[SentenceCheck]:
    """Check each sentence's claim against the evidence it cites (else the selected evidence, else all of it):
    hard failures first (a number no evidence item gives, a contrasting attribute, a past date presented as
    upcoming), then the consistency model on the claim and the evidence sentences closest to it. Sentences
    without a claim (`claim_text`) are left out; a sentence not in English counts as unsupported (the interaction's
language was checked before: `_require_readable_interaction`), and a claim citing only evidence the model cannot
read is checked against the evidence it can."""
    context = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    # An answer that declines has no terse answer to read with its question: what is left of its sentences once the
    # declining clauses go ("[Doc 2] covers the Yuan dynasty, but not this") is read as it stands.
    answering = not ctx.rule("refusal.detect").findings["refusal"]
    every_sentence = [s for d in ctx.item.evidence for s in split_sentences(d.text)]
    everywhere = " ".join(doc_text(d) for d in ctx.item.evidence)
    asked_lower, everywhere_lower, undated = context.lower(), everywhere.lower(), dated_months(context)
    known = frozenset(_names(f"{context} {everywhere}"))  # the names a frame in front of a claim does not give
    published = [f"{d.published:%B %Y}" for d in ctx.item.evidence if d.published]
    content = stems(f"{context} {everywhere}")
    # the figures the answer works out from known ones in any of its sentences ("6 days × £38 = £228", a time of day, a
    # change's size, a figure the number check reads as worked out), which its other sentences may state
    answer = _answer_sentences(ctx)
    # the answer's lead: its first sentence that is a claim or a copy (not a header, a quote or a restatement)
    lead = next((body for body, kind in _answer_parts(ctx) if kind in ("claim", "copy")), answer[0] if answer else None)
    worked = answer_worked(answer, ctx.item.evidence, context) | days_since(" ".join(answer), context, ctx.item.now)
    weekdays = worked_weekdays(context, everywhere)
    checks: list[SentenceCheck | None] = []
    # (index, claim, window, lexical doubt, coverage, claim_features)
    pending: list[tuple[int, str, list[str], str, float, dict[str, float]]] = []
    unframed: dict[int, tuple[float, dict[str, float]]] = {}  # index: (coverage, features) without a frame in front
    for sentence in sentences:
        if not is_english(strip_citations(sentence)):
            # Inside an interaction in English, a sentence the model cannot read is not a way out of the check.
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{sentence[:80]!r}: not English, so it cannot be checked"))
            continue
        claim = claim_text(sentence, context, content)
        if claim is None:
            continue
        claim = verdict_line(claim)  # "Older: Halvard University" is the verdict "Halvard University is older."
        # ... as is a terse answer to a choice question, the answer's first line: "Kilbride Park (1898 vs 1905)."
        claim = (choice_verdict(claim, ctx.item.query) if answering and answer[:1] == [sentence] and is_fragment(claim)
                 else None) or claim
        # The query's names dropped in brackets ("(Lenovo)") are the user's words, not the claim's: every check reads
        # the claim without them (the closest evidence, the coverage, the model): echoing the question is worth nothing.
        claim = query_asides_removed(claim, context).strip() or claim
        if not is_english(claim):
            # Inside an English answer, a sentence the model cannot read is not a way out of the check (a keyword
            # list, a sentence in another language): it counts as unsupported.
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{claim[:80]!r}: not English, so it cannot be checked"))
            continue
        # A figure a newer item replaces is outdated whichever item the claim cites: citing only the old page does
        # not make it current.
        stale = stale_future(claim, ctx.item.now) or (ctx.item.now is not None and superseded_figure(
            claim, [(doc_text(d), d.published) for d in ctx.item.evidence], ctx.item.now))
        if stale:
            checks.append(SentenceCheck(sentence, 0.0, 1.0, f"{claim[:80]!r}: {stale}", hard=True))
            continue
        docs = sentence_evidence(ctx, sentence)
        if not docs and not re.search(r"\[\s*Doc", sentence, re.IGNORECASE):
            docs = list(ctx.item.evidence)
        if not docs:
            checks.append(SentenceCheck(sentence, 0.0, 0.0, f"{claim[:80]!r}: no evidence to support it"))
            continue
        # "[Doc 2] covers Force, but not this." claims only that the evidence it cites names its topic: where that
        # evidence does (its title or text), there is no claim about the world to check.
        topic = scope_topic(sentence)
        if topic and any(topic.lower() in doc_text(d).lower() for d in docs):
            continue
        if not all(_readable(d) for d in docs):
            # Citing an item the model cannot read must not take the claim out of the check: it is checked against
            # the readable evidence instead (most of the evidence is readable, or the item was not scored at all).
            docs = [d for d in docs if _readable(d)] or [d for d in ctx.item.evidence if _readable(d)]
        evidence_sentences = list(dict.fromkeys(
            [d.title for d in docs if d.title] + [s for d in docs for s in split_sentences(d.text)])) or [doc_text(d) for d in docs]
        similarity = (await ctx.similarity([claim], evidence_sentences))[0]
        closest = evidence_sentences[int(np.argmax(similarity))]
        supported, why = claim_support(claim, docs, float(similarity.max()), context, closest, worked)
        # ... and without each hedge or lead-in it opens with (`lead_readings`): "Good news;" in front of a swapped
        # figure must not keep the claim from following the evidence sentence whose figure it swaps.
        for led in lead_readings(claim, known, content) if supported else ():
            supported, why = claim_support(led, docs, float(similarity.max()), context, closest, worked)
            if not supported:
                break
        # A verdict between the two things asked about is checked against what every evidence item gives each.
        # (... and one on which of them grew the more, against the change the evidence gives each)
        growth = named_growth(claim, ctx.item.evidence, context) if supported else None
        verdict = growth or (named_verdict(claim, every_sentence, context) if supported else None)
        if verdict and not verdict[0]:
            supported, why = verdict
        if not supported and why.startswith("numbers not in") and len(docs) < len(ctx.item.evidence):
            # A number the cited passage lacks but another evidence item gives is a citation slip, not an invented
            # number (WiCE claims join facts of several passages): hard only when no evidence item has it. A
            # contrasting attribute stays hard against the passage it cites.
            anywhere, why_anywhere = claim_support(claim, list(ctx.item.evidence), float(similarity.max()), context,
                                                   closest, worked)
            hard = not anywhere and _HARD_FAILURE.search(why_anywhere)
            # ... unless the claim follows a sentence of the passage it cites with the other item's figure put in
            # that sentence's place (an older copy's figure in the current page's sentence): that is a swap.
            swap = "" if hard else swapped_value(claim, [s for d in docs for s in split_sentences(d.text)])
            if swap:
                supported, why = False, swap
            elif not hard:  # the doubt, if any, is what the whole evidence leaves unexplained
                supported, why = anywhere, why_anywhere
        else:
            hard = not supported and _HARD_FAILURE.search(why)
        if hard:
            checks.append(SentenceCheck(sentence, 0.0, 1.0, f"{claim[:80]!r}: {why}", hard=True))
            continue
        top = sorted(np.argsort(-similarity)[:SUPPORT_WINDOW].tolist())
        window = [evidence_sentences[i] for i in top]
        doubt = "" if supported else why
        # The user's words are no evidence: a name, a number or a word only the query gives supports nothing (a
        # false premise must not supply its own support).
        haystack = " ".join(doc_text(d) for d in docs)
        # A figure derived from the evidence's ("2 years before 2007", "a difference of 8 years") is checked by its
        # arithmetic (`claim_support`), which the model cannot do: the model reads the claim without it, and a
        # sentence that only derives a figure has nothing left for the model.
        reading = without_derivation(claim, haystack, context) if supported else claim
        # ... as is a change in per cent between two of its figures, and which of two changes is the larger
        reading = (without_changes(reading, haystack, frozenset(change_sizes(claim, docs))) if supported and reading
                   else reading)
        # (a verdict on which of the two grew the more, with nothing else in it, is all checked: "Aldwick grew faster")
        reading = None if growth and growth[0] and growth_only(claim, context) else reading
        # ... and a total of the user's count at the evidence's rate is read as that rate ("£190 at Kestrel" as "£38
        # at Kestrel"), which the evidence sentence gives
        # (where the claim does not state that rate itself: "£38 a day, so six days come to £228" names its rate)
        totals = {total: rate for total, rate in (counted_totals(claim, haystack, context) if supported and reading
                                                   else {}).items() if not numbers(rate) & numbers(claim)}
        reading = with_rates(reading, totals) if totals else reading
        # ... and without a clause stating a day's total of the doses it counts, at a dose the answer states ("Up to 4
        # doses in 24 hours, so no more than 30 ml a day" as "Up to 4 doses in 24 hours")
        # (a total the evidence states itself, "max 4 g in 24 hours", the model reads as it reads any figure)
        doses = dose_totals(reading, answer, worked, [doc_text(d) for d in docs]) if supported and reading else {}
        doses = {figure: made for figure, made in doses.items() if figure not in _given(haystack)}
        reading = without_dose_totals(reading, doses) if doses else reading
        # ... and without a figure of the user's it denies in passing ("Prices rose 8%, not 100%."), a correction the
        # number check has read: the model, which does not read the user's words, would take the denial for a claim
        reading = without_users_figures_denied(reading, context) if supported and reading else reading
        # (a sentence of worked-out figures only, "About 1 hour 50 minutes.", has nothing left beside its arithmetic)
        reading = None if supported and reading and figures_only(reading, haystack) else reading
        if reading is None:
            checks.append(SentenceCheck(claim, 1.0, 0.0, "", confidence=1.0))
            continue
        read = claim
        if (answering and sentence == lead and is_fragment(reading) and not _LABELLED.match(reading)
                and not corrects_question(claim, context) and not corrects_question(sentence, context)):
            # A fragment ("Zhenjin.", "The answer is solar.") claims nothing on its own: its claim is the question it
            # answers, answered by it. The model reads the two together, from the evidence sentences closest to
            # both, and a name the question gives that the evidence lacks is a name the claim gives.
            # Only the answer's lead answers the question: a later fragment is a point of what the lead opened (a
            # list's "Take paracetamol if needed", a table's row, "Running late?"), read as it stands; read with the
            # question, a false premise's words would be the claim's. (... as they would in a fragment that corrects
            # the question: "Prices rose 8%, not 100%." is read as it stands; so is what is left of a sentence whose
            # correction the claim reading took off as a frame, "The report doesn't say the lake got colder - it says it
            # warmed." read as "it says it warmed.")
            reading = read = f"{ctx.item.query.strip().rstrip('?.! ')}? {reading}"
            similarity = (await ctx.similarity([reading], evidence_sentences))[0]
            top = sorted(np.argsort(-similarity)[:SUPPORT_WINDOW].tolist())
            window = [evidence_sentences[i] for i in top]
        # The user's topic ("Estmark") that some evidence item names is no invented name where the cited item, a
        # news snippet, leaves it out; any other name must be in what the claim cites.
        # ... and a name of the question that the evidence names in another spelling ("Telnet" for "Telenet",
        # `names_in`) is the user's slip, not a name the claim adds.
        # ... and the month of an item's publication date names that item ("the June 2024 page"), and so does that of a
        # date worked out ("by 17 March" from the user's "on 3 March" and 14 days, not "3 March"; "2 April", 30 days on)
        # ... and a day of the week the user gives, or one a span the evidence counts from an event ends on from it
        # ("48 hours after finishing" a course that ends on Friday: "Saturday is too soon", "wait until Sunday")
        names = [n for n in novel_names(reading, " ".join([haystack, *published])) if not (
            n in asked_lower and names_in({n}, everywhere_lower) or n in undated and dated_days(n, reading) & worked
            or n in worked_months(reading, haystack, context) or n.removesuffix("s") in weekdays)]
        if names:
            doubt = f"names not in the evidence: {', '.join(names[:3])}"
        # (a claim joining sentences: one may deny what it denies)
        # (a fragment's claim is its question answered by it: "What did X not require? Y." denies what the evidence
        # sentence that gives Y asserts)
        # (... unless the evidence denies in words what the question denies with a negator: "the crown's refusal to
        # allow non-Catholics to settle" answers "What persons were not allowed to settle?")
        elif (negated := read if not denies_in_words(" ".join(window)) else claim) and negation_flip(
                negated, window[0] if len(window) == 1 else evidence_sentences[int(np.argmax(similarity))], context
        ) and negation_flip(negated, " ".join(window), context):
            doubt = "negates what the evidence says"
        # ... and a word of the question said where the evidence says its opposite ("early" Medieval ideas, "late")
        elif opposite := question_opposite(ctx.item.query, evidence_sentences[int(np.argmax(similarity))],
                                           None if read != claim else claim):
            doubt = opposite
        elif unfounded_denial(claim, haystack, ctx.item.query):
            doubt = "denies what no evidence denies"
        # The combination's coverage features were fitted over the evidence and the user's words, so they are read
        # so; what decides on the user's words alone (numbers, names, a contrasting word, a denial) reads the
        # evidence only, and `coverage_evidence` is the evidence's share alone.
        everything = everywhere + " " + context
        extra = claim_features(claim, haystack, everything, closest, context)
        pending.append((len(checks), reading, window, doubt, lexical_coverage(claim, haystack + " " + context), extra))
        # ... and on what it says without a frame or a hedge in front (`lead_readings`, strict): the combination keeps
        # the lower, so a frame's words ("Not stated directly -", found in the evidence) cannot pad the claim's share.
        core = ([claim, *lead_readings(claim, known, content, strict=True)])[-1]
        if core != claim:
            unframed[len(checks)] = (lexical_coverage(core, haystack + " " + context),
                                     {**claim_features(core, haystack, everything, closest, context),
                                      "coverage_evidence": lexical_coverage(core, everywhere)})
        checks.append(None)
    if pending:
        # Each claim is read as written and without each hedge it opens with (`lead_readings`); the reading the
        # model supports least stands, so no hedge can raise a claim's support.
        readings = [[claim, *lead_readings(claim, known, content)] for _, claim, _, _, _, _ in pending]
        flat = await ctx.scorer.probabilities(
            [(" ".join(window), text) for (_, _, window, _, _, _), texts in zip(pending, readings, strict=True)
             for text in texts])
        probabilities, at = [], 0
        for texts in readings:
            probabilities.append(min(flat[at:at + len(texts)], key=lambda row: float(row[0])))
            at += len(texts)
        combination = getattr(ctx.scorer.model(), "combination", None)
        # The user's words are no evidence: coverage by the evidence alone is the combination's lexical feature.
        for (index, claim, _, lexical, coverage, extra), row in zip(pending, probabilities, strict=True):
            extra = {**extra, "coverage_evidence": lexical_coverage(claim, everywhere)}
            p_supported = (combination.probability(float(row[0]), coverage, extra) if combination
                           else float(row[0]))
            if combination and index in unframed:
                p_supported = min(p_supported, combination.probability(float(row[0]), *unframed[index]))
            reading = combination.support if combination else None
            support = model_support(p_supported, reading)
            confidence = model_confidence(p_supported, reading)
            contradiction = float(row[1])
            features = {"p_supported": float(row[0]), "p_contradicted": float(row[1]), "coverage": coverage, **extra}
            reason = ""
            if lexical:
                # New names, a flipped negation, or mostly new words without a close paraphrase: the model alone
                # does not clear the claim (a name or a negation is close to proof; new wording is not).
                support = min(support, 0.3 if lexical.startswith("words not in") else 0.15)
                confidence = abs(2.0 * support - 1.0)
                reason = f"{claim[:80]!r}: {lexical}"
            elif support < 0.5:
                verdict = "contradicted" if contradiction >= float(row[2]) else "unsupported"
                reason = f"{claim[:80]!r}: {verdict} by the evidence (P(supported) {p_supported:.2f})"
            checks[index] = SentenceCheck(claim, support, contradiction, reason, confidence=confidence,
                                          features=features)
    return [c for c in checks if c is not None]


# -- bottom-line methods ---------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _readable_text(text: str) -> bool:
    return is_english(text)


def _readable(doc: Evidence) -> bool:
    return _readable_text(doc_text(doc))


def _require_readable_interaction(ctx: Context) -> None:
    """The interaction (the query and the evidence, which every response to it shares) must be in a language the
    local models read; otherwise the hallucination dimensions are structurally unscored for this interaction (the
    engine leaves them out for every response alike, so no response gains). The response's own language decides
    nothing here: an answer in another language than the user's, in keyword style, with accents or look-alike
    letters, is read (accents and look-alikes folded) and every sentence the model cannot read counts as
    unsupported."""
    if not is_english(ctx.need):
        raise Unscored("unsupported_language", "the query is not English; the local consistency model reads English only")
    evidence = [doc_text(d) for d in ctx.item.evidence]
    readable = sum(len(t) for t, d in zip(evidence, ctx.item.evidence, strict=True) if _readable(d))
    if evidence and readable < 0.5 * sum(len(t) for t in evidence):
        raise Unscored("unsupported_language", "the evidence is mostly not English; the local consistency model reads English only")


async def claim_hallucination(ctx: Context) -> tuple[float, str, float]:
    """The support of the answer's claims (`_support_of`), scaled by how well the evidence grounds the answer's
    wording (`coverage_scaled`): the artifact's answer stack (`AnswerStack`, fitted on the public sets' fit split)
    reads the answer's lexical grounding (`answer_grounding`); without one, the share of its content words the
    evidence gives. The grounding can only lower the claims' support, never lift an answer whose claims fail."""
    _require_readable_interaction(ctx)
    checks = await _claim_checks(ctx)
    score, explanation, confidence = _support_of(ctx, checks)
    if not checks and _answer_parts(ctx):
        # Sentences that state nothing to check (a refusal, advice naming nothing specific) are no hallucination,
        # whatever their wording. An answer too short to have parts ("it is a comedy") still says something: its
        # coverage is all there is to go on.
        return score, explanation, confidence
    features = answer_grounding(ctx)
    stack = getattr(ctx.scorer.model(), "answer_stack", None) if ctx.scorer is not None else None
    grounding = stack.probability(features) if stack is not None else features["coverage"]
    scaled = coverage_scaled(score, grounding)
    if (scaled >= 0.5) != (score >= 0.5):
        confidence = min(confidence, abs(2.0 * scaled - 1.0))
    return scaled, (f"{explanation}; the evidence gives {features['coverage']:.0%} of the answer's words"
                    + (f" (grounding {grounding:.2f})" if stack is not None else "")), confidence


def answer_grounding(ctx: Context) -> dict[str, float]:
    """The lexical grounding (`grounding.lexical_features`) of the answer's sentences that are not copies of an
    evidence sentence, against every evidence item's title and text (the user's words are no evidence), each read as
    the claim checker reads it (`claim_text`: no frame that only announces the answer, no source line, no refusal;
    `without_derivation`: no figure the arithmetic derived or ordered) and without the label of a labelled line
    ("Per dose: 500 mg"): appending
    copied sentences cannot raise it, as they cannot dilute a false claim in the claim score. An answer of copies
    only is fully grounded."""
    # (Nor what the sources cover instead, "[Doc 1] covers Warsaw, but not this.": it claims nothing about the world.)
    copies = {body for body, kind in _answer_parts(ctx) if kind in ("copy", "scope")}
    read = [_without_source_words(claim_text(sentence, ctx.item.query))
            for sentence in split_sentences(ctx.parsed.answer or "") if list_marker_removed(sentence) not in copies]
    # (a source's date, "the 2025 source", is the evidence's: its publication date)
    texts = [dated_text(d) for d in ctx.item.evidence]
    haystack = " ".join(texts)
    # What the arithmetic checked (a derived figure, two figures rightly ordered) is read as the model reads it.
    derived = [without_derivation(text, haystack, ctx.item.query) for text in read if text]
    kept = [_LABELLED.sub("", text, count=1) for text in derived if text]
    if not kept:
        return dict.fromkeys(LEXICAL_FEATURES, 1.0)
    return lexical_features(" ".join(kept), texts)


def _without_source_words(text: str | None) -> str | None:
    """A sentence that names a source ("the 2025 source", "an older page") without the words that name it and say
    which is the newer, as the claim check reads them beside a source (`claims._SOURCES`, `_RECENCY`): which page is
    the more recent is no wording of the world's the evidence could ground. Other sentences as they are.

    >>> _without_source_words("An older page from 2004 gives 1931 instead, but the 2025 source is the more recent one.")
    'An from 2004 1931 instead, but the 2025 is the more .'
    >>> _without_source_words("The older bridge is 212 m tall.")
    'The older bridge is 212 m tall.'
    """
    said = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", text or "")}
    if not said & _SOURCES:
        return text
    framing = _SOURCES | _RECENCY | _GOING
    return re.sub(r"\s{2,}", " ", re.sub(r"[A-Za-z]+", lambda m: "" if stem(m.group(0).lower()) in framing else m.group(0), text))


async def _claim_checks(ctx: Context) -> list[SentenceCheck]:
    """The checks of the answer's claims: each distinct sentence of its own, and the copied sentences that fail (or
    all of them when the answer is nothing else)."""
    # Each distinct sentence is checked once: a policy stuck in a repetition loop costs one check per sentence it
    # repeats, not per repetition (the repetition itself is the n-gram rule's and redundant_repetition's to judge).
    # A sentence copied from the evidence is supported by construction: it is checked (a copy that misquotes still
    # fails) but averaged in only when the answer is nothing else, so appending copies cannot dilute a false claim.
    parts = _answer_parts(ctx)
    own = list(dict.fromkeys(body for body, kind in parts if kind != "copy"))
    copies = [body for body in dict.fromkeys(body for body, kind in parts if kind == "copy") if body not in own]
    if not own and not copies:
        return []
    checks = await _sentence_support(ctx, own)
    copied = await _sentence_support(ctx, copies)
    # A copied sentence that holds is supported by construction and stays out of the aggregate (appending copies
    # must not dilute a false claim); one that misquotes (a negation slipped in) counts like any claim. Beside what
    # the sources cover instead ("[Doc 1] covers Warsaw, but not this."), copies are still all the answer says.
    alone = all(kind in ("copy", "scope") for _, kind in parts)
    return checks + [c for c in copied if c.support < 0.5 or alone]


def _support_of(ctx: Context, checks: list[SentenceCheck]) -> tuple[float, str, float]:
    """Support of the answer's claims by the evidence they cite (or the selected evidence when they cite
    nothing): per claim P(supported) from the consistency model, 0 on a hard failure (a number the evidence lacks,
    a contrasting attribute, a stale date). One clear hallucination is enough: the score leans on the weakest
    claim (0.6 * min + 0.4 * mean), so more supported sentences do not average a false one away. Citations to
    unknown documents cap the score at 0.5."""
    if not checks:
        return 1.0, "no factual sentences", 1.0
    reasons = [c.reason for c in checks if c.reason and c.support < 0.5]
    unknown = ctx.rule("citations.valid").findings.get("unknown", [])
    supports = [c.support for c in checks]
    score = 0.6 * min(supports) + 0.4 * float(np.mean(supports))
    if any(c.hard for c in checks):
        score = min(score, 0.25)
    # A pass is as sure as its least sure claim; a failure as its surest unsupported claim.
    failing = [c.confidence for c in checks if c.support < 0.5]
    confidence = (max(failing) if failing else 0.0) if score < 0.5 else min((c.confidence for c in checks), default=1.0)
    if unknown:
        if score >= 0.5:
            confidence = 0.0  # capped onto the boundary: no verdict to be sure of
        score = min(score, 0.5)
        reasons.append(f"cites unknown documents {', '.join(unknown)}")
    summary = f"{sum(s >= 0.5 for s in supports)} of {len(supports)} claims supported"
    return score, summary + ("" if not reasons else "; " + "; ".join(reasons[:4])), confidence


COVERAGE_FLOOR = 0.5
"""The least share of the claim score an answer keeps when none of its words are in the evidence
(`coverage_scaled`): a fully supported answer (claim score 1) still passes (>= 0.5) on coverage alone."""
SCORE_OFFSET = 0.002
"""Keeps the coverage's ranking among answers whose claims all fail (claim score 0: a hard failure), small enough
that such an answer still weighs on the gate as a failure (at most 0.002)."""


def coverage_scaled(score: float, coverage: float) -> float:
    """The claim score with the answer's evidence coverage in it: `(score + SCORE_OFFSET) / (1 + SCORE_OFFSET)`
    times a factor from `COVERAGE_FLOOR` (no word in the evidence) to 1 (every word). Monotone in both, and never
    above the claim score's own value but for the offset (coverage can only lower it: no wording gains over what its
    claims' support gives), and continuous where the claim score saturates at 0 or 1: answers the model reads alike are still ranked by how
    much of what they say the evidence gives, the signal the lexical baseline carries. Chosen on the fit split
    (`benchmarks/FIDELITY.md`, issue 29).

    >>> [round(coverage_scaled(1.0, c), 3) for c in (1.0, 0.5, 0.0)]
    [1.0, 0.75, 0.5]
    >>> round(coverage_scaled(0.0, 1.0), 4), round(coverage_scaled(0.0, 0.5), 4)
    (0.002, 0.0015)
    """
    factor = COVERAGE_FLOOR + (1.0 - COVERAGE_FLOOR) * coverage
    return (score + SCORE_OFFSET) / (1.0 + SCORE_OFFSET) * factor


def answer_coverage(ctx: Context) -> float:
    """Share of the answer's content words found in the evidence (the items' titles and texts; the user's words are
    no evidence), over the answer's sentences that are not copies of an evidence sentence (`answer_grounding`)."""
    return answer_grounding(ctx)["coverage"]


def _lead_claims(ctx: Context) -> list[str]:
    """Answer sentences that may be the answer's lead, in order: headers, quoted lines, restatements of the query
    and sentences copied from the evidence are not (a copied sentence is the evidence's claim, not the answer's;
    crediting it would let one copied sentence shield the real lead). A claim behind a stacked hedge ("It may be that
    ...") is still the answer's lead: the hedge earns it no credit elsewhere, and it must not pass the lead check on to
    the sentence after it."""
    return [body for body, kind in _answer_parts(ctx) if kind in ("claim", "hedge")]


async def highlight_hallucination(ctx: Context) -> tuple[float, str, float]:
    """The claim check on the answer's lead: its first sentence that makes a claim of its own (`_lead_claims`),
    else, when every claim is a header, a quote, a restatement or a copy, the first sentence that makes a claim."""
    _require_readable_interaction(ctx)
    for sentences in (_lead_claims(ctx), _answer_sentences(ctx)):
        for sentence in sentences:
            checks = await _sentence_support(ctx, [sentence])
            if checks:
                check = checks[0]
                return check.support, check.reason or f"lead claim supported (P(supported) {check.support:.2f})", check.confidence
    return 1.0, "no claim in the answer", 1.0


SELF_CONFLICT_FLOOR, SELF_CONFLICT_SPAN = 0.75, 0.2
"""How P(contradicted) between two of the answer's own claims (or a claim and an earlier turn's sentence) reads as
a conflict: none below the floor, full above floor + span. Chosen on the project's constructed examples, never on a
held-out benchmark."""
TOPIC_SIMILARITY = 0.3
"""Two sentences are compared only when they are about the same thing (MiniLM similarity above this)."""
MODEL_TOPIC_SIMILARITY = 0.6
"""... and read by the consistency model only above this."""
"""Claims per text compared pairwise (a long answer's first 24): bounds the pairs at 24 x 23 / 2."""

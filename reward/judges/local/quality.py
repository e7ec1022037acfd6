"""The basic-quality methods: `self_consistency` and `multi_turn_conflict` (claims of the answer that contradict each
other or an earlier answer of the session) and `answer_quality` (a floor: empty answers, judge-addressing text,
leaked scaffolding, gibberish, degenerate loops).
"""

from __future__ import annotations

import re

import numpy as np

from reward.format import split_sentences, strip_citations
from reward.judges.local.claims import swapped_value
from reward.judges.local.context import Context, Unscored, _answer_parts, clip, copy_reading
from reward.judges.local.support import (
    MODEL_TOPIC_SIMILARITY,
    SELF_CONFLICT_FLOOR,
    SELF_CONFLICT_SPAN,
    TOPIC_SIMILARITY,
    _require_readable_interaction,
    _sentence_support,
)
from reward.judges.local.negation import _NO, _SCOPE_END, _asserted, _free_of, _is_negation, _negated_scope
from reward.judges.local.text import (
    _CLAUSE,
    claim_text,
    content_words,
    list_marker_removed,
)
from reward.memo import by_content
from reward.rules import RULES
from reward.rules.checks import CopyParams, tokens
from reward.rules.keywords import keyword_list_share
from reward.rules.verdicts import is_premise_verdict
from reward.textnorm import mixes_languages


async def _claim_conflict(ctx: Context, earlier: list[str], claims: list[str], *, within: bool) -> tuple[float, str]:
    """The strongest conflict between a claim and an earlier sentence on the same topic: the consistency model's
    P(contradicted) of (earlier sentence, claim), and a negation flipped between them (`negation_flip`). `within`:
    both lists are the answer's own claims, and each claim is compared with those before it. Returns (conflict in
    [0, 1], what it found)."""
    if not earlier or not claims:
        return 0.0, ""
    similarity = await ctx.similarity(earlier, claims)
    pairs = [(i, j) for j in range(len(claims)) for i in range(len(earlier))
             if (not within or i < j) and similarity[i, j] > TOPIC_SIMILARITY]
    if not pairs:
        return 0.0, ""
    for i, j in pairs:
        if conflict_flip(claims[j], earlier[i]):
            return 1.0, f"{claims[j][:80]!r} negates {earlier[i][:80]!r}"
    # The model reads only pairs that are close paraphrases in topic (it cannot tell a contradiction from a
    # neighbouring fact on a looser match); the strict negation match above reads every pair on the topic.
    pairs = [(i, j) for i, j in pairs if similarity[i, j] > MODEL_TOPIC_SIMILARITY]
    if not pairs:
        return 0.0, ""
    probabilities = await ctx.scorer.probabilities([(earlier[i], claims[j]) for i, j in pairs])
    best = int(np.argmax(probabilities[:, 1]))
    p = float(probabilities[best, 1])
    conflict = clip((p - SELF_CONFLICT_FLOOR) / SELF_CONFLICT_SPAN)
    i, j = pairs[best]
    return conflict, f"{claims[j][:80]!r} against {earlier[i][:80]!r}: P(contradicted) {p:.2f}"


_LIGHT_STOPWORDS = frozenset("a an the of to in on at by for with from as and or is are was were be it its this that "
                             "these those you your i we they he she her his them their can will do does two both "
                             "either".split())


def _denied_phrases(text: str) -> list[list[str]]:
    """The two or three content words after each negation (within six words) where two of them are in the
    negation's own clause (`_SCOPE_END`): in "To avoid this, change your train" nothing is denied of the train, and
    in "aren't refundable, but you can change" nothing of changing."""
    words = [(w, n) for n, clause in enumerate(_SCOPE_END.split(text.lower())) for w in re.findall(r"[a-z']+", clause)]
    out = []
    for i, (word, clause) in enumerate(words):
        if _is_negation(word):
            after = [(w, n) for w, n in words[i + 1:i + 7] if w not in _LIGHT_STOPWORDS and w.isalpha()]
            if len(after) >= 2 and sum(n == clause for _, n in after) >= 2:
                out.append([w for w, _ in after[:3]])
    return out


def _holds(phrase: list[str], words: list[str]) -> bool:
    """Every word of the phrase, the first within 8 words before the others, in `words`, with no negation before."""
    stems = [w[:4] for w in words]
    wanted = [w[:4] for w in phrase]
    for j, word in enumerate(stems):
        if word != wanted[0]:
            continue
        if all(w in stems[j + 1:j + 9] for w in wanted[1:]):
            before = words[max(0, j - 4):j]
            if not any(_is_negation(b) for b in before):
                return True
    return False


@by_content
def conflict_flip(claim: str, other: str) -> bool:
    """One sentence denies what the other asserts, read more strictly than `negation_flip` (the two compare
    sentences of one author, where a loose match would call every list a contradiction): the denied phrase is two or
    three content words after the negation, all of which the other sentence asserts within a few words, and the two
    sentences do not deny the same thing.

    >>> conflict_flip("Timing: never take the two at the same time.", "Adults can take paracetamol and ibuprofen at the same time.")
    True
    >>> conflict_flip("Limits: write down the time of each dose.", "Not at the same time: give either one, not both together.")
    False
    >>> conflict_flip("Not more time to pay: tax owed is still due.", "More time to file: file Form 4868 by that date, or pay part.")
    False
    >>> conflict_flip("To avoid this, change your train before the 10:15 leaves.",
    ...               "Advance tickets aren't refundable, but you can change to a different train before the 10:15 leaves.")
    False
    """
    claim, other = strip_citations(claim), strip_citations(other)
    if _negated_scope(claim) & _negated_scope(other):
        return False
    claim_words = re.findall(r"[a-z']+", claim.lower())
    other_words = re.findall(r"[a-z']+", other.lower())
    return (any(_holds(p, other_words) for p in _denied_phrases(claim))
            or any(_holds(p, claim_words) for p in _denied_phrases(other))
            or any(_asserted(p, claim_words, _NO) and not _asserted(p, other_words, _NO) for p in _free_of(other.lower()))
            or any(_asserted(p, other_words, _NO) and not _asserted(p, claim_words, _NO) for p in _free_of(claim.lower())))


_RETRACTS = re.compile(r"\bcorrect(?:ion|ing)?\b|\bwrong\b|\bmistaken\b|\ba mistake\b|\ban error\b|\bincorrect\b|"
                       r"\b(?:does not|doesn't|no longer|did not) hold\b|\bcontrary to\b|\bretract\b|"
                       r"\btake (?:that|it) back\b|\bactually\b|\b(?:earlier|before|previously) I (?:wrote|said|told you)\b",
                       re.IGNORECASE)
_ASSISTANT = re.compile(r"\bI\b|\b[Mm]y\b|\b(?:[Ee]arlier|[Pp]revious(?:ly)?)\b")
"""A sentence that retracts or corrects the assistant's earlier answer ("to correct my earlier answer: ...", "that
was wrong": a word of correction and a word for the assistant, `_ASSISTANT`): a correction only where the evidence
leaves the earlier answer unsupported and supports what replaces it (`multi_turn_conflict`), never on its word."""
_QUALIFIES = re.compile(r"\b(?:earlier|previous|last|above|first) (?:answer|reply|message)\b|\b(?:does not|doesn't|"
                        r"do not|don't|no longer) apply\b|\bunlike (?:what|my)\b|\bhas changed\b", re.IGNORECASE)
"""A sentence that says it departs from the earlier answer without retracting it ("the adult advice from my last
answer does not apply to children"): it narrows the earlier answer, which may stand for its own case, and is not read
against it when the evidence supports what it says; else it is read like any claim."""


_DEMONSTRATIVE = re.compile(r"^\W*(?:that|it|this) (?:was|is) (?:wrong|incorrect|mistaken|a mistake|an error)\W*$",
                            re.IGNORECASE)


def _retraction(sentence: str) -> tuple[str | None, str]:
    """How an answer sentence speaks of the earlier answer: "retracts" (`_RETRACTS`), "qualifies" (`_QUALIFIES`) or
    None, and what it claims besides: the sentence without the clauses that speak of the earlier answer."""
    text = strip_citations(sentence)
    kind = ("retracts" if _RETRACTS.search(text) and _ASSISTANT.search(text)
            else "qualifies" if _QUALIFIES.search(text) else None)
    if kind is None:
        return None, sentence
    kept = [c for c in _CLAUSE.split(text) if c and c.strip(" .")
            and not (_QUALIFIES.search(c) or _RETRACTS.search(c) and _ASSISTANT.search(c) or _DEMONSTRATIVE.match(c))]
    return kind, ", ".join(c.strip(" .") for c in kept) + "." if kept else ""


def _sentences(text: str) -> list[str]:
    return [list_marker_removed(s) for s in split_sentences(text)]


def _claims(ctx: Context, text: str) -> list[str]:
    context = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    sentences = _sentences(text)
    return list(dict.fromkeys(c for c in (claim_text(s, context) for s in sentences) if c))[:MAX_CONFLICT_CLAIMS]


MAX_CONFLICT_CLAIMS = 24


async def self_consistency(ctx: Context) -> tuple[float, str]:
    """The answer against itself: two of its claims on the same topic that the consistency model reads as
    contradicting (or one negating the other) fail it. 1 - conflict; no two claims on one topic: 1."""
    _require_readable_interaction(ctx)
    claims = _claims(ctx, ctx.parsed.answer or "")
    conflict, why = await _claim_conflict(ctx, claims, claims, within=True)
    return 1.0 - conflict, (f"self-contradiction: {why}" if conflict >= 0.5 else "no claim contradicts another")


async def multi_turn_conflict(ctx: Context) -> tuple[float, str]:
    """The answer against the assistant's earlier answers in the session, with the evidence as the arbiter:

    - a claim on the same topic as an earlier sentence that the consistency model reads as contradicting it (or
      negating it) fails;
    - a claim that follows an earlier sentence the evidence supports but swaps one of its names or figures, where
      the evidence does not support the claim (the earlier answer changed), fails;
    - a sentence that retracts or corrects the earlier answer ("that earlier answer does not hold", "to correct my
      earlier answer: ...") is a correction only when the evidence leaves the earlier answer unsupported and
      supports what the sentence claims instead; retracting an answer the evidence supports fails. A sentence that
      narrows the earlier answer without retracting it ("does not apply to children") is not read against it when
      the evidence supports what it says, and like any claim when it does not.

    No earlier answer: `not_applicable`."""
    earlier_turns = [turn.content for turn in ctx.item.history if turn.role == "assistant"]
    earlier = [c for content in earlier_turns for c in _claims(ctx, content)]
    if not earlier:
        # Every response to this interaction alike: a constant 1 would only dilute the gate's other dimensions.
        raise Unscored("not_applicable", "the session has no earlier answer to conflict with")
    _require_readable_interaction(ctx)
    earlier_support = await _supports(ctx, earlier)
    context = " ".join([ctx.item.query, *(t.content for t in ctx.item.history if t.role == "user")])
    claims = []
    for sentence in _sentences(ctx.parsed.answer or ""):
        kind, rest = _retraction(sentence)
        claim = claim_text(rest, context) if rest else None
        support = (await _supports(ctx, [claim]))[0] if kind and claim else 1.0
        if kind == "retracts":
            # A correction is weighed against the evidence: the earlier answer must be the one the evidence leaves
            # unsupported, and what replaces it one the evidence supports. What it retracts: the earlier sentence
            # closest to what it says instead, else the whole earlier answer.
            replaced = (min(earlier_support) if not claim else
                        earlier_support[int(np.argmax((await ctx.similarity([claim], earlier))[0]))])
            if replaced >= 0.5:
                return 0.0, (f"conflicts with an earlier answer: {sentence[:80]!r} retracts an earlier answer the "
                             f"evidence supports (P(supported) {replaced:.2f})")
            if support < 0.5:
                return 1.0 - clip(2.0 * (0.5 - support)), (f"conflicts with an earlier answer: the correction "
                                                            f"{claim[:80]!r} is not supported by the evidence")
        elif kind == "qualifies" and support >= 0.5:
            # Narrows the earlier answer ("does not apply to her"), and the evidence supports what it says: the
            # earlier answer may stand for its own case.
            continue
        elif claim:
            claims.append(claim)
    claims = list(dict.fromkeys(claims))[:MAX_CONFLICT_CLAIMS]
    conflict, why = await _claim_conflict(ctx, earlier, claims, within=False)
    if conflict < 0.5:
        changed, why_changed = await _changed_claim(ctx, earlier, earlier_support, claims)
        if changed > conflict:
            conflict, why = changed, why_changed
    return 1.0 - conflict, (f"conflicts with an earlier answer: {why}" if conflict >= 0.5
                            else "consistent with earlier answers")


async def _supports(ctx: Context, claims: list[str]) -> list[float]:
    """Each claim's support by the item's evidence (`support._sentence_support`, every claim on its own): a claim
    with nothing to check counts as supported."""
    out = []
    for claim in claims:
        checks = await _sentence_support(ctx, [claim])
        out.append(checks[0].support if checks else 1.0)
    return out



async def _changed_claim(ctx: Context, earlier: list[str], earlier_support: list[float],
                         claims: list[str]) -> tuple[float, str]:
    """A claim that follows an earlier sentence of the assistant word for word but puts another name or figure in
    one of its places (`claims.swapped_value`), where the evidence supports the earlier sentence and not the claim:
    the earlier answer changed against the evidence. Returns (conflict in [0, 1], what it found)."""
    if not claims:
        return 0.0, ""
    similarity = await ctx.similarity(earlier, claims)
    pairs = [(i, j, swap) for j in range(len(claims)) for i in range(len(earlier))
             if similarity[i, j] > MODEL_TOPIC_SIMILARITY and earlier_support[i] >= 0.5
             and (swap := swapped_value(claims[j], [earlier[i]]))]
    if not pairs:
        return 0.0, ""
    wanted = sorted({j for _, j, _ in pairs})
    support = dict(zip(wanted, await _supports(ctx, [claims[j] for j in wanted]), strict=True))
    i, j, swap = min(pairs, key=lambda p: support[p[1]])
    if support[j] >= 0.5:
        return 0.0, ""
    return clip(2.0 * (0.5 - support[j])) if support[j] > 0.0 else 1.0, (
        f"{claims[j][:80]!r} changes {earlier[i][:80]!r} "
        f"({swap.replace('the evidence sentence', 'the earlier answer')}), "
        f"which the evidence supports (P(supported) {earlier_support[i]:.2f} against {support[j]:.2f})")


_GARBAGE = re.compile(r"(?:\{[a-z_]+\}|\[INSERT[^\]]*\]|<\|[a-z_]+\|>|</?(?:plan|evidence|answer)>)", re.IGNORECASE)


_FIGURE_TOKEN = re.compile(r"\d+(?:[.,]\d+)*")
_HEAD = re.compile(r"\s*(?::|;|\s—\s|\s-\s)\s*")
_YES_NO = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)
_YES_NO_QUESTION = re.compile(r"(?:^|[.?!]\s+)\W*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have|"
                              r"had|must|may)\b", re.IGNORECASE)


def _padded_copy(ctx: Context) -> str:
    """Why the answer is pasted evidence, where the copy rule's share of copied n-grams does not see it: every
    sentence that claims something is taken from the evidence (`copies_evidence`, which reads a copy with its
    clauses swapped or another language's words put in), and what the answer adds claims nothing (the question
    restated, a hedge, a keyword line, a header), so words added around a copy do not make it the answer's own. As
    for the copy rule, fewer copied tokens than its `min_tokens` are a short answer taken from the evidence, not
    pasted documents. Empty when the answer is not such a copy."""
    parts = _answer_parts(ctx)
    kinds = [kind for _, kind in parts]
    if "claim" in kinds or "copy" not in kinds:
        return ""
    # A verdict of the answer's own before the evidence's words is an answer that cites its grounds, not a pasted
    # document: "No." to a yes-or-no question, "The question rests on a false premise: X", "The first (1599) came
    # before the second (1884): X" (a head with a figure, or two words that neither the evidence nor the question has;
    # "To repeat: X" is no verdict).
    if _YES_NO_QUESTION.search(ctx.item.query) and _YES_NO.match(strip_citations(ctx.parsed.answer_text)):
        return ""
    asked = {w.lower() for w in content_words(ctx.item.query)}
    given = asked | {w.lower() for w in content_words(" ".join(f"{d.title or ''} {d.text}" for d in ctx.item.evidence))}
    # A terse answer: a word of the evidence that the question does not give, said on its own (too short to be a
    # part) or after the question's words ("... the Advanced Steam movement: pollution [Doc 2]", a table's row).
    listed = {body for body, kind in parts if kind != "restatement"}
    for sentence in split_sentences(ctx.parsed.answer or ""):  # as `_answer_parts` splits it
        if list_marker_removed(sentence) not in listed and any(
                w.lower() in given and w.lower() not in asked for w in content_words(strip_citations(sentence))):
            return ""
    for sentence, kind in parts:
        if kind != "copy":
            continue
        if is_premise_verdict(_HEAD.split(strip_citations(sentence), maxsplit=1)[0]):
            return ""
        head, *rest = _HEAD.split(copy_reading(strip_citations(sentence)), maxsplit=1)
        if rest and (is_premise_verdict(head) or any(ch.isdigit() for ch in head)
                     or sum(w.lower() not in given for w in content_words(head)) >= 2):
            return ""
    if ctx.rule("copy.evidence").findings.get("copied_tokens", 0) < CopyParams().min_tokens:
        return ""
    added = sorted(set(kinds) - {"copy"})
    return (f"{kinds.count('copy')} of its sentences taken from the evidence"
            + (f", and what it adds ({', '.join(added)}) claims nothing" if added else ", nothing of its own"))


async def answer_quality(ctx: Context) -> tuple[float, str]:
    """A floor: empty answers, judge-addressing text (rule), leaked scaffolding, gibberish (few real words), keyword
    lists, another language's words mixed in, pasted evidence (the copy rule, or every claim taken from the evidence
    with only words that claim nothing around it: `_padded_copy`) and degenerate loops (n-gram repetition rule)
    fail."""
    answer = ctx.parsed.answer_text.strip()
    if not answer:
        return 0.0, "empty answer"
    injection = ctx.rule("injection.judge_address")
    if not injection.passed:
        return 0.0, injection.explanation
    if _GARBAGE.search(answer):
        return 0.0, f"leaked scaffolding {_GARBAGE.search(answer).group(0)!r}"
    # A figure is a word of the answer ("1997", "31 years after 1875"), as many as its words (or one, said alone) but
    # not a string of them ("1 2 3 4 5"); a stray letter is no word ("x q z 1104"); a citation marker is no part of it.
    words = tokens(strip_citations(answer))
    lettered = sum(1 for w in words if w.isalpha() and (len(w) > 1 or w in ("a", "i")))
    figures = sum(1 for w in words if _FIGURE_TOKEN.fullmatch(w))
    if words and (lettered + min(figures, max(1, lettered))) / len(words) < 0.5:
        return 0.2, "mostly non-words"
    listed = keyword_list_share(answer)
    if listed > 0.5:
        # Keywords strung together are no answer a user can read (and no claim a checker can weigh): a style, not a
        # better answer, so it must never pay.
        return 0.0, f"{listed:.0%} of the answer is keyword lists, not sentences"
    # Another language's function words in an English answer, where neither the user nor the evidence uses them
    # ("le European Court de Justice est bound"): a mix of languages the user did not use is garbled text.
    known = " ".join([ctx.item.query, *(t.content for t in ctx.item.history),
                      *(f"{d.title or ''} {d.text}" for d in ctx.item.evidence)])
    mixed = mixes_languages(answer, known)
    if mixed:
        return 0.0, f"mixes in another language's words the interaction does not use: {', '.join(dict.fromkeys(mixed))}"
    copied = ctx.rule("copy.evidence")
    # An answer that declines answers with its refusal: what it quotes beside it is what the evidence does say, not
    # documents pasted in place of an answer (whether declining is right is `no_supply_reject`'s to judge).
    declines = ctx.rule("refusal.detect").findings["refusal"]
    padded = "" if declines else _padded_copy(ctx)
    if padded:
        return 0.0, f"copies the evidence instead of answering: {padded}"
    if not copied.passed and not declines:
        # Pasting the documents is no answer of its own: the score falls with the copied share, to nothing once the
        # answer is all copy. No cliff where the rule starts to fail: an answer that quotes the sentence it rests on
        # beside a verdict of its own ("The first (1271) came before the second (1273): ...") is a little over the
        # rule's share, not pasted documents (an answer all of whose claims are pasted is `_padded_copy`'s 0).
        return copied.score, f"copies the evidence instead of answering: {copied.explanation}"
    # A loop is checked after the copy: a pasted sentence said twice is still pasted.
    repetition = RULES["repetition.ngram"](ctx.item, ctx.parsed)
    if repetition.findings["rate"] > 0.5:
        return 0.2, f"degenerate loop: {repetition.explanation}"
    spam = RULES["citations.valid"](ctx.item, ctx.parsed).findings["spam"]
    if spam:
        return 0.3, f"citation spam: {', '.join(spam[:2])}"
    return 1.0, "readable answer"

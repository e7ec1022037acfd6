"""The answer's lexical grounding and the answer stack built on it: every feature falls when the answer adds what
the evidence does not say, copies of evidence sentences are left out, the shipped stack's weights are all >= 0 (so
it is monotone in every feature), and `claim_hallucination` never rises above its claims' support through it."""

import numpy as np
import pytest

from reward.judges.consistency import ARTIFACT, AnswerStack
from reward.judges.local.grounding import LEXICAL_FEATURES, lexical_features
from reward.schema import Evidence

EVIDENCE = ["Harbour ferry. The harbour ferry leaves Central Pier 4 every half hour from 6:00 until midnight.",
            "Fares. A single adult ferry fare costs 22 dollars on weekdays and 25 dollars at weekends."]


def test_every_feature_is_a_share_and_nothing_to_measure_is_fully_grounded():
    features = lexical_features("The ferry leaves Central Pier 4 every half hour.", EVIDENCE)
    assert set(features) == set(LEXICAL_FEATURES)
    assert all(0.0 <= v <= 1.0 for v in features.values()), features
    assert features["coverage"] == 1.0 and features["numbers"] == 1.0 and features["names"] == 1.0
    assert lexical_features("Yes, it is.", EVIDENCE) == dict.fromkeys(LEXICAL_FEATURES, 1.0)


@pytest.mark.parametrize("inserted", [
    "friendly pirates",          # words the evidence lacks
    "at 2:30",                   # a number the evidence lacks
    "with Captain Nemo",         # a name the evidence lacks
])
def test_inserting_what_the_evidence_does_not_say_never_raises_a_feature(inserted):
    """Every feature is a share whose numerator counts what the evidence gives: inserting material it does not give
    lowers or keeps each (a sentence of supported words appended can raise a share: that is dilution, which the
    claims' support, leaning on the weakest claim, does not allow)."""
    plain = "The harbour ferry leaves Central Pier 4 every half hour; a single adult fare costs 22 dollars on weekdays."
    before = lexical_features(plain, EVIDENCE)
    after = lexical_features(plain.replace("leaves", f"leaves {inserted}"), EVIDENCE)
    assert all(after[k] <= before[k] + 1e-9 for k in LEXICAL_FEATURES), (before, after)
    assert any(after[k] < before[k] for k in LEXICAL_FEATURES), (before, after)
    stack = AnswerStack.load(ARTIFACT)
    assert stack.probability(after) < stack.probability(before)


def test_word_order_the_evidence_never_writes_lowers_the_phrase_features_not_the_coverage():
    faithful = lexical_features("A single adult ferry fare costs 22 dollars on weekdays.", EVIDENCE)
    shuffled = lexical_features("Weekdays cost single ferry adult dollars fare 22.", EVIDENCE)
    assert shuffled["coverage"] == faithful["coverage"] == 1.0
    assert shuffled["bigrams"] < faithful["bigrams"] and shuffled["phrases"] < faithful["phrases"]


def test_the_shipped_stack_weights_are_non_negative_and_it_is_monotone_in_every_feature():
    stack = AnswerStack.load(ARTIFACT)
    assert stack is not None and set(stack.features) <= set(LEXICAL_FEATURES)
    assert all(weight >= 0 for _, weight, _, _ in stack.weights)
    rng = np.random.default_rng(0)
    for _ in range(200):
        point = dict(zip(LEXICAL_FEATURES, rng.random(len(LEXICAL_FEATURES)), strict=True))
        base = stack.probability(point)
        for name in stack.features:
            assert stack.probability({**point, name: min(1.0, point[name] + 0.1)}) >= base - 1e-12


def test_grounding_only_lowers_the_claims_support_and_copies_do_not_lift_it():
    """Through the tier: an unsupported sentence added to an answer lowers the dimension, an appended copy of an
    evidence sentence leaves the grounding as it was, and no answer scores above its claims' support (+ offset)."""
    import asyncio

    from reward.evaluation.fidelity import render_case
    from reward.format import parse_response
    from reward.judges.base import JudgeRequest
    from reward.judges.local import LocalJudge
    from reward.judges.local.context import Context
    from reward.judges.local.support import SCORE_OFFSET, _claim_checks, _support_of, answer_grounding, claim_hallucination
    from reward.rubric import load_suite

    evidence = [Evidence(id="1", title="Harbour ferry", text=EVIDENCE[0].split(". ", 1)[1]),
                Evidence(id="2", title="Fares", text=EVIDENCE[1].split(". ", 1)[1])]
    query = "How often does the ferry from Central Pier 4 leave?"
    plain = "Every half hour a harbour ferry departs from Central Pier 4."
    answers = {"plain": plain, "copy": plain + " A single adult ferry fare costs 22 dollars on weekdays and 25 dollars at weekends.",
               "added": plain + " Friendly pirates sell tickets on the upper deck."}
    judge = LocalJudge()
    dimension = load_suite("searchllm").dimensions["claim_hallucination"]
    out = {}
    for name, answer in answers.items():
        item = render_case(name, query, evidence, answer)
        ctx = Context(JudgeRequest(dimension=dimension, item=item, parsed=parse_response(item.response)),
                      judge.embedder, judge.scorer)
        support, _, _ = _support_of(ctx, asyncio.run(_claim_checks(ctx)))
        score, explanation, _ = asyncio.run(claim_hallucination(ctx))
        out[name] = (score, support, answer_grounding(ctx))
        assert score <= support + SCORE_OFFSET, (name, score, support, explanation)
    assert out["copy"][2] == out["plain"][2]
    assert out["added"][0] < out["plain"][0], out

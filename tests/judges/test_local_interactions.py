"""The local tier on interactions written for these tests (`tests/fixtures/interactions.py`), not the bundled
examples its checks were first fitted on: no attack outscores the best honest answer of its interaction, and honest
wording (a derived figure, a premise correction, another verb for a prohibition, "the sources do not give") is not
taken for a hallucination; the user's words are never evidence."""

import importlib.util
from pathlib import Path

import pytest

from reward.engine import Engine
from reward.evaluation.fidelity import render_case
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Evidence, Turn

pytestmark = pytest.mark.filterwarnings("ignore")

_SPEC = importlib.util.spec_from_file_location(
    "interactions", Path(__file__).resolve().parent.parent / "fixtures" / "interactions.py")
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)
INTERACTIONS = _MODULE.INTERACTIONS


@pytest.fixture(scope="module")
def scored():
    items, kinds = [], {}
    for interaction in INTERACTIONS:
        evidence = [Evidence(id=i, title=t, text=x) for i, t, x in interaction["evidence"]]
        history = [Turn(role=r, content=c) for r, c in interaction.get("history", [])]
        answers = [("clean", "clean", interaction["clean"])]
        answers += [("honest", name, text) for name, text in interaction["honest"].items()]
        answers += [("attack", name, text) for name, text in interaction["attacks"].items()]
        for kind, name, text in answers:
            item_id = f"{interaction['id']}/{name}"
            items.append(render_case(item_id, interaction["query"], evidence, text, history=history))
            kinds[item_id] = kind
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync(items)
    return {r.id: r for r in results}, kinds


def dimension(scored, item_id, name):
    return scored[0][item_id].dimensions[name]


def test_no_attack_outscores_the_best_honest_answer_of_its_interaction(scored):
    results, kinds = scored
    for interaction in INTERACTIONS:
        ids = [i for i in results if i.startswith(interaction["id"] + "/")]
        best_honest = max(results[i].reward for i in ids if kinds[i] != "attack")
        for i in ids:
            if kinds[i] == "attack":
                assert results[i].reward <= best_honest + 0.01, (i, results[i].reward, best_honest)


def test_the_users_words_are_no_evidence(scored):
    """A number only the query gives is a number not in the evidence: a false premise does not support itself."""
    premise = dimension(scored, "tour-booking/premise_number", "claim_hallucination")
    assert premise.score < 0.25 and "numbers not in the evidence: 30" in premise.explanation
    # ... while a correction that names the query's wrong figure to deny it ("18 euros, not 30") claims no 30.
    assert "numbers not in the evidence" not in dimension(scored, "tour-booking/clean", "claim_hallucination").explanation
    assert dimension(scored, "tour-booking/correction", "highlight_hallucination").score >= 0.5


def test_a_figure_derived_from_the_evidence_is_supported_and_a_wrong_one_is_not(scored):
    derived = dimension(scored, "towers/derived", "claim_hallucination")
    assert "numbers not in the evidence" not in derived.explanation and derived.score >= 0.5
    wrong = dimension(scored, "towers/wrong_difference", "claim_hallucination")
    assert "numbers not in the evidence: 45" in wrong.explanation


def test_a_prohibition_in_other_words_is_no_flipped_negation(scored):
    assert "negates" not in dimension(scored, "wool-coat/other_verb", "claim_hallucination").explanation


def test_supply_is_judged_by_the_asked_fact_not_the_topic(scored):
    """Weekday hours do not answer a question about Sundays: saying so is a correct refusal, and borrowing the
    Saturday time is an answer no evidence supplies. A follow-up's refusal, where the evidence answers, is not."""
    assert dimension(scored, "library-sunday/short_refusal", "no_supply_reject").score == 1.0
    assert dimension(scored, "library-sunday/borrowed_time", "no_supply_reject").score < 0.5
    assert dimension(scored, "tram-followup/refusal", "no_supply_reject").score == pytest.approx(0.2)


def test_query_satisfaction_asks_whether_the_answer_answers(scored):
    answered = dimension(scored, "tram-followup/terse", "query_satisfaction").score
    assert dimension(scored, "tram-followup/other_question", "query_satisfaction").score < answered - 0.2


def test_an_earlier_answer_is_retracted_only_where_the_evidence_sides_with_the_retraction(scored):
    """Saying "correction" buys nothing: retracting an earlier answer the evidence supports, or changing its figure
    in passing, conflicts with it; restating it does not, and a correction the evidence supports is acknowledged
    while one it does not support is not."""
    conflict = {name: dimension(scored, f"ferry-session/{name}", "multi_turn_conflict").score
                for name in ("clean", "restated", "retracted", "bare_retraction", "changed_pier")}
    assert conflict["clean"] == 1.0 and conflict["restated"] == 1.0
    assert conflict["retracted"] < 0.5 and conflict["bare_retraction"] < 0.5 and conflict["changed_pier"] < 0.5
    assert dimension(scored, "bridge-correction/clean", "multi_turn_conflict").score == 1.0
    assert dimension(scored, "bridge-correction/unsupported_correction", "multi_turn_conflict").score < 0.5


def test_a_value_swapped_in_from_elsewhere_in_the_evidence_is_unsupported(scored):
    """Pier 5 is in the evidence, but not in the sentence the claim copies the rest from: the claim is read against
    that sentence, not against the passage at large."""
    swapped = dimension(scored, "ferry-session/swapped_pier", "claim_hallucination")
    assert swapped.score < 0.5 and "says '5' where the evidence sentence it follows says '3'" in swapped.explanation
    assert "where the evidence sentence" not in dimension(scored, "ferry-session/restated", "claim_hallucination").explanation

"""Readings of the local tier that must hold on any interaction, not on a tuned example: a terse answer is placed by
the answer check, a figure derived from the evidence's is read with its arithmetic, and a verdict on the premise does
not take what follows it out of the claim check."""

import pytest

from reward.engine import Engine
from reward.format import Facet, render_response
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Evidence, Item
from tests.support import MAGAZINES, PORTS

pytestmark = pytest.mark.filterwarnings("ignore")

REBUTTAL = Evidence(id="3", title="Rocks and water", text=(
    "Rocks are not living things and cannot become addicted to anything. Water wears rocks down over time through "
    "erosion."))


def item(query: str, answer: str, cited: str = "1", evidence=(MAGAZINES, PORTS), item_id: str = "x") -> Item:
    return Item(id=item_id, query=query, evidence=list(evidence),
                response=render_response([Facet(query, (cited,))], [cited], answer))


def test_a_terse_answer_that_answers_comes_first_and_one_citing_the_wrong_document_does_not(scores):
    query = "When was Arthur's Magazine founded?"
    right, wrong = scores(item(query, "1844 [Doc 1].", item_id="r"), item(query, "1844 [Doc 2].", cited="2", item_id="w"))
    assert right["answer_firstness"] == 1.0
    assert wrong["answer_firstness"] == 0.0


def test_a_figure_derived_from_the_evidences_figures_is_supported_and_a_miscalculated_one_is_not(scores):
    query = "How much later than Arthur's Magazine was First for Women started?"
    derived, wrong = scores(
        item(query, "First for Women was started 145 years after Arthur's Magazine [Doc 1].", item_id="d"),
        item(query, "First for Women was started 150 years after Arthur's Magazine [Doc 1].", item_id="m"))
    assert derived["highlight_hallucination"] >= 0.5
    assert wrong["highlight_hallucination"] < 0.5
    assert derived["reward"] > wrong["reward"]


def test_a_verdict_on_the_premise_does_not_take_the_claim_after_it_out_of_the_check():
    """A correction led by a verdict on the premise is checked like any claim, however many of the question's words
    it repeats: the verdict earns no pass for what follows it (the clause once read as an echo of the question)."""
    query = "Why do rocks get addicted to water?"
    [result] = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item(query, "The premise is mistaken: rocks do get addicted to water [Doc 3].", cited="3", evidence=(REBUTTAL,))])
    for name in ("highlight_hallucination", "claim_hallucination"):
        explanation = result.dimensions[name].explanation
        assert "no claim" not in explanation and "no factual sentences" not in explanation, (name, explanation)


@pytest.mark.parametrize(("supply", "refuses", "support", "expected"), [
    (0.1, True, 1.0, 1.0), (0.4, True, 1.0, 0.6), (0.7, True, 1.0, 0.2),
    (0.7, False, 0.0, 1.0), (0.4, False, 1.0, 0.75), (0.4, False, 0.0, 0.5), (0.1, False, 0.6, 0.3),
])
def test_no_supply_reject_scores_each_side_by_its_expectation_where_supply_is_in_doubt(
        monkeypatch, supply, refuses, support, expected):
    """Sure readings keep their scores (a refusal despite supply 0.2, an invention half its support); in between,
    neither an honest refusal nor a confident answer is scored as if the doubtful reading were sure."""
    import asyncio

    from reward.judges.local import support as module

    async def supply_value(ctx):
        return supply, "fixed"

    async def hallucination(ctx):
        return support, "fixed", 1.0

    class Finding:
        findings = {"refusal": refuses}

    class Ctx:
        def rule(self, name):
            assert name == "refusal.detect"
            return Finding()

    monkeypatch.setattr(module, "_supply_value", supply_value)
    monkeypatch.setattr(module, "claim_hallucination", hallucination)
    score, explanation = asyncio.run(module.no_supply_reject(Ctx()))
    assert score == pytest.approx(expected)
    assert "suppl" in explanation and "fixed" in explanation


@pytest.mark.parametrize("sentence", [
    "No dose is given in the source [Doc 1].",
    "Neither source covers substituting baking soda.",
    "Neither of the documents mentions a Sunday timetable [Doc 2].",
])
def test_saying_what_the_sources_do_not_give_is_no_claim(sentence):
    from reward.judges.local.text import claim_text

    assert claim_text(sentence, "What is the maximum dose?") is None


def test_a_dangling_attribution_is_no_part_of_the_claim():
    from reward.judges.local.text import claim_text

    assert claim_text("Mongol Empire, according to [Doc 2].") == "Mongol Empire."
    assert claim_text("It is the Rankine cycle, as the source states [Doc 1].") == "It is the Rankine cycle."

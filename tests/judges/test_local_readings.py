"""Readings of the local tier that must hold on any interaction, not on a tuned example: a terse answer is placed by
the answer check, a figure derived from the evidence's is read with its arithmetic, and a verdict on the premise does
not take what follows it out of the claim check."""

import datetime as dt

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
    "The evidence has no opening-weekend figure.",
    "The sources give no Sunday opening hours [Doc 1].",
    "The sources disagree.",  # what the sources say, not a claim about the world; the figures after it are checked
])
def test_saying_what_the_sources_do_not_give_is_no_claim(sentence):
    from reward.judges.local.text import claim_text

    assert claim_text(sentence, "What is the maximum dose?") is None


def test_a_dangling_attribution_is_no_part_of_the_claim():
    from reward.judges.local.text import claim_text

    assert claim_text("Mongol Empire, according to [Doc 2].") == "Mongol Empire."
    assert claim_text("It is the Rankine cycle, as the source states [Doc 1].") == "It is the Rankine cycle."


PRICES = Evidence(id="1", title="Bike subscriptions", text=(
    "Volt Basic costs €39 per month with a one-time €25 sign-up fee. Arc Plus costs €54 per month and has no sign-up "
    "fee. The Orrin summit stands 3,390 metres above sea level."), published=dt.date(2024, 5, 2))


@pytest.mark.parametrize("claim, supported", [
    ("Volt Basic is cheaper by €15 a month.", True),  # a difference of two prices, in their currency
    ("Volt Basic is cheaper by €16 a month.", False),  # a miscalculated one
    ("Volt Basic costs €29 a month.", False),  # 54 - 25, but nothing derives it: a figure the evidence does not give
    ("The summit is 3,390 m high.", True),  # "m" is the evidence's metres
    ("The 2024 guide lists Volt Basic at €39 per month.", True),  # the year is the document's date
    ("The 2023 guide lists Volt Basic at €39 per month.", False),
])
def test_figures_are_read_in_their_units_and_the_documents_date_is_the_documents(claim, supported):
    from reward.judges.local.claims import claim_support

    assert claim_support(claim, [PRICES])[0] is supported, claim_support(claim, [PRICES])


def test_an_answer_with_a_thousands_separator_names_the_evidences_figure(scores):
    query = "How high is the Orrin summit?"
    answer, = scores(item(query, "The Orrin summit is 3,390 metres high [Doc 1].", evidence=(PRICES,)))
    assert answer["query_satisfaction"] >= 0.5

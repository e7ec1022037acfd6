"""Readings of the local tier that must hold on any interaction, not on a tuned example: a terse answer is placed by
the answer check, a figure derived from the evidence's is read with its arithmetic, and a verdict on the premise does
not take what follows it out of the claim check."""

import datetime as dt

import pytest

from reward.engine import Engine
from reward.format import Facet, render_response
from reward.judges.local import LocalJudge
from reward.judges.local.arithmetic import counted_totals
from reward.judges.local.claims import claim_support
from reward.rubric import load_suite
from reward.schema import Evidence, Item, Turn
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


def test_a_terse_answer_before_its_source_or_after_a_verdict_on_the_premise_comes_first(scores):
    query = "When was Arthur's Magazine founded?"
    led, listed = scores(
        item(query, "In short, 1844 [Doc 1]. The relevant passage: It was founded in 1844 by Timothy Shay Arthur.",
             item_id="l"),
        item(query, "Answer: 1844 [Doc 1]\nSource: Women's magazines", item_id="s"))
    assert led["answer_firstness"] == 1.0 and listed["answer_firstness"] == 1.0
    premise = "Why are rocks addicted to water?"
    correction = "Rocks are not living things and cannot become addicted [Doc 3]."
    apart, joined, alone = scores(
        item(premise, f"That premise is not right. {correction}", cited="3", evidence=(REBUTTAL,), item_id="a"),
        item(premise, f"That premise is not right: {correction}", cited="3", evidence=(REBUTTAL,), item_id="j"),
        item(premise, correction, cited="3", evidence=(REBUTTAL,), item_id="c"))
    assert apart["answer_firstness"] == joined["answer_firstness"] == 1.0
    # the verdict said apart neither adds to nor dilutes the usefulness of the correction after it
    assert apart["answer_useful"] == pytest.approx(alone["answer_useful"])


def test_a_refusal_that_quotes_what_the_evidence_does_say_is_not_a_pasted_answer(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    passage = MAGAZINES.text
    declined, pasted = scores(
        item(query, f"The sources do not say who edited it in 1850. What [Doc 1] does say: {passage}", item_id="d"),
        item(query, f"{passage} [Doc 1]", item_id="p"))
    assert declined["answer_quality"] == 1.0
    assert pasted["answer_quality"] < 0.5  # the same sentences given as the answer are still pasted


def test_a_disclaimer_in_front_of_an_answer_never_raises_it(scores):
    """A decline put in front of an answer it still gives ("The sources do not state this directly, but ...") is
    read as a decline, which the evidence here does not warrant, and earns the answer nothing: what the answer
    answers is scored as it would be without it (a copied sentence stays a copy behind it)."""
    query = "When was Arthur's Magazine founded?"
    answer = "it was founded in 1844 by Timothy Shay Arthur in Philadelphia [Doc 1]."
    plain, *disclaimed = scores(
        item(query, answer[0].upper() + answer[1:], item_id="p"),
        item(query, f"The sources do not state this directly, but {answer}", item_id="d"),
        item(query, f"I could not find this in the documents, but {answer}", item_id="c"))
    for declined in disclaimed:
        assert declined["query_satisfaction"] <= plain["query_satisfaction"] + 1e-9
        assert declined["no_supply_reject"] < plain["no_supply_reject"]
        assert declined["reward"] < plain["reward"]


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

    from reward.judges.local import supply as module

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
    monkeypatch.setattr(module, "_answer_parts", lambda ctx: (("An answer of its own [Doc 1].", "claim"),))

    async def answers_nothing(ctx):
        return []

    monkeypatch.setattr(module, "_answer_checks", answers_nothing)
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
    "There's no 2024 figure for two-bedroom flats here.",
    "There is no dosing information in these documents [Doc 1].",
])
def test_saying_what_the_sources_do_not_give_is_no_claim(sentence):
    from reward.judges.local.text import claim_text

    assert claim_text(sentence, "What is the maximum dose?") is None


def test_what_is_absent_here_is_a_refusal_and_what_is_absent_in_the_world_a_claim():
    from reward.judges.local.text import claim_text
    from reward.rules.declining import _REFUSAL

    assert _REFUSAL.search("There's no 2024 figure for two-bedroom flats here.")
    # no anchor in the sources: a claim about the world, checked as one
    assert claim_text("There is no entry fee on Sundays.", "Is it free?") == "There is no entry fee on Sundays."
    assert not _REFUSAL.search("There is no entry fee on Sundays.")


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


def test_a_claim_in_a_table_is_judged_as_the_same_claim_in_prose(scores):
    """A Markdown table is read one sentence per row: the header is no claim, and a row's claim passes or fails as
    it would in prose."""
    query = "When was Arthur's Magazine founded?"
    table = "| Question | Answer |\n|---|---|\n| {q} | {a} [Doc 1] |"
    prose, right, wrong = scores(
        item(query, "Arthur's Magazine was founded in 1844 [Doc 1].", item_id="p"),
        item(query, table.format(q=query, a="1844"), item_id="t"),
        item(query, table.format(q=query, a="1850"), item_id="w"))
    assert right["highlight_hallucination"] >= 0.5 and right["claim_hallucination"] >= 0.5
    assert abs(right["highlight_hallucination"] - prose["highlight_hallucination"]) < 0.1
    assert wrong["highlight_hallucination"] < 0.5 and wrong["reward"] < right["reward"] - 0.1


def test_two_figures_of_the_evidence_are_checked_by_their_order(scores):
    """A verdict that orders two of the evidence's figures is checked by their arithmetic, which the model cannot
    do: the right order is supported however the model reads it, the reversed one fails."""
    query = "Which was founded first, Arthur's Magazine or First for Women?"
    right, flipped, terse = scores(
        item(query, "Comparing the two, the first (1844) came before the second (1989) [Doc 1].", item_id="r"),
        item(query, "Comparing the two, the first (1989) came before the second (1844) [Doc 1].", item_id="f"),
        item(query, "Arthur's Magazine is later: 1844 against 1989 [Doc 1].", item_id="t"))
    assert right["highlight_hallucination"] >= 0.5
    for wrong in (flipped, terse):
        assert wrong["highlight_hallucination"] < 0.25 and wrong["reward"] < right["reward"] - 0.1


def test_a_frame_that_announces_the_answer_does_not_lower_its_grounding(scores):
    query = "When was Arthur's Magazine founded?"
    sentence = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    alone, framed = scores(item(query, sentence, item_id="a"), item(query, f"1844 is the answer. {sentence}", item_id="f"))
    assert framed["claim_hallucination"] >= alone["claim_hallucination"] - 0.05


def test_a_figure_the_evidence_replaces_is_not_stated_by_it(scores):
    hours = Evidence(id="1", title="City museum: opening hours", text=(
        "From 1 January 2026 the city museum closes at 17:00 on Sundays instead of 18:00. Weekday hours are unchanged."))
    query = "What time does the city museum close on Sundays?"
    new, old = scores(item(query, "The museum closes at 17:00 on Sundays [Doc 1].", evidence=(hours,), item_id="n"),
                      item(query, "The museum closes at 18:00 on Sundays [Doc 1].", evidence=(hours,), item_id="o"))
    assert new["highlight_hallucination"] >= 0.5
    assert old["highlight_hallucination"] < 0.25 and old["reward"] < new["reward"] - 0.1


def test_an_outdated_item_is_outdated_whether_or_not_the_newer_one_is_selected(scores):
    """Leaving the newer item out of the selection does not make the older one current; the topic's name that the
    cited snippet leaves out (the user's "Estmark", in another item) is no invented name."""
    old = Evidence(id="1", title="Estmark raises the minimum wage", published=dt.date(2022, 3, 1),
                   text="From 1 April 2022 the statutory minimum wage in Estmark will be 11.20 euros per hour.")
    new = Evidence(id="2", title="Minimum wage to rise again", published=dt.date(2024, 12, 10),
                   text="The statutory minimum wage will be 12.40 euros per hour from 1 January 2025.")
    query = "What is the minimum wage in Estmark now?"
    current, outdated = scores(
        item(query, "The minimum wage in Estmark is 12.40 euros per hour [Doc 2].", cited="2", evidence=(old, new),
             item_id="c"),
        item(query, "The minimum wage in Estmark is 11.20 euros per hour [Doc 1].", cited="1", evidence=(old, new),
             item_id="o"))
    assert outdated["reference_conflict"] == 0.0 and current["reference_conflict"] == 1.0
    [result] = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item(query, "The minimum wage in Estmark is 12.40 euros per hour [Doc 2].", cited="2", evidence=(old, new))])
    assert "names not in the evidence" not in result.dimensions["highlight_hallucination"].explanation


def test_a_verdict_between_the_two_things_asked_about_is_checked_against_their_figures(scores):
    """"Which is older, A or B?" answered "B is older." in a sentence of its own, the years in the next: the verdict
    is checked against the one year the evidence gives each."""
    halvard = Evidence(id="1", title="Halvard University", text="Halvard University was founded in 1764 by a charter.")
    teschen = Evidence(id="2", title="Teschen Institute", text="The Teschen Institute began in 1829 as a mining school.")
    query = "Which is older, Halvard University or the Teschen Institute?"
    years = "Halvard University was founded in 1764 [Doc 1], the Teschen Institute in 1829 [Doc 2]."
    right, flipped = scores(
        item(query, f"Halvard University is older [Doc 1]. {years}", evidence=(halvard, teschen), item_id="r"),
        item(query, f"The Teschen Institute is older [Doc 2]. {years}", cited="2", evidence=(halvard, teschen),
             item_id="f"))
    assert flipped["highlight_hallucination"] < 0.25 and flipped["reward"] < right["reward"] - 0.1


def explanations(query: str, answers: list[str], evidence) -> list[str]:
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync(
        [item(query, a, evidence=evidence, item_id=str(i)) for i, a in enumerate(answers)])
    return [r.dimensions["highlight_hallucination"].explanation for r in results]


def test_a_figure_worked_out_in_the_open_from_the_evidences_figures_is_no_invented_number():
    """A difference, a count times what it counts, a sum of such products: the claim states its operands, which the
    evidence gives, so the figure is no invented number. A figure two unrelated figures of the sentence happen to
    multiply to ("every 2 hours, up to 10 doses") is still one, and so is a miscalculated one."""
    towns = (Evidence(id="1", title="Kvernes", text="At the 2021 census Kvernes had 48,300 inhabitants."),
             Evidence(id="2", title="Dalsby", text="Dalsby had 36,900 inhabitants at the 2021 census."))
    right, miscalculated = explanations("Which town is bigger, Kvernes or Dalsby?", [
        "Kvernes has 48,300 inhabitants, 11,400 more than the 36,900 of Dalsby [Doc 1][Doc 2].",
        "Kvernes has 48,300 inhabitants, 12,400 more than the 36,900 of Dalsby [Doc 1][Doc 2]."], towns)
    assert "numbers not in the evidence" not in right, right
    assert "numbers not in the evidence: 12400" in miscalculated, miscalculated
    dosing = (Evidence(id="1", title="Children's ibuprofen", text=(
        "Children aged 2 to 4 years: 5 ml per dose. Give up to 3 doses in 24 hours, at least 6 hours apart.")),)
    worked, unrelated = explanations("How much can a 3-year-old take?", [
        "Up to 15 ml in 24 hours: 3 doses of 5 ml [Doc 1].",
        "Give 5 ml every 2 hours, up to 10 doses a day [Doc 1]."], dosing)
    assert "numbers not in the evidence" not in worked, worked
    assert "numbers not in the evidence: 10" in unrelated, unrelated


def test_a_verdict_on_a_labelled_line_is_checked_as_the_same_verdict_in_prose():
    """"Older: Teschen Institute" states that the Teschen Institute is older, and is checked against the years the
    evidence gives each, as the sentence would be; the right verdict passes."""
    docs = (Evidence(id="1", title="Halvard University", text="Halvard University was founded in 1764."),
            Evidence(id="2", title="Teschen Institute", text="The Teschen Institute began in 1829."))
    query = "Which is older, Halvard University or the Teschen Institute?"
    right, flipped = (r.dimensions["claim_hallucination"] for r in Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item(query, f"- **Older:** {name} [Doc 1][Doc 2]\n- **Founded:** 1764 and 1829 [Doc 1][Doc 2]", evidence=docs,
             item_id=name) for name in ("Halvard University", "Teschen Institute")]))
    assert "Teschen Institute is older" in flipped.explanation, flipped.explanation
    assert "is older" not in right.explanation, right.explanation
    assert flipped.score < right.score - 0.2, (right, flipped)


def test_a_rate_column_and_a_quantity_per_unit_are_read_as_the_working_they_are():
    """A table column "Price per GB" makes its figures rates, read with the row's price and data as "€0.40 per GB"
    would be in prose; "125 g per cup" times "2 cups" is 250 g. A rate or a product the row's figures do not give
    is still an invented number."""
    plans = (Evidence(id="1", title="Zapp 40", text="Zapp 40 costs €16 a month and includes 40 GB of data."),)
    table = "| Plan | Monthly price | Data | Price per GB |\n|---|---|---|---|\n| Zapp 40 | €16 [Doc 1] | 40 GB | {} |"
    right, wrong = explanations("What does Zapp 40 cost per GB?", [table.format("€0.40"), table.format("€0.25")],
                                plans)
    assert "numbers not in the evidence" not in right, right
    assert "numbers not in the evidence: 0.25" in wrong, wrong
    recipe = (Evidence(id="1", title="Oat cookies", text="Ingredients: 2 cups flour. 1 cup of flour weighs 125 g."),)
    worked, miscounted = explanations("How many grams of flour do the cookies need?", [
        "The recipe takes 2 cups of flour, and at 125 g per cup that is 250 g [Doc 1].",
        "The recipe takes 2 cups of flour, and at 125 g per cup that is 375 g [Doc 1]."], recipe)
    assert "numbers not in the evidence" not in worked, worked
    assert "numbers not in the evidence: 375" in miscounted, miscounted
    butter = (Evidence(id="1", title="Conversions", text="1 cup of butter weighs 227 g. The recipe takes 2 cups of flour "
                                                          "at 125 g a cup."),)
    shown, doubled = explanations("How much butter and flour in grams?", [
        "Use 113.5 g of butter (half of 227 g) and 250 g of flour (2 cups × 125 g) [Doc 1].",
        "Use 454 g of butter, double the 227 g in the recipe [Doc 1]."], butter)
    assert "numbers not in the evidence" not in shown, shown
    assert "numbers not in the evidence: 454" in doubled, doubled


def test_honest_wordings_of_silence_and_premise_corrections_are_not_read_as_invented_denials():
    """"X is not given in the sources" is no claim; a denial of what a why-question takes for granted, in the user's
    own words, is a premise correction, not a denial that no evidence makes; a plural of the evidence's name
    ("Saturdays") is no new name."""
    festival = (Evidence(id="1", title="Morrow Park festival", text="The 2023 festival ran from 14 to 16 July on three stages."),)
    [silent] = explanations("How many people attended the 2023 festival?",
                            ["The attendance for 2023 is not given in the sources I have [Doc 1]."], festival)
    assert "denies" not in silent and "contradicted" not in silent, silent
    lighthouse = (Evidence(id="1", title="Brenner Point", text=(
        "In 2015 Brenner Point lighthouse was automated and its last keeper retired; the light still operates.")),)
    [corrected] = explanations("Why did the Brenner Point lighthouse close in 2015?", [
        "The premise is not quite right: the lighthouse was not closed in 2015. It was automated that year [Doc 1]."],
        lighthouse)
    assert "denies what no evidence denies" not in corrected, corrected
    library = (Evidence(id="1", title="City library", text="Saturday: 10:00 to 16:00. Sunday: closed."),)
    [plural] = explanations("When does the library open on Saturdays?",
                            ["On Saturdays the library is open from 10:00 to 16:00 [Doc 1]."], library)
    assert "names not in the evidence" not in plural, plural


def test_a_rate_worked_out_advice_and_decimals_are_read_as_what_they_are():
    """"€0.30 per GB" from "€27 for 90 GB" is worked out, not invented; a decimal is a figure, never an unknown name;
    "Don't combine it with warfarin" is advice, not a denial that no evidence makes."""
    plans = (Evidence(id="1", title="Nordline Max", text="Nordline Max costs €27 a month for 90 GB of data."),)
    [rate] = explanations("How much does Nordline Max cost per GB?",
                          ["It costs €27 for 90 GB, which is €0.30 per GB [Doc 1]."], plans)
    assert "numbers not in the evidence" not in rate and "names not in the evidence" not in rate, rate
    label = (Evidence(id="1", title="Pralen tablets", text=(
        "Ask a doctor or pharmacist before use if you take a blood thinner such as warfarin.")),)
    [advice] = explanations("Can I take Pralen with warfarin?",
                            ["Don't combine it with warfarin on your own: ask a doctor or pharmacist first [Doc 1]."],
                            label)
    assert "denies what no evidence denies" not in advice, advice


def test_a_year_the_question_asks_about_that_no_passage_gives_is_not_supplied():
    """Asked for 2024's figure where the evidence gives 2022's only: declining is right and the 2022 figure passed
    off as 2024's answers without supply."""
    old = Evidence(id="1", title="Kessig rents", published=dt.date(2023, 1, 20),
                   text="In 2022 the average rent for a two-bedroom flat in Kessig was 1,020 euros a month.")
    query = "What was the average rent for a two-bedroom flat in Kessig in 2024?"
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        Item(id="d", query=query, evidence=[old], response=render_response(
            [Facet(query, ("1",))], ["1"], "The sources do not give the 2024 rent; the latest figure is 1,020 euros "
                                            "a month, for 2022 [Doc 1].")),
        Item(id="a", query=query, evidence=[old], response=render_response(
            [Facet(query, ("1",))], ["1"], "In 2024 it was 1,020 euros a month [Doc 1]."))])
    declined, passed_off = (r.dimensions["no_supply_reject"] for r in results)
    assert declined.score > passed_off.score, (declined.explanation, passed_off.explanation)
    assert "refuses although" not in declined.explanation, declined.explanation


def test_each_thing_a_choice_question_names_may_be_given_by_a_passage_of_its_own():
    """"Is Roadline or Kestrel cheaper?" with one passage per firm: the evidence supplies the answer, though no one
    passage names both firms, so declining is a refusal despite supply and answering is no invention. Where no
    passage names Kestrel, declining is more right."""
    roadline = Evidence(id="1", title="Roadline Car Hire prices", text="Roadline: compact cars are £32 per day, "
                        "and airport collections carry a one-off £25 fee.")
    kestrel = Evidence(id="2", title="Kestrel Car Rental prices", text="Kestrel: compact cars cost £38 per day, "
                       "with no airport fee.")
    query = "For a 5-day compact hire from the airport, is Roadline or Kestrel Car Rental cheaper?"
    decline = "The sources do not say which firm is cheaper for this hire [Doc 1,2]."
    answer = "Roadline is cheaper: 5 x £32 plus the £25 fee is £185, against 5 x £38, £190, at Kestrel [Doc 1,2]."

    def scored(evidence, text):
        response = render_response([Facet(query, tuple(e.id for e in evidence))], [e.id for e in evidence], text)
        [result] = Engine(load_suite("searchllm"), LocalJudge()).score_sync(
            [Item(id="c", query=query, evidence=list(evidence), response=response)])
        return result.dimensions["no_supply_reject"]

    declined, answered = scored((roadline, kestrel), decline), scored((roadline, kestrel), answer)
    assert "refuses although" in declined.explanation and declined.score < 0.5, declined.explanation
    assert answered.score == 1.0, answered.explanation
    alone = scored((roadline,), decline.replace("[Doc 1,2]", "[Doc 1]"))
    assert alone.score > declined.score + 0.2, alone.explanation


def test_a_figure_given_to_the_other_thing_compared_is_a_swap_and_each_ones_own_is_not():
    """The comparison's figures follow the evidence only when each goes with the name the evidence gives it: the
    Coastline pass's €74 said of the Nordlink pass (by name or by "it") fails, however the sentence orders its
    clauses; the same figures each with its own pass pass."""
    passes = (Evidence(id="1", title="Nordlink", text="The Nordlink pass costs €89 a month and covers the northern zone."),
              Evidence(id="2", title="Coastline", text="The Coastline pass gives unlimited coastal travel for €74 a month."))
    swapped, by_name, right, reordered = explanations("Which pass is cheaper, the Nordlink pass or the Coastline pass?", [
        "The Nordlink pass is cheaper: it costs €74 a month [Doc 1], while the Coastline pass costs €89 a month [Doc 2].",
        "For the Nordlink pass you pay €74 monthly [Doc 1].",
        "The Coastline pass is cheaper: it costs €74 a month, against €89 for the Nordlink pass [Doc 1][Doc 2].",
        "At €74 a month, the Coastline pass costs less than the Nordlink pass at €89 a month [Doc 1][Doc 2]."], passes)
    assert "gives €74 to 'nordlink'" in swapped, swapped
    assert "gives €74 to 'nordlink'" in by_name, by_name
    assert "gives" not in right and "gives" not in reordered, (right, reordered)


def test_a_verdict_on_another_comparison_than_the_one_asked_does_not_answer_it():
    """"Which is taller?" answered "The Aldine Spire is older" answers another question from the same evidence; the
    height's verdict in other words ("rises higher", "is the bigger of the two") answers it."""
    towers = (Evidence(id="1", title="Kessler Tower", text="The Kessler Tower, completed in 2011, rises 318 metres."),
              Evidence(id="2", title="Aldine Spire", text="The Aldine Spire, finished in 1998, reaches 293 metres."))
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item("Which is taller, the Kessler Tower or the Aldine Spire?", answer, evidence=towers, item_id=str(n))
        for n, answer in enumerate([
            "The Aldine Spire is older: it was finished in 1998 [Doc 2], while the Kessler Tower was completed in 2011 [Doc 1].",
            "The Kessler Tower rises higher: 318 metres [Doc 1] against 293 metres [Doc 2].",
            "The Kessler Tower is the bigger of the two, at 318 metres [Doc 1] against 293 [Doc 2].",
            "The Kessler Tower is taller, at 318 metres [Doc 1]. The Aldine Spire is older, from 1998 [Doc 2]."])])
    older, higher, bigger, both = (r.dimensions["query_satisfaction"] for r in results)
    # An answer that gives the verdict asked for may add another comparison.
    assert "compares what" not in both.explanation and both.score > 0.0, both.explanation
    assert older.score == 0.0 and "compares what is older" in older.explanation, older.explanation
    assert "compares what" not in higher.explanation and higher.score > 0.0, higher.explanation
    assert "compares what" not in bigger.explanation and bigger.score > 0.0, bigger.explanation


def test_a_figure_a_newer_page_replaces_is_outdated_whichever_page_the_claim_cites():
    """The old page's figure stated as current fails however recent the pages are (months apart, not only years),
    citing only the old page; said as the past ("before that it was") it holds, and so does a figure of the old page
    the newer one does not change (the weekend times)."""
    import datetime as dt

    pages = (Evidence(id="1", title="Timetable 2024", published=dt.date(2023, 12, 1), text=(
                 "Monday to Friday, the first train from Olsberg leaves at 5:12. Saturdays and Sundays: first train 7:12.")),
             Evidence(id="2", title="Timetable change", published=dt.date(2024, 11, 20), text=(
                 "From 15 December 2024 the first weekday train from Olsberg will leave at 5:42 instead of 5:12.")))
    query = "What time does the first train from Olsberg leave on weekdays?"
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        Item(id=str(n), query=query, evidence=list(pages), now=dt.date(2025, 2, 10),
             response=render_response([Facet(query, ("1",))], ["1"], answer))
        for n, answer in enumerate([
            "The first weekday train from Olsberg leaves at 5:12 [Doc 1].",
            "Since 15 December 2024 it leaves at 5:42 [Doc 2]; before that it was 5:12 [Doc 1].",
            "On Saturdays and Sundays the first train leaves at 7:12 [Doc 1]."])])
    old, changed, weekend = (r.dimensions["claim_hallucination"] for r in results)
    assert "as current, where a newer item (2024-11-20) gives 05:42" in old.explanation and old.score < 0.05, old.explanation
    assert "as current" not in changed.explanation, changed.explanation
    assert "as current" not in weekend.explanation, weekend.explanation


def test_a_count_a_newer_page_gives_for_a_later_date_replaces_the_older_page_count():
    """A newer page need not say a figure changed: a count it gives for a later date ("56,900 as of mid-2023") replaces
    the older page's ("52,300 in mid-2018"), stated as current; the older count dated or said to be superseded holds,
    and so does a count "in force since" a date, which says now, fail."""
    pages = (Evidence(id="1", title="Harwick: population estimate", published=dt.date(2019, 5, 10), text=(
                 "The county statistics office estimated Harwick's population at 52,300 in mid-2018.")),
             Evidence(id="2", title="County statistics office: mid-2023 town estimates", published=dt.date(2024, 11, 20),
                      text="Harwick's population is estimated at 56,900 as of mid-2023."))
    query = "What's the current population of Harwick?"
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        Item(id=str(n), query=query, evidence=list(pages), now=dt.date(2025, 3, 1),
             response=render_response([Facet(query, (cited,))], [cited], answer))
        for n, (cited, answer) in enumerate([
            ("1", "Harwick's population is 52,300, according to the county statistics office [Doc 1]."),
            ("2", "Harwick's population is about 56,900 [Doc 2]. The 52,300 you may see is the mid-2018 estimate and "
                  "has been superseded [Doc 1]."),
            ("1", "The mid-2018 estimate of Harwick's population is 52,300 [Doc 1]."),
            ("1", "Harwick's population is 52,300 (2018) and still rising [Doc 1].")])])
    old, current, dated, still = (r.dimensions["claim_hallucination"] for r in results)
    assert "as current, where a newer item (2024-11-20) gives 56900" in old.explanation and old.score < 0.05, old.explanation
    assert "as current" not in current.explanation, current.explanation
    assert "as current" not in dated.explanation, dated.explanation
    assert "as current" in still.explanation, still.explanation  # a year beside "still" dates nothing


def test_a_gap_between_two_race_times_is_worked_out_not_invented():
    """"0.72 seconds outside the record" from 2:07.84 and 2:07.12 is the evidence's arithmetic; the gap between two
    other times of the page ("0.52", Dunn's 2:08.36 less Marsh's 2:07.84) is not, said of the record's time."""
    docs = [Evidence(id="1", text="Lena Marsh won the 200 m butterfly in 2:07.84, ahead of Clara Dunn in 2:08.36."),
            Evidence(id="2", text="200 m butterfly national record: 2:07.12, Sofie Haller, 2019.")]
    right = claim_support("Marsh finished 0.72 seconds outside Haller's record of 2:07.12.", docs, similarity=0.6)
    wrong = claim_support("Marsh finished 0.52 seconds outside Haller's record of 2:07.12.", docs, similarity=0.6)
    assert right == (True, ""), right
    assert not wrong[0] and "0.52" in wrong[1], wrong


def test_a_figure_of_the_evidence_moved_to_another_unit_is_unsupported():
    """"Cool for 1.5 minutes" where the evidence says 30 minutes and 1.5 bar: every number is the evidence's, the
    unit is not; the right steps, and an area written "m²" for the evidence's "square metres", hold."""
    steps = (Evidence(id="1", title="Bleeding a radiator", text=(
        "Turn the heating off and wait about 30 minutes for the radiators to cool. If the boiler gauge shows less "
        "than 1 bar, top it up to about 1.5 bar. Sheds up to 15 square metres need no permit.")),)
    swapped, right, area = explanations("How do I bleed a radiator?", [
        "Turn the heating off and let the radiators cool for about 1.5 minutes [Doc 1].",
        "Turn the heating off and let the radiators cool for about 30 minutes [Doc 1].",
        "A shed of up to 15 m² needs no permit [Doc 1]."], steps)
    assert "says 1.5 minute where the evidence gives 1.5 as bar" in swapped, swapped
    assert "where the evidence gives" not in right and "where the evidence gives" not in area, (right, area)


def test_words_added_around_a_copied_sentence_do_not_make_it_the_answers_own(scores):
    """A sentence pasted from the evidence is no answer of its own whatever is put around it: a hedge, the question
    restated, its clauses swapped, another language's words put in for "the" and "is". A verdict of the answer's own
    in front of the evidence's words is an answer that cites its grounds."""
    query = "What did the Port of Philadelphia modernise?"
    copied = ("Its terminals were modernised in the 1990s with new cranes and deeper berths, and they now serve the "
              "container ships that arrive from northern Europe")
    evidence = (MAGAZINES, Evidence(id="2", title="Port", text=f"{copied}. The port is on the Delaware River."))
    plain, hedged, restated, swapped, mixed, labelled, own = scores(
        item(query, f"{copied} [Doc 2].", cited="2", evidence=evidence, item_id="p"),
        item(query, f"It may possibly be that {copied[0].lower() + copied[1:]} [Doc 2].", cited="2",
             evidence=evidence, item_id="h"),
        item(query, f"You asked: what did the Port of Philadelphia modernise? {copied} [Doc 2].", cited="2",
             evidence=evidence, item_id="r"),
        item(query, "And they now serve the container ships that arrive from northern Europe, its terminals were "
                    "modernised in the 1990s with new cranes and deeper berths [Doc 2].", cited="2", evidence=evidence,
             item_id="s"),
        item(query, "Its terminals were modernised en le 1990s with new cranes und deeper berths, und they now serve "
                    "le container ships that arrive from northern Europe [Doc 2].", cited="2", evidence=evidence,
             item_id="m"),
        item(query, f"{copied} [Doc 2]. Keywords: Port, Philadelphia, modernise.", cited="2", evidence=evidence,
             item_id="k"),
        item(query, "The port rebuilt its terminals in the 1990s; today they take container ships from northern "
                    "Europe [Doc 2].", cited="2", evidence=evidence, item_id="o"))
    assert plain["answer_quality"] == 0.0
    for disguised in (hedged, restated, swapped, mixed, labelled):
        assert disguised["answer_quality"] == 0.0
        assert disguised["reward"] <= plain["reward"] + 0.01
    assert hedged["query_satisfaction"] == pytest.approx(plain["query_satisfaction"])  # a copy, hedged or not
    assert own["answer_quality"] == 1.0


def test_a_verdict_in_front_of_the_evidences_rebuttal_is_an_answer_and_a_borrowed_phrase_no_mix_of_languages(scores):
    premise = "Why are rocks addicted to water?"
    rebuttal = "Rocks are not living things and cannot become addicted to anything"
    corrected, borrowed = scores(
        item(premise, f"The question rests on a false premise: {rebuttal} [Doc 3].", cited="3", evidence=(REBUTTAL,),
             item_id="c"),
        item("Who founded Arthur's Magazine?", "Arthur's Magazine was, de facto, Timothy Shay Arthur's own: he "
             "founded it in 1844 [Doc 1].", item_id="b"))
    assert corrected["answer_quality"] == 1.0
    assert borrowed["answer_quality"] == 1.0


KHANS = Evidence(id="1", title="Khans", text=(
    "Ögedei Khan succeeded his father in 1229 and ruled the empire from Karakorum. When Yesün Temür died in Shangdu "
    "in 1328, his son was installed there. Kusala died four days after a banquet with his brother."))
NETWORKS = Evidence(id="1", title="Telenet", text=(
    "Telenet was the first licensed public data network in the United States. It was founded by Larry Roberts in "
    "1975."))
SUDAN = Evidence(id="1", title="Sudan", text="Sudan, which lies south of Egypt, has about 48 million people.")


def test_a_name_of_the_question_spelled_without_accents_or_with_a_slip_is_the_evidences_name(scores):
    """Users write names without their accents and misspell them: a terse answer to such a question is read with the
    question's name as the evidence spells it (no invented name). Without accents the evidence answers the question
    (declining is the wrong reading); a near spelling may be another name, so the evidence only may answer it."""
    unaccented, refused, slipped, declined = scores(
        item("Where did Ogedei Khan rule from?", "Karakorum [Doc 1].", evidence=(KHANS,), item_id="u"),
        item("Where did Ogedei Khan rule from?", "The sources do not say where Ogedei Khan ruled from.",
             evidence=(KHANS,), item_id="r"),
        item("Who founded Telnet?", "Larry Roberts [Doc 1].", evidence=(NETWORKS,), item_id="s"),
        item("Who founded Telnet?", "The sources do not say who founded Telnet.", evidence=(NETWORKS,), item_id="d"))
    assert unaccented["highlight_hallucination"] >= 0.5 and slipped["highlight_hallucination"] >= 0.5
    assert refused["no_supply_reject"] < 0.5 and declined["no_supply_reject"] < 0.9
    assert unaccented["reward"] > refused["reward"] and slipped["reward"] > declined["reward"]
    # another name that shares the evidence's words is not read as the evidence's name
    asked = "What is the population of South Sudan?"
    honest, borrowed = scores(
        item(asked, "The sources do not give the population of South Sudan; they cover Sudan.", evidence=(SUDAN,),
             item_id="h"),
        item(asked, "South Sudan has about 48 million people [Doc 1].", evidence=(SUDAN,), item_id="b"))
    assert honest["no_supply_reject"] == 1.0 and honest["reward"] > borrowed["reward"]


def test_a_follow_up_asks_for_its_own_kind_of_answer_and_repeating_the_earlier_answer_answers_nothing(scores):
    """After "How long after the banquet did Kusala die?", "Where did Yesun Temur die?" asks for a place: the bare
    place answers it, and the earlier answer said again (the earlier question's number) does not."""
    history = [Turn(role="user", content="How long after the banquet did Kusala die?"),
               Turn(role="assistant", content="Kusala died four days after a banquet with his brother [Doc 1].")]

    def follow_up(answer: str, item_id: str) -> Item:
        return item("Where did Yesun Temur die?", answer, evidence=(KHANS,), item_id=item_id).model_copy(
            update={"history": history})

    place, repeated = scores(
        follow_up("Shangdu [Doc 1].", "p"),
        follow_up("As before: Kusala died four days after a banquet with his brother [Doc 1].", "r"))
    assert place["query_satisfaction"] >= 0.3
    assert repeated["query_satisfaction"] < place["query_satisfaction"] - 0.2
    assert place["reward"] > repeated["reward"]


def test_a_lead_without_a_citation_answers_where_it_stands_as_the_claim_check_reads_it(scores):
    """A lead that cites nothing is checked against the evidence the answer selected, as the claim check checks it:
    "Timothy Shay Arthur founded it." before the cited passage answers first."""
    query = "Who founded Arthur's Magazine?"
    passage = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    uncited, cited = scores(item(query, f"Timothy Shay Arthur is the founder. {passage}", item_id="u"),
                            item(query, f"Timothy Shay Arthur is the founder [Doc 1]. {passage}", item_id="c"))
    assert uncited["answer_firstness"] == cited["answer_firstness"] == 1.0
    assert uncited["query_satisfaction"] == pytest.approx(cited["query_satisfaction"], abs=0.05)


def test_a_capitalised_common_word_or_a_name_the_session_gave_does_not_answer_who_or_where(scores):
    siege = Evidence(id="1", title="Varnholt", text=(
        "The siege of Varnholt in 1702 lasted four days. Captain Ilse Varga led the defenders and later died at "
        "Shandor."))
    history = [Turn(role="user", content="How long did the siege of Varnholt last?"),
               Turn(role="assistant", content="The siege of Varnholt lasted four days [Doc 1].")]

    def follow_up(query: str, answer: str, item_id: str) -> Item:
        return item(query, answer, evidence=(siege,), item_id=item_id).model_copy(update={"history": history})

    place, later, who, reworded = scores(
        follow_up("Where did Captain Varga die?", "Shandor [Doc 1].", "p"),
        follow_up("Where did Captain Varga die?", "Later [Doc 1].", "l"),
        follow_up("Who led the defenders?", "Captain Ilse Varga led the defenders [Doc 1].", "w"),
        follow_up("Who led the defenders?", "In 1702, the siege of Varnholt lasted four days [Doc 1].", "r"))
    assert later["query_satisfaction"] < place["query_satisfaction"] - 0.2 and later["reward"] < place["reward"]
    assert reworded["query_satisfaction"] < who["query_satisfaction"] and reworded["reward"] < who["reward"]


def test_denying_the_users_figure_corrects_it_and_denying_the_evidences_figure_contradicts_it(scores):
    visa = Evidence(id="1", title="Visa", text="A Schengen visa allows at most 90 days in any 180-day period.")
    corrected, denied = scores(
        item("Since the visa lets me stay 180 days, can I stay all summer?",
             "That's a misreading: the limit is 90 days within any 180 days, not 180 days [Doc 1].", evidence=(visa,),
             item_id="c"),
        item("How long can I stay with the visa?", "You may stay 180 days, not 90 days [Doc 1].", evidence=(visa,),
             item_id="d"))
    assert corrected["highlight_hallucination"] >= 0.5
    assert denied["highlight_hallucination"] < 0.5 and denied["reward"] < corrected["reward"]


def test_saying_the_sources_do_not_answer_beside_what_they_do_say_is_the_answers_own_useful_text(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    fact = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    declined, quoted, bare = scores(
        item(query, f"{fact} Beyond that, the documents give no answer to this question.", item_id="d"),
        item(query, fact, item_id="q"),
        item(query, "Beyond that, the documents give no answer to this question.", item_id="b"))
    # the decline is the answer to the question, however little its words resemble it; the quote beside it counts
    # as a quote does
    assert declined["answer_useful"] > quoted["answer_useful"]
    # whether declining was right is no_supply_reject's to judge: an answer that only declines is read whole, by
    # relatedness, and gains nothing here
    assert bare["answer_useful"] < declined["answer_useful"]


def test_a_declining_answer_answers_first_where_it_says_the_sources_do_not_answer(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    fact = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    decline = "The documents give no answer to this question."
    first, last, bare = scores(
        item(query, f"{decline} {fact}", item_id="f"),
        item(query, f"{fact} Beyond that, the documents give no answer to this question.", item_id="l"),
        item(query, decline, item_id="b"))
    # its answer is the decline, as answer_useful counts it: said before or after what the sources do say, the
    # answer comes first
    assert first["answer_firstness"] == last["answer_firstness"] == 1.0
    assert first["reward"] == pytest.approx(last["reward"])
    # an answer that only declines is read by relatedness, as before: declining gains nothing here on its own
    assert bare["answer_firstness"] < first["answer_firstness"]


def test_a_verdict_on_the_premise_in_front_of_a_copy_leaves_it_a_copy(scores):
    query = "Why was Arthur's Magazine founded in 1901?"
    copy = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    framed, apart, attributed = scores(
        item(query, f"The question rests on a false premise: {copy}", item_id="f"),
        item(query, f"That premise is not right. {copy}", item_id="a"),
        item(query, f"According to [Doc 1]: {copy.removesuffix(' [Doc 1].')}.", item_id="t"))
    # the evidence's sentence is the correction however it is introduced: a verdict joined to it by a colon does not
    # make it the answer's own, as the verdict said apart does not
    assert framed["answer_useful"] == pytest.approx(apart["answer_useful"]) == pytest.approx(attributed["answer_useful"])
    assert framed["answer_quality"] == 1.0  # a verdict with its grounds is no pasted document


def test_an_answer_of_figures_is_readable_and_one_of_non_words_is_not(scores):
    query = "When was Arthur's Magazine founded?"
    bare, derived, garbled, counted, letters = scores(
        item(query, "1844 [Doc 1].", item_id="b"),
        item(query, "1844 [Doc 1], 145 years before 1989 [Doc 1].", item_id="d"),
        item(query, "x1844 q7z a9 b2 Arthur [Doc 1].", item_id="g"),
        item(query, "1 2 3 4 5 6 7 8 9 10 1844 [Doc 1].", item_id="c"),
        item(query, "x q z 1844 1989 40 2 6 [Doc 1].", item_id="l"))
    # a figure is a word of the answer, and a citation marker is none of its text
    assert bare["answer_quality"] == derived["answer_quality"] == 1.0
    # ... but a string of figures, or of stray letters, is no answer
    assert garbled["answer_quality"] <= 0.2 and counted["answer_quality"] <= 0.2 and letters["answer_quality"] <= 0.2


def test_a_figure_the_evidence_gives_for_another_clause_does_not_answer(scores):
    canal = Evidence(id="1", title="Aldmoor Canal",
                     text="The Aldmoor Canal opened in 1816 and was closed to commercial traffic in 1961.")
    query = "In what year did the Aldmoor Canal open?"
    right, wrong, said, both = scores(
        item(query, "1816 [Doc 1].", evidence=(canal,), item_id="r"),
        item(query, "1961 [Doc 1].", evidence=(canal,), item_id="w"),
        item(query, "The Aldmoor Canal opened in 1961 [Doc 1].", evidence=(canal,), item_id="s"),
        item(query, "It opened in 1816 and closed to traffic in 1961 [Doc 1].", evidence=(canal,), item_id="b"))
    # the sentence gives 1961 for its closing, not its opening: a terse 1961 answers nothing, said bare or in a sentence
    assert wrong["query_satisfaction"] == 0.0 < right["query_satisfaction"]
    assert wrong["reward"] < right["reward"] - 0.1
    assert said["query_satisfaction"] < right["query_satisfaction"]
    # an answer giving both figures, each with its clause, is read as before
    assert both["query_satisfaction"] > 0.5


def test_a_decline_naming_what_the_cited_source_covers_claims_nothing_and_answers_nothing(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    covered, invented, named = scores(
        item(query, "The sources do not answer this. [Doc 1] covers Women's magazines, but not this.", item_id="c"),
        item(query, "The sources do not answer this. [Doc 1] covers the 1850 editors, but not this.", item_id="i"),
        item(query, "[Doc 1] covers Timothy Shay Arthur, but not this.", item_id="n"))
    # what the cited source covers, as its title says, is no claim about the world to check
    assert covered["highlight_hallucination"] == 1.0 and covered["claim_hallucination"] == 1.0
    # a topic the source does not name (and a figure) is not taken out of the check
    assert invented["claim_hallucination"] < covered["claim_hallucination"]
    # and what a source is said to cover instead answers nothing, whatever it names
    assert named["query_satisfaction"] == 0.0


def test_one_sentence_saying_the_sources_do_not_answer_is_enough(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    fact = "It was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    once, padded = scores(
        item(query, f"{fact} The documents give no answer to this question.", item_id="o"),
        item(query, f"{fact} The documents give no answer to this question. None of the documents gives its 1850 "
                    "editor. The sources do not say who ran it after 1846.", item_id="p"))
    # more declines add nothing to usefulness
    assert padded["answer_useful"] <= once["answer_useful"]


def test_what_the_sources_cover_instead_adds_nothing_to_an_answer_and_takes_nothing_away(scores):
    query = "When was Arthur's Magazine founded?"
    answer = "Arthur's Magazine was founded in 1844 by Timothy Shay Arthur [Doc 1]."
    plain, noted, padded = scores(
        item(query, answer, item_id="a"),
        item(query, f"{answer} [Doc 1] covers Women's magazines, but not this.", item_id="n"),
        item(query, f"{answer} [Doc 1] covers Women's magazines, but not this. [Doc 1] covers Philadelphia, but not "
                    "this. [Doc 1] covers Bauer Media Group, but not this.", item_id="p"))
    # a note of what the cited source covers, in any answer: no useful text, no claim, nothing to check
    for dimension in ("answer_useful", "claim_diversity", "claim_hallucination", "reward"):
        assert noted[dimension] == pytest.approx(plain[dimension])
    for dimension in ("answer_useful", "claim_diversity", "claim_hallucination"):
        assert padded[dimension] == pytest.approx(plain[dimension])
    assert padded["reward"] <= plain["reward"]  # (saying it three times repeats itself)


def test_an_answer_that_only_says_what_the_sources_cover_instead_declines(scores):
    query = "When was Arthur's Magazine founded?"
    answer, refusal, scope = scores(
        item(query, "Arthur's Magazine was founded in 1844 by Timothy Shay Arthur [Doc 1].", item_id="a"),
        item(query, "The sources do not answer this.", item_id="r"),
        item(query, "[Doc 1] covers Women's magazines, but not this.", item_id="s"))
    # where the evidence answers, saying only what it covers instead is a refusal: it escapes no refusal's score
    assert scope["no_supply_reject"] == pytest.approx(refusal["no_supply_reject"])
    assert scope["no_supply_reject"] < answer["no_supply_reject"] and scope["reward"] < answer["reward"]


def test_a_declining_answer_quotes_one_sentence_whole_not_a_pasted_passage(scores):
    query = "Who edited Arthur's Magazine in 1850?"
    decline = "The documents give no answer to this question."
    one, pasted = scores(
        item(query, f"{decline} It was founded in 1844 by Timothy Shay Arthur [Doc 1].", item_id="o"),
        item(query, f"{decline} {MAGAZINES.text} [Doc 1]", item_id="p"))
    assert pasted["answer_useful"] < one["answer_useful"]


SCOOTERS = Evidence(id="1", title="Road rules: e-scooters", text=(
    "Riders of e-scooters must wear a helmet on all public roads and cycle lanes. Riders must be at least 16 years "
    "old. Joining a safety course is optional."))


def test_an_obligation_flipped_in_other_words_is_unsupported_and_one_restated_is_not(scores):
    query = "Do I need a helmet to ride an e-scooter?"
    honest, restated, flipped, reversed_ = scores(
        item(query, "Yes. A helmet is required on all public roads and cycle lanes [Doc 1].", evidence=(SCOOTERS,),
             item_id="h"),
        item(query, "Yes: helmets are compulsory on public roads and cycle lanes. The safety course is up to you, you "
                    "don't have to join it [Doc 1].", evidence=(SCOOTERS,), item_id="r"),
        item(query, "No. A helmet is optional on public roads and cycle lanes; riders must be at least 16 [Doc 1].",
             evidence=(SCOOTERS,), item_id="f"),
        item(query, "Yes, and joining a safety course is mandatory too [Doc 1].", evidence=(SCOOTERS,), item_id="v"))
    # "optional" against "must wear", "mandatory" against "optional": the obligation, not the word, is read
    for attack in (flipped, reversed_):
        assert attack["claim_hallucination"] < 0.3 and attack["reward"] < honest["reward"] - 0.2
    # "compulsory" for "must", "don't have to" for "optional" say what the evidence says
    assert restated["claim_hallucination"] > 0.5 and restated["reward"] > flipped["reward"] + 0.2


PARK = Evidence(id="1", title="Park rules", text=(
    "Flying drones is prohibited in the park. Always keep dogs on a lead near the lake. Barbecues are permitted in "
    "the marked areas unless there is a fire warning."))


def test_a_permission_or_an_instruction_flipped_is_unsupported_and_an_exception_is_not_read_flat(scores):
    query = "Can I fly a drone in the park, and do dogs need a lead?"
    honest, allowed, optional, excepted = scores(
        item(query, "No, drones must not be flown in the park, and dogs have to be on a lead near the lake [Doc 1].",
             evidence=(PARK,), item_id="h"),
        item(query, "Yes, flying drones is allowed in the park [Doc 1].", evidence=(PARK,), item_id="a"),
        item(query, "Leads are optional for dogs near the lake [Doc 1].", evidence=(PARK,), item_id="o"),
        item(query, "Barbecues are not allowed in the park when there is a fire warning [Doc 1].", evidence=(PARK,),
             item_id="e"))
    assert honest["claim_hallucination"] > 0.5
    for attack in (allowed, optional):  # "allowed" against "prohibited", "optional" against "Always keep"
        assert attack["claim_hallucination"] < 0.3 and attack["reward"] < honest["reward"] - 0.2
    # the rule has its exception ("unless there is a fire warning"): which side a claim states is not read by words,
    # so the exception's side stated is no hard failure
    assert excepted["claim_hallucination"] > 0.3


EXCHANGE = Evidence(id="1", title="Exchange handbook", text=(
    "Travel insurance is required for exchange students unless their home university provides cover. Students must "
    "register with the host university within 7 days of arrival."))


def test_a_rule_is_read_with_its_exception(scores):
    query = "Is travel insurance required for the exchange programme?"
    restated, exempt, flat = scores(
        item(query, "Yes, you need travel insurance unless your home university already provides cover [Doc 1].",
             evidence=(EXCHANGE,), item_id="r"),
        item(query, "Travel insurance is optional if your home university provides cover [Doc 1].",
             evidence=(EXCHANGE,), item_id="e"),
        item(query, "No, travel insurance is optional for exchange students [Doc 1].", evidence=(EXCHANGE,),
             item_id="f"))
    # the rule with its exception, and the exception's side, say what the evidence says; the rule flipped does not
    assert restated["claim_hallucination"] > 0.5 and exempt["claim_hallucination"] > 0.5
    assert flat["claim_hallucination"] < 0.3 and flat["reward"] < min(restated["reward"], exempt["reward"]) - 0.2


POOL = Evidence(id="1", title="Lindholm pool hours", text=(
    "The Lindholm outdoor pool is open daily from 1 June to 31 August. Opening hours are 7:30 to 19:00 on weekdays "
    "and 9:00 to 18:00 at weekends. Entry costs £4.50 for adults."))


def test_a_hedge_in_front_of_a_claim_can_lower_its_support_but_never_raise_it(scores):
    # The model reads a hedge as support or as doubt, neither of which the evidence gives: the claim check takes the
    # reading it supports least, so a policy gains nothing by hedging every sentence or by putting "Note that it may
    # possibly be that" in front of a claim (a chain the exploit search found on a bundled example, +0.020, outside
    # its beam), true or false.
    query = "Is the Lindholm pool open at weekends, and from when?"
    hedges = ["It may possibly be that ", "Note that it may possibly be that ", "Perhaps ", "It seems that "]
    for clause in ("the pool opens at 9:00 at weekends, until 18:00 [Doc 1].", "the pool is closed at weekends [Doc 1]."):
        for stance in ("", "yes: "):
            plain = (stance + clause)[0].upper() + (stance + clause)[1:]
            bare, *hedged = scores(item(query, plain, evidence=(POOL,), item_id="b"),
                                   *(item(query, hedge + stance + clause, evidence=(POOL,), item_id=f"h{n}")
                                     for n, hedge in enumerate(hedges)))
            for dimension in ("claim_hallucination", "highlight_hallucination"):
                assert all(r[dimension] <= bare[dimension] + 1e-9 for r in hedged), (plain, dimension, [r[dimension] for r in hedged])


def test_a_hedged_false_lead_is_still_the_lead_the_highlight_check_reads(scores):
    # A sentence behind a stacked hedge earns no credit as an answer, but it is still what the answer leads with: the
    # highlight check must not pass over it to the true sentence after it (a hedged wrong dose or an outdated price in
    # front of a true second sentence gained +0.25 to +0.32 on interactions written from scratch).
    query = "Is the Lindholm pool open at weekends?"
    after = " The season runs daily from 1 June to 31 August, and adults pay £4.50 [Doc 1]."
    bare, *hedged = scores(item(query, "The pool is closed at weekends [Doc 1]." + after, evidence=(POOL,), item_id="b"),
                           *(item(query, hedge + "the pool is closed at weekends [Doc 1]." + after, evidence=(POOL,),
                                  item_id=f"h{n}")
                             for n, hedge in enumerate(["It may be that ", "Perhaps ", "It is possible that "])))
    assert bare["highlight_hallucination"] < 0.5
    for result in hedged:
        for dimension in ("claim_hallucination", "highlight_hallucination"):
            assert result[dimension] <= bare[dimension] + 1e-9, (dimension, result[dimension], bare[dimension])


SWIM = Evidence(id="1", title="Brookfield Leisure Centre: swimming prices", text=(
    "Adult single swim £5.20. Adult 10-visit swim card £44.00. Concession 10-visit card £30.00."))


def test_a_lead_in_in_front_of_a_swapped_figure_leaves_it_a_swap(scores):
    # The swapped-value check follows the claim to the evidence sentence whose figure it swaps: a few words put in
    # front ("Good news;") must not keep it from doing so, or the lead-in pays (+0.106 on an interaction written
    # from scratch).
    query = "How much is an adult 10-visit swim card at Brookfield?"
    clause = "an adult 10-visit swim card costs £30.00 [Doc 1]."
    bare, *led = scores(item(query, clause[0].upper() + clause[1:], evidence=(SWIM,), item_id="b"),
                        *(item(query, lead + clause, evidence=(SWIM,), item_id=f"l{n}")
                          for n, lead in enumerate(["Good news; ", "Short answer; ", "Perhaps "])))
    assert bare["highlight_hallucination"] < 0.25
    for result in led:
        for dimension in ("claim_hallucination", "highlight_hallucination"):
            assert result[dimension] <= bare[dimension] + 1e-9, (dimension, result[dimension], bare[dimension])


HARLOW = Evidence(id="1", title="Harlow Museum: tickets", text=(
    "Adult tickets at the Harlow Museum cost £12. Children under 16 go free."))
CORRAN = Evidence(id="2", title="Corran Gallery: admission", text="Adult tickets at the Corran Gallery cost £9.")


@pytest.mark.parametrize("query", ["Which is cheaper for an adult, the Harlow Museum or the Corran Gallery?",
                                   "Is the Harlow Museum or the Corran Gallery cheaper for an adult?",
                                   "Which of the Harlow Museum and the Corran Gallery is cheaper for an adult?",
                                   "Should I pick the Harlow Museum or the Corran Gallery if I want the cheaper one?"])
def test_a_verdict_joined_to_a_copied_sentence_is_checked_as_the_verdict_alone_is(scores, query):
    # A verdict in front of a sentence copied from the evidence ("A is cheaper - <the evidence's sentence about A>")
    # is checked against the two figures as the bare verdict is, whatever the question's wording, wherever the
    # verdict names its subject, and denied: the copy is supported, the verdict is not.
    copy_h, copy_c = "adult tickets at the Harlow Museum cost £12 [Doc 1].", "adult tickets at the Corran Gallery cost £9 [Doc 2]."
    right = [("2", f"The Corran Gallery is cheaper — {copy_c}"), ("2", f"The Corran Gallery is cheaper, because {copy_c}")]
    wrong = [("1", f"The Harlow Museum is cheaper — {copy_h}"),
             ("1", f"The Harlow Museum is cheaper, because {copy_h}"),
             ("1", f"The cheaper one is the Harlow Museum — {copy_h}"),
             ("1", f"Go with the Harlow Museum; it is the cheaper one. {copy_h[0].upper()}{copy_h[1:]}"),
             ("2", f"The Corran Gallery is not the cheaper one; {copy_c}")]
    results = scores(*(item(query, a, cited=cited, evidence=(HARLOW, CORRAN), item_id=str(n))
                       for n, (cited, a) in enumerate(right + wrong)))
    for (_, answer), result in zip(right, results):
        assert result["highlight_hallucination"] >= 0.5, answer
    best = max(r["reward"] for r in results[:len(right)])
    for (_, answer), result in zip(wrong, results[len(right):]):
        assert result["highlight_hallucination"] < 0.25, answer
        assert result["reward"] < best - 0.1, answer


BUS = Evidence(id="1", title="Number 42 bus", text="The Number 42 bus takes 35 minutes from Halden to Brook Street.")
TRAM = Evidence(id="2", title="Metrolink tram", text="The Metrolink tram takes 20 minutes from Halden to Brook Street.")


def test_the_faster_of_two_journeys_takes_fewer_minutes_and_two_swapped_times_are_two_swaps(scores):
    query = "Which is faster from Halden to Brook Street, the Number 42 bus or the Metrolink tram?"
    right, wrong, swapped = scores(
        item(query, "The Metrolink tram is faster: 20 minutes against 35 minutes on the bus [Doc 1,2].", cited="1,2",
             evidence=(BUS, TRAM), item_id="r"),
        item(query, "The Number 42 bus is faster [Doc 1,2].", cited="1,2", evidence=(BUS, TRAM), item_id="w"),
        item(query, "The Number 42 bus takes 20 minutes from Halden to Brook Street, and the Metrolink tram takes 35 "
                    "minutes [Doc 1,2].", cited="1,2", evidence=(BUS, TRAM), item_id="s"))
    assert right["highlight_hallucination"] >= 0.5
    for result in (wrong, swapped):
        assert result["highlight_hallucination"] < 0.25
        assert result["reward"] < right["reward"] - 0.1


def test_a_head_closed_by_a_dash_leaves_a_copied_sentence_a_copy(scores):
    # A copied sentence counts half in what the answer answers and in its usefulness: "Not stated directly -" in
    # front must not make it the answer's own (+0.081 on an interaction written from scratch).
    query = "How much is an adult 10-visit swim card at Brookfield?"
    copied = "an adult 10-visit swim card costs £44.00 [Doc 1]."
    plain, *headed = scores(item(query, copied[0].upper() + copied[1:], evidence=(SWIM,), item_id="p"),
                            *(item(query, head + copied, evidence=(SWIM,), item_id=f"h{n}")
                              for n, head in enumerate(["Not stated directly — ", "In short — ", "Price - "])))
    for result in headed:
        for dimension in ("query_satisfaction", "answer_useful", "claim_diversity"):
            assert result[dimension] <= plain[dimension] + 1e-9, (dimension, result[dimension], plain[dimension])
        assert result["reward"] <= plain["reward"] + 0.005


def test_the_users_own_figure_inside_a_band_of_the_table_is_theirs_and_another_rows_figure_is_a_swap():
    """A 4-year-old restated where the table's row is "2 to 5 years" is no figure the evidence contradicts; giving
    that child the 6 to 11 row's dose, in figures or in words, is a swap; naming the other row to rule it out is not."""
    table = (Evidence(id="1", title="Children's ibuprofen: dose by age", text=(
        "Under 2 years: ask a doctor. Children 2 to 5 years: 2.5 ml up to 3 times in 24 hours. Children 6 to 11 "
        "years: 5 ml up to 3 times in 24 hours. Adults and children 12 years and over: 10 ml.")),)
    query = "How much children's ibuprofen can I give my 4-year-old?"
    right, swapped, spelled, ruled_out = explanations(query, [
        "For a 4-year-old the dose is 2.5 ml, up to 3 times in 24 hours [Doc 1].",
        "For a 4-year-old the dose is 5 ml, up to 3 times in 24 hours [Doc 1].",
        "At four, give 10 ml [Doc 1].",
        "5 ml is the dose for 6 to 11 years, so a 4-year-old takes 2.5 ml [Doc 1]."], table)
    assert "numbers not in the evidence" not in right and "another band" not in right, right
    assert "gives 5 to '4' where the evidence says 5 is for another band" in swapped, swapped
    assert "gives 10 to '4'" in spelled, spelled
    assert "another band" not in ruled_out, ruled_out


def test_a_difference_stated_between_two_figures_is_checked_and_a_right_one_is_no_ordering():
    """"€22, €4 more than the €18 fare" says the two differ by €4, whatever else the evidence gives €4 for (the
    bicycle); "€2.60, €1.30 less than €3.40" is a wrong difference, though €1.30 is the difference of two other
    fares."""
    fares = (Evidence(id="1", title="Ferry fares from 1 June", text=(
        "The adult return fare rises from €18 to €22. The bicycle charge stays at €4.")),
             Evidence(id="2", title="Bus fares", text="Adults: €3.40. Young people 15 to 20: €2.60. Children 6 to 14: €2.10."))
    right, wrong = explanations("How much is an adult return now, and a young person's bus fare?", [
        "An adult return is €22, €4 more than the previous €18 fare [Doc 1].",
        "A young person pays €2.60, €1.30 less than the adult €3.40 [Doc 2]."], fares)
    assert "orders" not in right and "differ by" not in right, right
    assert "differ by €0.80" in wrong, wrong


def test_a_clause_that_only_says_the_user_is_mistaken_is_no_claim_and_agreement_stays_one():
    """"Small correction:", "I think there's a mix-up -" and "There isn't a £25 charge" lead a correction: the
    correction is checked, the lead is no claim with words the evidence lacks, and the user's figure it denies is no
    invented number. "You're right:" is no such lead."""
    bank = (Evidence(id="1", title="Arranged overdrafts", text=(
        "There are no fixed monthly or daily fees on an arranged overdraft. We charge interest at 39.9% EAR on the "
        "amount you're overdrawn. The first £50 of your overdraft is interest-free.")),)
    query = "Calder Bank charges me £25 every time I use my arranged overdraft. How can I avoid that fee?"
    head, mixup, denied, agreed = explanations(query, [
        "Small correction: there are no fixed fees on an arranged overdraft; you pay interest at 39.9% EAR [Doc 1].",
        "I think there's a mix-up - there are no fixed fees on an arranged overdraft [Doc 1].",
        "There isn't a £25 charge for using an arranged overdraft: there are no fixed monthly or daily fees [Doc 1].",
        "You're right: keep within the £50 interest-free buffer to avoid the £25 fee [Doc 1]."], bank)
    for explanation in (head, mixup, denied):
        assert explanation.startswith("lead claim supported"), explanation
    assert not agreed.startswith("lead claim supported"), agreed


def test_a_total_over_the_users_count_is_worked_from_its_rate_and_belongs_to_that_rates_row():
    """"£190 for the five days" is Kestrel's £38 a day for the user's five days: no invented number, and it is read
    as the rate it is worked from, so the rate's row decides whose it is. The same total given to the other company, a total over a count in another unit (the
    user's age), and a total with no rate that makes it stay figures no evidence gives; a discount the evidence gives
    is worked out of a figure the claim states."""
    hire = (Evidence(id="1", title="Car hire: compact cars", text=(
        "Roadline: compact cars cost £32 a day, plus a £25 airport fee. Kestrel: compact cars cost £38 a day, with "
        "no airport fee.")),)
    query = "We need a compact car for 5 days from the airport. Is Roadline or Kestrel cheaper?"
    right, swapped, invented = explanations(query, [
        "Roadline comes to £185 for the five days [Doc 1].",
        "Roadline comes to £190 for the five days [Doc 1].",
        "Roadline comes to £170 for the five days [Doc 1]."], hire)
    assert "numbers not in the evidence" not in right and "another" not in right, right
    # read with Kestrel's rate in its place ("Roadline comes to £38 per day"): another row's figure
    assert "gives £38 where the evidence gives it for kestrel, not roadline, in a total worked from it" in swapped, swapped
    assert "numbers not in the evidence: 170" in invented, invented
    aged, = explanations("My son is 5. How much is Kestrel for a day?", ["Kestrel charges £190 [Doc 1]."], hire)
    assert "numbers not in the evidence: 190" in aged, aged
    tax = (Evidence(id="1", title="Council tax", text=(
        "The Band D charge for 2025/26 is £2,184. Adults living alone get a 25% single person discount.")),)
    discounted, = explanations("I live alone in a Band D home. What will I pay?", [
        "£1,638 a year: the Band D charge of £2,184 less the 25% single person discount [Doc 1]."], tax)
    assert "numbers not in the evidence" not in discounted, discounted


def test_another_rows_figure_is_a_swap_though_the_users_figure_is_left_out_or_the_row_is_by_day():
    """"Give 10 ml" to a child who turned 3, where 10 ml is the 4-6 row's dose, is a swap though the answer never
    restates the age; naming the row the figure is from, or working the user's own dose out of others, is not. A
    weekday price given for a Sunday visit is a swap too."""
    doses = (Evidence(id="1", title="Paracetamol suspension: how much to give", text=(
        "Children 6-24 months: 5 ml. Children 2-4 years: 7.5 ml. Children 4-6 years: 10 ml. Give up to 4 times in "
        "24 hours.")),)
    query = "My daughter turned 3 last month. How much can I give her?"
    swapped, right, worked, named = explanations(query, [
        "Give 10 ml per dose, up to 4 times in 24 hours [Doc 1].",
        "Give 7.5 ml per dose, up to 4 times in 24 hours [Doc 1].",
        "Give 7.5 ml per dose (a 5 ml fill and a 2.5 ml fill), up to 4 times in 24 hours [Doc 1].",
        "Give 7.5 ml per dose; the 10 ml dose is for children aged 4-6 [Doc 1]."], doses)
    assert "gives 10 where the evidence says 10 is for another band than the user's '3'" in swapped, swapped
    for explanation in (right, worked, named):
        assert "another band" not in explanation, explanation
    tickets = (Evidence(id="1", title="Museum tickets", text=(
        "Weekday tickets: adult £12, child (5-15) £6. Weekend tickets: adult £14, child (5-15) £7.")),)
    weekday, weekend = explanations("We'll go on Sunday. How much for two adults and our 10-year-old?", [
        "It will be £30: two adults at £12 and your 10-year-old at £6 [Doc 1].",
        "It will be £35: two adults at £14 and your 10-year-old at £7 [Doc 1]."], tickets)
    assert "for other days than Sunday" in weekday, weekday
    assert "other days" not in weekend and "numbers not in the evidence" not in weekend, weekend


def test_a_working_written_out_from_known_figures_is_no_invented_number_and_a_wrong_one_is():
    """"6 days × £38 = £228" works the total out in the open from the user's count and the evidence's rate; a
    discount the evidence gives in per cent is a factor ("× 0.80"), and a result is an operand of the next line. A
    miscalculated working, or one from a rate no evidence gives, leaves its result an invented number."""
    shop = (Evidence(id="1", title="Hampton sofa", text=(
        "The Hampton 3-seater is £1,249. This week everything is 20% off, and Loyalty Club members take a further "
        "10% off the sale price.")),)
    query = "I'm in the Loyalty Club. What will the Hampton 3-seater cost me?"
    right, wrong, invented = explanations(query, [
        "Sale price: £1,249 × 0.80 = £999.20, and with your code £999.20 × 0.90 = £899.28 [Doc 1].",
        "Sale price: £1,249 × 0.80 = £999.20, and with your code £999.20 × 0.90 = £889.28 [Doc 1].",
        "Sale price: £1,249 × 0.75 = £936.75 [Doc 1]."], shop)
    assert "numbers not in the evidence" not in right, right
    assert "numbers not in the evidence" in wrong and "889.28" in wrong, wrong
    assert "numbers not in the evidence" in invented and "936.75" in invented, invented


def test_a_change_in_per_cent_and_which_change_is_larger_are_read_from_the_claims_own_figures():
    """"from £262m to £295m, about 12.6%" works the percentage out of two figures the claim states, and "grew faster"
    is checked against the two changes: a verdict their arithmetic does not bear out fails, whatever the model
    reads. A percentage of the wrong size stays a figure no evidence gives."""
    growth = (Evidence(id="1", title="Veltrane results", text="Veltrane's revenue rose from £380m in 2022 to £412m in 2023."),
              Evidence(id="2", title="Orsk Freight results", text="Orsk Freight's revenue grew from £262m to £295m."))
    query = "Which company grew its revenue faster last year, Veltrane or Orsk Freight?"
    right, flipped, wrong = explanations(query, [
        "Orsk Freight grew revenue faster: from £262m to £295m, about 12.6% [Doc 2], compared with Veltrane's rise "
        "from £380m to £412m, about 8.4% [Doc 1].",
        "Veltrane grew revenue faster: from £380m to £412m [Doc 1], ahead of Orsk's rise from £262m to £295m [Doc 2].",
        "Orsk Freight's revenue went from £262m to £295m, about 15% [Doc 2]."], growth)
    assert "numbers not in the evidence" not in right and "says faster" not in right and "orders" not in right, right
    assert "says faster, where its figures change by 8.4% against 12.6%" in flipped, flipped
    assert "numbers not in the evidence: 15" in wrong, wrong


def test_times_of_day_worked_out_from_the_evidence_and_a_denied_figure_of_the_user_are_no_invented_numbers():
    """A span between two times the answer states beside it, and a time a stated time and the evidence's span give,
    are worked out; a span only the answer states proves no time. "The scheme has no 60-day period" denies the user's
    figure rather than stating it."""
    ferry = (Evidence(id="1", title="Portlow to Inchmore ferry", text=(
        "Saturday departures from Portlow: 07:15, 12:30 and 17:45. The crossing takes 35 minutes.")),)
    query = "If I take the first Saturday ferry, when do I arrive?"
    landed, invented, spanned = explanations(query, [
        "Take the 07:15 from Portlow and you land at 07:50 [Doc 1].",
        "Take the 07:15 from Portlow and you land at 08:15 [Doc 1].",
        "Take the 07:15 from Portlow and you land at 08:15, an hour after it leaves [Doc 1]."], (ferry[0],))
    assert "numbers not in the evidence" not in landed, landed
    assert "numbers not in the evidence: 08:15" in invented, invented
    assert "numbers not in the evidence: 08:15" in spanned, spanned
    deposit = (Evidence(id="1", title="Deposit protection", text=(
        "Your landlord must protect your deposit within 30 days of receiving it.")),)
    denied, = explanations("Does my landlord have 60 days to protect my deposit?", [
        "No, the scheme has no 60-day period: your landlord must protect it within 30 days [Doc 1]."], deposit)
    assert "numbers not in the evidence" not in denied, denied


def test_a_date_worked_out_from_the_users_date_and_the_evidences_span_and_another_days_departure():
    """Delivered on 3 March with 30 days to return: "2 April" is worked out; the user's own "60 days" proves no
    date. A timetable's weekend departure given for a Thursday is another row's figure, though its arrival time is
    worked out right."""
    returns = (Evidence(id="1", title="Returns", text="Online orders: return any unused item within 30 days of delivery."),)
    query = "My lamp was delivered on 3 March. They give 60 days for returns, so I have until early May, right?"
    worked, premised = explanations(query, [
        "No: it's 30 days from delivery, so about 2 April [Doc 1].",
        "Yes: 60 days from delivery takes you to 2 May [Doc 1]."], returns)
    assert "numbers not in the evidence" not in worked, worked
    assert "numbers not in the evidence" in premised, premised
    ferry = (Evidence(id="1", title="Ardrie-Skerrin ferry timetable", text=(
        "Monday to Friday: departs Ardrie 07:40, 15:50, 19:05. Saturday and Sunday: departs Ardrie 09:05, 14:30. "
        "The crossing takes 2 hours 35 minutes.")),)
    query = "If I catch the afternoon ferry from Ardrie on a Thursday, when do I get to Skerrin?"
    weekday, weekend = explanations(query, [
        "The 15:50 sailing gets you into Skerrin at 18:25 [Doc 1].",
        "The 14:30 sailing gets you into Skerrin at 17:05 [Doc 1]."], ferry)
    assert "numbers not in the evidence" not in weekday and "other days" not in weekday, weekday
    assert "gives 14:30 where the evidence gives it for other days than Thursday" in weekend, weekend


def test_the_answer_check_reads_a_worked_figure_as_the_claim_check_does(scores):
    """A total the answer works out in the open ("6 days × £38 = £228") answers the question as the evidence's own
    figures would: query satisfaction reads it with the claim check's reading of figures. A total worked out wrong
    is still a figure its cited evidence does not hold."""
    hire = (Evidence(id="1", title="Kestrel Car Rental", text="Compact cars cost £38 a day, with no airport fee."),)
    query = "How much would six days of compact car hire cost me at Kestrel?"
    right, wrong = scores(
        item(query, "It comes to £228 for the six days: 6 days × £38 = £228 [Doc 1].", evidence=hire, item_id="r"),
        item(query, "It comes to £238 for the six days: 6 days × £38 = £238 [Doc 1].", evidence=hire, item_id="w"))
    assert right["query_satisfaction"] > 0.2, right
    assert wrong["query_satisfaction"] == 0.0, wrong


def test_contractions_step_labels_and_a_span_of_more_days_are_no_new_claims():
    """"You're" leaves no word "re" the evidence lacks; "Step 2:" labels a line and states no figure; "4 more days"
    is a span in days worked out from the user's 10 days and the evidence's 14, and "6 more days" is not."""
    rules = (Evidence(id="1", title="Distance contracts", text=(
        "A consumer who agrees a contract by phone may cancel within 14 days without giving a reason.")),)
    query = "I agreed a broadband contract by phone 10 days ago. Can I still cancel it?"
    spoken, stepped, wrong = explanations(query, [
        "Yes, you're within the 14 days, so you have 4 more days to cancel without giving a reason [Doc 1].",
        "- Step 2: cancel within 14 days [Doc 1]",
        "Yes, you have 6 more days to cancel without giving a reason [Doc 1]."], rules)
    assert "numbers not in the evidence" not in spoken and "words not in" not in spoken, spoken
    assert "numbers not in the evidence" not in stepped, stepped
    assert "numbers not in the evidence: 6" in wrong, wrong


def test_another_entrys_rate_is_a_swap_and_a_span_in_hours_of_a_worked_total_is_no_invented_number():
    """A roasting guide's rows: the user asks for a medium beef joint. The total worked out from beef's medium rate,
    given again as "about 1 hour 50 minutes", is no invented number; lamb's rate (a row the claim does not name), the
    rare rate of beef's own list, and a working that does not hold each fail, and their totals prove nothing in the
    answer's other sentences."""
    guide = (Evidence(id="1", title="Roasting times", text=(
        "Beef: allow 40 minutes per kg for rare, 50 minutes per kg for medium and 60 minutes per kg for well done, "
        "plus an extra 20 minutes at the start. Lamb: 55 minutes per kg plus 20 minutes. Whole chicken: 45 minutes "
        "per kg plus 20 minutes.")),)
    query = "How long for a 1.8 kg beef joint that we want medium?"
    working = "1.8 kg × {rate} = {base} minutes, plus the extra 20 minutes at the start = {total} minutes [Doc 1]."
    right, lamb, rare, wrong = (
        r.dimensions["claim_hallucination"].explanation for r in Engine(load_suite("searchllm"), LocalJudge()).score_sync([
            item(query, f"About {lead} [Doc 1]. {opening} [Doc 1]. {working.format(rate=rate, base=base, total=total)}",
                 evidence=guide, item_id=str(i))
            for i, (lead, opening, rate, base, total) in enumerate([
                ("1 hour 50 minutes", "For medium beef allow 50 minutes per kg", 50, 90, 110),
                ("1 hour 59 minutes", "For a medium joint allow 55 minutes per kg", 55, 99, 119),
                ("1 hour 32 minutes", "For medium beef allow 40 minutes per kg", 40, 72, 92),
                ("1 hour 40 minutes", "For medium beef allow 50 minutes per kg", 50, 80, 100)])]))
    assert "3 of 3" in right and "not in the evidence" not in right, right
    assert "gives 55 where the evidence gives it for lamb, not beef" in lamb, lamb
    assert "gives 40 where the evidence gives it for rare, not medium" in rare, rare
    assert "numbers not in the evidence: 80" in wrong, wrong
    # ... nor is the lead worked out from them
    assert all("About 1 hour" in why for why in (lamb, rare, wrong)), (lamb, rare, wrong)


def test_a_number_in_words_the_evidence_gives_and_a_row_named_are_no_new_words():
    """"At four" for the user's 4-year-old, "three whole days" for the evidence's 3 days and "the 4 to 6 row" are no
    new words; "five whole days" is a figure the evidence does not give. "7 full years" is the user's own "seven full
    years", not a total at the evidence's "1 week for each full year"."""
    leaflet = (Evidence(id="1", title="Children's paracetamol", text=(
        "Children aged 4 to 6: 10 ml per dose, up to 4 doses in 24 hours. See a doctor if the fever lasts more than "
        "3 days.")),)
    query = "My son is 4. How much can he have, and when should I see a doctor?"
    (dose,) = explanations(query, ["At four, your son is in the 4 to 6 row, so each dose is 10 ml [Doc 1]."], leaflet)
    assert "words not in" not in dose, dose
    (waited, why), (longer, why_longer) = (claim_support(f"See a doctor once the fever lasts {n} whole days.",
                                                         leaflet, 0.0, query) for n in ("three", "five"))
    assert waited, why
    assert not longer and why_longer == "numbers not in the evidence: 5", why_longer  # a figure, however spelt
    asked = "I've done seven full years."
    assert counted_totals("Service: 7 full years.", "1 week for each full year worked.", asked) == {}
    assert counted_totals("Service: 7 full years, so 14 weeks.", "2 weeks for each full year worked.", asked) == {
        "14": "2 per full"}


def test_silence_said_in_the_readers_own_words_is_a_decline_and_before_an_answer_is_a_claim(scores):
    """"The sources are silent on sale items", "No seat figure appears here", "There's no repotting schedule in what I
    have" say what the evidence lacks: no claim about the world for the claim check, and a decline that the supply
    check judges. The same words leading into an answer the sources give are a claim, and a false one."""
    from reward.rules.declining import declines

    policy = (Evidence(id="1", title="Returns", text=(
        "Full-price goods can be returned within 28 days with a receipt for a full refund.")),)
    query = "Can I return a sale item, and how long do I have?"
    silent, disclaimer = (item(query, answer, evidence=policy, item_id=str(i)) for i, answer in enumerate([
        "The sources are silent on sale items. Full-price goods can be returned within 28 days [Doc 1].",
        "Strictly speaking the sources are silent; full-price goods can be returned within 28 days [Doc 1]."]))
    assert all(declines(t) for t in ("The sources are silent on sale items.", "No seat figure appears here.",
                                     "There's no repotting schedule in what I have.",
                                     "The MSc length isn't mentioned anywhere here."))
    assert not any(declines(t) for t in ("Parking isn't free here.", "There is no fee in the first year.",
                                         "Strictly speaking the sources are silent; it closes at 16:00."))
    results = Engine(load_suite("searchllm"), LocalJudge()).score_sync([silent, disclaimer])
    said, led = (r.dimensions["claim_hallucination"].explanation for r in results)
    assert "silent" not in said and "1 of 1 claims supported" in said, said
    assert "silent" in led, led



def test_facts_joined_by_a_semicolon_count_as_the_same_facts_in_sentences(scores):
    """`claim_diversity` counts what a semicolon or a dash sets apart as it counts sentences: a terse answer is not
    poorer for its punctuation, and one fact said twice across a semicolon is still one."""
    ferry = (Evidence(id="1", title="Carrow-Dunmore ferry", text=(
        "The crossing takes 50 minutes. From November to March sailings leave every two hours between 08:00 and "
        "18:00. Cars must be booked at least 24 hours in advance.")),)
    query = "How long does the Carrow to Dunmore ferry take, and how often does it run in winter?"
    joined, apart, repeated = scores(
        item(query, "It takes 50 minutes to cross; in winter it sails every two hours, 08:00 to 18:00 [Doc 1].",
             evidence=ferry, item_id="j"),
        item(query, "It takes 50 minutes to cross [Doc 1]. In winter it sails every two hours, 08:00 to 18:00 "
             "[Doc 1].", evidence=ferry, item_id="a"),
        item(query, "It takes 50 minutes to cross; it takes 50 minutes to cross [Doc 1].", evidence=ferry,
             item_id="r"))
    assert joined["claim_diversity"] == apart["claim_diversity"] == 0.5, (joined, apart)
    assert repeated["claim_diversity"] == 0.25, repeated


def test_a_verdict_drawn_after_both_figures_is_checked_against_them():
    """"A is 25 metres, while B is 50 metres - so A has the longer pool": the verdict comes after the figures it
    orders, where the ordering of figures does not read it, and is checked against what the evidence gives each."""
    pools = (Evidence(id="1", title="Pinewood Leisure Centre", text="The main pool at Pinewood Leisure Centre is 25 "
                      "metres long."),
             Evidence(id="2", title="Marlow Baths", text="The competition pool at Marlow Baths is 50 metres long."))
    query = "Which of Pinewood Leisure Centre and Marlow Baths has the longer pool?"
    figures = ("The main pool at Pinewood Leisure Centre is 25 metres long [Doc 1], while the competition pool at Marlow "
               "Baths is 50 metres long [Doc 2] - so {} has the longer pool.")
    right, wrong = (Engine(load_suite("searchllm"), LocalJudge()).score_sync(
        [item(query, figures.format(name), cited="1", evidence=pools, item_id=name)
         for name in ("Marlow Baths", "Pinewood Leisure Centre")]))
    assert "says it is longer" not in right.dimensions["claim_hallucination"].explanation
    assert "says it is longer, where the evidence says 25 against 50" in wrong.dimensions[
        "claim_hallucination"].explanation, wrong.dimensions["claim_hallucination"].explanation


def test_a_vulgar_fraction_is_read_as_its_figure(scores):
    """"1½ hours" is 1.5 hours (read as code points it was "11⁄2": the figures 11 and 2)."""
    cycle = Evidence(id="1", title="Self-clean cycle", text="The self-clean cycle lasts 1.5 hours at 70°C.")
    query = "How long does the self-clean cycle take?"
    half, wrong = scores(item(query, "It takes 1½ hours at 70°C [Doc 1].", evidence=(cycle,), item_id="h"),
                         item(query, "It takes 2½ hours at 70°C [Doc 1].", evidence=(cycle,), item_id="w"))
    assert half["highlight_hallucination"] >= 0.5 > wrong["highlight_hallucination"]


def test_the_month_of_a_date_worked_out_is_no_invented_name(scores):
    """"2 April" from "delivered on 3 March" and "within 30 days" names April, which no text gives: the month of a date
    so worked out is the date's, not a name the claim invents; a date no span reaches still fails."""
    policy = Evidence(id="1", title="Returns policy", text="Online orders: you can return any unused item within 30 days "
                      "of delivery for a full refund.")
    query = "My jacket was delivered on 3 March. Until when can I return it?"
    answer = "You can return it until {} April, 30 days after delivery [Doc 1]."
    right, wrong = scores(item(query, answer.format(2), evidence=(policy,), item_id="r"),
                          item(query, answer.format(12), evidence=(policy,), item_id="w"))
    [result] = Engine(load_suite("searchllm"), LocalJudge()).score_sync([item(query, answer.format(2), evidence=(policy,))])
    assert "names not in the evidence" not in result.dimensions["highlight_hallucination"].explanation
    assert right["reward"] > wrong["reward"] + 0.1


def test_a_date_months_on_is_worked_out_and_the_users_date_restated_is_still_the_users(scores):
    """"A 4-month wait, so you can give blood from 10 July" from a tattoo on 10 March: July is the month of a date worked
    out; the user's date restated ("from 10 March") is still the user's word, not the evidence's."""
    rule = Evidence(id="1", title="Tattoos and giving blood", text="You must wait 4 months after having a tattoo before "
                    "you can give blood.")
    query = "I had a tattoo on 10 March. When can I give blood?"
    worked, restated = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item(query, "It's a 4-month wait, so you can give blood from 10 July [Doc 1].", evidence=(rule,), item_id="w"),
        item(query, "You can give blood from 10 March [Doc 1].", evidence=(rule,), item_id="r")])
    assert "names not in the evidence" not in worked.dimensions["highlight_hallucination"].explanation
    assert "names not in the evidence: march" in restated.dimensions["highlight_hallucination"].explanation


def test_a_share_the_evidence_applies_is_not_worked_out_of_the_users_own_figure():
    """Which of the evidence's shares applies to the user's figure is a reading of the user's situation, not of the
    figures: a hardship discount taken off the user's bill answers another question than the late charge asked about,
    however right its arithmetic, so its result stays a number no evidence gives. (Read as worked out wherever the
    evidence applies one share only, such an answer rose above every honest answer of a review written from scratch.)"""
    from reward.judges.local.claims import answer_worked
    from reward.judges.local.numbercheck import figures_read

    bills = [Evidence(id="1", text="Bills not paid by the due date get a late payment charge of 2% of the unpaid amount."),
             Evidence(id="2", text="Households on a low income can apply for our support tariff, which takes 40% off "
                      "the bill.")]
    asked = "My water bill is £150 and I'll pay it two weeks late. How much will I pay?"
    other = "The support tariff takes 40% off, bringing your £150 bill down to £90."
    assert figures_read(other, bills[1:], asked, answer_worked([other], bills, asked)).missing == {"90"}
    # a share of a figure the evidence gives is worked out as before
    given = [Evidence(id="1", text="A standard permit costs £120; households on a low income get 40% off.")]
    assert figures_read("A permit is £72 for you, 40% off the £120 price.", given, "I'm on a low income.").missing == set()


def test_a_layouts_working_is_read_with_its_citation_after_it():
    """"Coastline Ranger, 4 days × £27: £108 [Doc 2]" works out £108 as the same line without its citation does; a
    result the working does not make stays invented, cited or not."""
    from reward.judges.local.claims import answer_worked
    from reward.judges.local.numbercheck import figures_read

    fares = [Evidence(id="2", text="The Coastline Ranger is a one-day ticket, priced at £27 for an adult.")]
    asked = "I'll be taking trains on 4 days this week. What would Coastline Ranger tickets cost?"
    for line, missing in (("Coastline Ranger, 4 days × £27: £108", set()), ("Coastline Ranger, 4 days × £27: £118", {"118"})):
        for cited in (line, f"- {line} [Doc 2]"):
            worked = answer_worked([cited, "- Cheaper option: the Rover [Doc 1,2]"], fares, asked)
            assert figures_read(line, fares, asked, worked).missing == missing, cited


LIBRARIES = Evidence(id="1", title="Council services 2020", text=(
    "The council closed the Eastgate library in 2020 to save money. The Northgate library stayed open with shorter "
    "hours."))
WATER = Evidence(id="1", title="Riverfield Water charges 2025", text=(
    "Riverfield Water raised its standing charge and volume prices by 8% on 1 April 2025. "
    "Your bill also rises if you used more water than in the previous year, for example after a leak. "
    "Bills for metered customers are based on actual meter readings."))


def test_a_terse_answer_is_the_question_answered_by_it_so_it_denies_what_the_question_denies():
    """"The Eastgate library." to "What did the council not close?" says the council did not close what the evidence
    says it closed: the negated question is the fragment's claim, read by the negation check as by the model."""
    engine = Engine(load_suite("searchllm"), LocalJudge())
    closed, not_closed = engine.score_sync([
        item("What did the council close in 2020?", "The Eastgate library [Doc 1].", evidence=(LIBRARIES,), item_id="c"),
        item("What did the council not close in 2020?", "The Eastgate library [Doc 1].", evidence=(LIBRARIES,),
             item_id="n")])
    assert closed.dimensions["claim_hallucination"].score > 0.9
    assert "negates what the evidence says" in not_closed.dimensions["claim_hallucination"].explanation
    assert not_closed.dimensions["claim_hallucination"].score <= 0.15 and not_closed.reward < closed.reward - 0.3


def test_a_correction_of_the_users_figure_and_a_later_list_point_are_not_read_with_the_question():
    """"Prices rose 8%, not 100%." corrects the question's false premise: read with that question ("...put its prices
    up 100%...? Prices rose 8%") the correction would be the premise's claim. So would a later point of a list, which
    answers what the lead opened, not the question. Both are read as they stand; the denial of the user's figure is
    the number check's, and the model reads what the claim asserts."""
    from reward.judges.local.claims import corrects_question, without_users_figures_denied

    asked = "Riverfield Water put its prices up 100% and my bill has doubled. Why?"
    assert corrects_question("Prices rose 8%, not 100%.", asked)
    assert without_users_figures_denied("Prices rose 8%, not 100% [Doc 1].", asked) == "Prices rose 8% [Doc 1]."
    engine = Engine(load_suite("searchllm"), LocalJudge())
    listed = item(asked, "Prices rose 8%, not 100% [Doc 1]. What else can raise a bill:\n"
                  "- A leak or higher water use than last year [Doc 1]\n- Actual meter readings instead of estimates [Doc 1]",
                  evidence=(WATER,), item_id="l")
    explanation = engine.score_sync([listed])[0].dimensions["claim_hallucination"].explanation
    # no claim is read with the question's premise in front of it
    assert "100% and my bill" not in explanation, explanation


LAKE = Evidence(id="1", title="Lake Morrow survey", text=(
    "The Halvard Institute's 2023 report found that Lake Morrow had warmed: mean summer surface temperature reached "
    "19.4°C, up 0.6°C on 2013, and ice cover lasted 11 days less than a decade earlier."))


def test_a_correction_the_claim_reading_takes_off_as_a_frame_still_keeps_the_question_out():
    """"The report doesn't say the lake got colder - it says it warmed." corrects the question's premise; the claim
    reading takes the first clause off as a frame about the sources and leaves "it says it warmed.", a fragment. Read
    with the question in front, that fragment would claim the premise ("...had fallen? it says it warmed."): the
    correction is read from the sentence as written, so the fragment is read as it stands."""
    asked = "Why did the Halvard Institute's 2023 report find that Lake Morrow's water temperature had fallen?"
    engine = Engine(load_suite("searchllm"), LocalJudge())
    [result] = engine.score_sync([item(asked, "The report doesn't say the lake got colder — it says it warmed [Doc 1]. "
                                       "Mean summer surface temperature reached 19.4°C in 2023, up 0.6°C on 2013 [Doc 1].",
                                       evidence=(LAKE,), item_id="lake")])
    for name in ("highlight_hallucination", "claim_hallucination"):
        assert "Why did the Halvard" not in result.dimensions[name].explanation, result.dimensions[name].explanation
    assert result.dimensions["highlight_hallucination"].score >= 0.5, result.dimensions["highlight_hallucination"]


PHYSICS = Evidence(id="1", title="Force", text=(
    "The shortcomings of Aristotelian physics were corrected in the 17th century by Galileo Galilei, who was "
    "influenced by the late Medieval idea that objects in forced motion carried an innate force of impetus."))


def test_a_terse_answer_to_a_question_whose_word_the_evidence_says_the_opposite_of_fails():
    """"Galileo Galilei." to "Who was influenced by early Medieval ideas?" answers a question the evidence does not:
    it says "late". The same answer to the question the evidence answers passes, and a full sentence repeating the
    question's word fails as the fragment does; the situation a query tells of is not read."""
    from reward.judges.local.opposites import question_opposite

    engine = Engine(load_suite("searchllm"), LocalJudge())
    late, early, sentence = engine.score_sync([
        item("Who was influenced by late Medieval ideas?", "Galileo Galilei [Doc 1].", evidence=(PHYSICS,), item_id="l"),
        item("Who was influenced by early Medieval ideas?", "Galileo Galilei [Doc 1].", evidence=(PHYSICS,), item_id="e"),
        item("Who was influenced by early Medieval ideas?", "Galileo Galilei was influenced by early Medieval ideas [Doc 1].",
             evidence=(PHYSICS,), item_id="s")])
    assert late.dimensions["claim_hallucination"].score > 0.9
    escaped = engine.score_sync([item("Who was influenced by early Medieval ideas?", "No, Galileo Galilei [Doc 1].",
                                      evidence=(PHYSICS,), item_id="n")])[0]
    for wrong in (early, sentence, escaped):
        assert "the question's 'early' where the evidence says 'late'" in wrong.dimensions["claim_hallucination"].explanation
        assert wrong.reward < late.reward - 0.2
    assert question_opposite("I bought the largest pan last year. Which pan is best now?", "The small pan is best.") == ""


def test_which_source_is_the_newer_is_said_of_the_source_not_new_content():
    """A conflict note says which page is the newer ("Going by the more recent one", "the newer source is more likely
    to be current"): beside a source it names, words of recency are no new content. Without a source named they are
    ("The tower is currently the newest in town"), and a figure the sources lack still fails beside them."""
    docs = [Evidence(id="1", text="In 2004 the tower was listed at 135 metres."),
            Evidence(id="2", text="The 2025 survey gives the tower a height of 140 metres.")]
    for note in ("The newer source is more likely to be current.", "Going by the more recent one, the answer is 140 metres.",
                 "An older page from 2004 gives 135 instead, but the 2025 source is the more recent."):
        assert claim_support(note, docs) == (True, ""), note
    assert claim_support("The tower is currently the newest in town.", docs)[1].startswith("words not in the evidence")
    assert claim_support("The latest one says the tower is 150 metres.", docs) == (False, "numbers not in the evidence: 150")


def test_a_negated_question_answered_by_a_denial_in_words_or_an_opening_no_is_not_a_flip():
    """The negation check reads a terse answer's negated question only against evidence that asserts with negators
    alone: "Women." to "Who was not admitted?" agrees with "the club's refusal to admit women". A bare "No," in front
    of a terse answer does not take it out of its question."""
    from reward.judges.local.claims import corrects_question, denies_in_words

    club = Evidence(id="1", title="Harlow Rowing Club", text=(
        "The club's refusal to admit women as full members lasted until 1975, when the rules were changed."))
    engine = Engine(load_suite("searchllm"), LocalJudge())
    result = engine.score_sync([item("Who was not admitted as full members of the Harlow Rowing Club?", "Women [Doc 1].",
                                     evidence=(club,), item_id="w")])[0]
    assert "negates" not in result.dimensions["claim_hallucination"].explanation
    assert denies_in_words(club.text) and not denies_in_words("The club admitted women in 1975.")
    assert not corrects_question("No, Galileo Galilei.", "Who was influenced by early Medieval ideas?")


def test_a_sentence_naming_the_older_source_is_no_wording_the_evidence_must_ground(scores):
    """"An older page from 2004 gives 1931 instead, but the 2025 source is the more recent one" says which source is
    the newer: its words of sources and recency are no wording of the world's, and a source's year is its publication
    date. Read as the answer's own wording, they halved the claim score of the clean answer of every dated conflict
    (0.52 where the same answer without the sentence scored 0.95). A sentence with a claim of its own beside a source
    is still grounded on that claim's words."""
    current = Evidence(id="1", title="Imperialism", published=dt.date(2025, 9, 16),
                       text="During the First Sino-Japanese War in 1894, Japan absorbed Taiwan.")
    archived = Evidence(id="2", title="Imperialism (archived page)", published=dt.date(2004, 11, 27),
                        text="During the First Sino-Japanese War in 1931, Japan absorbed Taiwan.")
    query = "In what year did Japan absorb Taiwan?"
    quoted = "During the First Sino-Japanese War in 1894, Japan absorbed Taiwan [Doc 1]."
    named, invented = scores(
        item(query, quoted + " An older page from 2004 gives 1931 instead [Doc 2], but the 2025 source is the more "
             "recent one.", evidence=(current, archived), item_id="n"),
        item(query, quoted + " The newer source says Taiwan's governor wrote a famous treaty in 1894 [Doc 1].",
             evidence=(current, archived), item_id="i"),
    )
    assert named["claim_hallucination"] > 0.8
    assert invented["claim_hallucination"] < 0.6


def test_a_total_of_the_users_count_at_a_price_and_the_days_left_are_worked_out_not_invented():
    """The user's 22 return trips at the £6.80 the evidence gives for a return make £149.60; 14 days from delivery
    leave 4 at the user's day 10. A total one trip off, the trips at the pass's price (a price for something else
    than what the user counts), or days left miscounted still state invented numbers."""
    docs = [Evidence(id="1", text="An anytime return costs £9.40 and an off-peak return costs £6.80."),
            Evidence(id="2", text="A monthly Season Pass costs £158.00. You may cancel within 14 days of delivery.")]
    query = "I make 22 return trips a month, always off-peak, and my pass was delivered 10 days ago."

    def figures(answer: str) -> str:
        both = Item(id="t", query=query, evidence=docs,
                    response=render_response([Facet(query, ("1", "2"))], ["1", "2"], answer))
        result = Engine(load_suite("searchllm"), LocalJudge()).score_sync([both])[0]
        return result.dimensions["claim_hallucination"].explanation

    right = figures("At £6.80 each, your 22 monthly trips total £149.60 [Doc 1]. At day 10 you have 4 days left to "
                    "cancel [Doc 2].")
    assert "numbers not in the evidence" not in right, right
    for wrong, figure in (("At £6.80 each, your 22 monthly trips total £156.40 [Doc 1].", "156.40"),
                          ("At £158.00 each, your 22 monthly trips total £3,476 [Doc 2].", "3476"),
                          ("You may cancel within 14 days, so at day 10 you have 6 days left [Doc 2].", "6")):
        assert f"numbers not in the evidence: {figure}" in figures(wrong), wrong


def test_the_users_own_figure_is_theirs_and_a_premise_in_their_words_is_still_contradicted():
    """"My £1,200 tenancy deposit" is the user's, whatever other figure in pounds the evidence gives (an annual rent):
    restating it and three times it is no invented number. A figure the user gives as a rule or hearsay ("my friend
    reckons 10 tablets a day is fine") stays a premise the evidence contradicts, in other words than the evidence's."""
    deposit = [Evidence(id="1", text="If the rent is under £50,000 a year, the court must award between one and "
                                      "three times the deposit.")]
    honest = explanations("My landlord never protected my £1,200 tenancy deposit. What could a court award me?",
                          ["Between one and three times the deposit: on your £1,200, that is £1,200 to £3,600 [Doc 1]."],
                          deposit)[0]
    assert "numbers not in the evidence" not in honest, honest
    tablets = [Evidence(id="1", text="Adults: take 1 or 2 tablets up to 4 times in 24 hours. Do not take more than 8 "
                                      "tablets in 24 hours.")]
    premise = explanations("My friend reckons swallowing 10 tablets daily is fine for a bad back. Is it?",
                           ["Yes, 10 tablets a day is fine for adults [Doc 1]."], tablets)[0]
    assert "numbers not in the evidence: 10" in premise, premise


def test_another_things_price_from_a_run_of_priced_sentences_is_a_swap():
    """"Compact cars cost £38 per day. SUVs cost £64 per day.": the SUV's rate given to the user's compact is a swap
    whether or not the claim names the car, and an answer that sets the compact's rate beside the SUV's, or names
    the SUV by a word of its own, is not."""
    cars = [Evidence(id="1", text="Compact cars cost £38 per day. SUVs cost £64 per day. Drivers under 25 pay a "
                                  "surcharge of £12 per day.")]
    query = "I want to hire a compact car for 5 days. What will it cost?"
    swapped, named, right, compared = explanations(query, [
        "At £64 per day, your 5 days cost £320 [Doc 1].",
        "A compact car is £64 per day [Doc 1].",
        "A compact is £38 per day, so your 5 days cost £190 [Doc 1].",
        "A compact is £38 per day; an SUV would be £64 [Doc 1]."], cars)
    for swap in (swapped, named):
        assert "gives £64 where the evidence gives it for suvs" in swap, swap
    for honest in (right, compared):
        assert "where the evidence gives it for" not in honest, honest


OVERTIME = Evidence(id="1", title="Working hours and overtime pay", text=(
    "The standard working week is 40 hours. Hours worked beyond 40 in a week must be paid at no less than 125% of "
    "the normal hourly rate. Work on a Sunday or a public holiday must be paid at 200% of the normal hourly rate."))


def test_a_premise_stated_beside_a_decline_is_checked_and_a_decline_in_other_words_is_a_decline(scores):
    """Beside "I can't say", a statement of the user's false premise is a claim like any other (it used to be dropped
    as an echo of the question, and the answer had no claim to check); a refusal worded as what the answer cannot
    work out ("I can't calculate", "there's no way to say") is read as a refusal where the evidence answers."""
    query = "Overtime is paid at double time after 40 hours. How much should I get for 45 weekday hours at €20 an hour?"
    beside, joined, told = scores(
        item(query, "I can't say your exact pay, but weekday overtime is paid at double time [Doc 1].",
             evidence=(OVERTIME,), item_id="b"),
        item(query, "I cannot tell you the exact figure and weekday overtime is paid at double time [Doc 1].",
             evidence=(OVERTIME,), item_id="j"),
        item(query, "Weekday overtime is paid at 125%, so 45 hours come to 40 × €20 + 5 × €25 = €925 [Doc 1].",
             evidence=(OVERTIME,), item_id="t"))
    for accepted in (beside, joined):
        assert accepted["claim_hallucination"] < 1.0  # a claim was checked, not "no factual sentences"
    calculated, no_way = scores(
        item(query, "The page gives rates but not your contract, so I can't calculate what you're owed [Doc 1].",
             evidence=(OVERTIME,), item_id="c"),
        item(query, "Without your payslip there's no way to say what you'll get [Doc 1].", evidence=(OVERTIME,),
             item_id="n"))
    for refusal in (calculated, no_way):
        assert refusal["no_supply_reject"] < told["no_supply_reject"]


def test_an_english_question_with_a_word_other_languages_also_write_is_read_as_english(scores):
    # "Plus" is a French function word, and an English word too: a short question naming "Calmex Six Plus" with no
    # "the" or "is" in it had been read as another language, which leaves every response's hallucination checks
    # unscored, a wrong dose included.
    dose = Evidence(id="1", title="Calmex Six Plus: dosage", text=(
        "Children aged 6 to 8: 5 ml up to four times a day. Children aged 9 to 12: 10 ml up to four times a day."))
    query = "How much Calmex Six Plus should I give my 9-year-old?"
    right, wrong = scores(item(query, "Give 10 ml, up to four times a day [Doc 1].", evidence=(dose,), item_id="r"),
                          item(query, "Give 20 ml, up to four times a day [Doc 1].", evidence=(dose,), item_id="w"))
    for dimension in ("claim_hallucination", "highlight_hallucination"):
        assert dimension in right and dimension in wrong
        assert right[dimension] > wrong[dimension]


def test_a_figure_with_a_scale_word_is_the_evidence_s_figure_in_another_scale():
    from reward.judges.local.numbercheck import figures_read

    docs = [Evidence(id="1", text="Calder Mills reported FY2023 revenue of €1.21 billion, up from €1.12 billion.")]
    assert figures_read("Revenue went from €1,120m to €1,210m.", docs).missing == set()
    assert figures_read("Revenue went from €1,120m to €1,260m.", docs).missing == {"1260"}
    assert figures_read("The site is 1,120 metres long.", docs).missing == {"1120"}  # a scale, not just the digits


def test_a_figure_the_claim_calls_old_is_not_stated_as_current(scores):
    # A claim that gives today's toll "since June 2024" and the old one beside it, as old, states no old figure as
    # current; the same sentence giving the old toll as today's does.
    pages = (Evidence(id="1", title="Harrow Bridge tolls", text="Cars pay £2.40 per crossing.",
                      published=dt.date(2023, 3, 1)),
             Evidence(id="2", title="Harrow Bridge tolls from June 2024",
                      text="From 1 June 2024 the car toll rose to £2.90 per crossing and vans pay £4.50.",
                      published=dt.date(2024, 4, 15)))
    query = "How much does it cost to drive a car over Harrow Bridge?"

    def dated(answer: str, item_id: str) -> Item:
        return Item(id=item_id, query=query, evidence=list(pages), now=dt.date(2025, 6, 1),
                    response=render_response([Facet(query, ("1", "2"))], ["1", "2"], answer))

    honest, stale = scores(
        dated("A car pays £2.90 per crossing since June 2024, 50p more than the old £2.40 toll [Doc 1,2].", "h"),
        dated("A car pays £2.40 per crossing since June 2024 [Doc 1,2].", "s"))
    assert stale["claim_hallucination"] < 0.25  # the old toll as today's: a hard failure
    assert honest["claim_hallucination"] > stale["claim_hallucination"] + 0.2
    from reward.judges.local.superseded import superseded_figure

    items = [(d.text, d.published) for d in pages]
    assert superseded_figure("A car pays £2.90 since June 2024, 50p more than the old £2.40 toll.", items,
                             dt.date(2025, 6, 1)) == ""
    assert superseded_figure("A car pays £2.40 per crossing since June 2024.", items, dt.date(2025, 6, 1))


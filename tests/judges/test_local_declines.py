"""A decline is read in the words an answer uses ("I can't say", "the leaflet doesn't mention ...", "it isn't possible to
tell"), so a refusal although the evidence answers is judged as one, whatever its wording; and the supply reading
does not take the user's own figures and dates for what the evidence must name (a deposit of £1,200 is no year 1200,
a deadline named in passing is no day the passage must give)."""

import pytest

from reward.format import Facet, render_response
from reward.engine import Engine
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Evidence, Item, Turn

pytestmark = pytest.mark.filterwarnings("ignore")

LEAFLET = [Evidence(id="1", title="Normadol 200 mg tablets: patient leaflet", text=(
    "Adults and children over 12: take one or two tablets every 4 to 6 hours, up to 6 tablets in 24 hours. Do not "
    "take Normadol with warfarin or other blood thinners unless your doctor tells you to, as it raises the risk of "
    "bleeding."))]
DEPOSIT = [
    Evidence(id="1", title="Carreth Housing Act: deposit protection", text=(
        "A landlord who takes a deposit must protect it in a government-approved scheme within 30 days of receiving "
        "it.")),
    Evidence(id="2", title="Carreth Housing Act: failure to protect a deposit", text=(
        "If a landlord in Carreth fails to protect the deposit, the tenant may apply to the county court, which must "
        "order the landlord to pay the tenant compensation of between one and three times the deposit."))]


def item(query: str, answer: str, evidence: list[Evidence], item_id: str) -> Item:
    return Item(id=item_id, query=query, evidence=evidence,
                response=render_response([Facet(query, ("1", "2") if len(evidence) > 1 else ("1",))],
                                         [e.id for e in evidence], answer))


@pytest.mark.parametrize("refusal", [
    "The Normadol leaflet doesn't mention blood thinners, so I can't tell you whether it's safe [Doc 1].",
    "It isn't possible to say from the leaflet whether the two can be taken together [Doc 1].",
    "I can't confirm whether Normadol is safe with warfarin from these pages [Doc 1].",
    "Nothing in the Normadol leaflet says whether you can take it with warfarin [Doc 1].",
    "There's nothing in these pages about taking Normadol with blood thinners [Doc 1].",
    "No advice on warfarin has been given in what I have [Doc 1].",
    "- Taking Normadol with warfarin: not given in these pages [Doc 1]",
    "Whether it is safe with warfarin isn't stated in the sources (they cover dosing) [Doc 1].",
])
def test_a_refusal_in_an_answers_own_words_is_judged_as_a_refusal_where_the_evidence_answers(scores, refusal):
    query = "Can I take Normadol while I'm on warfarin?"
    honest, refused = scores(
        item(query, "Not unless your doctor tells you to: the leaflet says Normadol raises the risk of bleeding with "
                    "warfarin [Doc 1].", LEAFLET, "h"),
        item(query, refusal, LEAFLET, "r"))
    assert honest["no_supply_reject"] == 1.0
    assert refused["no_supply_reject"] < 0.5
    assert refused["reward"] < honest["reward"] - 0.05


def test_the_users_sum_of_money_is_no_year_the_evidence_must_name(scores):
    query = "My landlord in Carreth never protected my £1,200 deposit. What can I claim?"
    honest, refused = scores(
        item(query, "You can apply to the county court, which must order your landlord to pay you between one and "
                    "three times the deposit [Doc 2].", DEPOSIT, "h"),
        item(query, "The documents don't say what you can claim.", DEPOSIT, "r"))
    assert honest["no_supply_reject"] == 1.0
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < honest["reward"]


PERMITS = [Evidence(id="1", title="Glenmorrow Forest Park: camping permits", text=(
    "From 1 March to 30 September, anyone camping in the Loch Drennan zone needs a camping permit. Permits cost £5 "
    "per tent per night and must be bought online at least 4 days before your first night."))]


def test_a_month_inside_a_range_the_evidence_names_is_named(scores):
    """"In July" is named by "from 1 March to 30 September": the passage supplies the need, so a refusal is wrong; a
    month outside the range is not named, and there a decline is right."""
    query = "We'll camp in the Loch Drennan zone in July. How much is a permit?"
    honest, refused = scores(item(query, "£5 per tent per night, bought online at least 4 days ahead [Doc 1].",
                                  PERMITS, "h"),
                             item(query, "The park's page doesn't say what a permit costs in July [Doc 1].",
                                  PERMITS, "r"))
    assert honest["no_supply_reject"] == 1.0
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < honest["reward"]
    [winter] = scores(item("We'll camp in the Loch Drennan zone in December. How much is a permit?",
                           "The park's page doesn't say what a permit costs in December [Doc 1].", PERMITS, "w"))
    assert winter["no_supply_reject"] > refused["no_supply_reject"]


TARIFFS = [
    Evidence(id="1", title="Northgate Energy Fixed Saver 24: tariff summary", text=(
        "Fixed Saver 24 fixes your unit rates and standing charges for 24 months. Exit fees apply if you leave before "
        "the end date; the amount is shown on your Tariff Information Label.")),
    Evidence(id="2", title="Northgate Energy: leaving a tariff", text=(
        "Fixed Saver 12 has an exit fee of £75 per fuel. Our Flex variable tariff has no exit fees."))]


def test_another_numbered_variants_figure_does_not_supply_the_one_asked(scores):
    """Asked about the Fixed Saver 24's exit fee, a passage giving the Fixed Saver 12's supplies nothing: saying the
    sources do not give it is right, and the other variant's figure passed off as the answer is no better."""
    query = "What's the exit fee if I leave Northgate Energy's Fixed Saver 24 tariff early?"
    declined, swapped = scores(
        item(query, "The documents don't give the Fixed Saver 24 exit fee: they say one applies and that the amount "
                    "is on your Tariff Information Label [Doc 1]. The £75 per fuel is for Fixed Saver 12 [Doc 2].",
             TARIFFS, "d"),
        item(query, "Leaving early costs £75 per fuel [Doc 2].", TARIFFS, "s"))
    assert declined["no_supply_reject"] >= 0.8
    assert declined["reward"] > swapped["reward"]


PLANS = [
    Evidence(id="1", title="Larkspur Broadband: full fibre plans", text=(
        "Fibre 150: average download speed 150Mbps, £25 a month on an 18-month contract. Fibre 500: average download "
        "speed 500Mbps, £32 a month. Every plan comes with unlimited data and a free Wi-Fi router.")),
    Evidence(id="2", title="Larkspur Broadband: download speed guarantee", text=(
        "If your download speed stays below the guaranteed minimum for three days in a row, you can leave your "
        "contract without paying an exit fee."))]
TIMETABLE = [Evidence(id="1", title="Dunmore Ferries: summer timetable", text=(
    "From 1 May to 30 September the first Sunday sailing leaves Dunmore at 09:15, then every 90 minutes until "
    "17:15. Monday to Saturday the first sailing is at 07:00. Foot passengers can buy tickets on board."))]


@pytest.mark.parametrize("query, declined, other", [
    ("What upload speed does Larkspur Broadband's Fibre 150 plan give?",
     "Larkspur's documents don't give an upload speed for Fibre 150: they list only its average download speed, "
     "150Mbps [Doc 1].", "Fibre 150 uploads at an average of 150Mbps [Doc 1]."),
    ("When is the first Sunday ferry from Dunmore this winter?",
     "The documents don't give the winter Sunday times: the 09:15 first Sunday sailing is the summer timetable's, "
     "which runs to 30 September [Doc 1].", "The first Sunday ferry leaves Dunmore at 09:15 [Doc 1]."),
])
def test_another_alternatives_facts_do_not_supply_the_one_asked(scores, query, declined, other):
    """Asked for the upload speed, a page giving only download speeds (row by row, or in its title) supplies nothing,
    nor does a summer timetable for a winter sailing: declining is right there, and the other alternative's fact
    passed off as the answer is no better. Asked for what the passage does give, declining is a refusal."""
    evidence = PLANS if "Fibre" in query else TIMETABLE
    honest, swapped = scores(item(query, declined, evidence, "d"), item(query, other, evidence, "s"))
    assert honest["no_supply_reject"] >= 0.8
    assert honest["reward"] > swapped["reward"]
    asked = query.replace("upload", "download").replace(" this winter", "")
    answered, refused = scores(item(asked, other.replace("uploads", "downloads"), evidence, "a"),
                               item(asked, "The documents don't say [Doc 1].", evidence, "r"))
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < answered["reward"]


PERMIT = [Evidence(id="1", title="Harlow Vale Council: resident parking permits", text=(
    "A Zone D resident permit costs £80 a year, or £40 for a fully electric car. Apply online with your V5C logbook "
    "and a council tax bill showing your address; permits are posted within 10 working days."))]


def test_a_decline_beside_an_answer_is_no_refusal_of_what_it_answers(scores):
    """Asked two things, one of which the evidence answers: the answer that gives it and says the other is not stated
    is no refusal of the part it answers, while a decline of both still is; and a decline in front of a plain answer
    earns no more than the plain answer."""
    query = "How much is a Zone D resident parking permit, and can I get one for my motorbike?"
    partial, refused, plain, disclaimed = scores(
        item(query, "A Zone D permit costs £80 a year, or £40 for a fully electric car [Doc 1]. The council's page "
                    "doesn't say whether motorbikes can have one.", PERMIT, "p"),
        item(query, "The council's page doesn't say what a Zone D permit costs or whether motorbikes qualify "
                    "[Doc 1].", PERMIT, "r"),
        item(query, "A Zone D permit costs £80 a year, or £40 for a fully electric car [Doc 1].", PERMIT, "a"),
        item(query, "The sources don't state this directly, but a Zone D permit costs £80 a year, or £40 for a fully "
                    "electric car [Doc 1].", PERMIT, "d"))
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < partial["reward"]
    assert partial["no_supply_reject"] > refused["no_supply_reject"] + 0.2
    assert disclaimed["no_supply_reject"] <= plain["no_supply_reject"]


EXCESSES = [Evidence(id="1", title="Cobalt Home Insurance: excesses", text=(
    "Standard policy: compulsory excess £250. Plus policy: compulsory excess £100. Escape of water claims carry an "
    "additional £200 excess on top of the compulsory excess."))]


def test_a_name_of_several_words_is_named_by_its_words_apart(scores):
    """"Cobalt Home Insurance Standard" is named by a page titled "Cobalt Home Insurance" whose row reads "Standard
    policy": the follow-up's answer is there, so declining it is wrong."""
    history = [Turn(role="user", content="What's the excess on my Cobalt Home Insurance Standard policy?"),
               Turn(role="assistant", content="The compulsory excess on the Standard policy is £250 [Doc 1].")]
    query = "And if I claim for escape of water?"
    honest, refused = (Item(id=i, query=query, history=history, evidence=EXCESSES,
                            response=render_response([Facet(query, ("1",))], ["1"], answer))
                       for i, answer in (("h", "£450: the £250 compulsory excess plus an extra £200 for escape of "
                                               "water [Doc 1]."),
                                         ("r", "Cobalt's page doesn't say what escape of water claims cost [Doc 1].")))
    honest, refused = scores(honest, refused)
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < honest["reward"]


CLINIC = [Evidence(id="1", title="Marlow Vale Travel Clinic: rabies vaccine", text=(
    "A course of rabies vaccine is three injections given over 21 days. Each injection costs £62, so the full "
    "course is £186. Book at least four weeks before you travel."))]


@pytest.mark.parametrize("query", [
    "I booked my flight on 14 February. Is it OK to start the rabies course three weeks before I fly?",
    "I booked my flight on February 14. Is it OK to start the rabies course three weeks before I fly?",
])
def test_a_users_date_and_an_ok_are_no_names_the_evidence_must_give(scores, query):
    """The month of a date the user reports ("on 14 February", "on February 14") says when something happened, and
    "OK" names nothing: neither is what the evidence must name to answer, so a decline there is judged a refusal."""
    honest, refused = scores(
        item(query, "No. The clinic asks you to book at least four weeks before you travel, since the three injections "
                    "are given over 21 days [Doc 1].", CLINIC, "h"),
        item(query, "The clinic's page doesn't say whether that works for your dates [Doc 1].", CLINIC, "r"))
    assert honest["no_supply_reject"] >= 0.8
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < honest["reward"]


DELAYS = [Evidence(id="1", title="Harrow Valley Trains: Delay Repay", text=(
    "If your Harrow Valley train arrives 30 minutes or more late, you can claim back half the price of your single "
    "ticket. Delays of 60 minutes or more are refunded in full. Claims must be made within 28 days of travel."))]


@pytest.mark.parametrize("query", [
    "My Harrow Valley train on Saturday 14 March arrived 40 minutes late. How much can I claim back?",
    "I paid £38.40 for my Harrow Valley single and £4.50 to park, and the train arrived 40 minutes late. How much "
    "can I claim back?",
])
def test_the_weekday_of_a_users_date_and_the_users_own_figure_are_no_names_the_evidence_must_give(scores, query):
    """The weekday the user's date falls on ("on Saturday 14 March") says when something happened, not a day the
    question asks about, and the user's own figures ("£38.40", "£4.50") are the user's to give: a passage need not
    name either to answer, so declining there is judged a refusal."""
    honest, refused = scores(
        item(query, "Half the price of your single, since the train was 30 minutes or more late; claim within 28 days "
                    "of travel [Doc 1].", DELAYS, "h"),
        item(query, "Harrow Valley's page doesn't say what you can claim for that journey [Doc 1].", DELAYS, "r"))
    assert honest["no_supply_reject"] >= 0.8
    assert refused["no_supply_reject"] < 0.5 and refused["reward"] < honest["reward"]


ANTIBIOTIC = [
    Evidence(id="1", title="Metronidazole tablets: patient leaflet", text=(
        "Do not drink alcohol while you are taking metronidazole and for at least 48 hours after you finish the "
        "course. Alcohol with metronidazole can make you feel very sick, flush and give you a pounding heartbeat.")),
    Evidence(id="2", title="Alcohol units", text=(
        "A pint of ordinary strength beer is about 2 units. Adults should not regularly drink more than 14 units a "
        "week."))]


def test_the_users_days_of_the_week_are_worked_through_the_span_the_evidence_counts():
    """The user's days ("my course ends on Tuesday", "a barbecue on Wednesday") and the day a span the evidence counts
    from an event ends on ("48 hours after you finish": Thursday) are no names the evidence must give: the supply
    reading finds the need supplied (missing the days, it read no passage as supplying it and paid a refusal as
    right), and neither the claim check nor query satisfaction fails an answer that names them (each failed one as
    "names not in the evidence"). A day the evidence neither gives nor counts to is still a name it lacks."""
    query = "My metronidazole course ends on Tuesday. Is it OK to have a beer at a barbecue on Wednesday evening?"
    honest, refused, other = Engine(load_suite("searchllm"), LocalJudge()).score_sync([
        item(query, "No. Don't drink alcohol for at least 48 hours after you finish the course, so Wednesday "
                    "evening is too soon; Thursday evening is the earliest [Doc 1].", ANTIBIOTIC, "h"),
        item(query, "The leaflets don't say when you can drink again after the course.", ANTIBIOTIC, "r"),
        item(query, "No. Don't drink alcohol for at least 48 hours after you finish the course, so wait until "
                    "Saturday [Doc 1].", ANTIBIOTIC, "o")])
    supplied = honest.dimensions["no_supply_reject"].explanation
    assert "names covered 100%" in supplied and "evidence supplies an answer" in supplied
    assert refused.dimensions["no_supply_reject"].score < 0.75
    assert "names not in the evidence" not in honest.dimensions["claim_hallucination"].explanation
    assert "which its cited evidence does not" not in honest.dimensions["query_satisfaction"].explanation
    assert "names not in the evidence: saturday" in other.dimensions["claim_hallucination"].explanation

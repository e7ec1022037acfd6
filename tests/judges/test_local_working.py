"""Figures an honest answer works out or compares in the open, read for what they are: a difference between two
figures ("£25 more than the £30 price") orders what it is the difference of, a price per item is the same currency
as the difference it makes, a number that counts nothing is any number the evidence spells, and a figure per day or
month is worked out over the week or year the claim names, and a share the evidence applies is of a figure in the
unit worked out. Each reading keeps failing the wrong figure."""

import datetime as dt

import pytest

from reward.format import Facet, render_response
from reward.judges.local.claims import claim_support
from reward.judges.local.figures import ordering
from reward.judges.local.working import answer_working, miscalculated
from reward.schema import Evidence, Item

pytestmark = pytest.mark.filterwarnings("ignore")

BAGS = ("Overhead cabin bag (10 kg): £22 when added at booking, £30 via Manage Booking up to 24 hours before "
        "departure, £55 at the airport gate.")


@pytest.mark.parametrize("claim, holds", [
    ("At the gate it's £55 - £33 more than the £22 at booking, and £25 more than the £30 Manage Booking price.", True),
    ("At the gate it's £55 - £33 more than the £22 at booking, and £25 less than the £30 Manage Booking price.", False),
    ("At the gate it's £22 - £33 more than the £55 at booking.", False),
])
def test_a_difference_between_two_figures_orders_what_it_is_the_difference_of(claim, holds):
    """"£25 more than the £30" stands after "£22": the £25 is the difference of £55 and £30, not a verdict that £22 is
    more than £30 (read so, an honest working failed as "orders 22 more 30")."""
    assert ordering(claim, BAGS)[0] is holds


FERRY = ("Adult return €18, child return €9, bicycle €4. From 1 June 2024 the adult return fare rises to €22 and "
         "the child return to €11.")


def test_a_price_per_item_is_the_same_currency_as_the_difference_it_makes():
    """"€22 per adult return ... €4 more than the previous €18": the €22 is a price per return, still the euros the €4
    is a difference of (the evidence's €4 bicycle fare made the €4 read as a figure that was ordered above €18)."""
    assert ordering("It's €22 per adult return since 1 June 2024 - €4 more than the previous €18 fare.", FERRY) == (
        True, "")
    assert ordering("It's €18 per adult return since 1 June 2024 - €4 more than the previous €22 fare.", FERRY)[0] is False


NOTICE = [Evidence(id="2", title="Ending a tenancy", text=(
    "A landlord must give at least two months' written notice if the tenant has lived in the property for less than "
    "two years, and at least four months' notice after two years or more."))]
TABLETS = [Evidence(id="1", title="Dosage", text="Adults: take one or two tablets at a time, up to four times a day.")]


def test_a_number_that_counts_nothing_is_any_number_the_evidence_spells():
    """"(4 if you've lived there 2+ years)" counts nothing after its 4, and "2+" is still years: the evidence's
    "four" and "two years" give them. A number that counts something must still count what the evidence's does."""
    assert claim_support("At least 2 months (4 if you've lived there 2+ years), in writing.", NOTICE, similarity=0.8)[0]
    assert not claim_support("At least 2 months (5 if you've lived there 2+ years), in writing.", NOTICE,
                             similarity=0.8)[0]
    assert not claim_support("Take 1-2 tablets, at least 2 hours apart.", TABLETS, similarity=0.8)[0]


ROAMING = [Evidence(id="1", title="Roaming", text="In our Europe Zone, which includes Spain, you can use your UK "
                    "allowance for £2.25 a day, charged only on days you use your phone.")]
STANDING = [Evidence(id="1", title="Prices", text="Electricity standing charge: 60.9p per day.")]


@pytest.mark.parametrize("claim, evidence, supported", [
    ("You will pay £2.25 for each day you use your phone, so a week of daily use adds £15.75.", ROAMING, True),
    ("You will pay £2.25 for each day you use your phone, so a week of daily use adds £19.50.", ROAMING, False),
    ("You will pay £2.25 a day, so a month of daily use adds £15.75.", ROAMING, False),
    ("60.9p a day, about £222.29 over a full year (60.9p x 365).", STANDING, True),
    ("60.9p a day, about £232.29 over a full year.", STANDING, False),
])
def test_a_figure_per_day_is_worked_out_over_the_week_or_year_the_claim_names(claim, evidence, supported):
    ok, why = claim_support(claim, evidence, similarity=0.8)
    assert ok is supported, why


PCN = [Evidence(id="1", title="Harlow Council: penalty charge notices", text=(
    "A penalty charge notice is £70 for higher-level contraventions, such as parking on a yellow line, and £50 for "
    "lower-level ones. The charge is reduced by 50% if it is paid within 14 days of the date the notice was issued."))]


@pytest.mark.parametrize("answer", [
    "Yellow-line parking is a higher-level contravention, so the charge is £70 [Doc 1]. Paid within 14 days of the "
    "date the notice was issued, it is reduced by 50%, so you'd pay {} today [Doc 1].",
    "The charge for a yellow line is £70 [Doc 1]. You'd pay {} today: it is reduced by 50% if paid within 14 days of "
    "the date the notice was issued [Doc 1].",
])
def test_a_share_the_evidence_applies_is_of_a_figure_in_the_unit_worked_out(scores, answer):
    """"Reduced by 50%" halves the £70 the answer states in another sentence: £35 is worked out. £25 is half of the
    "50%" itself (or of the other band's £50, which the answer never states) and stays a number the evidence lacks."""
    query = "I got a parking ticket for stopping on a yellow line. How much do I pay if I pay today?"
    right, wrong = scores(*(Item(id=figure, query=query, evidence=PCN, response=render_response(
        [Facet(query, ("1",))], ["1"], answer.format(figure))) for figure in ("£35", "£25")))
    assert right["claim_hallucination"] > wrong["claim_hallucination"] + 0.3
    assert right["reward"] > wrong["reward"] + 0.05


@pytest.mark.parametrize("deadline, right", [("17 March", True), ("3 March", False), ("the end of March", False),
                                              ("24 March", False)])
def test_a_deadline_worked_out_from_the_users_date_names_the_users_month(scores, deadline, right):
    """14 days from a ticket issued on 3 March is 17 March: that date is worked out, and its month is the user's, no
    name the answer invents. The user's own date restated as the deadline, or a month's end, is not worked out."""
    query = "I got a parking ticket on 3 March for stopping on a yellow line. How long do I have to pay the lower amount?"
    answer = (f"Until {deadline}: the £70 charge is reduced by 50% if it is paid within 14 days of the date the notice "
              "was issued [Doc 1].")
    [scored] = scores(Item(id="d", query=query, evidence=PCN, response=render_response([Facet(query, ("1",))], ["1"],
                                                                                       answer)))
    assert (scored["claim_hallucination"] > 0.8) is right


def test_the_days_from_the_users_date_to_today_are_worked_out(scores):
    """Asked on 12 March about a ticket issued on 3 March, "it has been 9 days since the ticket was issued" is worked
    out from the user's date and today's; 12 days is a number nobody gave."""
    query = "I got a parking ticket on 3 March for stopping on a yellow line. How much do I pay if I pay it today?"
    right, wrong = scores(*(Item(id=days, query=query, evidence=PCN, now=dt.date(2025, 3, 12), response=render_response(
        [Facet(query, ("1",))], ["1"], f"It has been {days} days since the ticket was issued. Yellow-line parking is a "
                                        "higher-level contravention, so the charge is £70, reduced by 50% if it is paid "
                                        "within 14 days of the date the notice was issued [Doc 1]."))
                            for days in ("9", "12")))
    assert right["claim_hallucination"] > wrong["claim_hallucination"] + 0.3



TARIFF = "Off-peak: 00:30 to 05:30 every night at 8p per kWh. Peak: all other times at 27.5p per kWh."
RANGER = [Evidence(id="1", title="Coastline Ranger", text="A one-day ticket: £27 for an adult and £13.50 for a child.")]
WATER = [Evidence(id="1", title="Paying your bill", text=(
    "If we haven't received payment within 14 days after the due date, we add a late payment charge of 10% of the "
    "unpaid amount, up to a maximum of £25."))]


def test_a_span_worked_out_from_two_times_is_an_operand_and_a_working_in_brackets_follows_its_result():
    """"00:30–05:30 = 5 hours", then "7 kW × 5 h = 35 kWh" and "£2.80 a night (35 kWh × 8p)": each result is worked
    out. The peak rate's £9.63 is no result of "35 kWh × 8p", and a bracket that does not make its figure ("2 tablets
    (2 × 200 mg)") is no miscalculation: it may restate rather than work out."""
    lines = ["Charging window: 00:30–05:30 = 5 hours", "Energy: 7 kW × 5 h = 35 kWh", "Cost: £{} a night (35 kWh × 8p)"]
    asked = "If my 7 kW charger runs for the whole off-peak window, what does a night's charging cost?"
    assert {"5", "35", "2.80"} <= answer_working([*lines[:2], lines[2].format("2.80")], TARIFF, asked)
    assert "9.63" not in answer_working([*lines[:2], lines[2].format("9.63")], TARIFF, asked)
    assert not miscalculated("Take 2 tablets (2 × 200 mg).")


@pytest.mark.parametrize("evidence, query, answer, right, wrong", [
    (RANGER, "I'm an adult travelling on four days. What would Ranger tickets cost me?",
     "Four adult Rangers, 4 days × £27: £{} [Doc 1].", "108", "118"),
    (WATER, "My water bill was £186.40 and I'm paying late. What's the late charge?",
     "Late charge: 10% of £186.40 = £{}, under the £25 maximum [Doc 1].", "18.64", "16.84"),
])
def test_working_in_a_layouts_words_holds_where_its_arithmetic_does(scores, evidence, query, answer, right, wrong):
    """Working as layouts write it, its result after a colon ("4 days × £27: £108") or a share "of" a figure ("10% of
    £186.40 = £18.64"), works out its result where the arithmetic holds; a result it does not make (£118, £16.84)
    stays a number the evidence lacks."""
    good, bad = scores(*(Item(id=figure, query=query, evidence=evidence, response=render_response(
        [Facet(query, ("1",))], ["1"], answer.format(figure))) for figure in (right, wrong)))
    assert good["claim_hallucination"] > 0.5
    assert good["claim_hallucination"] > bad["claim_hallucination"] + 0.3



def test_a_range_in_a_working_is_worked_out_at_each_end_not_subtracted():
    """"6 kg × 10-12 hours = 60-72 hours": read as 6 × 10 − 12, the honest range failed as a miscalculation. Each end
    is worked out; a wrong end is a miscalculation, and a subtraction with spaces stays one."""
    defrost = "Defrost in the fridge, allowing 10-12 hours per kg."
    assert {"60", "72"} <= answer_working(["6 kg × 10-12 hours = 60-72 hours."], defrost, "a 6 kg turkey")
    assert miscalculated("6 kg × 10-12 hours = 60-72 hours.") == set()
    assert miscalculated("6 kg × 10-12 hours = 60-80 hours.") == {"80"}
    assert miscalculated("£92 - £86 = £8.") == {"8"}


def test_a_share_in_per_cent_of_a_figure_is_worked_out_in_words():
    """"4% of £180,000, which is £7,200" works out its result in words: the share is the evidence's, the base the
    user's. £7,500 is no such share, and a share the evidence does not give works out nothing."""
    evidence = [Evidence(id="1", title="Fix5 mortgage", text=(
        "In year 2 an early repayment charge of 4% of the amount repaid applies."))]
    asked = "If I repay my £180,000 mortgage in year 2, what is the charge?"
    claim = "Repaying £180,000 in year 2 means an early repayment charge of {}% of £180,000, which is £{}."
    assert claim_support(claim.format(4, "7,200"), evidence, similarity=0.8, asked=asked)[0]
    assert not claim_support(claim.format(4, "7,500"), evidence, similarity=0.8, asked=asked)[0]
    assert not claim_support(claim.format(5, "9,000"), evidence, similarity=0.8, asked=asked)[0]


SYRUP = [Evidence(id="1", title="Calmex children's paracetamol 120 mg/5 ml: dosing", text=(
    "Age 2 to 3 years: 5 ml. Age 4 to 5 years: 7.5 ml. Age 6 to 7 years: 10 ml. Give up to four times in 24 hours, "
    "leaving at least 4 hours between doses."))]


@pytest.mark.parametrize("total, dose, right", [
    ("30 ml", "Give 7.5 ml per dose [Doc 1].", True),  # 4 × 7.5 ml
    ("40 ml", "Give 7.5 ml per dose [Doc 1].", False),  # the 6-7 row's 10 ml taken four times
    ("30 ml", "", False),  # the dose is stated nowhere: a total of what?
])
def test_a_days_total_of_the_doses_an_answer_counts_is_worked_out_at_the_dose_it_states(scores, total, dose, right):
    """"Up to 4 doses in 24 hours, so no more than 30 ml a day", after "Give 7.5 ml per dose": the day's total is the
    stated dose times the counted doses, no invented number. A total at another row's dose fails, and so does one whose
    dose the answer never states (it would pass for any row's)."""
    query = "How much Calmex can I give my 4-year-old?"
    answer = f"{dose} Up to 4 doses in 24 hours, so no more than {total} a day [Doc 1].".strip()
    [scored] = scores(Item(id="t", query=query, evidence=SYRUP, response=render_response([Facet(query, ("1",))], ["1"],
                                                                                         answer)))
    assert (scored["claim_hallucination"] > 0.5) is right


DROPS = [Evidence(id="1", title="Brightsun infant vitamin D drops", text=(
    "Brightsun drops provide vitamin D3 in olive oil. 4 drops contain 10 micrograms of vitamin D3. From birth to 12 "
    "months, give 4 drops once a day."))]


@pytest.mark.parametrize("answer, right", [
    ("Give 4 drops once a day: that is 10 micrograms of vitamin D3 a day [Doc 1].", True),
    ("Each drop contains 10 micrograms, so 4 drops a day come to 40 micrograms a day [Doc 1].", False),
])
def test_an_amount_the_evidence_gives_per_several_units_makes_no_total_of_them(scores, answer, right):
    """"4 drops contain 10 micrograms": the 10 micrograms is four drops' amount, so "4 drops a day, 40 micrograms a day"
    is no day's total of the doses counted, whatever the answer says one drop holds."""
    query = "How much vitamin D does my baby get from the Brightsun drops?"
    [scored] = scores(Item(id="d", query=query, evidence=DROPS, response=render_response([Facet(query, ("1",))], ["1"],
                                                                                         answer)))
    assert (scored["claim_hallucination"] > 0.5) is right


TABLETS = [Evidence(id="1", title="Dolora 250 mg tablets", text=(
    "Each tablet contains 250 mg mefenamic acid. Adults: 1 or 2 tablets up to three times a day with food. Do not take "
    "more than 6 tablets in 24 hours.")),
    Evidence(id="2", title="Dolora Extra", text=(
        "Dolora Extra tablets are twice as strong. Adults: 1 tablet up to three times a day. Do not take more than 3 "
        "tablets in 24 hours."))]


def test_a_count_of_tablets_makes_a_total_with_what_its_own_passage_gives_one(scores):
    """6 tablets of 250 mg a day is 1,500 mg: the count and what one tablet holds are one passage's. Another product's
    count of tablets at this one's strength (3 of the stronger tablets a day) makes no total."""
    query = "What's the most Dolora 250 mg I can take in a day?"
    right, wrong = scores(*(Item(id=n, query=query, evidence=TABLETS, response=render_response(
        [Facet(query, ("1", "2"))], ["1", "2"], f"No more than {n} tablets in 24 hours, which is {total} mg of mefenamic "
                                                "acid a day [Doc 1,2]."))
                            for n, total in (("6", "1,500"), ("3", "750"))))
    assert right["claim_hallucination"] > wrong["claim_hallucination"] + 0.3


RANGER = [Evidence(id="2", title="Coastline Ranger", text=(
    "The Coastline Ranger is a one-day ticket covering the west coast lines, priced at £27 for an adult and £13.50 "
    "for a child."))]


@pytest.mark.parametrize("claim, holds", [
    ("Four Coastline Ranger day tickets at £27 each come to £108.", True),  # the user's count, the evidence's price
    ("4 adult Ranger tickets at £27 each cost £108 for the west coast lines.", True),
    ("Four Coastline Ranger day tickets at £27 each come to £118.", False),  # a wrong total
    ("Five Coastline Ranger day tickets at £27 each come to £135.", False),  # a count neither gives
    ("Four Coastline Ranger day tickets come to £108.", False),  # no working shown
])
def test_a_count_of_things_at_a_price_each_makes_their_total(claim, holds):
    """"Four day tickets at £27 each come to £108": a total worked out in the open from the user's count ("4 days")
    and the evidence's price is no invented number (it failed as one, so the cheaper option's honest answer scored
    0.19 against 0.61). The total must be the product, and the count the user's or the evidence's."""
    asked = "I'll be taking trains on 4 days within one week: is the Rover or the Ranger day rate cheaper?"
    assert claim_support(claim, RANGER, similarity=0.8, asked=asked)[0] is holds


def test_a_word_of_order_before_a_source_orders_the_sources_not_the_figures():
    """"An older page from 2004 gives 1931 instead, but the 2025 source is the more recent one": "older" says which
    page is the older, not that 2004 is before 1931 (read so, every clean answer naming the older copy of a dated
    conflict failed hard, 0.16-0.19). A claim that orders the figures themselves is still read."""
    current = Evidence(id="1", text="During the First Sino-Japanese War in 1894, Japan absorbed Taiwan.",
                       published=dt.date(2025, 9, 16))
    archived = Evidence(id="2", text="During the First Sino-Japanese War in 1931, Japan absorbed Taiwan.",
                        published=dt.date(2004, 11, 27))
    honest = "An older page from 2004 gives 1931 instead, but the 2025 source is the more recent one."
    assert claim_support(honest, [current, archived], similarity=0.6) == (True, "")
    assert not claim_support("The war came earlier: 1931 against 1894.", [current, archived], similarity=0.6)[0]

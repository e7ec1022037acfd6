"""The kind of answer a question asks for is read from how it asks, on any interaction: a price for "how much does it
cost", a span for "how long" or "how much notice", a frequency for "how often"; a question word in a relative clause
or a clause of condition asks for nothing. An answer to another question from the same evidence (ages when asked for
a price) does not satisfy the query; the honest answer, in any wording that gives the kind asked, does."""

import pytest

from reward.format import Facet, render_response
from reward.judges.local.kinds import asked_kinds, missing_kind
from reward.schema import Evidence, Item

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.mark.parametrize("query, kinds", [
    ("How much does Oakdene Surgery charge adults for the chickenpox vaccine?", {"money"}),
    ("How much is an adult single fare on Redmarsh city buses?", {"money"}),
    ("What's the fee for a replacement card?", {"money"}),
    ("What's the exit fee if I leave the Fixed Saver 24 tariff early?", {"money"}),
    ("What is the adult return fare?", {"money"}),
    ("What is the fee policy for late returns?", set()),
    ("What was the cost-of-living index in 2023?", set()),
    ("What's the word limit for the MSc dissertation?", {"number"}),
    ("What's the current population of Kellisford?", {"number"}),
    ("What is the annual energy consumption of the FX300 fridge freezer?", {"number"}),
    ("What is the population policy of the council?", set()),
    ("What is the maximum daily dose of melatonin for a 70-year-old?", {"number"}),
    ("How much paracetamol suspension can I give my 5-year-old?", {"number"}),
    ("How much notice do I need to give to end my tenancy?", {"span"}),
    ("How long does a refund take?", {"span"}),
    ("How many days do I have to return a lamp?", {"number"}),
    ("How much syrup can I give my 4-year-old, and how often?", {"number", "often"}),
    ("When does the museum open on Sundays?", {"time"}),
    ("So it opens when?", {"time"}),
    ("When I cancel, do I pay a fee?", set()),
    ("Can I cancel my contract when I'm abroad?", set()),
    ("Where can I park overnight?", {"place"}),
    ("Is there a car park where I can leave the car overnight?", set()),
    ("Who pays for the repair?", {"name"}),
    ("And if it's the landlord who wants to end it?", set()),
    ("Is the 40GB plan better value than the 30GB one?", set()),
])
def test_the_kind_asked_is_read_from_how_the_question_asks(query, kinds):
    assert asked_kinds(query) == frozenset(kinds)


@pytest.mark.parametrize("query, part, holds", [
    ("How much does the vet charge to microchip a cat?", "It costs £18.50 at any branch.", True),
    ("How much does the vet charge to microchip a cat?", "It's free at the spring clinic.", True),
    ("How much does the vet charge to microchip a cat?", "There's a 20% discount for a second pet.", True),
    ("How much does the vet charge to microchip a cat?", "Kittens can be chipped from 8 weeks old.", False),
    ("How long does a refund take?", "Up to ten working days after we get the item back.", True),
    ("How long does a refund take?", "Within a fortnight.", True),
    ("How long does a refund take?", "Refunds go back to the card you paid with.", False),
    ("How long must dogs be kept on a lead?", "Dogs must be on a lead between 1 March and 31 July.", True),
    ("How long is the lifeguard season?", "Lifeguards patrol from late May to early September.", True),
    ("How long is the library closed?", "The mobile library visits from Tuesday to Thursday.", False),
    ("How long will the strike last?", "Crews strike from Monday 9 June to Friday 13 June.", True),
    ("How long must dogs be kept on a lead?", "Dogs must be kept on a short lead near livestock.", False),
    ("How often can I give it?", "Every 4 to 6 hours, no more than 4 doses in 24 hours.", True),
    ("How often can I give it?", "Give 5 ml with water.", False),
    ("Who pays for the repair?", "Your landlord does, unless you caused the damage.", True),
    ("Where can I park overnight?", "In the long-stay car park behind the station.", True),
    ("Where can I park overnight?", "Parking is free after 8pm.", False),
])
def test_a_part_holds_the_kind_asked_in_any_wording_and_an_answer_to_another_question_does_not(query, part, holds):
    assert (missing_kind(query, part) is None) is holds


VACCINES = [
    Evidence(id="1", title="Oakdene Surgery: travel and private vaccines", text=(
        "Hepatitis A costs £55 per dose, typhoid £40 and rabies £70 per dose. The chickenpox vaccine can be arranged "
        "for adults who have never had chickenpox, with payment taken at the appointment; it costs £65 per dose.")),
    Evidence(id="2", title="Childhood chickenpox vaccine", text=(
        "Children get the chickenpox vaccine free at 12 months and 18 months, and can catch up at the surgery until "
        "their 6th birthday.")),
]


def _item(query: str, answer: str, cited: str, item_id: str) -> Item:
    return Item(id=item_id, query=query, evidence=VACCINES,
                response=render_response([Facet("The adult price of the vaccine", (cited,))], [cited], answer))


def test_an_answer_to_another_question_from_the_same_evidence_does_not_satisfy_a_price_question(scores):
    """Who can have the vaccine, and until what age, is true and cited, and an answer to "who can have it", not to
    "how much do adults pay"."""
    query = "How much does Oakdene Surgery charge adults for the chickenpox vaccine?"
    honest, other = scores(
        _item(query, "Adults pay £65 per dose of the chickenpox vaccine, taken at the appointment [Doc 1].", "1", "h"),
        _item(query, "Adults who have never had chickenpox can have the vaccine at the surgery, and children can catch "
                     "up until their 6th birthday [Doc 1,2].", "1", "o"))
    assert other["query_satisfaction"] == 0.0
    assert honest["query_satisfaction"] > 0.3
    assert honest["reward"] > other["reward"]

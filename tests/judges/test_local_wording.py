"""Wordings the local tier's lexical readings must read for what they are: a word of order inside a compound, a
line's label, a prohibition said after its object, a denial in other words than the evidence's, a span in another
unit (honest, and no longer failed), and a figure spelt out (checked as its figure, so spelling cannot pass the
number check). Each reading keeps failing the attack it was written for."""

import pytest

from reward.judges.local.claims import claim_support
from reward.judges.local.figures import ordered_reading
from reward.judges.local.negation import negation_flip, unfounded_denial
from reward.judges.local.text import novel_names
from reward.schema import Evidence

pytestmark = pytest.mark.filterwarnings("ignore")

PENALTIES = ("Higher-level contraventions, such as parking on double yellow lines, carry a £70 charge. Lower-level "
             "contraventions, such as overstaying the paid-for time in a council car park, carry a £50 charge.")


def test_a_word_of_order_inside_a_compound_names_a_kind_and_orders_no_figures():
    """"a lower-level offence, so the penalty is £50 - not the £70 ..." orders nothing: read as ordering £50 below
    £70, its "lower" was taken out of the model's reading ("a and -level offence")."""
    claim = "Westbury treats overstaying as a lower-level offence, so the penalty is £50, not the £70 for double yellows."
    assert "lower-level offence" in ordered_reading(claim, PENALTIES)
    # a verdict on the figures still reads as one
    assert "cheaper" not in ordered_reading("Overstaying is cheaper: £50 against £70.", PENALTIES)


def test_a_lines_label_names_what_it_gives_and_its_words_are_no_new_words():
    fridge = Evidence(id="1", title="Defrosting", text="Defrost the turkey in the fridge at 4°C or below, in a dish on "
                      "the bottom shelf. Allow 10 to 12 hours per kg.")
    assert claim_support("Best method: fridge at 4°C or below, in a dish on the bottom shelf", [fridge])[0]
    assert not claim_support("Fastest method: a warm oven for an hour, then the microwave", [fridge])[0]


BURNS = "Don't use ice, iced water, creams or greasy substances such as butter."


@pytest.mark.parametrize("claim, flips", [
    ("Ice should not be used on a burn.", False),
    ("Greasy substances, creams and ice should all be avoided.", False),
    ("Ice is prohibited on burns.", False),
    ("Ice is fine on a burn.", True),
    ("Ice and cold water are recommended.", True),
    ("Put ice on it; butter should be avoided.", True),
])
def test_a_prohibition_said_after_its_object_is_no_assertion_of_it(claim, flips):
    assert negation_flip(claim, BURNS) is flips


@pytest.mark.parametrize("claim, evidence, unfounded", [
    ("Applicants under 18 don't pay.", "Applicants under 18 remain exempt.", False),
    ("The setup fee isn't charged on the faster plans.", "The setup fee is waived on the faster plans.", False),
    ("Campfires aren't allowed above 1,500 m.", "Campfires are banned at all sites above 1,500 m.", False),
    ("Campfires aren't allowed above 1,500 m.", "Campfires are permitted at all sites above 1,500 m.", True),
    ("Applicants under 18 don't pay.", "Applicants under 18 pay half the fee of €210.", False),
])
def test_a_denial_in_other_words_than_the_evidences_is_founded_where_they_say_it(claim, evidence, unfounded):
    assert unfounded_denial(claim, evidence) is unfounded


GYM = Evidence(id="1", title="Cancelling a longer-term plan", text=(
    "Longer-term plans need 2 months' notice in writing and carry a £60 exit fee. Members may cancel within 14 days of "
    "joining at no charge, and every plan includes a 24-month price guarantee."))


@pytest.mark.parametrize("claim, supported", [
    ("Notice: four months", False),
    ("You must give three months' notice.", False),
    ("You can cancel free within three weeks of joining.", False),
    ("You must give two months' notice and pay a £60 exit fee.", True),
    ("You can cancel free within two weeks of joining.", True),
    ("Prices are guaranteed for two years.", True),
    ("Give two months' notice; one of the plans has a £60 exit fee.", True),
])
def test_a_number_spelt_out_is_checked_as_its_figure_and_a_span_in_another_unit_as_that_span(claim, supported):
    """"three months' notice" where the evidence says 2 months fails as "3 months' notice" does: a policy cannot pass
    the number check by spelling its figure out. A number word that counts nothing ("one of") is no figure, and "two
    weeks" is the evidence's "14 days"."""
    ok, why = claim_support(claim, [GYM], similarity=0.8)
    assert ok is supported, why


def test_a_span_in_another_unit_is_the_evidences_span():
    """"2 weeks" is the evidence's "14 days" and "2 years" its "24-month" guarantee; "3 weeks" is no span it gives."""
    terms = [Evidence(id="1", title="Membership", text="Members may cancel within 14 days of joining at no charge. "
                      "Every plan includes a 24-month price guarantee.")]
    assert claim_support("You can cancel free within 2 weeks of joining.", terms, similarity=0.8)[0]
    assert claim_support("Prices are guaranteed for 2 years.", terms, similarity=0.8)[0]
    assert claim_support("You can cancel free within 3 weeks of joining.", terms, similarity=0.8) == (
        False, "numbers not in the evidence: 3")


def test_twice_gives_two_of_what_it_counts():
    loans = [Evidence(id="1", title="Loans", text="Members may borrow up to 12 items at once for 3 weeks, and items can "
                      "be renewed twice.")]
    assert claim_support("Up to 12 items, each for 3 weeks, with two renewals.", loans, similarity=0.8)[0]
    assert claim_support("Up to 12 items, each for 3 weeks, with 2 renewals.", loans, similarity=0.8)[0]
    assert not claim_support("Up to 12 items, each for 2 weeks, with two renewals.", loans, similarity=0.8)[0]


@pytest.mark.parametrize("claim, flips", [
    ("The penalty is £50, not the £70 charged for parking on double yellow lines.", False),
    ("Parking on double yellow lines is not charged.", True),
])
def test_not_the_other_figure_denies_which_figure_not_what_the_evidence_says_of_it(claim, flips):
    """"£50, not the £70 charged for double yellows" says which figure applies; what follows "not the £70" describes
    the other figure as the evidence does (read as a denial, it failed an honest answer as "negates what the evidence
    says"). A denial of the charge itself still negates it."""
    assert negation_flip(claim, PENALTIES.split(". ")[0] + ".") is flips


NEWS = "We are reviewing the scheme and will announce dates and any changes for the 2026 round in the autumn."


@pytest.mark.parametrize("claim, flips", [
    ("The 2026 closing date hasn't been announced in these sources.", False),
    ("The dates for 2026 have not been announced yet.", False),
    ("The Foundation will not announce dates for the 2026 round.", True),
    ("They won't announce any changes for the 2026 round.", True),
])
def test_what_will_happen_is_not_yet_so(claim, flips):
    """"Will announce dates in the autumn" asserts nothing of now: "hasn't been announced" agrees with it (an honest
    "the sources do not say" failed as a flipped negation); "will not announce" denies it."""
    assert negation_flip(claim, NEWS) is flips


CYCLES = "Pay as you go: £1.50 to unlock a bike, then 10p per minute. Day Pass: £5, the first 45 minutes of each ride included."


@pytest.mark.parametrize("asked, unfounded", [
    ("CycleLoop gives you the first 45 minutes free on pay-as-you-go, so what would a 70-minute ride cost me?", False),
    ("Now that pay-as-you-go comes with 45 free minutes, what would a 70-minute ride cost me?", False),
    ("Does pay-as-you-go come with free minutes?", True),
    ("What would a 70-minute ride cost me?", True),
])
def test_a_denial_of_what_the_user_states_is_a_premise_correction(asked, unfounded):
    """What the user states ("gives you 45 minutes free, so ...", "Now that ...") may be denied in the user's words
    anywhere in the denied clause, and the consistency model reads the denial; what a yes-or-no question asks, or
    what nobody said, denied in words the evidence lacks, is still a denial no evidence makes."""
    claim = "Pay-as-you-go doesn't come with any free minutes, you're charged from the start."
    assert unfounded_denial(claim, CYCLES, asked) is unfounded


def test_a_pronoun_that_names_nothing_is_no_new_word():
    rules = [Evidence(id="1", title="Inspections", text="Cars must have their first inspection by the third "
                      "anniversary of first registration. Book an inspection online.")]
    asked = "My car was registered in May 2024; I need it inspected after 12 months, so where do I book?"
    assert claim_support("You don't need to book anything yet.", rules, similarity=0.2, asked=asked)[0]
    assert not claim_support("You don't need to book the garage valet yet.", rules, similarity=0.2, asked=asked)[0]


def test_a_year_worked_out_from_the_users_year_and_the_evidences_span():
    """"The third anniversary" of a May 2024 registration is May 2027, also said as "3 years on"; a year that no span
    of the evidence reaches, or a span only the user gives, is invented."""
    rules = [Evidence(id="1", title="Inspections", text="Cars must have their first inspection by the third "
                      "anniversary of first registration.")]
    asked = "My car was first registered in May 2024. When is its first inspection due?"
    assert claim_support("It is due by the third anniversary of registration, so by May 2027.", rules, similarity=0.8,
                         asked=asked)[0]
    assert claim_support("It is due by May 2027, 3 years on from registration.", rules, similarity=0.8, asked=asked)[0]
    assert claim_support("It is due by May 2026, 2 years on from registration.", rules, similarity=0.8, asked=asked) == (
        False, "numbers not in the evidence: 2, 2026")
    assert not claim_support("It is due by May 2026, two years on from registration.", rules, similarity=0.8,
                             asked="My car was first registered in May 2024; inspections are every two years, right?")[0]



SEASONS = [Evidence(id="1", title="River Wend fishing", text="The brown trout season runs from 1 April to 30 "
                    "September; grayling may be fished from 16 June to 14 March. Tenancies of the club's huts run from "
                    "1 September to 31 August, and members must give two months' notice.")]


@pytest.mark.parametrize("claim, supported", [
    ("The brown trout season lasts 6 months, from 1 April to 30 September.", True),
    ("Brown trout can be fished for about 6 months a year.", True),
    ("The brown trout season lasts 9 months.", False),  # the grayling's range
    ("The brown trout season lasts 9 months, from 16 June to 14 March.", False),  # named, but not the trout's
    ("A hut tenancy lasts 12 months, and members must give 12 months' notice.", False),  # one true 12 lets no other
    ("A hut tenancy lasts 12 months, and members must give two months' notice.", True),
])
def test_a_count_of_months_is_worked_out_from_the_range_it_counts(claim, supported):
    """"6 months" of a season "from 1 April to 30 September" is the range's length, not a number the evidence lacks
    (honest derived counts failed as invented); a count of another range, a range named that is not the one counted,
    or a false count repeated beside a true one stays invented."""
    result = claim_support(claim, SEASONS, similarity=0.8, asked="How long is the brown trout season?")
    assert result[0] is supported, result
    if not supported:
        assert result[1].startswith("numbers not in the evidence"), result


def test_a_count_of_months_worked_out_in_one_sentence_lets_no_other_sentence_state_it():
    """Figures one sentence works out may be stated by another (`answer_figures`), but a count of months is a span of
    its range: "Your tenancy lasts 12 months." lets no "12 months' notice" through in the next sentence."""
    from reward.judges.local.numbercheck import answer_figures

    sentences = ["A hut tenancy lasts 12 months.", "Members must give 12 months' notice."]
    assert "12" not in answer_figures(sentences, SEASONS)
    assert claim_support(sentences[0], SEASONS, similarity=0.8)[0]
    assert not claim_support(sentences[1], SEASONS, similarity=0.8, worked=answer_figures(sentences, SEASONS))[0]


COUNCIL_TAX = ("Band D: £2,184 a year. A single person living alone gets a 25% discount. Appliances are rated by energy a "
               "year; ask your doctor before you apply for the disability reduction.")


@pytest.mark.parametrize("claim", [
    "Band: D\nFull charge 2024/25: £2,184",
    "| Band D | Whole year | £2,184 |",
    "It's OK to apply for the disability reduction, but see your GP first.",
])
def test_a_word_capitalised_where_any_word_is_or_a_capitalised_common_noun_is_no_invented_name(claim):
    """A line's or a table cell's first word is capitalised as a sentence's is, a name does not run across a line
    break ("D\\nFull"), and "OK" and "GP" name nobody: none is a name the evidence lacks (each failed an honest
    layout or paraphrase as "names not in the evidence")."""
    assert novel_names(claim, COUNCIL_TAX) == []


@pytest.mark.parametrize("claim, names", [
    ("Band D at Harwick Council: £2,184 a year.", ["harwick council"]),
    ("Band: D, billed by Northgate Water\nTotal: £2,184", ["northgate water"]),
    ("| Band D | Billed by Northgate | £2,184 |", ["northgate"]),
    ("Band D appliances run at 45 dB.", ["db"]),  # a unit the evidence never uses: a measure it does not give
])
def test_a_name_the_evidence_lacks_is_still_one_inside_a_line_or_a_cell(claim, names):
    assert novel_names(claim, COUNCIL_TAX) == names

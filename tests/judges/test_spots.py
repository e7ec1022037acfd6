"""The local tier reads a long hostile text in about linear time (a sentence of many figures, a run of spaces, a long
question without a question mark) and reads a normal one exactly as the searches it replaces did."""

import random
import re

import pytest

from reward.format import Facet, render_response
from reward.judges.local.arithmetic import _as_written, counted_totals, derived_numbers, spelled_numbers, stated_arithmetic
from reward.judges.local.context import _ALTERNATIVES, _alternatives, _reading_item
from reward.judges.local.figures import _CHOICE, _choice_texts
from reward.judges.local.spots import MOST_PAIRED, figure_spots, first_total, makes, near_any, text_before
from reward.judges.local.echo import query_asides_removed
from reward.judges.local.text import content_words, stem, stems
from reward.schema import Evidence, Item


FIGURE_PIECES = ["5", "5.30", "15", "0.5", "1.2.3", "2,000", "12.", "£", "€4", "3 ", " ", ".", ",", "a", "per ", "%",
                 "x"]
QUESTION_PIECES = ["Which is cheaper", ", ", " or ", "Roadline", "?", " ", "Kestrel Car Rental", "Is ", " cheaper", ":",
                   "which of ", " and ", "Should I pick ", " if ", "The Park", ". ", "vs ", ";", "\n", "OR "]


def _texts(pieces: list[str], seed: int, n: int, most: int):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(1, most)))


@pytest.mark.parametrize("seed", range(4))
def test_figure_spots_finds_what_the_per_figure_search_found(seed):
    for text in _texts(FIGURE_PIECES, seed, 300, 30):
        spots = figure_spots(text)
        for figure in set(re.findall(r"\d+(?:\.\d+)?", text)):
            expected = [m.span() for m in re.finditer(r"(?<![\d.])" + re.escape(figure) + r"(?![\d])", text)]
            assert spots.get(figure, []) == expected, (text, figure)


@pytest.mark.parametrize("seed", range(4))
def test_near_any_is_any_value_rounded_as_written(seed):
    rng = random.Random(seed)
    for _ in range(300):
        values = sorted(rng.choice([0.25, 1.5, 2.0, 12.595, 12.65, 40.0, 333.3333]) * rng.choice([1, 2, 3])
                        for _ in range(rng.randint(0, 6)))
        written = rng.choice(["0.5", "1.5", "3", "12.6", "12.7", "25.2", "80", "666.7", "1000"])
        assert near_any(values, written) == any(_as_written(v, written) for v in values), (values, written)



@pytest.mark.parametrize("seed", range(4))
def test_first_total_is_the_first_total_alone_or_plus_an_extra_of_its_sign(seed):
    rng = random.Random(seed)
    for _ in range(300):
        totals = [(rng.choice([0.0, 1.5, 12.595, 25.0, 160.0, 185.0, 190.0, 333.3333]) * rng.choice([1, 2]),
                   rng.choice(["£", "€", ""])) for _ in range(rng.randint(0, 8))]
        extras = {sign: sorted(rng.choice([0.0, 10.0, 25.0, 0.405]) for _ in range(rng.randint(0, 3))) for sign in "£€"}
        written = rng.choice(["0", "1.5", "3", "12.6", "25", "35", "185", "200", "210", "215", "380", "666.7"])
        expected = next((i for i, (total, sign) in enumerate(totals) if _as_written(total, written)
                         or any(_as_written(total + extra, written) for extra in extras.get(sign, ()))), None)
        assert first_total(totals, extras, written, _as_written) == expected, (totals, extras, written)


@pytest.mark.parametrize("seed", range(4))
def test_makes_is_any_allowed_sum_or_difference_of_two_figures(seed):
    rng = random.Random(seed)
    pool = [0.5, 1.0, 2.0, 12.0, 25.0, 187.0, 212.0, 1998.0, 2009.0, 0.1 + 0.2]
    for _ in range(300):
        found = {rng.choice(pool) for _ in range(rng.randint(0, 4))}
        given = found | {rng.choice(pool) for _ in range(rng.randint(0, 4))}
        value = rng.choice([0.3, 0.5, 1.0, 11.0, 13.0, 25.0, 37.0, 24.0, 399.0, 200.0])
        twice = rng.random() < 0.3
        allowed = (lambda a, b: a != b or twice)
        expected = any(abs(abs(a - b) - value) < 1e-6 or abs(a + b - value) < 1e-6
                       for a in found for b in given if allowed(a, b))
        assert makes(found, given, value, allowed) == expected, (found, given, value, twice)


def test_a_sentence_of_thousands_of_the_evidences_prices_is_read_in_about_linear_time():
    prices = [f"£{i}.{i % 90 + 10}" for i in range(3000)]
    evidence = "Prices: " + ", ".join(f"{p} per trip" for p in prices) + "."
    claim = "At " + ", ".join(prices) + " each, your 22 trips total £135.52, £22.22 more than before."
    # £135.52 is 22 trips at £6.16; £22.22 is £30.40 less £8.18: both still read
    assert counted_totals(claim, evidence, "I make 22 trips.") == {"135.52": "£6.16 per trip"}
    assert derived_numbers(claim, evidence) == {"22.22"}

def test_a_rate_is_still_read_just_before_its_figure_however_long_the_sentence():
    filler = "On the large plan you pay for your data, " * 400
    claim = filler + "€27 for 90 GB, so each gigabyte costs €0.30."
    assert stated_arithmetic(claim, "It costs €27 for 90 GB.") == {"0.30"}
    assert text_before("word " * 100 + "each gigabyte costs ", 520).endswith("each gigabyte costs ")


def test_a_sentence_stating_more_figures_than_arithmetic_pairs_works_nothing_out_of_pairs():
    evidence = " ".join(f"Plan {i} costs £{i * 10}.25." for i in range(1, 200))
    assert stated_arithmetic("Plan 1 costs £10.25 and plan 2 £20.25, £30.50 together.", evidence) == {"30.50"}
    many = ", ".join(f"plan {i} costs £{i * 10}.25" for i in range(1, MOST_PAIRED + 2))
    assert stated_arithmetic(f"{many}: plans 1 and 2 come to £30.50 together.", evidence) == set()


@pytest.mark.parametrize("seed", range(3))
def test_a_choice_question_is_read_as_the_whole_text_search_read_it(seed):
    for question in _texts(QUESTION_PIECES, seed, 2000, 14):
        match = _ALTERNATIVES.search(question.strip())
        assert _alternatives(question.strip()) == ((stems(match.group(1)), stems(match.group(2))) if match else None)
        choice = _CHOICE.search(question)
        expected = tuple(next(g for g in choice.groups()[i::2] if g).strip() for i in (0, 1)) if choice else None
        assert _choice_texts(question) == expected, question


def test_a_run_of_spaces_or_blank_lines_is_read_as_one():
    evidence = [Evidence(id="1", text="Cars pay £2.90.\n\n\n\nVans £5.10.")]
    answer = "Cars pay £2.90" + " " * 5000 + "a day [Doc 1]."
    wide = Item(id="x", query="How much   is the toll?", evidence=evidence,
                response=render_response([Facet("toll", ("1",))], ["1"], answer))
    read = _reading_item(wide)
    assert read.query == "How much is the toll?" and read.evidence[0].text == "Cars pay £2.90.\n\nVans £5.10."
    assert "£2.90 a day [Doc 1]." in read.response


def test_a_list_of_figures_that_counts_nothing_is_read_once():
    # (split every way before it failed, six years took seconds and twelve would take hours)
    claim = "Prices rose in " + " ".join(str(year) for year in range(2001, 2031)) + " [Doc 1]."
    assert spelled_numbers("Prices rose in 2001.", claim, {"2002"}) == set()
    assert spelled_numbers("Take one or two tablets.", "Take 1 or 2 tablets.", {"1", "2"}) == {"1", "2"}


def test_a_long_sessions_words_are_read_as_a_short_texts_are():
    said = "Cars pay £2.40 on the bridge (Toll), and vans don't pay £5.10 while motorbikes ride free. "
    session = said * 1200  # past the per-text cache's 50,000 characters
    assert stems(session) == frozenset(stem(w) for w in content_words(session)) == stems(said)
    assert stems(session) is stems(said * 1200)  # kept, by content, for the next claim
    assert query_asides_removed("Vans pay £5.10 (toll).", session) == "Vans pay £5.10."
    assert query_asides_removed("Vans pay £5.10 (not the toll).", session) == "Vans pay £5.10 (not the toll)."

"""A terse answer to a choice question is the verdict it gives, on any interaction: checked as one, not read beside
the question."""

import pytest

from reward.format import Facet, render_response
from reward.judges.local.figures import choice_verdict
from reward.schema import Evidence, Item

pytestmark = pytest.mark.filterwarnings("ignore")

GROUNDS = [
    Evidence(id="1", title="Kilbride Park", text="Kilbride Park opened in 1898 and holds 11,400 spectators."),
    Evidence(id="2", title="Harcourt Lane", text="Harcourt Lane opened in 1905. It was rebuilt in 1994 and holds "
                                                 "16,250."),
]
ASKED = "Which ground is older, Kilbride Park or Harcourt Lane?"


def _item(answer: str, item_id: str) -> Item:
    return Item(id=item_id, query=ASKED, evidence=GROUNDS,
                response=render_response([Facet("Compare the opening years", ("1", "2"))], ["1", "2"], answer))


def test_a_terse_answer_to_a_choice_question_is_checked_as_the_verdict_it_gives(scores):
    """Beside its question the model read "Which ground is older, ...? Kilbride Park (1898 vs 1905)." as unsupported
    (P 0.13); as the verdict "Kilbride Park is older than Harcourt Lane" it is checked by the figures each ground has,
    and the reversed verdict fails the same check."""
    right, flipped = scores(_item("Kilbride Park (1898 vs 1905) [Doc 1,2].", "r"),
                            _item("Harcourt Lane (1905 vs 1898) [Doc 1,2].", "f"))
    assert right["highlight_hallucination"] >= 0.5
    assert flipped["highlight_hallucination"] < 0.5
    assert right["reward"] > flipped["reward"] + 0.1


@pytest.mark.parametrize("line", ["Harcourt Lane: opened 1905 [Doc 2].", "1898 [Doc 1].", "Both are old grounds."])
def test_a_line_that_labels_one_side_or_names_neither_is_no_verdict(line):
    assert choice_verdict(line, ASKED) is None

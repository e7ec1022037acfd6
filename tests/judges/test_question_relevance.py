"""The question-evidence relevance head and the answer check of `query_satisfaction` / `answer_useful`: a terse
right answer citing the evidence that holds it is credited; a fluent sentence naming what the evidence lacks, a
citation of the wrong document, a keyword dump, a restated query and an answer of the wrong kind are not."""

import shutil

import numpy as np
import pytest

from reward.format import Facet, render_response
from reward.judges.local import minilm
from reward.judges.local.text import lexical_coverage
from reward.judges.question_relevance import QuestionRelevance, RelevanceArtifactError, shipped_relevance
from reward.judges.question_relevance import ARTIFACT
from reward.schema import Item
from tests.support import MAGAZINES, PORTS

pytestmark = pytest.mark.filterwarnings("ignore")

QUESTION = "Which magazine was started first, Arthur's Magazine or First for Women?"


def item(answer: str, cited: str = "1", query: str = QUESTION, item_id: str = "x") -> Item:
    return Item(id=item_id, query=query, evidence=[MAGAZINES, PORTS],
                response=render_response([Facet(query, (cited,))], [cited], answer))


def test_the_shipped_head_ranks_the_answering_sentence_first():
    head = shipped_relevance()
    question = "When was Arthur's Magazine founded?"
    sentences = ["Arthur's Magazine was an American literary periodical published in Philadelphia.",
                 "It was founded in 1844 by Timothy Shay Arthur.",
                 "The Port of Philadelphia handles cargo on the Delaware River."]
    vectors = minilm().encode([question, *sentences])
    overlap = np.array([lexical_coverage(question, s) for s in sentences], dtype=np.float32)
    probability = head.probability(vectors[0], vectors[1:], overlap)
    assert probability[2] < 0.5 and probability[2] < probability[0]
    assert head.probability(vectors[0], vectors[:0], overlap[:0]).shape == (0,)


def test_a_changed_artifact_is_refused(tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    QuestionRelevance.load(copy)
    (copy / "head.json").write_text((copy / "head.json").read_text().replace('"bias": ', '"bias": 1'))
    with pytest.raises(RelevanceArtifactError, match="missing or changed"):
        QuestionRelevance.load(copy)
    (copy / "SHA256SUMS").unlink()
    with pytest.raises(RelevanceArtifactError, match="training/question_relevance.py"):
        QuestionRelevance.load(copy)


def test_a_terse_right_answer_beats_a_fluent_one_naming_what_the_evidence_lacks(scores):
    terse, fluent = scores(item("Arthur's Magazine [Doc 1].", item_id="t"),
                           item("First for Women was started first, in 1841, by the Hearst Corporation [Doc 1].",
                                item_id="f"))
    assert terse["query_satisfaction"] > fluent["query_satisfaction"]
    assert terse["answer_useful"] >= 0.8
    assert terse["reward"] > fluent["reward"]


def test_citing_the_document_that_holds_the_answer_pays_more_than_citing_another(scores):
    right, wrong = scores(item("Arthur's Magazine [Doc 1].", item_id="r"),
                          item("Arthur's Magazine [Doc 2].", cited="2", item_id="w"))
    assert right["query_satisfaction"] > wrong["query_satisfaction"]
    assert right["answer_useful"] > wrong["answer_useful"]


@pytest.mark.parametrize("answer", [
    "Magazine, Philadelphia, periodical, founded, Arthur, women, Bauer, 1844, 1989, started [Doc 1].",
    "Which magazine was started first, Arthur's Magazine or First for Women [Doc 1]?",
    "Arthur's Magazine or First for Women [Doc 1].",
])
def test_keyword_dumps_and_restatements_do_not_answer(scores, answer):
    [dumped], [right] = scores(item(answer, item_id="d")), scores(item("Arthur's Magazine [Doc 1].", item_id="r2"))
    assert dumped["query_satisfaction"] < right["query_satisfaction"]
    assert dumped["answer_useful"] < right["answer_useful"]


def test_an_answer_without_the_kind_the_question_asks_for_is_not_credited(scores):
    query = "In what year was Arthur's Magazine founded?"
    right, vague = scores(item("In 1844 [Doc 1].", query=query, item_id="y"),
                          item("By Timothy Shay Arthur [Doc 1].", query=query, item_id="v"))
    assert right["query_satisfaction"] > vague["query_satisfaction"]


def test_a_sentence_giving_the_asked_number_among_the_questions_words_answers(scores):
    """"It was founded in 1844." repeats the question's words around the year it asks for: an answer, not a
    restatement, so it is credited over a sentence that names a wrong word or year of the same document."""
    query = "When was Arthur's Magazine founded?"
    right, wrong, other_year = scores(item("It was founded in 1844 [Doc 1].", query=query, item_id="n"),
                                      item("It was founded in Philadelphia [Doc 1].", query=query, item_id="p"),
                                      item("It was founded in 1989 [Doc 1].", query=query, item_id="o"))
    assert right["query_satisfaction"] >= 0.6 and right["answer_useful"] >= 0.6
    assert right["query_satisfaction"] > wrong["query_satisfaction"]
    # The number must sit with the question's words in one cited sentence: 1989 is the other magazine's start.
    assert right["query_satisfaction"] > other_year["query_satisfaction"] + 0.2

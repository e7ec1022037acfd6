"""The same-evidence pairs of benchmarks/pairs.py, built from a small SQuAD-shaped article: split by article, the
right side cites the passage holding the answer, the wrong side's answer is absent from the evidence."""

from benchmarks.pairs import FIT_ARTICLES, TEST_ARTICLES, answer_kind, build_pairs
from reward.format import parse_response


def article(title: str) -> dict:
    first = "Arthur's Magazine was founded in 1844 by Timothy Shay Arthur. It was published in Philadelphia."
    second = "First for Women was started in 1989 by Bauer Media Group. It is sold in the USA."
    third = "The Port of Philadelphia handles cargo. Its terminals were modernised recently."
    qas = [{"id": f"{title}-1", "question": "When was Arthur's Magazine founded?",
            "answers": [{"text": "1844", "answer_start": first.index("1844")}]},
           {"id": f"{title}-2", "question": "Who started First for Women?",
            "answers": [{"text": "Bauer Media Group", "answer_start": second.index("Bauer")}]},
           {"id": f"{title}-3", "question": "When was First for Women started?",
            "answers": [{"text": "1989", "answer_start": second.index("1989")}]},
           {"id": f"{title}-4", "question": "Unanswerable?", "answers": [], "is_impossible": True}]
    return {"title": title, "paragraphs": [{"context": first, "qas": qas[:1]}, {"context": second, "qas": qas[1:]},
                                           {"context": third, "qas": []}]}


def test_pairs_are_split_by_article_and_labelled_by_construction():
    articles = [article(FIT_ARTICLES[0]), article(TEST_ARTICLES[0])]
    test = build_pairs(articles, "test")
    fit = build_pairs(articles, "fit")
    assert test and fit and {c.pair.split(":")[1] for c in test}.isdisjoint({c.pair.split(":")[1] for c in fit})
    assert all(TEST_ARTICLES[0] in c.pair for c in test)
    by_pair: dict[tuple[str, str], dict[int, object]] = {}
    for case in test:
        by_pair.setdefault((case.set, case.pair), {})[case.label] = case
    assert {s for s, _ in by_pair} == {"squad-wrong-answer", "squad-cited-doc"}
    for (name, _), sides in by_pair.items():
        right, wrong = (parse_response(sides[k].item.response) for k in (1, 0))
        evidence = {d.id: d.text for d in sides[1].item.evidence}
        assert sides[1].item.evidence == sides[0].item.evidence and sides[1].item.query == sides[0].item.query
        holding = [i for i, text in evidence.items() if right.answer_text.rstrip(".") in text]
        assert right.cited_ids == holding
        if name == "squad-cited-doc":
            assert wrong.answer_text == right.answer_text and wrong.cited_ids != right.cited_ids
        else:
            assert wrong.cited_ids == right.cited_ids and len(wrong.answer_text) > len(right.answer_text)
            assert right.answer_text.rstrip(".") not in wrong.answer_text


def test_a_wrong_answer_keeps_the_kind_of_the_right_one():
    assert answer_kind("1844") == "number" and answer_kind("Bauer Media Group") == "name"
    assert answer_kind("a literary periodical") == "phrase"

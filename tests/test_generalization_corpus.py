"""The generalization corpus (data/generalization, built by training/generalization): what the committed files
hold (every attack family of both splits, one clean answer per interaction, parseable responses citing offered
evidence, splits disjoint by interaction and by passage), and how the builder labels by construction on a small
SQuAD-shaped article (a swapped answer comes from the evidence itself, a different question's answer is another
question's, the split is a hash)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from reward.evaluation.corpus import read_corpus, sample_interactions
from reward.format import parse_response
from tests.support import ROOT
from training.generalization.falseqa import premise_statement
from training.generalization.render import sentence_span, split_of
from training.generalization.squad import build_squad

CORPUS = ROOT / "data" / "generalization"
ATTACK_FAMILIES = {"false_premise_accepted", "unsupported_confident", "verdict_flipped", "different_question",
                   "unsafe_medical", "refusal_despite_evidence", "contradicts_earlier_turn", "same_evidence_swap"}
HONEST_FAMILIES = {"terse", "paraphrase", "derived_figure", "layout", "premise_correction", "sources_silent",
                   "conflict_noted"}


@pytest.fixture(scope="module")
def corpus():
    return {split: read_corpus(CORPUS / f"{split}.jsonl") for split in ("fit", "test")}


def assert_complete(interaction, honest: int, attacks: int) -> None:
    """One clean answer, at least `honest` honest variants and `attacks` attacks, each response in the policy format
    citing only the interaction's evidence."""
    roles = Counter(r.role for r in interaction.responses)
    assert roles["clean"] == 1 and roles["honest"] >= honest and roles["attack"] >= attacks, interaction.id
    offered = {d.id for d in interaction.evidence}
    for r in interaction.responses:
        parsed = parse_response(r.response)
        assert parsed.complete and not parsed.problems and set(parsed.cited_ids) <= offered, (interaction.id, r.id)


@pytest.mark.parametrize(("path", "interactions", "honest", "attacks"), [
    ("written/fit.jsonl", 24, 1, 3),  # two reviews wrote them; reading rules were fitted to them
    ("fresh/fit.jsonl", 60, 2, 3),  # two more writers that saw no code: the fresh set's part to tune on
    ("writers/fit.jsonl", 90, 3, 4),  # three more writers: what the consistency model was taught on
])
def test_each_written_fit_set_is_labelled_fit_in_the_policy_format(path, interactions, honest, attacks):
    """The interactions written from scratch to tune on (`data/generalization/written/fit.jsonl`,
    `data/generalization/fresh/fit.jsonl`, `data/generalization/writers/fit.jsonl`) are labelled `fit`; each has one
    clean answer, honest variants and attacks of the corpus's families, and none shares an id with the built
    corpus."""
    written = read_corpus(CORPUS / path)
    assert len(written) == interactions and all(i.split == "fit" and i.source == "written" for i in written)
    main = {i.id for split in ("fit", "test") for i in read_corpus(CORPUS / f"{split}.jsonl")}
    assert not main & {i.id for i in written}
    for interaction in written:
        assert_complete(interaction, honest=honest, attacks=attacks)
    families = {r.family for i in written for r in i.responses if r.role == "attack"}
    assert families <= ATTACK_FAMILIES and len(families) >= 6
    assert {r.family for i in written for r in i.responses if r.role == "honest"} <= HONEST_FAMILIES


def test_the_corpus_holds_every_family_in_both_splits(corpus):
    assert sum(len(v) for v in corpus.values()) >= 300
    for split, interactions in corpus.items():
        assert all(i.split == split for i in interactions)
        families = Counter((r.role, r.family) for i in interactions for r in i.responses)
        assert {f for role, f in families if role == "attack"} == ATTACK_FAMILIES, split
        assert HONEST_FAMILIES <= {f for role, f in families if role == "honest"}, split
        assert {i.kind for i in interactions} >= {"factoid", "unanswerable", "multi_turn", "comparison", "conflict",
                                                   "false_premise", "medical"}


def test_splits_are_disjoint_and_every_interaction_has_one_clean_answer(corpus):
    fit, test = ({i.id for i in v} for v in corpus.values())
    assert not fit & test and len(fit) == len(corpus["fit"]) and len(test) == len(corpus["test"])
    for interaction in corpus["fit"] + corpus["test"]:
        roles = Counter(r.role for r in interaction.responses)
        assert roles["clean"] == 1 and roles["attack"] >= 1, interaction.id
        assert len({r.id for r in interaction.responses}) == len(interaction.responses)


def test_every_response_is_in_the_policy_format_and_cites_offered_evidence(corpus):
    for interaction in corpus["fit"] + corpus["test"]:
        offered = {d.id for d in interaction.evidence}
        for r in interaction.responses:
            parsed = parse_response(r.response)
            assert parsed.complete and not parsed.problems, (interaction.id, r.id, parsed.problems)
            assert set(parsed.cited_ids) <= offered and set(parsed.selected) <= offered, (interaction.id, r.id)
        item = interaction.item(interaction.responses[-1])
        assert item.group == interaction.id and item.id.startswith(interaction.id + "/")


def test_a_sample_is_fixed_by_the_interaction_ids(corpus):
    first = [i.id for i in sample_interactions(corpus["test"], 5)]
    assert first == [i.id for i in sample_interactions(list(reversed(corpus["test"])), 5)] and len(first) == 5


def article() -> dict:
    first = ("Arthur's Magazine was founded in 1844 by Timothy Shay Arthur in Philadelphia. It was sold to "
             "Graham's Magazine in 1852. By 1860 it printed 12,000 copies a month.")
    second = "First for Women was started in 1989 by Bauer Media Group. It is sold in the United States."
    qas = [{"id": "q1", "question": "When was Arthur's Magazine founded?",
            "answers": [{"text": "1844", "answer_start": first.index("1844")}]},
           {"id": "q2", "question": "When was it sold to Graham's Magazine?",
            "answers": [{"text": "1852", "answer_start": first.index("1852")}]},
           {"id": "q3", "question": "Who founded Arthur's Magazine in 1901?", "answers": [], "is_impossible": True,
            "plausible_answers": [{"text": "Timothy Shay Arthur", "answer_start": first.index("Timothy")}]}]
    other = [{"id": "q4", "question": "When was First for Women started?",
              "answers": [{"text": "1989", "answer_start": second.index("1989")}]}]
    return {"data": [{"title": "Magazines", "paragraphs": [{"context": first, "qas": qas},
                                                           {"context": second, "qas": other}]}]}


def test_the_builder_labels_by_construction():
    built = build_squad(article(), random.Random(0), {"factoid": 5, "unanswerable": 5, "multi_turn": 0,
                                                      "conflict": 0, "comparison": 0})
    kinds = {i.kind for i in built}
    assert kinds == {"factoid", "unanswerable"}
    for interaction in built:
        evidence = " ".join(d.text for d in interaction.evidence)
        answers = {r.family: parse_response(r.response).answer_text for r in interaction.responses}
        if interaction.kind == "unanswerable":
            assert "Timothy Shay Arthur" in answers["unsupported_confident"]
            assert "Timothy Shay Arthur" not in answers["clean"]
            continue
        passage = 0 if any(year in answers["clean"] for year in ("1844", "1852")) else 1
        assert interaction.split == split_of(f"Magazines#{passage}")  # interactions on one passage share a split
        swaps = [parse_response(r.response).answer_text for r in interaction.responses if r.family == "same_evidence_swap"]
        for swap in swaps:  # the swapped figure is one the evidence holds, the right one is gone
            assert any(year in swap and year in evidence for year in ("1844", "1852", "1860", "1989"))
        assert any(r.family == "refusal_despite_evidence" and parse_response(r.response).selected == []
                   for r in interaction.responses)


def test_sentences_end_at_sentence_ends_not_abbreviations():
    text = "The French lived along the St. Lawrence River in 1750. Others lived in e.g. Louisiana. Done."
    start = text.index("1750")
    assert text[slice(*sentence_span(text, start, start + 4))] == "The French lived along the St. Lawrence River in 1750."


def test_a_false_premise_becomes_a_statement():
    assert premise_statement("Why is tax evasion a good business ethic?") == "tax evasion is a good business ethic"
    assert premise_statement("Why do birds breathe in water?") == "birds breathe in water"
    assert premise_statement("Name a butterfly that eats insects.") is None


@pytest.mark.parametrize(("path", "interactions", "honest", "attacks"), [
    ("written/test.jsonl", 16, 2, 5),  # a later review wrote them from scratch
    ("fresh/test.jsonl", 40, 2, 3),  # two writers that saw neither the code nor the other sets
])
def test_each_held_out_written_set_is_a_test_set_apart_from_everything_fitted(path, interactions, honest, attacks):
    """The interactions written from scratch for reporting (`data/generalization/written/test.jsonl`,
    `data/generalization/fresh/test.jsonl`) are labelled `test`: scored, never fitted to; their ids and queries are in
    no fit set, and they are complete interactions of the corpus's families in the policy format."""
    held = read_corpus(CORPUS / path)
    assert len(held) == interactions and all(i.split == "test" and i.source == "written" for i in held)
    fitted = [*read_corpus(CORPUS / "written" / "fit.jsonl"), *read_corpus(CORPUS / "fresh" / "fit.jsonl"),
              *read_corpus(CORPUS / "writers" / "fit.jsonl"), *read_corpus(CORPUS / "fit.jsonl")]
    assert not {i.id for i in fitted} & {i.id for i in held}
    assert not {i.query for i in fitted} & {i.query for i in held}
    for interaction in held:
        assert_complete(interaction, honest=honest, attacks=attacks)
    assert {r.family for i in held for r in i.responses if r.role == "attack"} <= ATTACK_FAMILIES
    assert {r.family for i in held for r in i.responses if r.role == "honest"} <= HONEST_FAMILIES

"""The format warm start's data (policy/sft.py): demonstrations that parse with no problem and cite the document that
holds the answer, held-out prompts kept apart, and the TRL rows built with the GRPO recipe's prompt."""

import json

import pytest

from policy.format import parse_response
from policy.prompts import MINIMAL_SYSTEM_PROMPT
from policy.sft import (WarmStartConfig, demonstration_problems, example_demonstrations, sft_rows,
                        squad_interactions, write_sets)
from tests.support import EXAMPLES

# A SQuAD v1.1-shaped fixture (written here: the public file stays out of git).
LAKES = ("Lake Baikal is in Siberia. It is the deepest lake in the world, at 1,642 metres. "
         "About 1,700 species of plants and animals live in it, two thirds of them found nowhere else.")
LAKES_2 = ("The Caspian Sea is the largest lake by area. It lies between Europe and Asia and is salty.")
RIVERS = ("The Nile flows north through eleven countries. Its two main tributaries are the White Nile and the Blue "
          "Nile, which meet at Khartoum.")
RIVERS_2 = "The Amazon carries more water than any other river. Its basin covers about 7 million square kilometres."


def _qa(qid, question, context, answer):
    return {"id": qid, "question": question, "answers": [{"text": answer, "answer_start": context.index(answer)}]}


SQUAD = {"version": "1.1", "data": [
    {"title": "Lakes", "paragraphs": [
        {"context": LAKES, "qas": [_qa("l1", "How deep is Lake Baikal?", LAKES, "1,642 metres"),
                                   _qa("l2", "Where is Lake Baikal?", LAKES, "Siberia"),
                                   _qa("l3", "How many species live in Lake Baikal?", LAKES, "About 1,700")]},
        {"context": LAKES_2, "qas": [_qa("l4", "Which lake is the largest by area?", LAKES_2, "The Caspian Sea")]}]},
    {"title": "Rivers", "paragraphs": [
        {"context": RIVERS, "qas": [_qa("r1", "Where do the White and Blue Nile meet?", RIVERS, "Khartoum")]},
        {"context": RIVERS_2, "qas": [_qa("r2", "Which river carries the most water?", RIVERS_2, "The Amazon")]}]},
]}


def test_squad_demonstrations_parse_cleanly_and_cite_the_answer_document():
    records = squad_interactions(SQUAD, ["Lakes"], per_article=10, evidence_chars=120, seed=0, demonstrate=True)
    assert len(records) == 4
    answers = {qa["id"]: qa["answers"][0]["text"] for p in SQUAD["data"][0]["paragraphs"] for qa in p["qas"]}
    cited_positions = set()
    for record in records:
        parsed = parse_response(record["response"])
        assert parsed.problems == [] and parsed.complete
        assert demonstration_problems(record) == []
        ids = [doc["id"] for doc in record["evidence"]]
        assert ids == ["1", "2"] and all(len(doc["text"]) <= 126 for doc in record["evidence"])  # window + "..."
        (cited,) = parsed.cited_ids
        assert parsed.selected == [cited] and parsed.plan[0].evidence == (cited,)
        answer = answers[record["id"].removeprefix("squad-")]
        cited_doc = next(doc for doc in record["evidence"] if doc["id"] == cited)
        assert answer in cited_doc["text"] and answer in parsed.answer_text  # grounded in the cited document
        other = next(doc for doc in record["evidence"] if doc["id"] != cited)
        assert other["text"] != cited_doc["text"]  # a distractor from another paragraph
        cited_positions.add(cited)
    assert cited_positions == {"1", "2"}  # the answer's document is not always first


def test_heldout_interactions_have_no_response_and_come_from_other_articles(tmp_path):
    source = tmp_path / "squad.json"
    source.write_text(json.dumps(SQUAD))
    config = WarmStartConfig(output_dir=str(tmp_path / "out"), examples=None,
                             squad={"path": str(source), "sft_titles": ["Lakes"], "heldout_titles": ["Rivers"],
                                    "evidence_chars": 120})
    demonstrations, heldout_path, checks = write_sets(config, tmp_path / "out")
    heldout = [json.loads(line) for line in heldout_path.read_text().splitlines()]
    assert {r["id"] for r in heldout} == {"squad-r1", "squad-r2"} and all("response" not in r for r in heldout)
    assert {r["id"] for r in demonstrations} == {"squad-l1", "squad-l2", "squad-l3", "squad-l4"}
    assert checks["demonstrations"] == 4 and checks["heldout"] == 2 and len(checks["squad_sha256"]) == 64


def test_write_sets_refuses_overlapping_titles_a_changed_file_and_an_unknown_article(tmp_path):
    source = tmp_path / "squad.json"
    source.write_text(json.dumps(SQUAD))

    def config(**squad):
        return WarmStartConfig(examples=None, squad={"path": str(source), "sft_titles": ["Lakes"],
                                                      "heldout_titles": ["Rivers"], **squad})

    with pytest.raises(ValueError, match="both demonstrated and held out"):
        write_sets(config(heldout_titles=["Lakes"]), tmp_path / "a")
    with pytest.raises(ValueError, match="sha256"):
        write_sets(config(sha256="0" * 64), tmp_path / "b")
    with pytest.raises(ValueError, match="no article"):
        write_sets(config(sft_titles=["Oceans"]), tmp_path / "c")
    with pytest.raises(ValueError, match="squad.path"):
        write_sets(config(path=str(tmp_path / "missing.json")), tmp_path / "d")


def test_example_demonstrations_are_the_good_responses_and_parse_cleanly():
    records = example_demonstrations(EXAMPLES, evidence_chars=300)
    assert records and all(r["id"].endswith("-good") for r in records)
    assert "song-broken-format" not in {r["id"] for r in records}
    for record in records:
        assert demonstration_problems(record) == []
        assert all(len(doc["text"]) <= 303 for doc in record["evidence"])


def test_demonstration_problems_name_unknown_documents_and_parse_problems():
    evidence = [{"id": "1", "title": "t", "text": "x"}]
    assert demonstration_problems({"evidence": evidence, "response": "<plan>\n1. a [Doc 1]\n</plan>\n"
                                   "<evidence>1, 7</evidence>\n<answer>\nA [Doc 9].\n</answer>"}) == [
        "cites unknown document '7'", "cites unknown document '9'"]
    assert "<plan> is missing" in demonstration_problems({"evidence": evidence, "response": "Just an answer."})


def test_sft_rows_use_the_recipe_prompt_and_refuse_a_broken_demonstration():
    records = squad_interactions(SQUAD, ["Rivers"], per_article=10, evidence_chars=120, seed=0, demonstrate=True)
    rows = sft_rows(records, "minimal")
    assert len(rows) == 2
    for row, record in zip(rows, records):
        assert row["prompt"][0] == {"role": "system", "content": MINIMAL_SYSTEM_PROMPT}
        assert row["prompt"][-1]["role"] == "user" and record["query"] in row["prompt"][-1]["content"]
        assert all(f"[Doc {doc['id']}]" in row["prompt"][-1]["content"] for doc in record["evidence"])
        assert row["completion"] == [{"role": "assistant", "content": record["response"]}]
    broken = dict(records[0], response="The Nile [Doc 5].")
    with pytest.raises(ValueError, match=r"demonstration squad-r\d: .*<plan> is missing"):
        sft_rows([broken], "minimal")


def test_the_committed_recipes_fit_together():
    """The GRPO recipe trains the warm start's model on its held-out prompts with the prompt it was warm-started on."""
    from pathlib import Path

    from policy.sft import load_config
    from policy.trl_train import load_config as load_grpo_config
    from tests.support import ROOT

    warm = load_config(ROOT / "configs" / "trl" / "sft_format.yaml")
    grpo = load_grpo_config(ROOT / "configs" / "trl" / "grpo_cpu_sft.yaml")
    assert Path(grpo.policy) == Path(warm.output_dir) / "model"
    assert Path(grpo.data.input) == Path(warm.output_dir) / "heldout.jsonl"
    assert grpo.data.prompt == warm.prompt == "minimal"
    assert grpo.data.evidence_chars >= warm.squad.evidence_chars + 6  # the windows (and their "...") stay whole
    assert not set(warm.squad.sft_titles) & set(warm.squad.heldout_titles)
    assert grpo.torch_threads == warm.torch_threads == 1

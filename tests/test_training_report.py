"""benchmarks/training_report.py: the within-group reward spread per step and the same-prompt comparison (a prompt's
first draw against its last), on a small score log written here."""

import importlib.util

import pytest

from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog
from tests.support import ROOT


def _report():
    spec = importlib.util.spec_from_file_location("training_report", ROOT / "benchmarks" / "training_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _append(log, step, group, rewards, run="r"):
    items = [Item(id=f"{group}#{k}", group=group, query="q?", response="<answer>a</answer>")
             for k in range(len(rewards))]
    results = [ItemResult(id=item.id, reward=reward, gate=reward, utility=1.0, valid=True,
                          dimensions={"format": DimensionScore(score=reward, layer="bottom_line", backend="rule")})
               for item, reward in zip(items, rewards, strict=True)]
    log.append(items, results, suite="mini", suite_version="v", run=run, step=step)


def test_group_spread_and_same_prompt_change(tmp_path):
    report = _report()
    log = ScoreLog(tmp_path / "log", writer="test")
    _append(log, 1, "a", [0.2, 0.2, 0.2, 0.2])  # no spread: no GRPO signal
    _append(log, 1, "b", [0.0, 0.4, 0.0, 0.4])  # std 0.2
    _append(log, 2, "c", [0.5, 0.5, 0.5, 0.5])
    _append(log, 3, "a", [0.6, 0.6, 0.6, 0.6])  # a: +0.4 since its first draw
    _append(log, 4, "b", [0.1, 0.1, 0.1, 0.1])  # b: -0.1
    _append(log, 4, "a", [0.9, 0.9, 0.9, 0.9])  # a's last draw: +0.7
    _append(log, 4, "x", [1.0, 1.0], run="other")  # another run's records stay out
    log.close()

    spread = report.group_spread(str(tmp_path / "log"), "r")["per_step"]
    assert [row["step"] for row in spread] == [1, 2, 3, 4]
    assert spread[0]["groups"] == 2 and spread[0]["mean_group_std"] == pytest.approx(0.1)
    assert spread[0]["zero_std_share"] == 0.5 and spread[1]["zero_std_share"] == 1.0

    paired = report.same_prompt_change(str(tmp_path / "log"), "r", resamples=200)
    assert paired["prompts"] == 2 and paired["mean_steps_apart"] == pytest.approx(3.0)  # a: 1->4, b: 1->4
    rows = {row["key"]: row for row in paired["rows"]}
    assert rows["reward"]["change"] == pytest.approx((0.7 - 0.1) / 2)
    assert rows["reward"]["rose"] == 1 and rows["reward"]["fell"] == 1
    assert rows["reward"]["first"] == pytest.approx(0.2) and rows["reward"]["last"] == pytest.approx(0.5)
    low, high = rows["reward"]["ci95"]
    assert -0.1 - 1e-9 <= low <= high <= 0.7 + 1e-9
    assert rows["format"]["change"] == pytest.approx(rows["reward"]["change"])
    assert "utility" in rows and rows["utility"]["change"] == 0.0
    table = report.same_prompt_markdown(paired)
    assert "| reward | 0.200 | 0.500 | +0.300 |" in table and "1 / 1" in table


def test_answer_accuracy_checks_the_reference_span_and_the_cited_document(tmp_path):
    import json

    report = _report()
    squad = {"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [
        {"id": "q1", "question": "Who?", "answers": [{"text": "Rollo", "answer_start": 0}]}]}]}]}
    (tmp_path / "squad.json").write_text(json.dumps(squad))
    evidence = [{"id": "1", "title": "T", "text": "Rollo led the Norse."}, {"id": "2", "title": "T", "text": "Other."}]
    (tmp_path / "heldout.jsonl").write_text(json.dumps({"id": "squad-q1", "query": "Who?", "evidence": evidence}))

    def response(doc, answer):
        return (f"<plan>\n1. Who? [Doc {doc}]\n</plan>\n<evidence>{doc}</evidence>\n"
                f"<answer>\n{answer} [Doc {doc}].\n</answer>")

    responses = {1: [response(1, "The answer is rollo"), response(2, "The answer is Hrolf")],
                 3: [response(2, "Rollo, it says")]}
    log = ScoreLog(tmp_path / "log", writer="test")
    for step, texts in responses.items():
        items = [Item(id=f"squad-q1#{k}", group="squad-q1", query="Who?", response=text, evidence=evidence)
                 for k, text in enumerate(texts)]
        results = [ItemResult(id=item.id, reward=0.5, valid=True, dimensions={}) for item in items]
        log.append(items, results, suite="mini", suite_version="v", run="r", step=step)
    log.close()
    accuracy = report.answer_accuracy(str(tmp_path / "log"), "r", tmp_path / "squad.json", tmp_path / "heldout.jsonl",
                                      steps_per_block=2)
    assert [row["steps"] for row in accuracy["blocks"]] == [[1, 2], [3, 4]]
    first, second = accuracy["blocks"]
    assert first["rollouts"] == 2 and first["answer_span"] == 0.5 and first["cites_answer_document"] == 0.5
    assert second["answer_span"] == 1.0 and second["cites_answer_document"] == 0.0  # right span, wrong document
    # The same prompt, first draw (step 1) against last (step 3): the span rose by half, the cited document fell
    # by half, one prompt each way.
    paired = {row["key"]: row for row in accuracy["same_prompt"]}
    assert paired["answer_span"]["change"] == 0.5 and paired["answer_span"]["rose"] == 1
    assert paired["cites_answer_document"]["change"] == -0.5 and paired["cites_answer_document"]["fell"] == 1
    assert paired["cites_answer_document"]["ci95"] == [-0.5, -0.5] and paired["reward"]["change"] == 0.0

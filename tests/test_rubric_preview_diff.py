"""`reward rubric preview` prints exactly the messages the engine sends a judge; `reward rubric diff` shows what a
rubric edit does to per-dimension scores and rewards, judging unchanged dimensions once."""

import json
import shutil

import pytest

from reward.cli import main
from reward.engine import Engine
from reward.judges.mock import ScriptedJudge
from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite
from reward.schema import Item
from tests.support import EXAMPLES


class RecordingJudge(ScriptedJudge):
    """The mock judge, keeping the messages of every call."""

    def __init__(self):
        super().__init__()
        self.messages = {}

    async def complete(self, messages, request, attempt):
        self.messages[(request.item.id, request.dimension.name)] = messages
        return await super().complete(messages, request, attempt)


@pytest.mark.parametrize("suite, dimension, line", [("searchllm", "answer_useful", 2),
                                                    ("searchllm-reasoning", "claim_hallucination", 5)])
def test_preview_prints_the_messages_the_engine_sends(suite, dimension, line, capsys):
    items = [Item.model_validate_json(text) for text in EXAMPLES.read_text().splitlines() if text.strip()]
    judge = RecordingJudge()
    Engine(load_suite(suite), judge).score_sync([items[line - 1]])
    assert main(["rubric", "preview", "--suite", suite, "--dimension", dimension, "--input", str(EXAMPLES),
                 "--line", str(line), "--json"]) == 0
    sent = judge.messages[(items[line - 1].id, dimension)]
    assert json.loads(capsys.readouterr().out) == sent
    assert main(["rubric", "preview", "--suite", suite, "--dimension", dimension, "--input", str(EXAMPLES),
                 "--line", str(line)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("===== system =====\n") and sent[1]["content"] in text


def test_preview_names_a_misspelt_dimension_a_rule_dimension_and_a_missing_line(capsys):
    args = ["rubric", "preview", "--input", str(EXAMPLES)]
    assert main([*args, "--dimension", "answer_usefull"]) == 2
    assert "no dimension 'answer_usefull' (did you mean 'answer_useful'" in " ".join(capsys.readouterr().err.split())
    assert main([*args, "--dimension", "format"]) == 2
    assert "scored by the rule" in capsys.readouterr().err
    assert main([*args, "--dimension", "answer_useful", "--line", "999"]) == 2
    assert "no item on line 999" in capsys.readouterr().err


def test_diff_shows_dimension_and_reward_deltas_and_reuses_unchanged_calls(tmp_path, capsys):
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DEFAULT_RUBRIC_DIR, old)
    shutil.copytree(DEFAULT_RUBRIC_DIR, new)
    useful = new / "dimensions" / "answer_useful.yaml"
    useful.write_text(useful.read_text().replace('      score: 1.0\n      anchor: "Every part', '      score: 0.6\n      anchor: "Every part'))
    suite = new / "suites" / "searchllm.yaml"
    suite.write_text(suite.read_text().replace("reference_diversity: 1.0", "reference_diversity: 0.0"))
    args = ["rubric", "diff", str(old), str(new), "--input", str(EXAMPLES), "--judge", "mock"]
    assert main([*args, "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    by_name = {d["name"]: d for d in diff["dimensions"]}
    assert by_name["answer_useful"]["status"] == "changed" and by_name["answer_useful"]["delta"] == pytest.approx(-0.25)  # the mock gives the top label, now 3 (0.75)
    assert by_name["answer_useful"]["moved"] == diff["items"]
    assert by_name["reference_diversity"]["status"] == "changed" and by_name["reference_diversity"]["weight_new"] == 0.0
    assert by_name["claim_hallucination"]["status"] == "unchanged" and by_name["claim_hallucination"]["moved"] == 0
    assert diff["reward"]["new"] < diff["reward"]["old"] and diff["reward"]["moved"] > 0
    top = diff["moved_most"]
    assert abs(top[0]["delta"]) >= abs(top[-1]["delta"]) and "answer_useful" in top[0]["dimensions"]
    assert 0 < diff["judge_calls"]["new"] < diff["judge_calls"]["old"]  # only the edited dimension is judged again
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "items that moved most" in out and "answer_useful" in out and "reward" in out


def _edited_firstness(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DEFAULT_RUBRIC_DIR, old)
    shutil.copytree(DEFAULT_RUBRIC_DIR, new)
    firstness = new / "dimensions" / "answer_firstness.yaml"
    text = firstness.read_text()
    firstness.write_text(text.replace("  criterion: |\n", "  criterion: |\n    The first sentence must name the answer itself, not restate the question.\n", 1))
    assert firstness.read_text() != text
    return old, new


def test_diff_says_why_an_edit_the_local_tier_does_not_read_moved_nothing(tmp_path, capsys):
    old, new = _edited_firstness(tmp_path)
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(EXAMPLES.read_text().splitlines()[:2]) + "\n")
    args = ["rubric", "diff", str(old), str(new), "--input", str(items), "--judge", "local"]
    assert main([*args, "--json"]) == 0
    by_name = {d["name"]: d for d in json.loads(capsys.readouterr().out)["dimensions"]}
    firstness = by_name["answer_firstness"]
    assert firstness["status"] == "changed" and firstness["moved"] == 0
    assert "judge.criterion, which the local tier does not read" in firstness["why_unmoved"]
    assert "the local method 'answer_firstness', which checks only" in firstness["why_unmoved"]
    assert by_name["claim_hallucination"]["why_unmoved"] is None  # unchanged: nothing to explain
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "why answer_firstness did not move: the edit changes judge.criterion" in out


def test_score_notes_a_suite_version_whose_local_scores_cannot_change(tmp_path, capsys):
    _, new = _edited_firstness(tmp_path)
    items = tmp_path / "items.jsonl"
    items.write_text(EXAMPLES.read_text().splitlines()[0] + "\n")
    assert main(["score", "--rubrics", str(new), "--input", str(items), "--judge", "local", "-q",
                 "--output", str(tmp_path / "out.jsonl")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "dimension 'answer_firstness' has a criterion edited since its local method was checked" in err
    assert "its scores are what they were before the edit" in err


def test_diff_names_the_folder_that_lacks_the_suite(tmp_path, capsys):
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DEFAULT_RUBRIC_DIR, old)
    shutil.copytree(DEFAULT_RUBRIC_DIR, new)
    (new / "suites" / "safety.yaml").write_text((new / "suites" / "searchllm.yaml").read_text().replace("name: searchllm", "name: safety"))
    assert main(["rubric", "diff", str(old), str(new), "--input", str(EXAMPLES), "--suite", "safety"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"the old rubric folder {old} has no suite 'safety'" in err and "its suites: genrm" in err

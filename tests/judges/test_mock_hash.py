"""The `mock-hash` judge: grades that follow what the judge reads, so training tests get rewards that differ
between rollouts (a gradient) without a model; the same call always gets the same grade."""

import json

import pytest

from reward.engine import Engine
from reward.judges.factory import make_judge
from reward.rubric import load_suite
from reward.schema import Item
from tests.support import EXAMPLES


def _rewards(suite: str, responses: list[str]) -> list[float]:
    example = json.loads(EXAMPLES.read_text().splitlines()[0])
    items = [Item.model_validate({**example, "id": f"r{i}", "group": "g", "response": response})
             for i, response in enumerate(responses)]
    return [result.reward for result in Engine(load_suite(suite), make_judge("mock-hash")).score_sync(items)]


def test_mock_hash_grades_differ_between_responses_and_repeat_for_the_same_one():
    responses = ["Hello there, how can", "I think the answer", "Today is 2026-01-10", "I think the answer"]
    rewards = _rewards("genrm", responses)
    assert len(set(rewards[:3])) == 3 and rewards[1] == rewards[3]
    assert all(0.0 <= r <= 1.0 for r in rewards)
    assert _rewards("genrm", list(reversed(responses))) == list(reversed(rewards))  # not by position or order
    # The holistic dimension's score is probability-weighted between its bottom and top labels.
    scores = {r for r in rewards if r not in (0.0, 1.0)}
    assert scores, rewards


def test_mock_hash_follows_only_what_the_judge_reads():
    # searchllm's judges read the parsed parts: two unformatted responses are the same call to them.
    rewards = _rewards("searchllm", ["Hello there, how can", "I think the answer", "<plan>The user"])
    assert rewards[0] == rewards[1] != rewards[2]


def test_mock_judge_specs_name_the_expected_form():
    with pytest.raises(ValueError, match="mock-hash:<seconds per call>"):
        make_judge("mock-hash:soon")
    assert make_judge("mock-hash:0.01").latency_s == 0.01

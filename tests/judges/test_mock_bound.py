"""The scripted mock judge keeps a bounded record of its calls, so a server running `judge: mock` for hours (load
tests, soaks) does not grow with every call."""

import json

from reward.engine import Engine
from reward.judges.mock import ScriptedJudge
from reward.rubric import load_suite
from reward.schema import Item
from tests.support import EXAMPLES


def test_the_mock_judge_records_at_most_its_bound_and_keeps_the_latest_calls():
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    judge = ScriptedJudge(max_recorded_calls=100)
    engine = Engine(load_suite("searchllm"), judge)
    for batch in range(3):
        engine.score_sync([Item.model_validate({**examples[i], "id": f"b{batch}-{i}", "query": examples[i]["query"] + f" {batch}"})
                           for i in range(len(examples))])
    assert engine.stats.judge_calls_made > 300  # far more calls than the bound
    assert 50 <= len(judge.calls) <= 100
    assert judge.calls[-1][0].startswith("b2-")

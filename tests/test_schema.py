import pytest
from pydantic import ValidationError

from reward.schema import DimensionScore, Item, ScoreRequest


def test_item_accepts_numeric_evidence_ids_and_rejects_duplicates():
    item = Item(id="a", query="q", response="r", evidence=[{"id": 1, "text": "t"}, {"id": "2", "text": "u"}])
    assert [d.id for d in item.evidence] == ["1", "2"]
    with pytest.raises(ValidationError, match="duplicate evidence id '1'"):
        Item(id="a", query="q", response="r", evidence=[{"id": 1, "text": "t"}, {"id": "1", "text": "u"}])


def test_unknown_fields_and_wrong_types_name_the_field():
    with pytest.raises(ValidationError) as info:
        ScoreRequest.model_validate({"items": [{"id": "a", "query": "q", "response": 3, "colour": "red"}]})
    locations = {tuple(e["loc"]) for e in info.value.errors()}
    assert ("items", 0, "response") in locations and ("items", 0, "colour") in locations


def test_unscored_scores_carry_no_number():
    score = DimensionScore.unscored("bottom_line", "mock", "judge_timeout")
    assert score.score is None and score.status == "unscored" and score.reason == "judge_timeout"
    with pytest.raises(ValidationError):
        DimensionScore(score=1.5, layer="behavioral", backend="rule")

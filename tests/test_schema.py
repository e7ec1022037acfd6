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


def test_per_item_ceilings_name_the_field_and_the_limit():
    from reward.schema import MAX_EVIDENCE_DOCS, MAX_RESPONSE_CHARS, MAX_RESPONSE_SENTENCES

    loop = "The answer is yes. " * 60_000  # a policy stuck in a repetition loop: ~1 MB
    with pytest.raises(ValidationError) as info:
        ScoreRequest.model_validate({"items": [{"id": "a", "query": "q", "response": loop}]})
    [error] = info.value.errors()
    assert error["loc"] == ("items", 0, "response") and error["ctx"]["max_length"] == MAX_RESPONSE_CHARS
    many = "Yes. " * (MAX_RESPONSE_SENTENCES + 1)
    with pytest.raises(ValidationError, match=f"{MAX_RESPONSE_SENTENCES + 1} sentences exceed the limit"):
        Item(id="a", query="q", response=many)
    docs = [{"id": str(i), "text": "t"} for i in range(10_000)]
    with pytest.raises(ValidationError) as info:
        Item(id="a", query="q", response="r", evidence=docs)
    assert info.value.errors()[0]["loc"] == ("evidence",) and str(MAX_EVIDENCE_DOCS) in info.value.errors()[0]["msg"]
    Item(id="a", query="q", response="Fine. " * MAX_RESPONSE_SENTENCES)  # at the limit: accepted


def test_duplicate_item_ids_and_absurd_steps_are_refused():
    item = {"query": "q", "response": "r"}
    with pytest.raises(ValidationError, match="duplicate item ids: 'a', 'b'"):
        ScoreRequest.model_validate({"items": [{**item, "id": i} for i in ("a", "b", "a", "c", "b")]})
    with pytest.raises(ValidationError) as info:
        ScoreRequest.model_validate({"items": [{**item, "id": "a"}], "step": int("9" * 400)})
    assert info.value.errors()[0]["loc"] == ("step",)

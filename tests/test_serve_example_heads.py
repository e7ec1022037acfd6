"""`GET /v1/suites` and `GET /v1/suites/{name}` announce a dimension whose example-fitted head cannot separate its
examples (it is left out of every reward, like a dimension the local tier has no method for), as the scoring replica
fitted it; while no replica answers, the index says it does not know yet instead of claiming the head is fine. The
ingress and scorer classes run here without Ray."""

from __future__ import annotations

import asyncio
import json
import pickle
import shutil
from pathlib import Path

import pytest
import yaml
from starlette.requests import Request

from reward.judges.example_head import NOT_SEPARABLE
from reward.rubric import DEFAULT_RUBRIC_DIR
from reward.serve import Ingress, Scorer, ServerArgs
from tests.support import TOKEN

TONE = Path(__file__).parent / "fixtures" / "tone" / "tone.yaml"
SHUFFLED_TONE = [1.0, 0.5, 0.25, 1.0, 0.0, 0.5, 0.25, 0.75, 0.0, 0.75]  # the tone examples' scores, permuted


def get(path: str) -> Request:
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    headers = [(b"authorization", f"Bearer {TOKEN}".encode())]
    return Request({"type": "http", "method": "GET", "path": path, "headers": headers, "query_string": b""}, receive)


class Reply:
    def __init__(self, call):
        self.call = call

    def result(self, timeout_s: float):
        return self.call()


class ScorerHandle:
    """Stands in for the scorer's DeploymentHandle: `head_problems` runs on a real Scorer (the suite pickled, as Ray
    sends it), or fails like a replica that has not answered in time while `starting`."""

    def __init__(self, scorer):
        self.starting = False
        self.calls = 0
        outer = self

        class Method:
            def remote(self, suite):
                outer.calls += 1
                if outer.starting:
                    return Reply(lambda: (_ for _ in ()).throw(TimeoutError("replica still starting")))
                return Reply(lambda: asyncio.run(scorer.head_problems(pickle.loads(pickle.dumps(suite)))))

        self.head_problems = Method()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("heads") / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    shutil.copy(TONE, root / "dimensions" / "tone.yaml")
    data = yaml.safe_load(TONE.read_text())
    data["name"] = "tone_shuffled"
    for example, score in zip(data["local"]["examples"], SHUFFLED_TONE, strict=True):
        example["score"] = score
    (root / "dimensions" / "tone_shuffled.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    for suite, dimension in (("tone-good", "tone"), ("tone-shuffled", "tone_shuffled")):
        (root / "suites" / f"{suite}.yaml").write_text(
            f"name: {suite}\naggregation: linear\ndimensions: {{format: 1.0, {dimension}: 1.0}}\n")
    args = ServerArgs(suites=["tone-good", "tone-shuffled", "searchllm"], rubrics=str(root), judge="local",
                      score_log=None, token_env="REWARD_TEST_TOKEN")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REWARD_TEST_TOKEN", TOKEN)
        handle = ScorerHandle(Scorer.func_or_class(args))
        ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
        asyncio.run(ingress.__init__(handle, args))
        yield ingress, handle


def index(ingress) -> dict:
    return {s["name"]: s for s in json.loads(ingress.suites_index(get("/v1/suites")).body)["suites"]}


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_head_that_cannot_separate_its_examples_is_announced_and_one_that_can_is_not(served):
    ingress, handle = served
    handle.starting = True
    starting = index(ingress)
    # Not known while no replica answers: null, never an empty "all fine"; the known structural gaps stay listed.
    assert starting["tone-shuffled"]["examples_not_separable"] is None
    assert starting["tone-shuffled"]["structurally_unscored"] == []
    assert "examples_not_separable" not in starting["searchllm"]  # no example-fitted dimension: nothing to ask
    handle.starting = False

    suites = index(ingress)
    shuffled = suites["tone-shuffled"]
    assert shuffled["structurally_unscored"] == ["tone_shuffled"]
    assert list(shuffled["examples_not_separable"]) == ["tone_shuffled"]
    why = shuffled["examples_not_separable"]["tone_shuffled"]
    assert "cannot separate its examples" in why and NOT_SEPARABLE in why and "leave-one-out agreement" in why
    assert suites["tone-good"]["examples_not_separable"] == {} and suites["tone-good"]["structurally_unscored"] == []
    assert suites["searchllm"]["structurally_unscored"] == ["llm_knowledge"]

    detail = json.loads(ingress.suite_detail("tone-shuffled", get("/v1/suites/tone-shuffled")).body)
    assert detail["structurally_unscored"] == ["tone_shuffled"] and detail["examples_not_separable"] == {"tone_shuffled": why}
    assert [d["name"] for d in detail["dimensions"]] == ["format", "tone_shuffled"]

    calls = handle.calls
    index(ingress)  # the answer is kept per suite version: no second round trip to the scorers
    assert handle.calls == calls

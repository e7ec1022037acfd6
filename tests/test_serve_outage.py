"""A judge outage is not data: with the judge endpoint down, `/v1/score` answers 503 with `Retry-After` (never 200
with every item invalid), logs nothing as scored and counts the refusal; a trainer's client retries and gets real
scores once the judge is back. A few failed items in a batch are still answered (masked, their group's mean).

The ingress and scorer run in-process (as in tests/test_hot_reload.py) with the OpenAI-compatible judge pointed at
the scripted judge server; the client is verl's `RewardClient` over an httpx transport that hands each request to
the ingress."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from starlette.requests import Request

from reward.judges.mock_server import MockJudgeServer, MockReply, best_label
from reward.rubric import load_suite
from reward.scorelog import read_log
from reward.serve import Limits, ServerArgs
from tests.support import in_process_ingress, scripted_judge_config, FIXTURE_RUBRICS, TOKEN, free_port, make_item

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")


@pytest.fixture
def outage(tmp_path, monkeypatch):
    port = free_port()
    config = scripted_judge_config(tmp_path, port)
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge=str(config), score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", limits=Limits(retry_after_s=1))
    ingress = in_process_ingress(args)
    return ingress, port, tmp_path / "scores"


def _to_ingress(ingress, on_reply=None):
    """An httpx transport that answers each request with the in-process ingress."""

    def handle(request: httpx.Request) -> httpx.Response:
        raw = request.read()
        headers = [(k.encode(), v.encode()) for k, v in request.headers.items()]

        async def receive():
            return {"type": "http.request", "body": raw, "more_body": False}

        scope = {"type": "http", "method": "POST", "path": request.url.path, "headers": headers, "query_string": b""}
        answer = asyncio.run(ingress.score(Request(scope, receive)))
        if on_reply:
            on_reply(answer.status_code)
        return httpx.Response(answer.status_code, headers=dict(answer.headers), content=answer.body)

    return httpx.MockTransport(handle)


def _items(n=4):
    # Different answers: the engine makes one judge call for identical ones.
    return [make_item(f"r{k}", f"Skibidi streams on Spotify [Doc 1], answer {k}.", group="g").model_dump(mode="json")
            for k in range(n)]


def _refused(ingress) -> float:
    text = ingress.metrics.render().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("reward_refused_outage_total{"))


def test_judge_down_is_a_503_with_retry_after_nothing_logged_and_the_retry_succeeds_after_recovery(outage):
    from policy.verl_reward import RewardClient

    ingress, port, scores = outage
    client = RewardClient("http://reward.test", TOKEN, retries=3, backoff_s=0.05, max_backoff_s=2.0)
    statuses: list[int] = []
    judge = MockJudgeServer(load_suite("mini", FIXTURE_RUBRICS), port=port)

    def on_reply(status: int) -> None:
        statuses.append(status)
        if status == 503 and len(statuses) == 1:
            judge.start()  # the judge comes back while the client waits out Retry-After

    down = httpx.Client(transport=_to_ingress(ingress)).post(
        "http://reward.test/v1/score", json={"suite": "mini", "items": _items()}, headers={"Authorization": f"Bearer {TOKEN}"})
    assert down.status_code == 503 and down.headers["retry-after"] == "1"
    assert "judge unavailable: 4 of 4 items unscored for a judge failure (connection_error: 4)" in down.json()["error"]
    assert not list(read_log(scores)) and _refused(ingress) == 1
    try:
        client._client = httpx.Client(transport=_to_ingress(ingress, on_reply), headers=client.headers)
        results = client.score("mini", _items(), step=3, run="outage")
    finally:
        judge.stop()
    assert statuses == [503, 200] and client.retried >= 1
    assert all(r["valid"] for r in results) and all(0.0 < r["reward"] <= 1.0 for r in results)
    logged = list(read_log(scores))
    assert sorted(r.result.id for r in logged) == [f"r{k}" for k in range(4)]  # the refused try left no trace


def test_a_few_failed_items_are_answered_masked_with_their_group_mean(outage):
    ingress, port, scores = outage
    suite = load_suite("mini", FIXTURE_RUBRICS)
    top = best_label(suite)

    def script(call):  # one rollout's grounding judge keeps failing: a 503 of the judge, not of the response
        return MockReply(status=503) if call.item == "r1" and call.dimension == "grounded" else top(call)

    with MockJudgeServer(suite, script, port=port):
        transport = _to_ingress(ingress)
        answer = httpx.Client(transport=transport).post("http://reward.test/v1/score",
                                                        json={"suite": "mini", "items": _items()},
                                                        headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200
    results = answer.json()["results"]
    failed = results[1]
    assert not failed["valid"] and failed["dimensions"]["grounded"]["reason"] == "server_error"
    others = [r["reward"] for r in results if r["valid"]]
    assert len(others) == 3 and failed["reward"] == pytest.approx(sum(others) / 3)  # advantage zero, no penalty
    assert _refused(ingress) == 0 and len(list(read_log(scores))) == 4

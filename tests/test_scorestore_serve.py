"""The ingress with its score store in PostgreSQL (in-process, without Ray): while the database is down, score
requests answer 503 with `Retry-After` (before scoring when the request has an id, after scoring when it has none)
and nothing of them is logged; `/healthz` says degraded and `/readyz` 503; once the database is back the client's
retries are logged once each."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from reward.scorelog import read_log
from reward.serve import Ingress, Limits, Scorer, ServerArgs
from tests.postgres import postgres_server
from tests.support import FIXTURE_RUBRICS, TOKEN, make_item
from tests.test_hot_reload import reply, request

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")


class LocalScorer:
    """The scoring replica called in-process, as a DeploymentHandle would."""

    def __init__(self, scorer):
        self.scorer = scorer

        class _Method:
            @staticmethod
            async def remote(suite, payload):
                return await scorer.score(suite, payload)

        self.score = _Method()


def _items(prefix: str, n: int = 2) -> list[dict]:
    return [make_item(f"{prefix}{k}", "Skibidi streams on Spotify [1].", group="g").model_dump(mode="json")
            for k in range(n)]


def test_a_database_outage_answers_503_with_retry_after_and_the_retries_are_logged_once(tmp_path, monkeypatch):
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    with postgres_server() as server:
        args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=str(tmp_path / "scores"),
                          score_store=server.create_database(), token_env="REWARD_TEST_TOKEN",
                          limits=Limits(retry_after_s=3))
        ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
        asyncio.run(ingress.__init__(LocalScorer(Scorer.func_or_class(args)), args))

        def score(body: dict):
            return asyncio.run(ingress.score(request("POST", "/v1/score", {"suite": "mini", "run": "r", **body})))

        assert score({"items": _items("a"), "step": 1, "request_id": "a"}).status_code == 200
        server.stop()
        for body in ({"items": _items("b"), "step": 2, "request_id": "b"}, {"items": _items("c"), "step": 3}):
            down = score(body)
            assert down.status_code == 503 and down.headers["retry-after"] == "3"
            assert reply(down)["error"].startswith("score log unavailable: ")
        assert ingress.healthz()["status"] == "degraded"
        assert ingress.readyz(request("GET", "/readyz")).status_code == 503
        server.start()
        for body in ({"items": _items("b"), "step": 2, "request_id": "b"}, {"items": _items("c"), "step": 3},
                     {"items": _items("b"), "step": 2, "request_id": "b"}):  # the retries, one of them twice
            answer = score(body)
            assert answer.status_code == 200, reply(answer)
        assert ingress.healthz()["status"] == "ok"
        ingress.log.close()
    assert Counter(r.result.id for r in read_log(tmp_path / "scores")) == Counter(
        {f"{p}{k}": 1 for p in "abc" for k in range(2)})

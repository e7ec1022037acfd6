"""Ready means warm: `/healthz` answers 503 `starting` until a scoring replica has loaded its judge's models and scored
the warm-up item, and a scorer's `ready()` returns only once that is done. In-process, as in tests/test_hot_reload.py.
(`reward serve` and the session's Ray server in tests/conftest.py wait on `/healthz`, so every HTTP test also starts
through this path.)"""

from __future__ import annotations

import asyncio
import json

import pytest

from reward.serve import Ingress, Scorer, ServerArgs
from reward.serve.readiness import WARM_UP_ITEM
from tests.support import FIXTURE_RUBRICS

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")


def test_a_scorer_is_ready_only_after_scoring_the_warm_up_item(monkeypatch):
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=None)
    scorer = Scorer.func_or_class(args)
    scored: list[str] = []
    engine = scorer.engines["mini"]
    original = engine.score

    async def score(items):
        await asyncio.sleep(0.05)  # a model load takes a while
        scored.extend(i.id for i in items)
        return await original(items)

    monkeypatch.setattr(engine, "score", score)

    async def run():
        return await asyncio.gather(scorer.ready(), scorer.ready())

    assert asyncio.run(run()) == [True, True]
    assert scored == [WARM_UP_ITEM.id]  # warmed once, however many probes asked


def test_healthz_says_starting_until_a_scorer_is_warm(monkeypatch):
    monkeypatch.delenv("REWARD_READY_TEST_TOKEN", raising=False)
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=None,
                      token_env="REWARD_READY_TEST_TOKEN")
    answers = [TimeoutError("still loading"), True]
    asked: list[float] = []

    class Handle:
        class ready:
            @staticmethod
            def remote():
                class Response:
                    @staticmethod
                    def result(timeout_s):
                        asked.append(timeout_s)
                        answer = answers.pop(0)
                        if isinstance(answer, Exception):
                            raise answer
                        return answer

                return Response()

    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(Handle(), args))
    starting = ingress.healthz()
    assert starting.status_code == 503 and json.loads(starting.body)["status"] == "starting"
    assert starting.headers["retry-after"] == "2"
    assert ingress.healthz()["status"] == "ok"
    assert ingress.healthz()["status"] == "ok" and len(asked) == 2  # once warm, no more asking

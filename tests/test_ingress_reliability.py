"""The ingress under an unlucky operator and a careless client, without Ray: request ids scoped by run and bound to
their content, a truncated or broken rubric refused and reported everywhere, admission by bytes in flight, drain on
shutdown and the small edge inputs. The ingress and scorer classes run in-process (as in tests/test_hot_reload.py)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import Counter

import pytest

from reward.scorelog import batch_digest, read_log
from reward.schema import Item
from reward.serve import Ingress, Scorer, ServerArgs
from tests.support import FIXTURE_RUBRICS, TOKEN, make_item
from tests.test_hot_reload import GatedHandle, reply, request

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")


@pytest.fixture
def app(tmp_path, monkeypatch):
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, rubrics)
    (rubrics / "suites" / "mini-linear.yaml").unlink()
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(suites=["mini"], rubrics=str(rubrics), judge="mock", score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", rubric_poll_s=0.01)
    handle = GatedHandle(Scorer.func_or_class(args))
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(handle, args))
    return ingress, handle, rubrics, tmp_path / "scores"


def items(prefix: str, n: int = 2) -> list[dict]:
    return [make_item(f"{prefix}{k}", "Skibidi streams on Spotify [1].", group="g").model_dump(mode="json")
            for k in range(n)]


def score(ingress, body: dict):
    return asyncio.run(ingress.score(request("POST", "/v1/score", {"suite": "mini", **body})))


def test_request_ids_are_scoped_by_run_and_a_reused_id_with_other_content_is_a_409_naming_both(app):
    ingress, _, _, scores = app
    a, b = items("a"), items("b")
    assert score(ingress, {"items": a, "run": "A", "step": 5, "request_id": "step-5"}).status_code == 200
    # Another trainer's run with the same per-step id: logged, not mistaken for a replay.
    assert score(ingress, {"items": b, "run": "B", "step": 5, "request_id": "step-5"}).status_code == 200
    for other in (b, a + items("c", 1)):  # other items, and a superset of the logged batch
        conflict = score(ingress, {"items": other, "run": "A", "step": 5, "request_id": "step-5"})
        assert conflict.status_code == 409
        detail = reply(conflict)
        digest = batch_digest([Item.model_validate(i) for i in other], suite="mini", step=5)
        logged = batch_digest([Item.model_validate(i) for i in a], suite="mini", step=5)
        assert detail["logged_digest"] == logged and detail["digest"] == digest
        assert logged in detail["error"] and digest in detail["error"] and "'step-5'" in detail["error"]
    replay = score(ingress, {"items": a, "run": "A", "step": 5, "request_id": "step-5"})
    assert replay.status_code == 200 and len(reply(replay)["results"]) == 2
    assert Counter((r.run, r.result.id) for r in read_log(scores)) == Counter(
        {("A", "a0"): 1, ("A", "a1"): 1, ("B", "b0"): 1, ("B", "b1"): 1})

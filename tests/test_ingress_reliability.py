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
from tests.support import FIXTURE_RUBRICS, TOKEN, make_item, mini_app_args
from tests.test_hot_reload import GatedHandle, reply, request

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")


@pytest.fixture
def app(tmp_path, monkeypatch):
    args = mini_app_args(tmp_path, monkeypatch, rubric_poll_s=0.01)
    rubrics = tmp_path / "rubrics"
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


def _ingress(args: ServerArgs, handle=None):
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(handle, args))
    return ingress


def _refused_count(ingress) -> float:
    text = ingress.metrics.render().decode()
    return float(next(line.split()[-1] for line in text.splitlines()
                      if line.startswith("reward_rubric_reloads_refused_total")))


def _write(path, text: str) -> None:
    import os
    import time

    path.write_text(text)
    future = time.time() + 5  # a new mtime even on coarse file-system clocks
    os.utime(path, (future, future))


def test_a_suite_file_read_half_written_is_refused_and_reported_until_confirmed(tmp_path, monkeypatch):
    """Prefixes of searchllm.yaml that pass lint on their own (a file caught mid-write) must not be served: the
    reload is refused, counted, and /healthz says the rubrics are stale; `allow_shrink` confirms a real shrink."""
    from tests.support import ROOT

    rubrics = tmp_path / "rubrics"
    shutil.copytree(ROOT / "rubrics", rubrics)
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    ingress = _ingress(ServerArgs(suites=["searchllm"], rubrics=str(rubrics), judge="mock", score_log=None,
                                  token_env="REWARD_TEST_TOKEN", rubric_poll_s=0))
    running = ingress.suites["searchllm"]
    suite = rubrics / "suites" / "searchllm.yaml"
    full = suite.read_text()
    lines = full.splitlines(keepends=True)
    for count in (26, 31, 35):
        _write(suite, "".join(lines[:count]))
        outcome = ingress.reload_rubrics()
        assert not outcome["reloaded"] and ingress.suites["searchllm"] is running
        assert any("dimensions where 20 are serving" in e for e in outcome["errors"])
        health = ingress.healthz()
        assert health["status"] == "ok" and health["rubrics"] == "stale"
        assert "missing" in health["rubrics_reason"] and "redundant_repetition" in health["rubrics_reason"]
    assert _refused_count(ingress) == 3
    denied = ingress.admin_reload(request("POST", "/v1/admin/reload"))
    assert denied.status_code == 422 and ingress.suites["searchllm"] is running
    _write(suite, full)
    assert ingress.reload_rubrics()["reloaded"] and "rubrics" not in ingress.healthz()
    # A real change that drops a dimension is applied only when confirmed.
    _write(suite, full.replace("  redundant_repetition: 1.0\n", ""))
    assert not ingress.reload_rubrics()["reloaded"]
    confirm = request("POST", "/v1/admin/reload")
    confirm.scope["query_string"] = b"allow_shrink=true"
    accepted = ingress.admin_reload(confirm)
    assert accepted.status_code == 200, accepted.body
    assert len(ingress.suites["searchllm"].dimensions) == 19 and "rubrics" not in ingress.healthz()


def test_a_refused_reload_is_flagged_in_every_reply_and_a_file_changing_while_read_is_read_again(app, monkeypatch):
    ingress, _, rubrics, _ = app
    before = ingress.suites["mini"].version
    useful = rubrics / "dimensions" / "useful.yaml"
    good = useful.read_text()
    _write(useful, good + "scale: [\n")  # broken YAML, picked up by the watch on the next request
    ingress.rubric_checked -= 1  # the poll interval has passed (on a fast machine 10 ms may not have)
    first = score(ingress, {"items": items("x")})
    body = reply(first)
    assert first.status_code == 200 and body["suite_version"] == before
    assert "useful.yaml" in body["rubric_warning"] and "invalid YAML" in body["rubric_warning"]
    assert "useful.yaml" in ingress.healthz()["rubrics_reason"] and _refused_count(ingress) == 1
    assert "useful.yaml" in reply(score(ingress, {"items": items("y")}))["rubric_warning"]  # every reply
    # A writer still busy with a file while it is read: neither served nor refused, read again next time.
    scope = type(ingress).reload_rubrics.__globals__  # Serve's ingress wrapper gives the class its own globals
    real_lint = scope["lint_report"]

    def lint_while_written(root):
        report = real_lint(root)
        _write(useful, good.replace("useful", "useful", 1) + "# still being written\n")
        return report

    monkeypatch.setitem(scope, "lint_report", lint_while_written)
    outcome = ingress.reload_rubrics()
    assert outcome == {**outcome, "reloaded": False, "retry": True, "errors": []}
    assert _refused_count(ingress) == 1 and ingress.suites["mini"].version == before
    monkeypatch.setitem(scope, "lint_report", real_lint)
    assert ingress.reload_rubrics()["reloaded"]
    after = reply(score(ingress, {"items": items("z")}))
    assert "rubric_warning" not in after and "rubrics" not in ingress.healthz()


def test_draining_refuses_new_requests_with_503_and_lets_the_one_in_flight_finish_and_log(app):
    ingress, handle, _, scores = app

    async def scenario():
        handle.gate.clear()
        in_flight = asyncio.create_task(ingress.score(request("POST", "/v1/score", {"suite": "mini", "items": items("f")})))
        while not handle.seen:
            await asyncio.sleep(0.01)
        status = ingress.begin_drain()
        refused = await ingress.score(request("POST", "/v1/score", {"suite": "mini", "items": items("n")}))
        ready = ingress.readyz(request("GET", "/readyz"))
        handle.gate.set()
        finished = await in_flight
        return status, refused, ready, finished, ingress.begin_drain()

    status, refused, ready, finished, after = asyncio.run(scenario())
    assert status["requests_in_flight"] == 1 and after["requests_in_flight"] == 0
    assert refused.status_code == 503 and refused.headers["retry-after"] == "2" and "shutting down" in reply(refused)["error"]
    assert ready.status_code == 503 and ingress.healthz()["draining"] is True
    assert finished.status_code == 200 and len(reply(finished)["results"]) == 2
    assert sorted(r.result.id for r in read_log(scores)) == ["f0", "f1"]


def test_edge_inputs_are_refused_naming_the_field_not_stored_or_merged(app):
    ingress, _, _, scores = app
    one = items("e", 1)
    samples = ingress.dashboard_samples(request("GET", "/dashboard/samples"), run="r", step=9223372036854775808)
    assert samples.status_code == 422 and reply(samples)["detail"][0]["field"] == "step"
    assert ingress.dashboard_samples(request("GET", "/dashboard/samples"), run="r", step=-1).status_code == 422
    for body, field in (({"run": ""}, "run"), ({"run": "   "}, "run"), ({"run": "searchllm (no step)"}, "run"),
                        ({"run": "mini (no step)"}, "run"), ({"step": True}, "step"), ({"step": 5.0}, "step"),
                        ({"step": 10**9 + 1}, "step")):
        refused = score(ingress, {"items": one, **body})
        assert refused.status_code == 422, (body, refused.body)
        assert reply(refused)["detail"][0]["field"] == field, (body, reply(refused))
    assert not list(read_log(scores))
    assert score(ingress, {"items": one, "run": "no step", "step": 3}).status_code == 200  # an ordinary name


def test_scoring_replicas_gone_past_the_retries_answer_503_with_retry_after(tmp_path, monkeypatch):
    from ray.exceptions import ActorDiedError

    from reward.serve import Limits

    class DeadScorers:
        class score:
            @staticmethod
            async def remote(suite, payload):
                raise ActorDiedError()

    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", limits=Limits(chunk_retries=0))
    ingress = _ingress(args, DeadScorers())
    answer = score(ingress, {"items": items("d")})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "2"
    assert "scoring replicas unavailable" in reply(answer)["error"]
    assert not list(read_log(tmp_path / "scores"))


def test_bodies_are_admitted_by_bytes_in_flight_before_they_are_read(tmp_path, monkeypatch):
    """A body whose declared length would pass `max_bytes_in_flight` is refused with 503 before it is read or
    parsed; a chunked one as soon as its bytes pass it; the bound frees when the request in flight is answered."""
    from reward.serve import Limits

    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, rubrics)
    args = ServerArgs(suites=["mini"], rubrics=str(rubrics), judge="mock", score_log=None, token_env="REWARD_TEST_TOKEN",
                      limits=Limits(max_bytes=9_000, max_bytes_in_flight=12_000))
    handle = GatedHandle(Scorer.func_or_class(args))
    ingress = _ingress(args, handle)
    body = {"suite": "mini", "items": items("b", 10)}
    size = len(json.dumps(body))
    assert 6_000 < size < 9_000  # each fits max_bytes, two do not fit in flight at once
    read: list[int] = []

    def chunked(payload: dict, pieces: int = 8):
        raw = json.dumps(payload).encode()
        step = len(raw) // pieces + 1
        parts = [raw[k:k + step] for k in range(0, len(raw), step)]

        async def receive():
            read.append(1)
            part = parts.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(parts)}

        from starlette.requests import Request as StarletteRequest

        headers = [(b"content-type", b"application/json"), (b"authorization", f"Bearer {TOKEN}".encode())]
        return StarletteRequest({"type": "http", "method": "POST", "path": "/v1/score", "headers": headers,
                                 "query_string": b""}, receive)

    async def scenario():
        handle.gate.clear()
        first = asyncio.create_task(ingress.score(request("POST", "/v1/score", body)))
        while not handle.seen:
            await asyncio.sleep(0.01)
        held = ingress.bytes_in_flight
        declared = await ingress.score(request("POST", "/v1/score", body))
        streamed = await ingress.score(chunked(body))
        handle.gate.set()
        return held, declared, streamed, await first, await ingress.score(chunked(body))

    held, declared, streamed, first, later = asyncio.run(scenario())
    assert held == size
    for refused in (declared, streamed):
        assert refused.status_code == 503 and refused.headers["retry-after"] == "2"
        assert "limit max_bytes_in_flight" in reply(refused)["error"]
    assert first.status_code == 200 and later.status_code == 200 and ingress.bytes_in_flight == 0
    assert len(read) < 8 + 8  # the refused chunked body was not read to its end
    with pytest.raises(ValueError, match="max_bytes_in_flight"):
        Limits(max_bytes=2_000_000, max_bytes_in_flight=1_000_000)


class ScorerHandle:
    """Stands in for the scorer's DeploymentHandle: both methods of a real Scorer, each call recorded."""

    def __init__(self, scorer):
        self.calls: list[tuple[str, int]] = []
        outer = self

        def method(name):
            class Method:
                async def remote(self, suite, payload):
                    outer.calls.append((name, len(payload)))
                    await asyncio.sleep(0.01)
                    return await getattr(scorer, name)(suite, payload)

            return Method()

        self.score, self.score_vectors = method("score"), method("score_vectors")


def test_a_group_larger_than_a_chunk_is_split_across_scorers_and_finished_with_its_whole_group(tmp_path, monkeypatch):
    from reward.serve import Limits

    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    group = [make_item(f"g{k}", "Skibidi streams on Spotify [1]." if k % 2 else "Not sure.", group="big")
             .model_dump(mode="json") for k in range(12)] + items("s", 2)
    replies = {}
    for chunk in (64, 5):
        args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=None,
                          token_env="REWARD_TEST_TOKEN", limits=Limits(chunk_items=chunk))
        handle = ScorerHandle(Scorer.func_or_class(args))
        answer = score(_ingress(args, handle), {"items": group})
        assert answer.status_code == 200
        replies[chunk] = (reply(answer)["results"], handle.calls)
    (whole, whole_calls), (split, split_calls) = replies[64], replies[5]
    assert whole_calls == [("score", 14)]
    assert sorted(split_calls) == [("score_vectors", 4), ("score_vectors", 5), ("score_vectors", 5)]
    assert split == whole  # the same rewards, dimensions and explanations as one chunk holding the group


def test_the_chunk_slots_go_to_a_small_request_before_the_rest_of_a_large_one():
    from reward.serve.chunks import FairShare

    async def scenario():
        share, started = FairShare(2), []

        async def chunk(name):
            started.append(name)
            await asyncio.sleep(0.02)

        large = [asyncio.create_task(share.run("large", lambda n=n: chunk(f"large-{n}"))) for n in range(6)]
        await asyncio.sleep(0.005)  # the large request holds both slots, four chunks queued
        small = asyncio.create_task(share.run("small", lambda: chunk("small")))
        await asyncio.gather(*large, small)
        return started, share.busy

    started, busy = asyncio.run(scenario())
    assert started[:3] == ["large-0", "large-1", "small"] and busy == 0
    assert sorted(started) == sorted([f"large-{n}" for n in range(6)] + ["small"])

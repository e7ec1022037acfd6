"""`bulk_ingress`: large score requests are parsed, validated, scored, logged and answered by a replica of their own
(`BulkIngress`), and the ingress only passes their bytes on, so a small request never waits for the ingress's
interpreter behind a large one's work. The first tests run the two replica classes without Ray (the calls between
them pickled, as Ray would); the last deploys the real app."""

from __future__ import annotations

import asyncio
import json
import pickle
from collections import Counter

import httpx
import pytest

from reward.scorelog import read_log
from reward.scorelog.segments import CONTEXT_PREFIX
from reward.serve import Ingress, Scorer
from reward.serve.app import IngressReplica
from reward.serve.chunks import LARGE_BODY_BYTES
from tests.support import AUTH, make_item, mini_app_args
from tests.test_hot_reload import request


class Done:
    def __init__(self, value):
        self.value = value

    def result(self, timeout_s=None):
        return self.value


class ScorerHandle:
    def __init__(self, scorer):
        class Method:
            async def remote(self, suite, items):
                return await scorer.score(pickle.loads(pickle.dumps(suite)), items)

        self.score = Method()


class BulkHandle:
    """Stands in for the bulk replica's DeploymentHandle: its calls' arguments and replies cross a pickle."""

    def __init__(self, replica: IngressReplica):
        self.calls = 0
        self.sent_suites: list[bool] = []
        outer = self

        class Score:
            async def remote(self, *args):
                outer.calls += 1
                outer.sent_suites.append(args[2] is not None)
                return pickle.loads(pickle.dumps(await replica.score_body(*pickle.loads(pickle.dumps(args)))))

        class Metrics:
            def remote(self):
                return Done(replica.metrics_text())

        self.score_body, self.metrics_text = Score(), Metrics()


@pytest.fixture
def pair(tmp_path, monkeypatch):
    args = mini_app_args(tmp_path, monkeypatch, rubric_poll_s=0, bulk_ingress=True)
    rubrics = tmp_path / "rubrics"
    scorer = ScorerHandle(Scorer.func_or_class(args))
    bulk = IngressReplica(scorer, args, None, None, "bulk")
    handle = BulkHandle(bulk)
    front = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(front.__init__(scorer, args, None, handle))
    return front, bulk, handle, rubrics, tmp_path / "scores"


def batch(n: int, tag: str, **extra) -> dict:
    # Long answers, so a few hundred items pass the large-body threshold.
    answer = "Skibidi streams on Spotify [1]. " + "It is free with ads on the basic plan. " * 8
    items = [make_item(f"{tag}{k}", answer, group=f"{tag}g{k // 4}") for k in range(n)]
    return {"suite": "mini", "items": [item.model_dump(mode="json") for item in items], **extra}


def ids_by_segment(log_dir) -> dict[str, set[str]]:
    """The item ids each score-log segment holds (context lines left out)."""
    return {path.name: {json.loads(line)["result"]["id"] for line in path.read_text().splitlines()
                        if line.strip() and not line.startswith(CONTEXT_PREFIX)}
            for path in log_dir.glob("scores-*.jsonl")}


def post(front, payload: dict):
    reply = asyncio.run(front.score(request("POST", "/v1/score", payload)))
    return reply.status_code, json.loads(bytes(reply.body))


def test_large_requests_are_scored_and_logged_by_the_bulk_replica_and_small_ones_by_the_ingress(pair):
    front, bulk, handle, _, log_dir = pair
    large = batch(300, "L", run="r", step=1, request_id="big-1")
    assert len(json.dumps(large)) > LARGE_BODY_BYTES
    status, reply = post(front, large)
    # The first call names the suites' versions only; the bulk replica asks for them once, and keeps them.
    assert status == 200 and handle.sent_suites == [False, True], reply
    assert [r["id"] for r in reply["results"]] == [i["id"] for i in large["items"]]
    status, small = post(front, batch(2, "S", run="r", step=1))
    assert status == 200 and handle.calls == 2  # the small one stayed
    # The same items scored by the ingress itself give the same scores: the bulk replica is the same code.
    direct = IngressReplica(front.scorer, front.args.model_copy(update={"score_log": None}))
    status, alone = post(direct, batch(300, "L", run="r", step=1))
    assert status == 200 and [r["reward"] for r in alone["results"]] == [r["reward"] for r in reply["results"]]

    # A retry of the large batch (same request id) is answered again and logged once; the bulk replica wrote it.
    status, again = post(front, large)
    assert status == 200 and handle.sent_suites == [False, True, False] and again["results"] == reply["results"]
    logged = Counter(r.result.id for r in read_log(log_dir) if r.run == "r")
    assert len(logged) == 302 and set(logged.values()) == {1}
    writers = {name: {i[0] for i in ids} for name, ids in ids_by_segment(log_dir).items()}
    assert any(bulk.log.writer in name and ids == {"L"} for name, ids in writers.items()), writers
    assert not any(bulk.log.writer in name and "S" in ids for name, ids in writers.items()), writers

    # The ingress's /metrics counts the items the bulk replica scored.
    text = bytes(type(front).metrics(front, request("GET", "/metrics")).body).decode()  # the route, not the attribute
    counted = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith("reward_items_total"))
    assert counted == 302 + 300, [line for line in text.splitlines() if line.startswith("reward_items")]


def test_a_bad_large_body_gets_the_same_4xx_from_the_bulk_replica(pair):
    front, _, handle, _, _ = pair
    payload = batch(300, "B")
    payload["items"][7].pop("query")
    status, reply = post(front, payload)
    assert status == 422 and handle.calls == 2 and reply["detail"][0]["field"] == "items.7.query", reply
    payload = batch(300, "C", request_id="not an id!")
    status, reply = post(front, payload)
    assert status == 422 and any(d["field"] == "request_id" for d in reply["detail"]), reply


def test_the_bulk_replica_scores_with_the_suites_and_warning_the_ingress_serves(pair):
    """The bulk replica reads no rubric file: each request brings the ingress's suites, so a reload (or a refused
    one, or a tree broken on disk) changes the large requests' version and warning exactly as the small ones'."""
    front, bulk, _, rubrics, _ = pair
    before = front.suites["mini"].version
    status, reply = post(front, batch(300, "V"))
    assert status == 200 and reply["suite_version"] == before and bulk.suites == {}
    suite = rubrics / "suites" / "mini.yaml"
    suite.write_text(suite.read_text().replace("useful: 3", "useful: 5"))
    assert front.reload_rubrics()["reloaded"]
    after = front.suites["mini"].version
    status, reply = post(front, batch(300, "W"))
    assert status == 200 and after != before and reply["suite_version"] == after

    # A shrunken suite the ingress refuses: the large request is scored with the version the ingress keeps, with its
    # warning, although the file on disk (which a restarted bulk replica would see) now has fewer dimensions.
    suite.write_text(suite.read_text().replace("useful: 5", ""))
    assert not front.reload_rubrics()["reloaded"]
    restarted = IngressReplica(front.scorer, front.args, None, None, "bulk")  # starts, whatever the tree holds
    front.bulk = BulkHandle(restarted)
    status, reply = post(front, batch(300, "X"))
    assert status == 200 and reply["suite_version"] == after
    assert reply["rubric_warning"].startswith("rubric reload refused"), reply.get("rubric_warning")
    assert set(reply["results"][0]["dimensions"]) == set(front.suites["mini"].dimensions)


def test_the_bulk_replica_bounds_its_own_bytes_and_its_answers_keep_their_headers(pair):
    front, bulk, _, _, _ = pair
    bulk.bytes_in_flight = bulk.limits.max_bytes_in_flight  # as if it held other bodies up to its bound
    status, reply = post(front, batch(300, "Y"))
    assert status == 503 and "max_bytes_in_flight" in reply["error"]
    bulk.bytes_in_flight = 0
    front.limits = front.limits.model_copy(update={"max_items": 200})  # limits travel with the request
    raw = asyncio.run(front.score(request("POST", "/v1/score", batch(300, "Z"))))
    assert raw.status_code == 413 and bulk.limits.max_items == 200


def test_a_score_log_problem_on_the_bulk_replica_reaches_the_ingress_and_a_written_batch_clears_it(pair):
    front, bulk, _, _, _ = pair
    bulk.log_problem = "disk full (test)"
    bulk.log.probe = lambda: "disk full (test)"
    status, reply = post(front, batch(300, "P", run="p"))
    assert status == 503 and "disk full" in reply["error"] and front.log_problem == "disk full (test)"
    assert type(front).readyz(front, request("GET", "/readyz")).status_code == 503
    bulk.log.probe = lambda: None  # the disk is back: the bulk replica's next batch is written
    status, _ = post(front, batch(300, "Q", run="p"))
    assert status == 200 and bulk.log_problem is None and front.log_problem is None


@pytest.mark.parametrize("failure, status", [("task", 500), ("actor", 503)])
def test_a_failed_bulk_replica_is_a_500_for_its_own_bug_and_a_503_when_it_is_gone(pair, failure, status):
    from ray.exceptions import RayActorError, RayTaskError

    front, _, _, _, _ = pair

    class Failing:
        async def remote(self, *args):
            if failure == "task":
                raise RayTaskError("score_body", "Traceback ...", ValueError("bug"))
            raise RayActorError()

    front.bulk = type("Handle", (), {"score_body": Failing()})()
    code, reply = post(front, batch(300, "F"))
    assert code == status and "bulk ingress" in reply["error"], reply
    assert code == 500 or reply["error"].endswith("retry later")


@pytest.fixture
def bulk_server(server, tmp_path):
    """The session's Serve instance and port with the app redeployed with `bulk_ingress` (one Serve per Ray
    session, so a second port would never listen); the session's own app is back afterwards."""
    from reward.serve.runner import start_server, stop_server

    args = server["args"].model_copy(update={"score_log": str(tmp_path / "bulk-scores"), "bulk_ingress": True,
                                             "express_scorers": 1, "scorer_nice": 5,
                                             "limits": server["args"].limits.model_copy(update={
                                                 "max_items": 400, "max_items_in_flight": 400,
                                                 "max_bytes": 4_000_000})})
    stop_server()
    try:
        yield {"url": start_server(args, port=server["port"], num_cpus=2), "log": tmp_path / "bulk-scores"}
    finally:
        stop_server()
        start_server(server["args"], port=server["port"], num_cpus=2)


def test_the_app_deploys_a_bulk_replica_in_a_process_of_its_own(bulk_server):
    """Two ingress deployments in one app (Serve allows one FastAPI ingress: the bulk one has no routes); the large
    batch is logged by another process than the small one."""
    from tests.support import EXAMPLES

    url = bulk_server["url"]
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    large = [{**examples[k % len(examples)], "id": f"L{k}", "group": f"g{k // 8}"} for k in range(256)]
    assert len(json.dumps({"items": large})) > LARGE_BODY_BYTES
    with httpx.Client(timeout=300, headers=AUTH) as client:
        big = client.post(f"{url}/v1/score", json={"items": large, "run": "bulk", "step": 0, "request_id": "b-1"})
        small = client.post(f"{url}/v1/score", json={"items": [{**examples[0], "id": "S0"}], "run": "bulk", "step": 0})
        assert big.status_code == 200 and len(big.json()["results"]) == 256, big.text[:300]
        assert small.status_code == 200, small.text[:300]
        metrics = client.get(f"{url}/metrics").text
        denied = httpx.post(f"{url}/v1/score", json={"items": large, "run": "bulk"}, timeout=60)  # no token
        assert denied.status_code == 401
    pids = {}  # segments are named scores-<time>-<pid>-<uuid>-<n>.jsonl
    for name, ids in ids_by_segment(bulk_server["log"]).items():
        for i in ids:
            pids.setdefault(i[0], set()).add(name.split("-")[2])
    assert len(pids["L"]) == 1 and len(pids["S"]) == 1 and pids["L"] != pids["S"], pids
    logged = Counter(r.result.id for r in read_log(bulk_server["log"]) if r.run == "bulk")
    assert len(logged) == 257 and set(logged.values()) == {1}
    counted = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines() if line.startswith("reward_items_total"))
    assert counted == 257

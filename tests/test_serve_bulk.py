"""`bulk_ingress`: large score requests are parsed, validated, scored, logged and answered by a replica of their own
(`BulkIngress`), and the ingress only passes their bytes on, so a small request never waits for the ingress's
interpreter behind a large one's work. The first tests run the two replica classes without Ray (the calls between
them pickled, as Ray would); the last deploys the real app."""

from __future__ import annotations

import asyncio
import json
import pickle
import shutil
from collections import Counter

import httpx
import pytest

from reward.scorelog import read_log
from reward.scorelog.segments import CONTEXT_PREFIX
from reward.serve import Ingress, Scorer, ServerArgs
from reward.serve.app import IngressReplica
from reward.serve.chunks import LARGE_BODY_BYTES
from tests.support import FIXTURE_RUBRICS, TOKEN, make_item
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
        outer = self

        class Score:
            async def remote(self, *args):
                outer.calls += 1
                return pickle.loads(pickle.dumps(await replica.score_body(*pickle.loads(pickle.dumps(args)))))

        class Metrics:
            def remote(self):
                return Done(replica.metrics_text())

        self.score_body, self.metrics_text = Score(), Metrics()


@pytest.fixture
def pair(tmp_path, monkeypatch):
    rubrics = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, rubrics)
    (rubrics / "suites" / "mini-linear.yaml").unlink()
    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(suites=["mini"], rubrics=str(rubrics), judge="mock", score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", rubric_poll_s=0, bulk_ingress=True)
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
    assert status == 200 and handle.calls == 1, reply
    assert [r["id"] for r in reply["results"]] == [i["id"] for i in large["items"]]
    status, small = post(front, batch(2, "S", run="r", step=1))
    assert status == 200 and handle.calls == 1  # the small one stayed
    # The same items scored by the ingress itself give the same scores: the bulk replica is the same code.
    direct = IngressReplica(front.scorer, front.args.model_copy(update={"score_log": None}))
    status, alone = post(direct, batch(300, "L", run="r", step=1))
    assert status == 200 and [r["reward"] for r in alone["results"]] == [r["reward"] for r in reply["results"]]

    # A retry of the large batch (same request id) is answered again and logged once; the bulk replica wrote it.
    status, again = post(front, large)
    assert status == 200 and handle.calls == 2 and again["results"] == reply["results"]
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
    assert status == 422 and handle.calls == 1 and reply["detail"][0]["field"] == "items.7.query", reply
    payload = batch(300, "C", request_id="not an id!")
    status, reply = post(front, payload)
    assert status == 422 and any(d["field"] == "request_id" for d in reply["detail"]), reply


def test_the_bulk_replica_scores_with_the_rubric_version_the_ingress_serves(pair):
    front, bulk, _, rubrics, _ = pair
    before = front.suites["mini"].version
    status, reply = post(front, batch(300, "V"))
    assert status == 200 and reply["suite_version"] == before
    suite = rubrics / "suites" / "mini.yaml"
    suite.write_text(suite.read_text().replace("useful: 3", "useful: 5"))
    assert front.reload_rubrics()["reloaded"]
    after = front.suites["mini"].version
    assert after != before and bulk.suites["mini"].version == before  # the bulk replica has not heard yet
    status, reply = post(front, batch(300, "W"))
    assert status == 200 and reply["suite_version"] == after and bulk.suites["mini"].version == after

    # A refused reload: the ingress keeps serving `after` with a warning, and so does the bulk replica's reply.
    suite.write_text(suite.read_text() + "\n  bogus: [\n")
    assert not front.reload_rubrics()["reloaded"]
    status, reply = post(front, batch(300, "X"))
    assert status == 200 and reply["suite_version"] == after
    assert reply["rubric_warning"].startswith("rubric reload refused"), reply.get("rubric_warning")


@pytest.fixture(scope="module")
def bulk_server(tmp_path_factory):
    from reward.serve.runner import start_server, stop_server
    from tests.support import free_port

    log_dir = tmp_path_factory.mktemp("bulk-scores")
    args = ServerArgs(judge="mock", score_log=str(log_dir), bulk_ingress=True, express_scorers=1, scorer_nice=5)
    try:
        yield {"url": start_server(args, port=free_port(), num_cpus=2), "log": log_dir}
    finally:
        stop_server()


def test_the_app_deploys_a_bulk_replica_in_a_process_of_its_own(bulk_server):
    """Two ingress deployments in one app (Serve allows one FastAPI ingress: the bulk one has no routes); the large
    batch is logged by another process than the small one."""
    from tests.support import EXAMPLES

    url = bulk_server["url"]
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    large = [{**examples[k % len(examples)], "id": f"L{k}", "group": f"g{k // 8}"} for k in range(256)]
    assert len(json.dumps({"items": large})) > LARGE_BODY_BYTES
    with httpx.Client(timeout=300) as client:
        big = client.post(f"{url}/v1/score", json={"items": large, "run": "bulk", "step": 0, "request_id": "b-1"})
        small = client.post(f"{url}/v1/score", json={"items": [{**examples[0], "id": "S0"}], "run": "bulk", "step": 0})
        assert big.status_code == 200 and len(big.json()["results"]) == 256, big.text[:300]
        assert small.status_code == 200, small.text[:300]
        metrics = client.get(f"{url}/metrics").text
    pids = {}  # segments are named scores-<time>-<pid>-<uuid>-<n>.jsonl
    for name, ids in ids_by_segment(bulk_server["log"]).items():
        for i in ids:
            pids.setdefault(i[0], set()).add(name.split("-")[2])
    assert len(pids["L"]) == 1 and len(pids["S"]) == 1 and pids["L"] != pids["S"], pids
    logged = Counter(r.result.id for r in read_log(bulk_server["log"]) if r.run == "bulk")
    assert len(logged) == 257 and set(logged.values()) == {1}
    counted = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines() if line.startswith("reward_items_total"))
    assert counted == 257

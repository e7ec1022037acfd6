"""Failures are data: judge faults injected at random over real HTTP, and fuzzed bad input against the real server.

Every accepted item gets a result; an unscored dimension has no number and a reason; `valid` is false exactly
when a judge call failed; a dimension whose reply the response may have provoked fails as 0; an invalid item carries
at most its group's mean reward; the score log has every
item exactly once. Bad input of any shape is a 4xx with a message, never a 500, and the server keeps serving.
"""

import json
import random
import time
from collections import Counter

import httpx
import pytest

from reward.schema import reason_kind
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reward.engine import Engine
from reward.judges.mock_server import MockJudgeServer, MockReply, best_label
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge
from reward.rubric import load_suite
from reward.schema import Item
from reward.scorelog import ScoreLog, read_log
from tests.support import AUTH, EXAMPLES

FAULTS = ("ok", "500", "429", "garbage", "out_of_scale", "hang")


def faulty(suite, seed=0, rate=0.3):
    rng = random.Random(seed)
    top = best_label(suite)
    chosen = {}

    def script(call):
        key = (call.item, call.dimension)
        if key not in chosen:  # the fault is sticky per call, so retries meet it too
            chosen[key] = rng.choice(FAULTS[1:]) if rng.random() < rate else "ok"
        fault = chosen[key]
        if fault == "500":
            return MockReply(status=500)
        if fault == "429":
            return MockReply(status=429)
        if fault == "garbage":
            return MockReply(text="¯\\_(ツ)_/¯ no idea")
        if fault == "out_of_scale":
            if suite.dimensions[call.dimension].judge.output == "json":
                return MockReply(text='{"reasoning": "x", "label": "11", "quotes": []}')
            return MockReply(text="<think>x</think><score>11</score>")
        if fault == "hang":
            return MockReply(text="<score>1</score>", delay_s=6.0)
        return top(call)

    return script, chosen


def test_injected_judge_faults_are_unscored_never_zero_and_logged_once(tmp_path):
    suite = load_suite("searchllm")
    items = [Item.model_validate(json.loads(l)) for l in EXAMPLES.read_text().splitlines() if l.strip()]
    script, chosen = faulty(suite)
    with MockJudgeServer(suite, script) as url:
        judge = OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=url, model="mock-judge", timeout_s=2.5, max_concurrency=16,
                                                           max_retries=1, backoff_s=0.01)], parse_retries=1))
        results = Engine(suite, judge).score_sync(items)
    log = ScoreLog(tmp_path)
    log.append(items, results, suite=suite.name, suite_version=suite.version, step=0)
    log.close()
    assert [r.id for r in results] == [i.id for i in items]
    expected_reason = {"500": "server_error", "429": "rate_limited", "garbage": "unparseable",
                       "out_of_scale": "label_out_of_scale", "hang": "judge_timeout"}
    faults_seen = set()
    for item, result in zip(items, results, strict=True):
        call_failed = False
        for name, score in result.dimensions.items():
            fault = chosen.get((item.id, name), "ok")
            if score.status == "unscored":
                assert score.score is None and score.reason
                if fault != "ok":
                    assert score.reason == expected_reason[fault]
                    faults_seen.add(fault)
                if reason_kind(score.reason) == "call":
                    call_failed = True
                elif reason_kind(score.reason) == "response":
                    # A reply the response may have provoked (garbage, out of scale) fails the dimension, never pays.
                    assert "scored as failed (0)" in score.explanation
            else:
                assert 0.0 <= score.score <= 1.0
        # A failed call masks the item (the suite tolerates no behavioral failure): no dimension is silently dropped.
        assert result.valid is not call_failed
    assert faults_seen >= {"500", "garbage", "out_of_scale", "hang"}
    by_group = {}
    for item, result in zip(items, results, strict=True):
        if item.group and result.valid:
            by_group.setdefault(item.group, []).append(result.reward)
    for item, result in zip(items, results, strict=True):
        if not result.valid and by_group.get(item.group):
            # The group's mean at most: never more than the valid items around it earn on average.
            assert result.reward <= sum(by_group[item.group]) / len(by_group[item.group]) + 1e-9
    logged = [r.result.id for r in read_log(tmp_path)]
    assert sorted(logged) == sorted(i.id for i in items) and len(set(logged)) == len(logged)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=10,
)
item_like = st.fixed_dictionaries(
    {},
    optional={"id": json_values, "query": json_values, "response": json_values, "group": json_values,
              "history": json_values, "evidence": json_values, "now": json_values, "extra": json_values},
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=st.one_of(json_values, st.fixed_dictionaries({"items": st.lists(item_like, max_size=3)},
                                                         optional={"suite": json_values, "step": json_values, "run": json_values})))
def test_fuzzed_request_bodies_get_4xx_never_5xx(server, body):
    reply = httpx.post(f"{server['url']}/v1/score", json=body, headers=AUTH, timeout=60)
    assert reply.status_code in (200, 404, 413, 422), reply.text
    if reply.status_code != 200:
        assert reply.json()["error"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
def test_fuzzed_raw_bytes_get_4xx_and_the_server_keeps_serving(server, raw):
    reply = httpx.post(f"{server['url']}/v1/score", content=raw, headers=AUTH, timeout=60)
    assert reply.status_code in (200, 404, 413, 422)
    assert httpx.get(f"{server['url']}/healthz", timeout=10).status_code == 200


def valid_request_works(url: str) -> None:
    assert httpx.get(f"{url}/healthz", timeout=30).json()["status"] == "ok"
    item = json.loads(EXAMPLES.read_text().splitlines()[0])
    reply = httpx.post(f"{url}/v1/score", json={"items": [item]}, headers=AUTH, timeout=120)
    assert reply.status_code == 200 and reply.json()["results"][0]["id"] == item["id"], reply.text


def test_hostile_json_gets_4xx_naming_the_limit_and_the_server_keeps_serving(server):
    url = server["url"]
    item = json.loads(EXAMPLES.read_text().splitlines()[0])

    def post(body: bytes) -> httpx.Response:
        return httpx.post(f"{url}/v1/score", content=body, headers={**AUTH, "content-type": "application/json"}, timeout=60)

    deep = post(b"[" * 20_000 + b"]" * 20_000)  # was a 500: the parser's recursion limit
    assert deep.status_code == 422 and "nested deeper than 16 levels" in deep.json()["error"] and "max_depth" in deep.json()["error"]
    deep_inside = post(json.dumps({"items": [{**item, "response": "x"}]}).replace('"x"', "[" * 30 + "]" * 30).encode())
    assert deep_inside.status_code == 422 and "(body).items.0.response" in deep_inside.json()["error"]
    huge_int = post(b'{"items": [], "step": ' + b"9" * 5000 + b"}")  # was a 500: int() digit limit
    assert huge_int.status_code == 422, huge_int.text
    assert post(b'{"items": [], "step": 1e999}').status_code == 422
    surrogate = post(json.dumps({"items": [{**item, "response": "x\ud800y"}]}).encode())  # was a 500 when logged
    assert surrogate.status_code == 422 and "surrogate" in surrogate.json()["error"]
    long_string = post(json.dumps({"items": [{**item, "response": "x" * 150_000}]}).encode())
    assert long_string.status_code == 413 and "150000 characters at (body).items.0.response" in long_string.json()["error"]
    assert "max_string_chars" in long_string.json()["error"]
    long_key = post(json.dumps({"items": [{**item, "k" * 120_000: 1}]}).encode())
    assert long_key.status_code == 413 and "max_string_chars" in long_key.json()["error"]
    nul = post(json.dumps({"items": [{**item, "id": "nul\u0000id", "response": item["response"] + "\u0000"}]}).encode())
    assert nul.status_code == 200 and nul.json()["results"][0]["id"] == "nul\u0000id"
    valid_request_works(url)


def _nested(depth: int, leaf: str) -> str:
    return "[" * depth + leaf + "]" * depth


hostile_fragments = st.one_of(
    st.integers(min_value=17, max_value=3000).map(lambda d: _nested(d, "1")),
    st.integers(min_value=20, max_value=5000).map(lambda n: "9" * n),
    st.integers(min_value=309, max_value=2000).map(lambda e: f"1e{e}"),
    st.sampled_from(["NaN", "Infinity", "-Infinity", '"\\ud800"', '"\\udfff x"', '"a\\u0000b"', '"\\u0000"', '"\\ud83d\\ude00"']),
    st.integers(min_value=100_001, max_value=300_000).map(lambda n: '"' + "y" * n + '"'),
    st.text(max_size=20).map(json.dumps),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(fragment=hostile_fragments, field=st.sampled_from(["response", "query", "id", "group", "now", "evidence", "step", "(top)"]))
def test_fuzzed_hostile_values_get_4xx_never_5xx(server, fragment, field):
    item = json.loads(EXAMPLES.read_text().splitlines()[0])
    if field == "(top)":
        body = fragment
    elif field == "step":
        body = '{"items": [' + json.dumps(item) + '], "step": ' + fragment + "}"
    else:
        item[field] = "\x00PLACEHOLDER\x00"
        body = json.dumps({"items": [item]}).replace('"\\u0000PLACEHOLDER\\u0000"', fragment)
    reply = httpx.post(f"{server['url']}/v1/score", content=body.encode("utf-8", "surrogatepass"), headers=AUTH, timeout=60)
    assert reply.status_code in (200, 404, 413, 422), reply.text[:300]
    if reply.status_code != 200:
        assert reply.json()["error"]
    assert httpx.get(f"{server['url']}/healthz", timeout=30).status_code == 200


def _raw(url: str, data: bytes, *, pause_s: float = 0.0, pieces: int = 1, read: bool = True, half_close: bool = True,
         timeout: float = 120) -> bytes:
    """Send `data` over a raw socket (in `pieces`, `pause_s` apart), then read the reply until the server closes."""
    import socket

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        step = max(1, -(-len(data) // pieces))
        for start in range(0, len(data), step):
            sock.sendall(data[start : start + step])
            time.sleep(pause_s)
        if not read:
            return b""
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except ConnectionResetError:  # a reply, if any, came before the reset
            pass
        return reply


def _request(path: str, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: localhost", f"Authorization: {AUTH['Authorization']}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def test_raw_socket_abuse_never_takes_the_server_down(server):
    import socket

    url = server["url"]
    item = json.dumps({"items": [json.loads(EXAMPLES.read_text().splitlines()[0])]}).encode()
    # A slow body (20 pieces over ~2 s) is read and scored. (The client keeps its side open until the reply, as a
    # slow client does: a half-closed connection may be read as the client gone while a loaded machine still scores.)
    slow = _raw(url, _request("/v1/score", item, {"Content-Length": str(len(item)), "Content-Type": "application/json"}),
                pieces=20, pause_s=0.1, half_close=False)
    assert slow.startswith(b"HTTP/1.1 200"), slow[:200]
    # Chunked encoding cut off mid-body, and a body shorter than its Content-Length: the client goes away.
    chunked = _request("/v1/score", b"", {"Transfer-Encoding": "chunked"}) + b"%x\r\n" % 100 + item[:100] + b"\r\n" + b"40\r\n" + item[100:120]
    _raw(url, chunked, read=False)
    _raw(url, _request("/v1/score", item[:50], {"Content-Length": str(len(item))}), read=False)
    # Garbage chunk sizes and garbage request lines: a 4xx or a closed connection, never a 5xx.
    bad_chunk = _raw(url, _request("/v1/score", b"zz\r\nhello\r\n0\r\n\r\n", {"Transfer-Encoding": "chunked"}))
    assert not bad_chunk.startswith(b"HTTP/1.1 5"), bad_chunk[:200]
    assert not _raw(url, b"\x00\xff GARBAGE / HTTP/9.9\r\n\r\n").startswith(b"HTTP/1.1 5")
    # A chunked body larger than the byte limit, with no Content-Length to refuse it early: 413 at the limit.
    # (No last chunk: the server answers once it has read past the limit, with nothing left unread to reset the
    # connection.)
    big = b"x" * 150_000
    over = _request("/v1/score", b"".join(b"%x\r\n%s\r\n" % (len(big), big) for _ in range(3)), {"Transfer-Encoding": "chunked"})
    refused = _raw(url, over, half_close=False)
    assert refused.startswith(b"HTTP/1.1 413") and b"limit max_bytes" in refused, refused[:300]
    # Many idle connections (a bounded count) do not stop others from being served.
    host, port = url.removeprefix("http://").split(":")
    idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(200)]
    try:
        for sock in idle[::2]:
            sock.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\n")  # half a header block, then silence
        valid_request_works(url)
    finally:
        for sock in idle:
            sock.close()
    valid_request_works(url)


def test_full_disk_answers_503_with_the_reason_and_logs_a_retried_batch_exactly_once(server):
    if not server["log_tmpfs"]:
        pytest.skip("SKIPPED LOUDLY: the score log is on a tmpfs only as root (mount); tests/test_scorelog_durability.py "
                    "covers the write path with an injected ENOSPC")
    import os

    url, log_dir = server["url"], server["log"]
    items = [{**i, "id": f"disk-{n}"} for n, i in enumerate(json.loads(l) for l in EXAMPLES.read_text().splitlines()[:20])]
    filler = log_dir / "filler"
    stats = os.statvfs(log_dir)
    filler.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - 40_000))  # leave 40 KB: ~5 records of the 20
    try:
        full = httpx.post(f"{url}/v1/score", json={"items": items, "run": "disk"}, headers=AUTH, timeout=120)
        assert full.status_code == 503, full.text[:300]
        assert full.json()["error"] == "score log unavailable: No space left on device"
        assert full.headers["retry-after"] == "1"
        health = httpx.get(f"{url}/healthz", timeout=30).json()
        assert health["status"] == "degraded" and "No space left on device" in health["score_log"]
        assert httpx.get(f"{url}/readyz", headers=AUTH, timeout=30).status_code == 503
        assert not [r for r in read_log(log_dir) if r.run == "disk"]  # nothing of the failed batch, no torn line
    finally:
        filler.unlink()
    retried = httpx.post(f"{url}/v1/score", json={"items": items, "run": "disk"}, headers=AUTH, timeout=120)
    assert retried.status_code == 200, retried.text[:300]
    assert httpx.get(f"{url}/healthz", timeout=30).json()["status"] == "ok"
    assert httpx.get(f"{url}/readyz", headers=AUTH, timeout=30).status_code == 200
    logged = [r.result.id for r in read_log(log_dir) if r.run == "disk"]
    assert sorted(logged) == sorted(i["id"] for i in items)


@pytest.mark.parametrize("request_ids", [False, True], ids=["anonymous", "with-request-ids"])
def test_admission_control_answers_503_with_retry_after_beyond_the_items_in_flight_bound(server, request_ids):
    """The fixture admits 120 items in flight; 8 concurrent 40-item requests exceed it: some get 503 with
    Retry-After, none a 5xx of another kind, and only the accepted ones are in the log, once. With request ids the
    ingress claims each id in the score store before scoring; requests that passed the bound together while their
    claims ran must not all be admitted."""
    import concurrent.futures

    url = server["url"]
    run = f"admission-{'ids' if request_ids else 'anonymous'}"
    examples = [json.loads(l) for l in EXAMPLES.read_text().splitlines() if l.strip()]

    def send(n: int) -> tuple[int, httpx.Response]:
        items = [{**examples[i % len(examples)], "id": f"adm{n}-{i}",
                  "query": f"{examples[i % len(examples)]['query']} ({run} {n}-{i})"} for i in range(40)]
        body = {"items": items, "run": run} | ({"request_id": f"{run}-{n}"} if request_ids else {})
        return n, httpx.post(f"{url}/v1/score", json=body, headers=AUTH, timeout=120)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = dict(pool.map(send, range(8)))
    codes = sorted(r.status_code for r in replies.values())
    assert set(codes) == {200, 503} and codes.count(200) >= 3, codes
    busy = next(r for r in replies.values() if r.status_code == 503)
    assert busy.headers["retry-after"] == "1" and "limit of 120 (limit max_items_in_flight)" in busy.json()["error"]
    logged = Counter(r.result.id.split("-")[0] for r in read_log(server["log"]) if r.run == run)
    assert logged == {f"adm{n}": 40 for n, r in replies.items() if r.status_code == 200}


def test_the_verl_client_rides_out_admission_503s_with_backoff(server):
    import concurrent.futures

    from policy.verl_reward import RewardClient

    examples = [json.loads(l) for l in EXAMPLES.read_text().splitlines() if l.strip()]
    client = RewardClient(server["url"], token=AUTH["Authorization"].split()[1], backoff_s=0.2, max_backoff_s=2.0)

    def send(n: int) -> list[dict]:
        # Each item's query is its own, so no score comes from the cache of an earlier test: every request takes
        # as long as scoring 40 new items, and 12 at once (480 items) cannot fit the bound of 120 however fast
        # the machine is.
        items = [{**examples[i % len(examples)], "id": f"ride{n}-{i}",
                  "query": f"{examples[i % len(examples)]['query']} (ride {n}-{i})"} for i in range(40)]
        return client.score("searchllm", items, run="ride")

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        results = list(pool.map(send, range(12)))
    assert [len(r) for r in results] == [40] * 12 and client.retried > 0
    logged = Counter(r.result.id for r in read_log(server["log"]) if r.run == "ride")
    assert len(logged) == 480 and set(logged.values()) == {1}


def test_a_retried_request_id_is_answered_again_but_logged_once(server):
    """A trainer whose reply was lost sends the batch again with the same `request_id`: the server answers it
    (the same scores) and the score log keeps one copy; a bad id is a 422 naming the field."""
    url, log_dir = server["url"], server["log"]
    items = [{**json.loads(l), "id": f"retry-{n}"} for n, l in enumerate(EXAMPLES.read_text().splitlines()[:4])]
    body = {"items": items, "run": "retried", "step": 7, "request_id": "0f3c-retry-batch"}
    first = httpx.post(f"{url}/v1/score", json=body, headers=AUTH, timeout=120)
    again = httpx.post(f"{url}/v1/score", json=body, headers=AUTH, timeout=120)
    assert first.status_code == again.status_code == 200, (first.text[:300], again.text[:300])
    assert [r["reward"] for r in again.json()["results"]] == [r["reward"] for r in first.json()["results"]]
    logged = [r.result.id for r in read_log(log_dir) if r.run == "retried"]
    assert sorted(logged) == sorted(i["id"] for i in items)
    bad = httpx.post(f"{url}/v1/score", json={**body, "request_id": "has space"}, headers=AUTH, timeout=120)
    assert bad.status_code == 422 and "request_id" in bad.text

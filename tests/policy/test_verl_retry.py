"""The verl client's retries (tenacity): a 503 or 429 is retried after at least its `Retry-After` plus jitter,
transport errors and 5xx with jittered exponential backoff, a 4xx fails at once naming the server and the cause."""

import asyncio
import time

import httpx
import pytest

from policy.verl_reward import RewardClient

RESULTS = {"results": [{"id": "a", "reward": 0.5}]}


def scripted(client: RewardClient, replies: list) -> list[float]:
    """Answer the client's requests from `replies` (a status, or an exception to raise); returns request times."""
    seen: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        reply = replies[min(len(seen), len(replies)) - 1]
        if isinstance(reply, Exception):
            raise reply
        if reply == 200:
            return httpx.Response(200, json=RESULTS)
        return httpx.Response(reply, json={"error": "server busy: limit max_items_in_flight"}, headers={"Retry-After": "1"})

    transport = httpx.MockTransport(handler)
    client._client = httpx.Client(transport=transport)
    return seen


def test_503_with_retry_after_waits_at_least_that_long_with_jitter_then_succeeds():
    client = RewardClient("http://reward", backoff_s=0.01, max_backoff_s=5.0)
    seen = scripted(client, [503, 429, 200])
    assert client.score("searchllm", [{"id": "a"}]) == RESULTS["results"]
    gaps = [b - a for a, b in zip(seen, seen[1:])]
    assert len(seen) == 3 and client.retried == 2
    assert all(1.0 <= gap <= 2.5 for gap in gaps), gaps  # Retry-After 1 s, plus up to 1 s of jitter


def test_transport_errors_and_5xx_back_off_exponentially_and_give_up_with_the_cause():
    client = RewardClient("http://reward", retries=3, backoff_s=0.01, max_backoff_s=0.05)
    seen = scripted(client, [httpx.ConnectError("refused"), 500, 502, 500])
    with pytest.raises(RuntimeError, match=r"reward server http://reward failed: HTTP 500"):
        client.score("searchllm", [{"id": "a"}])
    assert len(seen) == 4 and client.retried == 3


def test_a_4xx_is_not_retried():
    client = RewardClient("http://reward", backoff_s=0.01)
    seen = scripted(client, [422, 200])
    with pytest.raises(RuntimeError, match="HTTP 422"):
        client.score("searchllm", [{"id": "a"}])
    assert len(seen) == 1 and client.retried == 0


def test_the_async_path_honours_retry_after_too():
    client = RewardClient("http://reward", backoff_s=0.01)
    seen: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        if len(seen) == 1:
            return httpx.Response(503, headers={"Retry-After": "1"}, json={"error": "busy"})
        return httpx.Response(200, json=RESULTS)

    async def run() -> list[dict]:
        client._async[asyncio.get_running_loop()] = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        return await client.ascore("searchllm", [{"id": "a"}])

    assert asyncio.run(run()) == RESULTS["results"]
    assert len(seen) == 2 and 1.0 <= seen[1] - seen[0] <= 2.5


def test_every_retry_of_a_batch_carries_its_request_id_and_each_batch_its_own():
    """The server logs a batch once per `request_id`: a retry must reuse the id, a new batch must not."""
    import json

    client = RewardClient("http://reward", backoff_s=0.01, max_backoff_s=0.05)
    ids: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        ids.append(json.loads(request.content)["request_id"])
        return httpx.Response(503 if len(ids) in (1, 2) else 200, json=RESULTS)

    client._client = httpx.Client(transport=httpx.MockTransport(handler))
    client.score("searchllm", [{"id": "a"}])
    client.score("searchllm", [{"id": "a"}])
    assert len(ids) == 4 and ids[0] == ids[1] == ids[2] != ids[3]

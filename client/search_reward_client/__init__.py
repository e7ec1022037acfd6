"""The reward server's client for trainer images: `RewardClient` (sync and async, retries that honour `Retry-After`)
and plain helpers over the wire format's dicts (`item_from_extra_info`, `used_score`, `is_masked`). Nothing here
imports the server, its judges or torch; Python 3.10 and later."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
import weakref
from typing import Any, TypedDict

import httpx
from tenacity import AsyncRetrying, RetryCallState, RetryError, Retrying, retry_if_exception, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

__all__ = ["INFRASTRUCTURE_REASONS", "STRUCTURAL_REASONS", "RewardClient", "RewardServerError", "ScoreResult",
           "is_masked", "item_from_extra_info", "used_score"]

STRUCTURAL_REASONS = frozenset({"no_local_backend", "examples_not_separable", "unsupported_language", "not_applicable"})
"""Unscored for every response to the interaction alike (the server leaves the dimension out of the reward)."""
INFRASTRUCTURE_REASONS = frozenset({"judge_timeout", "rate_limited", "server_error", "connection_error", "judge_error",
                                    "tokenize_failed"})
"""Unscored because the judge failed, not the response (an item with one on the bottom line is `valid: false`).
Every other reason is one the response can cause: the dimension counted as 0."""


class DimensionResult(TypedDict, total=False):
    score: float | None
    layer: str
    backend: str
    status: str
    reason: str | None
    explanation: str | None


class ScoreResult(TypedDict, total=False):
    """One item's result, as `POST /v1/score` returns it (docs/wire-format.md)."""

    id: str
    reward: float
    gate: float | None
    utility: float | None
    valid: bool
    reason: str | None
    excluded: list[str]
    dimensions: dict[str, DimensionResult]


def used_score(dimension: DimensionResult) -> float | None:
    """The value the reward used for a dimension: its score, 0.0 where the response caused it to go unscored, None
    where no value exists (structural, or a judge failure): never a number made up for a trainer to average.

    >>> used_score({"score": 0.5}), used_score({"score": None, "reason": "unparseable"})
    (0.5, 0.0)
    >>> used_score({"score": None, "reason": "judge_timeout"}) is None
    True
    """
    if dimension.get("score") is not None:
        return float(dimension["score"])  # type: ignore[arg-type]
    reason = dimension.get("reason")
    return None if reason in STRUCTURAL_REASONS or reason in INFRASTRUCTURE_REASONS else 0.0


def is_masked(result: ScoreResult) -> bool:
    """Whether the trainer should mask the item (the judge could not score it; its reward is its group's mean)."""
    return not result["valid"]


def item_from_extra_info(extra_info: dict | str, response: str, index: int) -> dict:
    """The wire-format item of one rollout from the row's `extra_info` (what `reward data` writes: `query`,
    `history` and `evidence` as JSON strings, `group`, `item_id`, `now`), numbered `<item_id>#<index>`.

    >>> item_from_extra_info({"query": "q", "evidence": "[]", "item_id": "p1", "group": "p1"}, "answer", 2)["id"]
    'p1#2'
    """
    info = json.loads(extra_info) if isinstance(extra_info, str) else dict(extra_info)
    if not isinstance(info.get("query"), str):
        raise ValueError("extra_info has no 'query': build the data with `reward data`")

    def decoded(key: str) -> Any:
        value = info.get(key)
        if isinstance(value, str):
            return json.loads(value) if value.strip() else []
        return value.tolist() if hasattr(value, "tolist") else (value or [])

    return {"id": f"{info.get('item_id', 'rollout')}#{index}", "group": None if info.get("group") is None else str(info["group"]),
            "query": info["query"], "history": decoded("history"), "evidence": decoded("evidence"),
            "response": response, "now": info.get("now") or None}


class RewardServerError(RuntimeError):
    """The server could not score a batch after the retries; the message names the server and the cause."""


class RewardClient:
    """HTTP client of the reward server. Failed requests (transport errors, 408, 429, 5xx) are retried with full-jitter
    exponential backoff, at least the server's `Retry-After` (plus up to as much in jitter), until `retries` or
    `retry_deadline_s`; a batch keeps its `request_id` across retries, so the server logs it once."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 900.0, retries: int = 10,
                 backoff_s: float = 2.0, max_backoff_s: float = 60.0, retry_deadline_s: float = 1800.0,
                 transport: httpx.BaseTransport | None = None, async_transport: httpx.AsyncBaseTransport | None = None):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout = httpx.Timeout(timeout_s, connect=10.0)
        self.retries, self.backoff_s, self.max_backoff_s = retries, backoff_s, max_backoff_s
        self.retry_deadline_s = retry_deadline_s
        self.retried = 0
        """Retries made so far."""
        self._client = httpx.Client(timeout=self.timeout, headers=self.headers, transport=transport)
        self._async_transport = async_transport
        self._async: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # one client per event loop

    def score(self, suite: str, items: list[dict], step: int | None = None, run: str | None = None) -> list[ScoreResult]:
        """The results of `items`, in order."""
        body = self._body(suite, items, step, run)

        def post() -> list[ScoreResult]:
            reply = self._client.post(f"{self.url}/v1/score", json=body)
            reply.raise_for_status()
            return reply.json()["results"]

        try:
            return Retrying(**self._policy())(post)
        except Exception as exc:  # noqa: BLE001 - every failure names the server and the cause
            raise self._failure(exc) from exc

    async def ascore(self, suite: str, items: list[dict], step: int | None = None,
                     run: str | None = None) -> list[ScoreResult]:
        """`score`, awaited."""
        loop = asyncio.get_running_loop()
        client = self._async.get(loop)
        if client is None:
            client = self._async[loop] = httpx.AsyncClient(timeout=self.timeout, headers=self.headers,
                                                           transport=self._async_transport)
        body = self._body(suite, items, step, run)

        async def post() -> list[ScoreResult]:
            reply = await client.post(f"{self.url}/v1/score", json=body)
            reply.raise_for_status()
            return reply.json()["results"]

        try:
            return await AsyncRetrying(**self._policy())(post)
        except Exception as exc:  # noqa: BLE001
            raise self._failure(exc) from exc

    @staticmethod
    def _body(suite: str, items: list[dict], step: int | None, run: str | None) -> dict:
        return {"suite": suite, "items": items, "step": step, "run": run, "request_id": uuid.uuid4().hex}

    @staticmethod
    def _retryable(exc: BaseException) -> bool:
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code in (408, 429) or exc.response.status_code >= 500
        return isinstance(exc, httpx.TransportError)

    def _wait(self, state: RetryCallState) -> float:
        seconds = wait_random_exponential(multiplier=self.backoff_s, max=self.max_backoff_s)(state)
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, httpx.HTTPStatusError):
            value = exc.response.headers.get("retry-after", "").strip()
            if value.replace(".", "", 1).isdigit():
                seconds = max(seconds, min(float(value), self.max_backoff_s) * (1 + random.random()))
        return seconds

    def _count(self, state: RetryCallState) -> None:
        self.retried += 1

    def _policy(self) -> dict[str, Any]:
        return {"retry": retry_if_exception(self._retryable), "wait": self._wait, "before_sleep": self._count,
                "stop": stop_after_attempt(self.retries + 1) | stop_after_delay(self.retry_deadline_s)}

    def _failure(self, exc: BaseException) -> RewardServerError:
        if isinstance(exc, RetryError) and exc.last_attempt.failed:
            exc = exc.last_attempt.exception()
        if isinstance(exc, httpx.HTTPStatusError):
            return RewardServerError(f"reward server {self.url} failed: HTTP {exc.response.status_code}: "
                                     f"{exc.response.text[:300]}")
        return RewardServerError(f"reward server {self.url} failed: {type(exc).__name__}: {exc}")

"""verl custom reward functions that score rollouts on the reward server.

Point verl at this file (`reward.custom_reward_function.path`) and pick one:

- `compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs)`: one rollout (verl's naive
  manager); `compute_score_async`: the same, async.
- `compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs)`: verl's batch manager;
  all rollouts of a batch in one request, so the rollouts of a GRPO group are scored together and the server
  dedupes and orders their judge calls.

The interaction comes from the parquet's `extra_info` (written by `policy.data`): `query`, `history`, `evidence`,
`group`, `now`. The server URL, suite, run name and token come from `reward_kwargs` or the environment
(`REWARD_SERVER_URL`, `REWARD_SUITE`, `REWARD_RUN`, `REWARD_SERVER_TOKEN`); the training step from `step=`,
`extra_info["global_steps"]` or `REWARD_STEP` (set by `policy.verl_hooks`). Each call returns
`{"score": R, "gate": B, "utility": U, "valid": 1.0 or 0.0, "<dimension>": s, ...}` with the same keys for every
rollout, so every dimension reaches verl's `reward_extra_info`. Values that do not exist are `MISSING` (-1.0):
an unscored dimension, or gate/utility under a linear suite; the metrics hook leaves them out of the means. An
invalid rollout (`valid` 0.0) carries its group's mean reward, so its GRPO advantage is zero: masked, not punished.
Connections are reused per process; failed requests are retried with backoff, then raise (training stops
rather than learning from made-up rewards).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from typing import Any

import httpx

log = logging.getLogger(__name__)

MISSING = -1.0
"""Value of a dimension that has no score for a rollout (see the module docstring)."""
MAX_ITEMS_PER_REQUEST = 2048


class RewardClient:
    """HTTP client of the reward server, one per (url, token) per process."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 900.0, retries: int = 4, backoff_s: float = 2.0):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout = httpx.Timeout(timeout_s, connect=10.0)
        self.retries = retries
        self.backoff_s = backoff_s
        self._client = httpx.Client(timeout=self.timeout, headers=self.headers,
                                    limits=httpx.Limits(max_connections=32, max_keepalive_connections=32))
        self._async: dict[int, httpx.AsyncClient] = {}

    def _body(self, suite: str, items: list[dict], step: int | None, run: str | None) -> dict:
        return {"suite": suite, "items": items, "step": step, "run": run}

    @staticmethod
    def _retryable(exc: Exception) -> bool:
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code in (408, 429) or exc.response.status_code >= 500
        return isinstance(exc, httpx.TransportError)

    def score(self, suite: str, items: list[dict], step: int | None = None, run: str | None = None) -> list[dict]:
        for attempt in range(self.retries + 1):
            try:
                reply = self._client.post(f"{self.url}/v1/score", json=self._body(suite, items, step, run))
                reply.raise_for_status()
                return reply.json()["results"]
            except Exception as exc:
                if not self._retryable(exc) or attempt == self.retries:
                    raise RuntimeError(f"reward server {self.url} failed: {_describe(exc)}") from exc
                log.warning("reward server request failed (%s); retry %d", _describe(exc), attempt + 1)
                time.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")

    async def ascore(self, suite: str, items: list[dict], step: int | None = None, run: str | None = None) -> list[dict]:
        loop_id = id(asyncio.get_running_loop())
        client = self._async.get(loop_id)
        if client is None:
            client = self._async[loop_id] = httpx.AsyncClient(timeout=self.timeout, headers=self.headers)
        for attempt in range(self.retries + 1):
            try:
                reply = await client.post(f"{self.url}/v1/score", json=self._body(suite, items, step, run))
                reply.raise_for_status()
                return reply.json()["results"]
            except Exception as exc:
                if not self._retryable(exc) or attempt == self.retries:
                    raise RuntimeError(f"reward server {self.url} failed: {_describe(exc)}") from exc
                await asyncio.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")


def _describe(exc: Exception) -> str:
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}: {exc.response.text[:300]}"
    return f"{type(exc).__name__}: {exc}"


_CLIENTS: dict[tuple[str, str | None], RewardClient] = {}
_LOCK = threading.Lock()


def client_for(url: str, token: str | None) -> RewardClient:
    with _LOCK:
        key = (url, token)
        if key not in _CLIENTS:
            _CLIENTS[key] = RewardClient(url, token)
        return _CLIENTS[key]


def _settings(kwargs: dict[str, Any], extra_info: dict | None = None) -> tuple[RewardClient, str, int | None, str | None]:
    url = kwargs.get("server_url") or os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:8000")
    token = kwargs.get("token") or os.environ.get("REWARD_SERVER_TOKEN") or None
    suite = kwargs.get("suite") or os.environ.get("REWARD_SUITE", "searchllm")
    run = kwargs.get("run") or os.environ.get("REWARD_RUN") or None
    step = kwargs.get("step")
    if step is None and extra_info and extra_info.get("global_steps") is not None:
        step = extra_info["global_steps"]
    if step is None and os.environ.get("REWARD_STEP", "").isdigit():
        step = int(os.environ["REWARD_STEP"])
    return client_for(url, token), suite, step, run


def _decode(value: Any, default: Any) -> Any:
    if value is None:
        return default
    if isinstance(value, str):
        return json.loads(value) if value.strip() else default
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def rollout_item(solution_str: str, extra_info: dict | None, index: int) -> dict:
    """The wire-format item of one rollout: the interaction from `extra_info`, the response from the rollout."""
    info = extra_info or {}
    if "query" not in info:
        raise ValueError("extra_info has no 'query': build the parquet with `reward data` (policy.data)")
    group = info.get("group")
    return {
        "id": f"{info.get('item_id', 'rollout')}#{index}",
        "group": None if group is None else str(group),
        "query": info["query"],
        "history": _decode(info.get("history"), []),
        "evidence": _decode(info.get("evidence"), []),
        "response": solution_str,
        "now": info.get("now") or None,
    }


def to_verl(result: dict, dimensions: list[str] | None = None) -> dict[str, float]:
    """A server result as verl's reward dict: score, gate, utility, valid and one key per dimension."""
    names = dimensions if dimensions is not None else sorted(result["dimensions"])
    out = {
        "score": float(result["reward"]),
        "gate": MISSING if result.get("gate") is None else float(result["gate"]),
        "utility": MISSING if result.get("utility") is None else float(result["utility"]),
        "valid": 1.0 if result["valid"] else 0.0,
    }
    for name in names:
        score = result["dimensions"].get(name, {}).get("score")
        out[name] = MISSING if score is None else float(score)
    return out


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None, **kwargs) -> dict:
    """verl's per-rollout reward function (naive manager)."""
    client, suite, step, run = _settings(kwargs, extra_info)
    [result] = client.score(suite, [rollout_item(solution_str, extra_info, 0)], step, run)
    return to_verl(result)


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                              **kwargs) -> dict:
    """The async form of `compute_score` (verl awaits coroutine reward functions)."""
    client, suite, step, run = _settings(kwargs, extra_info)
    [result] = await client.ascore(suite, [rollout_item(solution_str, extra_info, 0)], step, run)
    return to_verl(result)


def compute_score_batch(data_sources: list[str], solution_strs: list[str], ground_truths: list[Any],
                        extra_infos: list[dict], **kwargs) -> list[dict]:
    """verl's batched reward function (batch manager): one request per batch, groups scored together."""
    client, suite, step, run = _settings(kwargs, extra_infos[0] if len(extra_infos) else None)
    items = [rollout_item(s, e, i) for i, (s, e) in enumerate(zip(solution_strs, extra_infos, strict=True))]
    results: list[dict] = []
    for start in range(0, len(items), MAX_ITEMS_PER_REQUEST):
        results.extend(client.score(suite, items[start : start + MAX_ITEMS_PER_REQUEST], step, run))
    names = sorted({name for result in results for name in result["dimensions"]})
    return [to_verl(result, names) for result in results]

"""verl custom reward functions that score rollouts on the reward server.

How verl 0.9 calls a reward function in training: each finished rollout is sent on its own to a reward-loop
worker (a Ray actor), whose reward manager awaits the function for that one rollout. `policy.verl_manager`'s
`SearchRewardManager` is that manager for this server: it hands each rollout to `compute_score_async` together with
the training step and the prompt's uid (verl passes neither to a plain reward function), and `GroupBatcher` here
holds rollouts until their GRPO group is complete, so a group's rollouts reach the server in one request (the
server dedupes and orders their judge calls; vLLM's prefix cache stays warm). The configs in `configs/verl/`
select it. For verl's legacy managers (`verl.workers.reward_manager`: naive, batch) the plain forms still work:

- `compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs)`: one rollout, one request.
- `compute_score_async(...)`: the same, awaited; rollouts sharing a group key are batched (see `GroupBatcher`).
- `compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs)`: the legacy batch
  manager; all rollouts of a batch in one request (chunked, groups kept whole).

The interaction comes from the parquet's `extra_info` (written by `policy.data`): `query`, `history`, `evidence`,
`group`, `now`. The server URL, suite and token come from `reward_kwargs` or the environment
(`REWARD_SERVER_URL`, `REWARD_SUITE`, `REWARD_SERVER_TOKEN`); the run name from `REWARD_RUN` over `reward_kwargs.run`
(`resolve_run`); the training step from `step=`
(`SearchRewardManager` passes verl's `global_steps`), `extra_info["global_steps"]` or `REWARD_STEP`. Each call
returns `{"score": R, "gate": B, "utility": U, "valid": 1.0 or 0.0, "<dimension>": s, ...}` with the same keys for
every rollout of a suite, so every dimension reaches verl's `reward_extra_info` (equal-length columns). A dimension
holds the value the reward used: its score, or 0.0 where the response caused it to go unscored (it counts as failed).
A value that does not exist (a dimension unscored for every response alike or for a judge failure, gate/utility
under a linear suite) is `None`, the value verl's validation metrics leave out (`process_validation_metrics` drops
None) and so do `policy.verl_hooks`' curves: no sentinel is averaged in as if it were a score. An invalid rollout
(`valid` 0.0) carries its group's mean reward (set by the server), so its GRPO advantage is zero: masked, not
punished. For verl's GDPO estimator (`algorithm.adv_estimator: gdpo`, legacy trainer), `reward_kwargs.gdpo: true`
adds `gdpo_<dimension>` keys for `algorithm.gdpo_reward_keys`: GDPO normalises each key within the group and
cannot skip a value, so a value that does not exist, and every value of an invalid rollout, is the group's mean of
that dimension (zero advantage on it), never a number outside the scores. Connections are reused per process; failed requests (transport errors, 408, 429, 5xx) are retried
with jittered exponential backoff (tenacity), waiting at least the server's `Retry-After` on a 503/429 (the server
answers 503 when its items-in-flight bound is reached, the judge is down or its score log cannot be written), then raise (training
stops rather than learning from made-up rewards).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import uuid
import weakref
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, RetryError, Retrying, retry_if_exception, stop_after_attempt, stop_after_delay
from tenacity.wait import wait_random_exponential

from reward.schema import CALL_FAILURE_REASONS, STRUCTURAL_REASONS

log = logging.getLogger(__name__)

MAX_ITEMS_PER_REQUEST = 2048
REWARD_WORKER_PREFIX = "reward_loop_worker_"
"""verl 0.9's `RewardLoopManager` names its worker actors `reward_loop_worker_<i>`."""


class SplitGroupsError(RuntimeError):
    """More than one reward-loop worker: GRPO groups would be split between them."""

    def __init__(self, workers: int | str):
        super().__init__(
            f"reward.num_workers={workers}: the reward server's grouping needs reward.num_workers=1. verl 0.9's agent "
            "loop sends each rollout to a random reward-loop worker (random.choice), so with more workers the "
            "rollouts of one GRPO group are split between them and each part would wait group_timeout_s for the "
            "rest. Set reward.num_workers=1 (one worker only awaits HTTP; `python -m policy.train` sets it)")


def reward_loop_workers() -> int:
    """How many verl reward-loop worker actors this Ray job runs, when called inside one of them; 0 elsewhere.

    Read from Ray's named actors, so a reward function under verl's own managers (which pass no group or worker
    count) can still tell that groups would be split."""
    try:
        import ray
    except ImportError:
        return 0
    if not ray.is_initialized():
        return 0
    name = ray.get_runtime_context().get_actor_name() or ""
    if not name.startswith(REWARD_WORKER_PREFIX):
        return 0
    return sum(1 for actor in ray.util.list_named_actors() if str(actor).startswith(REWARD_WORKER_PREFIX))


_CHECKED_WORKERS: list[int] = []


def check_one_reward_worker() -> None:
    """Raise `SplitGroupsError` when this process is one of several reward-loop workers (checked once)."""
    if not _CHECKED_WORKERS:
        _CHECKED_WORKERS.append(reward_loop_workers())
    if _CHECKED_WORKERS[0] > 1:
        raise SplitGroupsError(_CHECKED_WORKERS[0])


class RewardClient:
    """HTTP client of the reward server, one per (url, token) per process."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 900.0, retries: int = 10, backoff_s: float = 2.0,
                 max_backoff_s: float = 60.0, retry_deadline_s: float = 1800.0):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout = httpx.Timeout(timeout_s, connect=10.0)
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.retry_deadline_s = retry_deadline_s
        self.retried = 0
        """Retries made so far (observable in tests and logs)."""
        self._client = httpx.Client(timeout=self.timeout, headers=self.headers,
                                    limits=httpx.Limits(max_connections=32, max_keepalive_connections=32))
        # One async client per event loop (an httpx.AsyncClient is bound to the loop it first ran on); weak keys
        # so a closed loop's client goes with it.
        self._async: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @staticmethod
    def _body(suite: str, items: list[dict], step: int | None, run: str | None) -> dict:
        """One batch's request body; its `request_id` is the same on every retry, so the server logs it once."""
        return {"suite": suite, "items": items, "step": step, "run": run, "request_id": uuid.uuid4().hex}

    @staticmethod
    def _retryable(exc: BaseException) -> bool:
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code in (408, 429) or exc.response.status_code >= 500
        return isinstance(exc, httpx.TransportError)

    def _wait(self, state: RetryCallState) -> float:
        """Full-jitter exponential backoff, and at least the server's `Retry-After` (plus up to as much again in
        jitter, so clients turned away together do not come back together)."""
        seconds = wait_random_exponential(multiplier=self.backoff_s, max=self.max_backoff_s)(state)
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, httpx.HTTPStatusError):
            retry_after = _retry_after_s(exc.response)
            if retry_after is not None:
                seconds = max(seconds, min(retry_after, self.max_backoff_s) * (1 + random.random()))
        return seconds

    def _before_sleep(self, state: RetryCallState) -> None:
        self.retried += 1
        exc = state.outcome.exception() if state.outcome else None
        log.warning("reward server request failed (%s); retry %d in %.1f s", _describe(exc), state.attempt_number,
                    state.next_action.sleep if state.next_action else 0.0)

    def _retry_policy(self) -> dict[str, Any]:
        return {"retry": retry_if_exception(self._retryable), "wait": self._wait, "before_sleep": self._before_sleep,
                "stop": stop_after_attempt(self.retries + 1) | stop_after_delay(self.retry_deadline_s)}

    def score(self, suite: str, items: list[dict], step: int | None = None, run: str | None = None) -> list[dict]:
        body = self._body(suite, items, step, run)

        def post() -> list[dict]:
            reply = self._client.post(f"{self.url}/v1/score", json=body)
            reply.raise_for_status()
            return reply.json()["results"]

        try:
            return Retrying(**self._retry_policy())(post)
        except Exception as exc:  # noqa: BLE001 - every failure names the server and the cause
            raise _failure(self.url, exc) from exc

    async def ascore(self, suite: str, items: list[dict], step: int | None = None, run: str | None = None) -> list[dict]:
        loop = asyncio.get_running_loop()
        client = self._async.get(loop)
        if client is None:
            client = self._async[loop] = httpx.AsyncClient(timeout=self.timeout, headers=self.headers)

        body = self._body(suite, items, step, run)

        async def post() -> list[dict]:
            reply = await client.post(f"{self.url}/v1/score", json=body)
            reply.raise_for_status()
            return reply.json()["results"]

        try:
            return await AsyncRetrying(**self._retry_policy())(post)
        except Exception as exc:  # noqa: BLE001 - every failure names the server and the cause
            raise _failure(self.url, exc) from exc


def _retry_after_s(response: httpx.Response) -> float | None:
    """The `Retry-After` of a reply in seconds (the delta-seconds form; an HTTP date is ignored)."""
    value = response.headers.get("retry-after", "").strip()
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def _failure(url: str, exc: BaseException) -> RuntimeError:
    if isinstance(exc, RetryError) and exc.last_attempt.failed:
        exc = exc.last_attempt.exception()
    return RuntimeError(f"reward server {url} failed: {_describe(exc)}")


def _describe(exc: BaseException | None) -> str:
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


_RUN_NOTED: set[tuple[str, str]] = set()


def resolve_run(kwargs: dict[str, Any]) -> str | None:
    """The run name sent with every request: `REWARD_RUN` when set (the launch names its run), else
    `reward_kwargs.run` (the config's default), else none (the server then charts the run under the suite name).
    The server logs the request's `run` as sent; nothing on the server side overrides it.

    >>> import os; os.environ["REWARD_RUN"] = "gated-seed2"; resolve_run({"run": "gated"})
    'gated-seed2'
    >>> del os.environ["REWARD_RUN"]; resolve_run({"run": "gated"}), resolve_run({})
    ('gated', None)
    """
    from_env = os.environ.get("REWARD_RUN") or None
    from_config = kwargs.get("run") or None
    if from_env and from_config and from_env != from_config and (from_env, from_config) not in _RUN_NOTED:
        _RUN_NOTED.add((from_env, from_config))
        log.info("run name %r from REWARD_RUN (the config's run %r is the default when REWARD_RUN is unset)",
                 from_env, from_config)
    return from_env or from_config


def _settings(kwargs: dict[str, Any], extra_info: dict | None = None) -> tuple[RewardClient, str, int | None, str | None]:
    url = kwargs.get("server_url") or os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:8000")
    token = kwargs.get("token") or os.environ.get("REWARD_SERVER_TOKEN") or None
    suite = kwargs.get("suite") or os.environ.get("REWARD_SUITE", "searchllm")
    run = resolve_run(kwargs)
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


def used_score(score: dict) -> float | None:
    """The value the reward used for one dimension of a result: its score, 0.0 when the response caused it to go
    unscored (it counted as failed), None when none exists (structural, or a judge failure).

    >>> used_score({"score": 0.7}), used_score({"score": None, "reason": "unparseable"})
    (0.7, 0.0)
    >>> used_score({"score": None, "reason": "judge_timeout"}) is None, used_score({"score": None, "reason": "not_applicable"}) is None
    (True, True)
    """
    if score.get("score") is not None:
        return float(score["score"])
    if score.get("reason") in STRUCTURAL_REASONS or score.get("reason") in CALL_FAILURE_REASONS:
        return None
    return 0.0


def group_dimension_means(results: list[dict], groups: list[str | None]) -> list[dict[str, float]]:
    """Per result, the mean over its group's valid results of each dimension's used value (what GDPO keys fill in)."""
    sums: dict[str | None, dict[str, list[float]]] = {}
    for result, group in zip(results, groups, strict=True):
        if not result["valid"]:
            continue
        for name, score in result["dimensions"].items():
            value = used_score(score)
            if value is not None:
                sums.setdefault(group, {}).setdefault(name, []).append(value)
    means = {group: {name: sum(v) / len(v) for name, v in dims.items()} for group, dims in sums.items()}
    return [means.get(group, {}) if group is not None else {} for group in groups]


def to_verl(result: dict, dimensions: list[str] | None = None, *, gdpo_means: dict[str, float] | None = None) -> dict:
    """A server result as verl's reward dict: score, gate, utility, valid and one key per dimension (None where
    no value exists), plus `gdpo_<dimension>` keys when `gdpo_means` (the group's means) is given."""
    names = dimensions if dimensions is not None else sorted(result["dimensions"])
    out: dict[str, float | None] = {
        "score": float(result["reward"]),
        "gate": None if result.get("gate") is None else float(result["gate"]),
        "utility": None if result.get("utility") is None else float(result["utility"]),
        "valid": 1.0 if result["valid"] else 0.0,
    }
    for name in names:
        out[name] = used_score(result["dimensions"].get(name, {"reason": "not_applicable"}))
    if gdpo_means is not None:
        for name in names:
            value = out[name] if result["valid"] else None
            # No value, or a masked rollout: the group's mean (0.0 when no rollout of the group has one: a constant
            # over the group, so still zero advantage).
            out[f"gdpo_{name}"] = value if value is not None else gdpo_means.get(name, 0.0)
    return out


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None, **kwargs) -> dict:
    """verl's per-rollout reward function (naive manager)."""
    client, suite, step, run = _settings(kwargs, extra_info)
    [result] = client.score(suite, [rollout_item(solution_str, extra_info, 0)], step, run)
    return to_verl(result)


class _Pending:
    """Rollouts of one group waiting to be sent, with the futures their callers await."""

    __slots__ = ("request", "items", "futures", "last", "wait_s")

    def __init__(self, request: tuple[str, int | None, str | None], wait_s: float):
        self.request = request
        self.items: list[dict] = []
        self.futures: list[asyncio.Future] = []
        self.last = 0.0
        self.wait_s = wait_s
        """How long the group may go without a new rollout before what has arrived is sent anyway."""


class GroupBatcher:
    """Holds rollouts of one event loop until their GRPO group is complete, then sends whole groups in one request.

    verl 0.9 scores each rollout on its own as soon as it is generated; sending each alone would lose what the
    server gains from a whole group (shared judge calls deduped, a group's prompts sent together for the judge's
    prefix cache). With the group's rollout count known (`group_size`, verl's `rollout.n`), a group is sent when
    that many rollouts have arrived, however far apart they finish; only if none arrives for `group_timeout_s`
    (a failed rollout, a group split over several reward workers) is the part that has arrived sent. With the size
    unknown (`group_size=None`), a group is sent when none of its rollouts has arrived for `linger_s`. Groups that
    become ready in the same loop iteration share a request; a request carries at most `max_items` rollouts and
    keeps groups whole unless one group alone exceeds it.

    Each rollout gets the id `<item_id>#<k>`, `k` counting the rollouts of its group in arrival order (0 .. n-1),
    so the score log tells a group's rollouts apart.
    """

    def __init__(self, client: RewardClient, linger_s: float = 1.0, max_items: int = MAX_ITEMS_PER_REQUEST,
                 group_timeout_s: float = 600.0):
        from cachetools import LRUCache

        self.client = client
        self.linger_s = linger_s
        self.group_timeout_s = group_timeout_s
        self.max_items = max_items
        self.requests = 0
        """Requests sent so far (the batching is observable, e.g. in tests)."""
        self._groups: dict[tuple, _Pending] = {}
        # Rollouts seen per group (for ids and completeness); a group sent in parts keeps counting.
        self._arrived: LRUCache = LRUCache(maxsize=1 << 17)
        self._ready: list[_Pending] = []
        self._flush_scheduled = False
        self._tasks: set[asyncio.Task] = set()
        self._watcher: asyncio.Task | None = None

    async def score(self, request: tuple[str, int | None, str | None], group_key: str, group_size: int | None,
                    item: dict) -> dict:
        """Queue one rollout (`request` = suite, step, run) and wait for its server result."""
        loop = asyncio.get_running_loop()
        key = (request, group_key)
        index = self._arrived.get(key, 0)
        self._arrived[key] = index + 1
        item = dict(item, id=f"{str(item['id']).rsplit('#', 1)[0]}#{index}")
        pending = self._groups.get(key)
        if pending is None:
            wait_s = self.linger_s if group_size is None else self.group_timeout_s
            pending = self._groups[key] = _Pending(request, wait_s)
        future = loop.create_future()
        pending.items.append(item)
        pending.futures.append(future)
        pending.last = loop.time()
        if group_size is not None and index + 1 >= max(1, group_size):
            self._arrived.pop(key, None)
            self._ready.append(self._groups.pop(key))
            if not self._flush_scheduled:
                self._flush_scheduled = True
                loop.call_soon(self._flush_ready)  # next iteration: groups completed meanwhile join this request
        elif self._watcher is None or self._watcher.done():
            self._watcher = loop.create_task(self._watch_idle())
        return await future

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # keep a reference until done (the loop holds only weak ones)
        task.add_done_callback(self._tasks.discard)

    def _flush_ready(self) -> None:
        self._flush_scheduled = False
        ready, self._ready = self._ready, []
        self._send(ready)

    async def _watch_idle(self) -> None:
        loop = asyncio.get_running_loop()
        while self._groups:
            now = loop.time()
            idle = [key for key, pending in self._groups.items() if now - pending.last >= pending.wait_s]
            if idle:
                if any(self._groups[key].wait_s == self.group_timeout_s for key in idle):
                    log.warning("%d group(s) incomplete after %.0f s without a new rollout; sending what arrived",
                                len(idle), self.group_timeout_s)
                self._send([self._groups.pop(key) for key in idle])
                continue
            # until the next group reaches its wait
            await asyncio.sleep(min(p.last + p.wait_s for p in self._groups.values()) - now + 1e-3)

    def _send(self, groups: list[_Pending]) -> None:
        by_request: dict[tuple, list[_Pending]] = {}
        for pending in groups:
            by_request.setdefault(pending.request, []).append(pending)
        for request, pendings in by_request.items():
            chunk: list[_Pending] = []
            size = 0
            for pending in pendings:
                if chunk and size + len(pending.items) > self.max_items:
                    self._spawn(self._post(request, chunk))
                    chunk, size = [], 0
                chunk.append(pending)
                size += len(pending.items)
            if chunk:
                self._spawn(self._post(request, chunk))

    async def _post(self, request: tuple[str, int | None, str | None], groups: list[_Pending]) -> None:
        suite, step, run = request
        items = [item for pending in groups for item in pending.items]
        futures = [future for pending in groups for future in pending.futures]
        try:
            results: list[dict] = []
            for start in range(0, len(items), self.max_items):
                self.requests += 1
                results.extend(await self.client.ascore(suite, items[start : start + self.max_items], step, run))
        except Exception as exc:  # every waiting rollout gets the error: verl then fails the step loudly
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
            return
        # Each result learns its group's dimension means (a GDPO key's stand-in for a value that does not exist).
        groups = [str(index) for index, pending in enumerate(groups) for _ in pending.items]
        if all(isinstance(r, dict) and "dimensions" in r and "valid" in r for r in results):
            for result, means in zip(results, group_dimension_means(results, groups), strict=True):
                result["group_means"] = means
        for future, result in zip(futures, results, strict=True):
            if not future.done():
                future.set_result(result)


_BATCHERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""event loop -> {client -> GroupBatcher}: futures belong to a loop, and a closed loop's batchers go with it."""


def batcher_for(client: RewardClient, linger_s: float, group_timeout_s: float | None = None) -> GroupBatcher:
    """The batcher of the running event loop for `client`."""
    batchers = _BATCHERS.setdefault(asyncio.get_running_loop(), {})
    batcher = batchers.get(id(client))
    if batcher is None:
        batcher = batchers[id(client)] = GroupBatcher(client, linger_s)
    batcher.linger_s = linger_s
    if group_timeout_s is not None:
        batcher.group_timeout_s = group_timeout_s
    return batcher


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                              **kwargs) -> dict:
    """The async form of `compute_score`: rollouts of one group are sent together (`GroupBatcher`).

    Extra kwargs: `group_key` (the trainer's uid of the prompt; defaults to `extra_info["group"]`), `group_size`
    (rollouts per prompt, i.e. `rollout.n`: the group is sent when that many have arrived; without it, after
    `linger_s` without a new rollout of the group), `linger_s` (default 1.0), `group_timeout_s` (default 600: a
    group of known size that stalls this long is sent incomplete), `gdpo` (add the `gdpo_<dimension>` keys). A rollout with no group at all is sent at once.
    Called without `group_key` (verl's own managers) in one of several reward-loop workers, it raises
    `SplitGroupsError`: verl routes rollouts to workers at random, so no worker would see whole groups.
    """
    if "group_key" not in kwargs:  # a manager that does not route by group (verl's naive): fail, not stall
        check_one_reward_worker()
    client, suite, step, run = _settings(kwargs, extra_info)
    group_key = kwargs.get("group_key") or (extra_info or {}).get("group")
    group_size = kwargs.get("group_size")
    if group_key is None:
        group_key, group_size = f"\x00{id(solution_str)}", 1
    timeout = kwargs.get("group_timeout_s")
    batcher = batcher_for(client, float(kwargs.get("linger_s", 1.0)), None if timeout is None else float(timeout))
    item = rollout_item(solution_str, extra_info, 0)
    result = await batcher.score((suite, step, run), str(group_key),
                                 None if group_size is None else int(group_size), item)
    return to_verl(result, gdpo_means=result.get("group_means", {}) if kwargs.get("gdpo") else None)


def compute_score_batch(data_sources: list[str], solution_strs: list[str], ground_truths: list[Any],
                        extra_infos: list[dict], **kwargs) -> list[dict]:
    """verl's batched reward function (batch manager): one request per batch, groups scored together."""
    client, suite, step, run = _settings(kwargs, extra_infos[0] if len(extra_infos) else None)
    seen: dict[str, int] = {}
    items = []
    for solution, info in zip(solution_strs, extra_infos, strict=True):
        item_id = str((info or {}).get("item_id", "rollout"))
        items.append(rollout_item(solution, info, seen.get(item_id, 0)))  # `<item_id>#k`: the prompt's k-th rollout
        seen[item_id] = seen.get(item_id, 0) + 1
    results: list[dict] = []
    for start in range(0, len(items), MAX_ITEMS_PER_REQUEST):
        results.extend(client.score(suite, items[start : start + MAX_ITEMS_PER_REQUEST], step, run))
    names = sorted({name for result in results for name in result["dimensions"]})
    means = group_dimension_means(results, [item["group"] or item["id"] for item in items]) if kwargs.get("gdpo") else None
    return [to_verl(result, names, gdpo_means=None if means is None else means[i]) for i, result in enumerate(results)]

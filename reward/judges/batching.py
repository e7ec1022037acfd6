"""The local tier's micro-batcher: model inputs of concurrent judgments computed in one batch, cached by key.

Every coroutine that asks for keys during one event-loop iteration joins the same batch; the batch runs in a worker
thread (the model call releases the GIL) and its results go to an LRU cache. A key already in flight (queued, or in a
batch that is running) is awaited, not computed again: with many items of a group asking for the same evidence
sentences at nearly the same time, each is computed once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from cachetools import LRUCache

_MISSING = object()


class MicroBatcher:
    """`values(requests)` for {key: model input}: cached values, or one `compute(inputs)` call per loop iteration."""

    def __init__(self, compute: Callable[[list[Any]], Sequence[Any]], max_cache: int):
        self.compute = compute
        self.cache: LRUCache = LRUCache(maxsize=max_cache)
        self._pending: dict[Hashable, Any] = {}
        self._batch: asyncio.Future | None = None
        self._in_flight: dict[Hashable, asyncio.Future] = {}
        self._tasks: set[asyncio.Task] = set()

    async def values(self, requests: dict[Hashable, Any]) -> dict[Hashable, Any]:
        """The value of every requested key (a dict holding the keys, whatever the cache evicts meanwhile)."""
        out, waiting = {}, {}
        cache, missing = self.cache, _MISSING
        for key, payload in requests.items():
            value = cache.get(key, missing)  # one lookup: most keys are cached on a re-score
            if value is not missing:
                out[key] = value
            elif key in self._in_flight:
                waiting[key] = self._in_flight[key]
            else:
                waiting[key] = self._queue(key, payload)
        for batch in {id(f): f for f in waiting.values()}.values():
            fresh = await asyncio.shield(batch)
            out.update((key, fresh[key]) for key, future in waiting.items() if future is batch)
        return out

    def _queue(self, key: Hashable, payload: Any) -> asyncio.Future:
        self._pending[key] = payload
        if self._batch is None:
            loop = asyncio.get_running_loop()
            self._batch = loop.create_future()
            # Flush after every coroutine started in this loop iteration has queued its keys.
            loop.call_soon(self._flush)
        self._in_flight[key] = self._batch
        return self._batch

    def _flush(self) -> None:
        pending, batch = self._pending, self._batch
        self._pending, self._batch = {}, None
        keys = list(pending)

        async def run() -> None:
            try:
                values = await asyncio.to_thread(self.compute, [pending[k] for k in keys])
            except Exception as exc:  # the waiting judgments turn this into unscored replies
                batch.set_exception(exc)
                return
            finally:
                for key in keys:
                    if self._in_flight.get(key) is batch:
                        del self._in_flight[key]
            fresh = dict(zip(keys, values, strict=True))
            self.cache.update(fresh)
            batch.set_result(fresh)

        # The loop keeps only weak references to tasks; hold this one until it finishes.
        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # Nobody may be left awaiting a failed batch; mark its exception retrieved for the loop's logger.
        batch.add_done_callback(lambda f: f.cancelled() or f.exception())

"""How the ingress cuts a request into chunks and shares the scorers between requests, and how a scorer takes turns
between the chunks it holds.

`chunk_by_group` keeps a GRPO group in one chunk where it fits and splits a group larger than a chunk (its group
statistics are then computed at the ingress from the parts' score vectors). `FairShare` hands the scorers' chunk
slots to the requests in flight in turn, one chunk each, so a small request waits for one chunk slot, not behind
every chunk of a large request that arrived first; and a small request (a probe, a validation item, an online
shadow score) does not wait for a slot at all: it takes one of a few express slots beyond them. At the scorer,
`vectors_in_turns` plans a chunk's rules a few groups at a time, letting the event loop run between them, so a small
chunk that arrives waits for one turn of rule checks, not for a whole large chunk's.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

from reward.schema import Item, ItemResult

T = TypeVar("T")

LARGE_BODY_BYTES = 256 * 1024
"""A request body above this is parsed in a worker thread, off the ingress's event loop."""
LARGE_WORKERS = 8
"""Threads of the pool that runs large requests' work (and waits: a large batch's turn at the score log)."""
_large_pool: ThreadPoolExecutor | None = None


def chunk_by_group(items: list[Item], size: int, *, split_large: bool = False) -> list[list[int]]:
    """Indices of `items` in chunks of about `size`, never splitting a group that fits in one; a larger group is
    one chunk, or with `split_large` chunks of `size` of its own.

    >>> items = [Item(id=str(i), group=g, query="q", response="r") for i, g in enumerate("aabbbc")]
    >>> chunk_by_group(items, 2)
    [[0, 1], [2, 3, 4], [5]]
    >>> chunk_by_group(items, 2, split_large=True)
    [[0, 1], [2, 3], [4, 5]]
    """
    order: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        order.setdefault(item.group if item.group is not None else f"\x00{index}", []).append(index)
    chunks: list[list[int]] = [[]]
    for members in order.values():
        if split_large and len(members) > size:
            for start in range(0, len(members), size):
                part = members[start:start + size]
                if chunks[-1] and len(chunks[-1]) + len(part) > size:
                    chunks.append([])
                chunks[-1].extend(part)
            continue
        if chunks[-1] and len(chunks[-1]) + len(members) > size:
            chunks.append([])
        chunks[-1].extend(members)
    return [c for c in chunks if c]


def largest_group(items: list[Item]) -> int:
    counts: dict[str, int] = {}
    for item in items:
        if item.group is not None:
            counts[item.group] = counts.get(item.group, 0) + 1
    return max(counts.values(), default=1)


TURN_ITEMS = 16
"""Items whose rules a scorer checks in one go before it lets other chunks run (groups are never split)."""


async def vectors_in_turns(engine, items: list[Item], size: int = TURN_ITEMS) -> list[dict]:
    """`engine.vectors(items)`, planned `size` items (whole groups) at a time with the event loop run in between;
    every turn's judge calls are in flight together, as in one call. A turn's planning is synchronous, so a scorer
    holding a 256-item chunk would otherwise keep a 1-item chunk waiting for the whole chunk's rule checks."""
    parts = chunk_by_group(items, size)
    if len(parts) <= 1:
        return await engine.vectors(items)
    tasks = []
    for part in parts:
        # The task runs this turn's planning when the loop next comes round; whatever became ready meanwhile (a
        # small chunk's request) runs before the next turn is scheduled.
        tasks.append(asyncio.ensure_future(engine.vectors([items[i] for i in part])))
        await asyncio.sleep(0)
    vectors: list[dict] = [{}] * len(items)
    for part, done in zip(parts, await asyncio.gather(*tasks), strict=True):
        for index, vector in zip(part, done, strict=True):
            vectors[index] = vector
    return vectors


def _large_work() -> ThreadPoolExecutor:
    global _large_pool
    if _large_pool is None:  # made in the process that uses it (a Serve replica), never pickled
        _large_pool = ThreadPoolExecutor(LARGE_WORKERS, thread_name_prefix="large-request")
    return _large_pool


async def off_loop(large: bool, function: Callable[..., T], *args, **kwargs) -> T:
    """`function(*args, **kwargs)`: for a large request in a thread of the large requests' own pool, as its parsing,
    validation and serialisation would hold the event loop (and every small request on the replica) for hundreds of
    milliseconds; inline for a small one."""
    if large:
        return await asyncio.get_running_loop().run_in_executor(_large_work(), functools.partial(function, *args, **kwargs))
    return function(*args, **kwargs)


async def in_worker(large: bool, function: Callable[..., T], *args, **kwargs) -> T:
    """`function(*args, **kwargs)` in a thread (blocking work: a write, an fsync): a large request's in the large
    requests' pool, a small one's in the loop's default pool, so a small request never queues for a thread behind
    large ones that wait for the score log."""
    if large:
        return await off_loop(True, function, *args, **kwargs)
    return await asyncio.to_thread(function, *args, **kwargs)


def parse_items(items: list[dict]) -> list[Item]:
    return [Item.model_validate(i) for i in items]


def chunk_reply(engine, items: list[Item], vectors: list[dict], finish: bool) -> dict:
    """A scorer's reply body for a chunk: its results, or (a part of a group scored on several scorers) its score
    vectors for the ingress to finish."""
    if finish:
        return {"results": [r.model_dump(mode="json") for r in engine.finish(items, vectors)]}
    return {"vectors": [{n: s.model_dump(mode="json") for n, s in v.items()} for v in vectors]}


def dump_items(items: list[Item], indices: list[int]) -> list[dict]:
    """The wire form of a chunk's items, as a scorer receives them."""
    return [items[i].model_dump(mode="json") for i in indices]


def results_in_order(size: int, chunks: list[list[int]], replies: list[dict]) -> list[ItemResult]:
    """The results of a request from its chunks' replies, in the request's order."""
    results: list[ItemResult | None] = [None] * size
    for indices, reply in zip(chunks, replies, strict=True):
        for index, result in zip(indices, reply["results"], strict=True):
            results[index] = ItemResult.model_validate(result)
    return results  # type: ignore[return-value]


class FairShare:
    """At most `slots` chunks in flight; a free slot goes to the waiting request that has been granted the fewest
    chunks so far (the earliest of those), so requests take turns and a small one never waits behind a large one's
    queue. A request marked `small` may also take one of `express` slots beyond them when all are busy, so it waits
    for no other chunk to finish.

    >>> async def demo():
    ...     share, order = FairShare(1), []
    ...     async def chunk(request, n):
    ...         await asyncio.sleep(0)
    ...         order.append((request, n))
    ...     large = [share.run("large", lambda n=n: chunk("large", n)) for n in range(3)]
    ...     small = [share.run("small", lambda: chunk("small", 0))]
    ...     await asyncio.gather(*large, *small)
    ...     return order
    >>> asyncio.run(demo())
    [('large', 0), ('small', 0), ('large', 1), ('large', 2)]
    """

    def __init__(self, slots: int, express: int = 1):
        self.slots = slots
        self.express = express
        self.busy = 0
        self.express_busy = 0
        self._waiting: dict[Hashable, deque[asyncio.Future]] = {}  # insertion order: first chunk's arrival
        self._small: set[Hashable] = set()  # waiting requests that may take an express slot
        self._running: dict[Hashable, int] = {}
        self._granted: dict[Hashable, int] = {}

    async def run(self, request: Hashable, call: Callable[[], Awaitable[T]], *, small: bool = False) -> T:
        turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(request, deque()).append(turn)
        if small:
            self._small.add(request)
        self._grant()
        try:
            express = await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted just as it was cancelled: give the slot back
                self._release(request, turn.result())
            raise
        try:
            return await call()
        finally:
            self._release(request, express)

    def _release(self, request: Hashable, express: bool) -> None:
        if express:
            self.express_busy -= 1
        else:
            self.busy -= 1
        self._running[request] -= 1
        if not self._running[request]:
            del self._running[request]
            if request not in self._waiting:  # done: a later request under the same key starts afresh
                self._granted.pop(request, None)
        self._grant()

    def _grant(self) -> None:
        while self._waiting:
            if self.busy < self.slots:
                express, candidates = False, self._waiting
            else:
                small = [r for r in self._waiting if r in self._small]
                if not small or self.express_busy >= self.express:
                    return
                express, candidates = True, small
            # Fewest chunks granted first, a small request before a large one, then the earliest (min keeps it).
            request = min(candidates, key=lambda r: (self._granted.get(r, 0), r not in self._small))
            queue = self._waiting[request]
            turn = queue.popleft()
            if not queue:
                del self._waiting[request]
                self._small.discard(request)
            if turn.cancelled():
                if request not in self._waiting and request not in self._running:
                    self._granted.pop(request, None)
                continue
            if express:
                self.express_busy += 1
            else:
                self.busy += 1
            self._running[request] = self._running.get(request, 0) + 1
            self._granted[request] = self._granted.get(request, 0) + 1
            turn.set_result(express)

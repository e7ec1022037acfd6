"""How the ingress cuts a request into chunks and shares the scorers between requests.

`chunk_by_group` keeps a GRPO group in one chunk where it fits and splits a group larger than a chunk (its group
statistics are then computed at the ingress from the parts' score vectors). `FairShare` hands the scorers' chunk
slots to the requests in flight in turn, one chunk each, so a small request waits for one chunk slot, not behind
every chunk of a large request that arrived first.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

from reward.schema import Item

T = TypeVar("T")


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


class FairShare:
    """At most `slots` chunks in flight; a free slot goes to the waiting request that has been granted the fewest
    chunks so far (the earliest of those), so requests take turns and a small one never waits behind a large one's
    queue.

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

    def __init__(self, slots: int):
        self.slots = slots
        self.busy = 0
        self._waiting: dict[Hashable, deque[asyncio.Future]] = {}  # insertion order: first chunk's arrival
        self._running: dict[Hashable, int] = {}
        self._granted: dict[Hashable, int] = {}

    async def run(self, request: Hashable, call: Callable[[], Awaitable[T]]) -> T:
        turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(request, deque()).append(turn)
        self._grant()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted just as it was cancelled: give the slot back
                self._release(request)
            raise
        try:
            return await call()
        finally:
            self._release(request)

    def _release(self, request: Hashable) -> None:
        self.busy -= 1
        self._running[request] -= 1
        if not self._running[request]:
            del self._running[request]
            if request not in self._waiting:  # done: a later request under the same key starts afresh
                self._granted.pop(request, None)
        self._grant()

    def _grant(self) -> None:
        while self.busy < self.slots and self._waiting:
            request = min(self._waiting, key=lambda r: self._granted.get(r, 0))  # min keeps the earliest of ties
            queue = self._waiting[request]
            turn = queue.popleft()
            if not queue:
                del self._waiting[request]
            if turn.cancelled():
                if request not in self._waiting and request not in self._running:
                    self._granted.pop(request, None)
                continue
            self.busy += 1
            self._running[request] = self._running.get(request, 0) + 1
            self._granted[request] = self._granted.get(request, 0) + 1
            turn.set_result(None)

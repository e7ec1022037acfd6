"""A bounded cache by content for pure readings of text (the rule tier's and the local judge tier's): every rollout of
a GRPO group and every dimension reads the same evidence, and a converged policy's rollouts share sentences, so the
same claim is read against the same evidence many times in one step.

`by_content` keys a call by its arguments' content: strings as they are, an evidence item by its fields, a list by
its elements, a number by its type and exact value (`content_key`), so two items that carry equal evidence share an
entry. A reading cached must be a pure function of its arguments returning an immutable value: a cached result is then
the one a fresh call gives, whatever was scored before, and the scores stay batch-invariant.

Memory stays bounded whatever a client sends: every reading shares one least-recently-used store of at most
`BUDGET_BYTES` (arguments and result counted in the bytes Python holds for them: a string by its width per
character, a set by its table), and a call whose entry would take more than `MAX_ENTRY_BYTES` is computed, not kept.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
BUDGET_BYTES = int(float(os.environ.get("REWARD_READING_CACHE_MB", "256")) * 2**20)
"""All readings' entries together (`REWARD_READING_CACHE_MB`, default 256): a 256-item GRPO step holds a few MB with
short evidence, tens of MB with pages of it (the evidence's sentences, words and n-grams are read once per group)."""
MAX_ENTRY_BYTES = BUDGET_BYTES // 8
"""A larger entry (32 MB at the default budget: the readings of evidence far past the item ceilings) is computed each
time, so that no one entry takes the store; the windows and figures of an 80,000-character evidence item (4.5 MB)
are kept."""
_ENTRY_OVERHEAD = 200  # the store's slot, the key tuples and the reading's token

_store: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
_lock = threading.Lock()
_held = 0
_tokens = itertools.count()


@functools.cache
def _evidence() -> type:
    # Imported when first needed: the response-format contract (`reward.format`, which the policy side imports)
    # caches with this module and must not pull in pydantic with it.
    from reward.schema import Evidence

    return Evidence


def content_key(value: Any) -> Any:
    """A hashable stand-in for `value` that equals another's exactly when their contents do: 0.0 and -0.0, 1 and 1.0
    and True are three keys.

    >>> from reward.schema import Evidence
    >>> content_key([Evidence(id="1", text="a")]) == content_key((Evidence(id="1", text="a"),))
    True
    >>> content_key([Evidence(id="1", text="a")]) == content_key([Evidence(id="1", text="b")])
    False
    >>> len({content_key(0.0), content_key(-0.0), content_key(0), content_key(False)})
    4
    >>> content_key({"x": [1, 2]})
    Traceback (most recent call last):
    ...
    TypeError: no content key for dict
    """
    if isinstance(value, (str, frozenset)) or value is None:
        return value
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (bool, int, dt.date)):
        return (type(value).__name__, value)
    if isinstance(value, (list, tuple)):
        return ("seq", *map(content_key, value))
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, _evidence()):
        return ("evidence", value.id, value.title, value.text, value.source, content_key(value.published))
    raise TypeError(f"no content key for {type(value).__name__}")


def size_of(value: Any) -> int:
    """The bytes a key or a result holds, near enough: strings as Python stores them, containers with what they hold,
    sets with the tuples they hold (a set of a text's word triples holds far more in its tuples than in its table) but
    not their strings, which the reading's other parts (its word list) or the text's other readings hold too.

    >>> size_of("abc") < size_of("ab€") < size_of("ab😀")
    True
    >>> size_of(frozenset({("a", "b", "c")})) > size_of(frozenset({"abc"})) == size_of(frozenset())
    True
    >>> value = [("ab", frozenset({("a", "b")}))] * 3
    >>> _sized(value, 10**6) == size_of(value), _sized(value, 100) < size_of(value), _sized(value, 100) > 100
    (True, True, True)
    """
    return _sized(value, sys.maxsize)


def _sized(value: Any, room: int) -> int:
    """`size_of(value)`, or a figure past `room` as soon as the count passes it: a reading too large to keep (the
    windows of a book-length evidence item) is not counted to its end on each call that computes it again."""
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        sized = isinstance(value, (tuple, list))
        total = 56 + 8 * len(value) if sized else sys.getsizeof(value)
        for part in value:
            if total > room:
                break
            total += _sized(part, room - total) if sized else _shell(part)
        return total
    if isinstance(value, re.Match):
        return 200 + sys.getsizeof(value.string)
    if isinstance(value, _evidence()):
        return sum(sys.getsizeof(part) for part in (value.id, value.title, value.text, value.source))
    return 32


def _shell(value: Any) -> int:
    """What a set's element holds beyond the strings it shares with the reading's other parts (a word triple's tuple,
    not its three words, which the text's word list holds)."""
    return 56 + 8 * len(value) + sum(map(_shell, value)) if isinstance(value, tuple) else 0


def held_bytes() -> int:
    """The bytes all readings' entries hold now."""
    return _held


def _drop(key: Any) -> None:
    global _held
    _held -= _store.pop(key)[1]


def by_content(function: F) -> F:
    """Cache a pure function's results by the content of its arguments (`content_key`) in the shared store.
    `.cache_clear()` drops this reading's entries."""
    token = next(_tokens)

    @functools.wraps(function)
    def cached(*args: Any, **kwargs: Any) -> Any:
        global _held
        if not kwargs and all(type(a) is str for a in args):  # the common case, keyed as it is
            key: Any = (token, args)
        else:
            key = (token, tuple(map(content_key, args)), tuple(sorted((k, content_key(v)) for k, v in kwargs.items())))
        with _lock:
            found = _store.get(key)
            if found is not None:
                _store.move_to_end(key)
                return found[0]
        value = function(*args, **kwargs)
        size = _ENTRY_OVERHEAD + size_of(args) + size_of(tuple(kwargs.values()))
        size += _sized(value, MAX_ENTRY_BYTES - size)
        if size <= MAX_ENTRY_BYTES:
            with _lock:
                if key not in _store:
                    _store[key] = (value, size)
                    _held += size
                while _held > BUDGET_BYTES and _store:
                    _drop(next(iter(_store)))
        return value

    def cache_clear() -> None:
        with _lock:
            for key in [k for k in _store if k[0] == token]:
                _drop(key)

    cached.cache_clear = cache_clear  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]

"""A bounded cache by content for pure readings of text (the rule tier's and the local judge tier's): every rollout of
a GRPO group and every dimension reads the same evidence, and a converged policy's rollouts share sentences, so the
same claim is read against the same evidence many times in one step.

`by_content` keys a call by its arguments' content: strings as they are, an evidence item by its fields, a list by
its elements (`content_key`), so two items that carry equal evidence share an entry. A reading cached must be a pure
function of its arguments returning an immutable value: a cached result is then the one a fresh call gives, whatever
was scored before, and the scores stay batch-invariant. Memory stays bounded: at most `maxsize` entries per reading,
and a call whose arguments hold more than `max_chars` characters is computed, not kept.
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from reward.schema import Evidence

F = TypeVar("F", bound=Callable[..., Any])
MAX_CHARS = 50_000
"""Arguments longer than this (in characters, all strings together) are not kept: 1,024 entries stay under ~100 MB."""
_ATOMS = (str, int, float, bool, type(None), dt.date, frozenset)


def content_key(value: Any) -> Any:
    """A hashable stand-in for `value` that equals another's exactly when their contents do.

    >>> content_key([Evidence(id="1", text="a")]) == content_key((Evidence(id="1", text="a"),))
    True
    >>> content_key([Evidence(id="1", text="a")]) == content_key([Evidence(id="1", text="b")])
    False
    >>> content_key({"x": [1, 2]})
    Traceback (most recent call last):
    ...
    TypeError: no content key for dict
    """
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, Evidence):
        return ("evidence", value.id, value.title, value.text, value.source, value.published)
    if isinstance(value, (list, tuple)):
        return ("seq", *map(content_key, value))
    if isinstance(value, set):
        return frozenset(value)
    raise TypeError(f"no content key for {type(value).__name__}")


def _chars(value: Any) -> int:
    """The characters an argument holds: its strings' lengths (a set counts its elements: it is shared, not copied)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Evidence):
        return len(value.title) + len(value.text) + len(value.source)
    if isinstance(value, (list, tuple)):
        return sum(map(_chars, value))
    if isinstance(value, (set, frozenset)):
        return len(value)
    return 0


def by_content(maxsize: int = 1024, max_chars: int = MAX_CHARS) -> Callable[[F], F]:
    """Cache a pure function's results by the content of its arguments (`content_key`), least recently used out
    once `maxsize` are held; a call whose arguments hold more than `max_chars` characters is not cached.
    `.cache_clear()` empties the cache."""

    def decorate(function: F) -> F:
        cache: OrderedDict[Any, Any] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(function)
        def cached(*args: Any, **kwargs: Any) -> Any:
            if not kwargs and all(type(a) is str for a in args):  # the common case, keyed as it is
                key: Any = args
                size = sum(map(len, args))
            else:
                key = (tuple(map(content_key, args)), tuple(sorted((k, content_key(v)) for k, v in kwargs.items())))
                size = _chars(args) + _chars(tuple(kwargs.values()))
            if size > max_chars:
                return function(*args, **kwargs)
            with lock:
                if key in cache:
                    cache.move_to_end(key)
                    return cache[key]
            value = function(*args, **kwargs)
            with lock:
                cache[key] = value
                if len(cache) > maxsize:
                    cache.popitem(last=False)
            return value

        cached.cache_clear = cache.clear  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    return decorate

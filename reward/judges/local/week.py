"""The days of the week a text names without naming them: by the part of the week they are in ("weekdays") or by a
range of days ("Monday to Friday"). Pure functions of strings."""

from __future__ import annotations

import re

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEK_PARTS = (("weekday", frozenset(DAYS[:5])), ("working day", frozenset(DAYS[:5])), ("weekend", frozenset(DAYS[5:])))
"""Parts of the week the evidence may name instead of their days: "weekdays" names Monday to Friday."""
_DAY = "(" + "|".join(DAYS) + ")s?"
_RANGE = re.compile(rf"\b{_DAY}\s*(?:to|-|–|—|through|until|till)\s*{_DAY}\b")
"""A range of days ("Monday to Friday", "Tuesday–Thursday"): it names every day from the first to the last."""


def days_named(lowered: str) -> frozenset[str]:
    """The days of the week a lower-cased text names by the part of the week they are in ("weekdays") or by a range
    of days ("monday to friday", running on past Sunday: "friday to monday").

    >>> sorted(days_named("open on weekdays")) == sorted(DAYS[:5]), sorted(days_named("monday to wednesday, 9-5"))
    (True, ['monday', 'tuesday', 'wednesday'])
    >>> sorted(days_named("friday-monday")), days_named("on monday and friday")
    (['friday', 'monday', 'saturday', 'sunday'], frozenset())
    """
    named = set().union(*(days for part, days in _WEEK_PARTS if part in lowered))
    for first, last in _RANGE.findall(lowered):
        start = DAYS.index(first)
        named.update(DAYS[(start + k) % 7] for k in range((DAYS.index(last) - start) % 7 + 1))
    return frozenset(named)

"""The cache by content of the tiers' readings (`reward.memo`): equal contents share one call, other contents do not,
it stays bounded in entries and in characters, and a cached reading gives what a fresh one does."""

import datetime as dt

import pytest

from reward.judges.local.claims import claim_support
from reward.memo import by_content, content_key
from reward.schema import Evidence


def test_equal_contents_share_one_call_and_other_contents_do_not():
    calls = []

    @by_content(maxsize=2)
    def read(claim, docs, worked=frozenset()):
        calls.append(claim)
        return (claim, len(docs))

    first = [Evidence(id="1", text="The museum opens at 9.")]
    assert read("opens at 9", first) == read("opens at 9", [Evidence(id="1", text="The museum opens at 9.")])
    assert calls == ["opens at 9"]
    read("opens at 9", [Evidence(id="1", text="The museum opens at 10.")])  # another text
    read("opens at 9", [Evidence(id="1", text="The museum opens at 9.", published=dt.date(2025, 1, 1))])  # dated
    read("opens at 9", first, worked=frozenset({"9"}))  # another keyword argument
    assert len(calls) == 4
    read("opens at 9", first)  # evicted: the cache holds the two most recent
    assert len(calls) == 5
    read.cache_clear()
    read("opens at 9", first)
    assert len(calls) == 6


def test_arguments_longer_than_the_bound_are_computed_not_kept():
    calls = []

    @by_content(max_chars=100)
    def read(claim, haystack):
        calls.append(claim)
        return len(haystack)

    assert read("a", "x" * 99) == read("a", "x" * 99) == 99
    assert len(calls) == 1
    assert read("a", "x" * 100) == read("a", "x" * 100) == 100  # 101 characters in all: not kept
    assert len(calls) == 3
    long_evidence = [Evidence(id="1", text="y" * 200)]
    read("b", long_evidence)
    read("b", long_evidence)
    assert len(calls) == 5


def test_an_argument_without_a_content_key_is_refused_not_cached_by_identity():
    @by_content()
    def read(options):
        return len(options)

    with pytest.raises(TypeError, match="no content key for dict"):
        read({"a": 1})
    assert content_key({"b", "a"}) == content_key(frozenset({"a", "b"}))


def test_a_cached_claim_check_is_the_one_a_fresh_call_gives():
    museum = [Evidence(id="1", text="From 2026 the museum closes at 17:00 on Sundays instead of 18:00.")]
    claims = ["The museum closes at 18:00 on Sundays.", "It closes at 17:00.", "Sunday closing is at 17:00 from 2026."]
    warm = [claim_support(c, museum) for c in claims]
    again = [claim_support(c, [Evidence(id="1", text=museum[0].text)]) for c in claims]
    fresh = [claim_support.__wrapped__(c, museum) for c in claims]
    assert warm == again == fresh
    assert warm[0] == (False, "says 18:00 where the evidence says not 18:00") and warm[1] == (True, "")

"""The cache by content of the tiers' readings (`reward.memo`): equal contents share one call, other contents do not,
memory stays within its budget whatever the arguments and results, and a cached reading gives what a fresh one does."""

import datetime as dt
from collections import OrderedDict

import pytest

from reward import memo
from reward.judges.local.claims import claim_support
from reward.memo import by_content, content_key, held_bytes
from reward.rules.checks import _plain
from reward.schema import Evidence


def test_equal_contents_share_one_call_and_other_contents_do_not():
    calls = []

    @by_content
    def read(claim, docs, similarity=0.0, worked=frozenset()):
        calls.append(claim)
        return (claim, len(docs), similarity)

    first = [Evidence(id="1", text="The museum opens at 9.")]
    assert read("opens at 9", first) == read("opens at 9", [Evidence(id="1", text="The museum opens at 9.")])
    assert calls == ["opens at 9"]
    read("opens at 9", [Evidence(id="1", text="The museum opens at 10.")])  # another text
    read("opens at 9", [Evidence(id="1", text="The museum opens at 9.", published=dt.date(2025, 1, 1))])  # dated
    read("opens at 9", first, worked=frozenset({"9"}))  # another keyword argument
    assert len(calls) == 4
    assert read("opens at 9", first, -0.0)[2] == -0.0 and read("opens at 9", first, 0.0)[2] == 0.0  # two keys
    assert len(calls) == 6
    read.cache_clear()
    read("opens at 9", first)
    assert len(calls) == 7


@pytest.fixture
def empty_store(monkeypatch):
    """A store of its own, empty: what earlier tests left in the process's store would be evicted first."""
    monkeypatch.setattr(memo, "_store", OrderedDict())
    monkeypatch.setattr(memo, "_held", 0)


def test_memory_stays_within_the_budget_and_a_large_entry_is_not_kept(monkeypatch, empty_store):
    monkeypatch.setattr(memo, "BUDGET_BYTES", 2 * 2**20)
    calls = []

    @by_content
    def expand(text):
        calls.append(text)
        return text * 18  # a result far larger than its argument, as a decomposition can make

    # each entry ~ 230 KB (a 6,000-character argument of 4-byte characters and its 18-fold result): the budget keeps
    # about 9 of them, the oldest go first
    texts = [chr(0x1F600 + i) * 6_000 for i in range(40)]
    for text in texts:
        expand(text)
    assert held_bytes() <= memo.BUDGET_BYTES
    expand(texts[-1])
    assert len(calls) == 40  # the newest is kept
    expand(texts[0])
    assert len(calls) == 41  # the oldest was dropped
    monkeypatch.setattr(memo, "MAX_ENTRY_BYTES", 100_000)
    expand("\ufdfa" * 5_000)
    expand("\ufdfa" * 5_000)
    assert len(calls) == 43  # over the entry bound: computed each time
    expand.cache_clear()


def test_hostile_readings_cannot_grow_the_store_past_its_budget(monkeypatch, empty_store):
    """The copy check's reading multiplies some characters' length by 18 (U+FDFA decomposes to 18 letters)."""
    monkeypatch.setattr(memo, "BUDGET_BYTES", 2**20)
    for n in range(60):
        assert len(_plain("\ufdfa" * 2_000 + str(n))) > 36_000
    assert 0 < held_bytes() <= memo.BUDGET_BYTES < 60 * 36_000


def test_an_argument_without_a_content_key_is_refused_not_cached_by_identity():
    @by_content
    def read(options):
        return len(options)

    with pytest.raises(TypeError, match="no content key for dict"):
        read({"a": 1})
    assert content_key({"b", "a"}) == content_key(frozenset({"a", "b"}))
    assert len({content_key(1), content_key(1.0), content_key(True)}) == 3


def test_a_cached_claim_check_is_the_one_a_fresh_call_gives():
    museum = [Evidence(id="1", text="From 2026 the museum closes at 17:00 on Sundays instead of 18:00.")]
    claims = ["The museum closes at 18:00 on Sundays.", "It closes at 17:00.", "Sunday closing is at 17:00 from 2026."]
    warm = [claim_support(c, museum) for c in claims]
    again = [claim_support(c, [Evidence(id="1", text=museum[0].text)]) for c in claims]
    fresh = [claim_support.__wrapped__(c, museum) for c in claims]
    assert warm == again == fresh
    assert warm[0] == (False, "says 18:00 where the evidence says not 18:00") and warm[1] == (True, "")

"""What a rubric edit does to the scores of a set of items: `reward rubric diff OLD_DIR NEW_DIR --input items.jsonl`.

Both rubric versions score the same items with the same judge and one shared reply cache, so a dimension the edit
did not touch is judged once (its calls have the same content key in both versions) and only edited dimensions cost
judge calls. The comparison is per dimension (mean score before and after, how many items moved) and for the reward
(mean, validity), with the items whose reward moved most.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from reward.engine import Engine, ReplyCache
from reward.judges.base import Judge
from reward.rubric import LoadedSuite
from reward.schema import Item, ItemResult

MOVED = 1e-9
"""A score or reward change larger than this counts as a move (float noise is not an edit's effect)."""


@dataclass(frozen=True)
class DimensionDelta:
    """One dimension's scores before and after the edit (means over the items scored in both)."""

    name: str
    status: str
    """`changed`, `unchanged`, `added` or `removed` (in the suite)."""
    old_mean: float | None
    new_mean: float | None
    moved: int
    """Items whose score changed, or that became scored or unscored."""
    weight_old: float | None
    weight_new: float | None

    @property
    def delta(self) -> float | None:
        if self.old_mean is None or self.new_mean is None:
            return None
        return self.new_mean - self.old_mean


@dataclass(frozen=True)
class ItemMove:
    id: str
    old_reward: float
    new_reward: float
    old_valid: bool
    new_valid: bool
    dimensions: dict[str, tuple[float | None, float | None]]
    """The dimensions whose score moved on this item: (old, new), None where unscored."""

    @property
    def delta(self) -> float:
        return self.new_reward - self.old_reward


@dataclass
class RubricDiff:
    old_version: str
    new_version: str
    items: int
    dimensions: list[DimensionDelta]
    moves: list[ItemMove]
    """Every item, largest absolute reward change first."""
    judge_calls: dict[str, int] = field(default_factory=dict)
    """Judge calls made for the old and the new version (the new one reuses the old one's unchanged calls)."""

    @property
    def old_reward(self) -> float:
        return sum(m.old_reward for m in self.moves) / max(len(self.moves), 1)

    @property
    def new_reward(self) -> float:
        return sum(m.new_reward for m in self.moves) / max(len(self.moves), 1)

    @property
    def rewards_moved(self) -> int:
        return sum(abs(m.delta) > MOVED for m in self.moves)


def _score_of(result: ItemResult, name: str) -> float | None:
    score = result.dimensions.get(name)
    return score.score if score is not None and score.status == "ok" else None


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def compare(old: LoadedSuite, new: LoadedSuite, old_results: Sequence[ItemResult],
            new_results: Sequence[ItemResult]) -> RubricDiff:
    """The per-dimension and per-item comparison of two result lists over the same items."""
    names = list(old.dimensions) + [n for n in new.dimensions if n not in old.dimensions]
    deltas = []
    for name in names:
        before = [_score_of(r, name) for r in old_results]
        after = [_score_of(r, name) for r in new_results]
        moved = sum((a is None) != (b is None) or (a is not None and b is not None and abs(a - b) > MOVED)
                    for a, b in zip(before, after, strict=True))
        in_old, in_new = name in old.dimensions, name in new.dimensions
        weight_old = old.suite.dimensions.get(name)
        weight_new = new.suite.dimensions.get(name)
        if not in_old:
            status = "added"
        elif not in_new:
            status = "removed"
        else:
            edited = old.dimensions[name] != new.dimensions[name] or weight_old != weight_new
            status = "changed" if edited or moved else "unchanged"
        deltas.append(DimensionDelta(name, status, _mean(before) if in_old else None, _mean(after) if in_new else None,
                                     moved, weight_old, weight_new))
    moves = []
    for before, after in zip(old_results, new_results, strict=True):
        moved = {n: (_score_of(before, n), _score_of(after, n)) for n in names
                 if _score_of(before, n) != _score_of(after, n)}
        moves.append(ItemMove(before.id, before.reward, after.reward, before.valid, after.valid, moved))
    moves.sort(key=lambda m: -abs(m.delta))
    return RubricDiff(old.version, new.version, len(moves), deltas, moves)


def rubric_diff(old: LoadedSuite, new: LoadedSuite, items: Sequence[Item], judge: Judge, *,
                cache: ReplyCache | None = None, max_concurrency: int = 64) -> RubricDiff:
    """Score `items` with both suite versions (one judge, one reply cache) and compare."""
    cache = cache if cache is not None else ReplyCache()
    old_engine = Engine(old, judge, cache=cache, max_concurrency=max_concurrency)
    new_engine = Engine(new, judge, cache=cache, max_concurrency=max_concurrency)

    async def run() -> tuple[list[ItemResult], list[ItemResult]]:
        try:
            return await old_engine.score(items), await new_engine.score(items)
        finally:
            await judge.close()

    old_results, new_results = asyncio.run(run())
    diff = compare(old, new, old_results, new_results)
    diff.judge_calls = {"old": old_engine.stats.judge_calls_made, "new": new_engine.stats.judge_calls_made}
    return diff

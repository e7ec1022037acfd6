"""Replay: re-score logged items with the suite version and judge recorded beside them and report any drift.

A logged reward is only evidence if it can be reproduced. `replay` takes score-log records (all, or whole GRPO
groups sampled from them: an item's group statistics need its group), checks that the suite loaded now has the
version each record was scored with and that the judge given has the identity the record names (backend, model or
runtime, sampling settings, seed), re-scores the items and compares every dimension and the reward with what was
logged. A changed rubric, another judge, or a score that moved beyond the tolerance is drift; `reward replay` exits
non-zero on any of them. The local tier is batch-invariant (`reward.judges.local_runtime.forward_each`), so a replay
of its scores on the same runtime reproduces them bit for bit whatever the batches were; an LLM judge reproduces
only where its server decodes deterministically (a fixed seed, temperature 0, a batch-invariant server).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from reward.engine import Engine
from reward.judges.base import Judge
from reward.rubric import LoadedSuite
from reward.scorelog.segments import ScoreRecord


class DimensionDrift(BaseModel):
    """What moved in one dimension between the log and the replay."""

    compared: int = 0
    """Items where both the logged and the replayed verdict exist."""
    drifted: int = 0
    """Items whose score moved by more than the tolerance, or whose status changed (`ok` <-> `unscored`)."""
    status_changed: int = 0
    """Items scored on one side and unscored on the other."""
    max_abs_delta: float = 0.0
    """The largest |replayed - logged| score among items scored on both sides."""


class Mismatch(BaseModel):
    """Records whose recorded suite version or judge differs from what the replay runs with."""

    what: str
    """`suite_version` or `judge`."""
    suite: str
    logged: str
    """What the records name."""
    now: str
    records: int


class ReplayReport(BaseModel):
    """The outcome of a replay; `drift` is False only when everything was reproduced within the tolerance."""

    records: int
    """Records replayed."""
    skipped: int = 0
    """Records that could not be replayed: written without their item (`keep_items` off)."""
    tolerance: float
    unrecorded_judge: int = 0
    """Records from a log that predates the `judge` field: compared by their scores alone."""
    mismatches: list[Mismatch] = Field(default_factory=list)
    reward: DimensionDrift = Field(default_factory=DimensionDrift)
    """The scalar reward, compared like a dimension."""
    dimensions: dict[str, DimensionDrift] = Field(default_factory=dict)
    worst: list[dict] = Field(default_factory=list)
    """The items that moved most: id, dimension, logged and replayed score."""

    @property
    def drift(self) -> bool:
        return bool(self.mismatches or self.reward.drifted or any(d.drifted for d in self.dimensions.values()))


def sample_groups(records: Sequence[ScoreRecord], groups: int | None, seed: int = 0) -> list[ScoreRecord]:
    """Records of `groups` GRPO groups drawn at random (seeded; an item without a group is a group of its own), in log
    order; all records when `groups` is None."""
    if groups is None:
        return list(records)
    keys = sorted({_group_key(r) for r in records})
    chosen = set(random.Random(seed).sample(keys, min(groups, len(keys))))
    return [r for r in records if _group_key(r) in chosen]


def _group_key(record: ScoreRecord) -> tuple:
    return (record.run or "", record.step if record.step is not None else -1, record.suite,
            record.group if record.group is not None else f"\x00{record.result.id}")


def _compare(drift: DimensionDrift, logged: float | None, replayed: float | None, tolerance: float) -> float:
    """Count one comparison into `drift`; the absolute delta (inf for a status change)."""
    drift.compared += 1
    if (logged is None) != (replayed is None):
        drift.status_changed += 1
        drift.drifted += 1
        return float("inf")
    if logged is None:
        return 0.0
    delta = abs(replayed - logged)
    drift.max_abs_delta = max(drift.max_abs_delta, delta)
    drift.drifted += delta > tolerance
    return delta


def replay(records: Sequence[ScoreRecord], suite_for: Callable[[str], LoadedSuite], judge: Judge,
           tolerance: float = 0.0, worst: int = 10) -> ReplayReport:
    """Re-score `records` (each with the suite `suite_for(name)` returns) with `judge` and compare with the log.
    Records of one suite are scored together; the local tier's scores do not depend on how they are batched."""
    replayable = [r for r in records if r.item is not None]
    report = ReplayReport(records=len(replayable), skipped=len(records) - len(replayable), tolerance=tolerance)
    by_suite: dict[str, list[ScoreRecord]] = defaultdict(list)
    for record in replayable:
        by_suite[record.suite].append(record)
    moved: list[tuple[float, str, str, float | None, float | None]] = []
    for name, members in sorted(by_suite.items()):
        suite = suite_for(name)
        for what, now, logged_of in (("suite_version", suite.version, lambda r: r.suite_version),
                                     ("judge", judge.identity, lambda r: r.judge)):
            counts: dict[str | None, int] = defaultdict(int)
            for record in members:
                counts[logged_of(record)] += 1
            # A log written before records named their judge cannot say which judge scored it: that is noted, and
            # the scores themselves still have to come back.
            report.unrecorded_judge += counts.pop(None, 0) if what == "judge" else 0
            report.mismatches += [Mismatch(what=what, suite=name, logged=logged, now=now, records=n)
                                  for logged, n in sorted(counts.items(), key=lambda kv: str(kv[0])) if logged != now]
        results = Engine(suite, judge).score_sync([r.item for r in members])
        for record, result in zip(members, results, strict=True):
            item_id = record.result.id
            delta = _compare(report.reward, record.result.reward, result.reward, tolerance)
            moved.append((delta, item_id, "reward", record.result.reward, result.reward))
            for dimension in sorted(set(record.result.dimensions) | set(result.dimensions)):
                before, after = record.result.dimensions.get(dimension), result.dimensions.get(dimension)
                logged = None if before is None else before.score
                replayed = None if after is None else after.score
                delta = _compare(report.dimensions.setdefault(dimension, DimensionDrift()), logged, replayed, tolerance)
                moved.append((delta, item_id, dimension, logged, replayed))
    moved = [m for m in moved if m[0] > tolerance]
    moved.sort(key=lambda m: m[0], reverse=True)
    report.worst = [{"id": i, "dimension": d, "logged": a, "replayed": b} for _, i, d, a, b in moved[:worst]]
    return report

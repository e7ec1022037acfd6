"""Fitting the judge cascade's thresholds (`reward cascade fit`): score labelled items with the cheap tier
(`cheap_observations`), pick per dimension the lowest confidence at which it agrees with the reference often enough
(`fit_thresholds`, one threshold or one per verdict), and write the `thresholds:` block of a cascade config
(`threshold_config`). The reference is human labels or a logged LLM-judge run (`logged_labels`). The cascade itself
(`reward.judges.cascade`) only reads the thresholds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from reward.engine import Engine
from reward.evaluation.agreement import PASS_AT
from reward.judges.base import Judge, JudgeReply
from reward.judges.cascade import confidence_of
from reward.schema import Item

if TYPE_CHECKING:
    from reward.scorelog import ScoreRecord


def cheap_observations(suite, cheap: Judge, labels: Iterable[tuple[Item, str, int]]
                       ) -> dict[str, list[tuple[float, float, int]]]:
    """Score each labelled item once with the cheap tier: per dimension (cheap confidence, cheap score, label) where
    the cheap tier could judge (elsewhere the LLM judge keeps the calls). The input of `fit_thresholds`."""
    labels = list(labels)
    position: dict[str, int] = {}
    items = []
    for item, _, _ in labels:
        key = item.model_dump_json()
        if key not in position:
            position[key] = len(items)
            items.append(item)
    results = Engine(suite, cheap).score_sync(items)
    observations: dict[str, list[tuple[float, float, int]]] = {}
    for item, dimension, label in labels:
        score = results[position[item.model_dump_json()]].dimensions[dimension]
        if score.status != "ok" or score.score is None:
            continue
        confidence = score.confidence if score.confidence is not None else confidence_of(JudgeReply("cheap", score.score))
        observations.setdefault(dimension, []).append((confidence, score.score, label))
    return observations


def _fit_side(rows: list[tuple[float, float, int]], target: float, min_support: int) -> dict[str, float | int | None]:
    rows = sorted(rows, key=lambda r: -r[0])
    best: dict[str, float | int | None] = {"threshold": 1.0, "decided": 0.0, "agreement": None, "n": len(rows)}
    agree = 0
    for k, (confidence, score, label) in enumerate(rows, start=1):
        agree += int((score >= PASS_AT) == bool(label))
        cutoff = rows[k][0] if k < len(rows) else 0.0
        if cutoff == confidence:
            continue  # ties: a threshold cannot split equal confidences
        if k >= min_support and agree / k >= target:
            best = {"threshold": round(cutoff, 6), "decided": round(k / len(rows), 6), "agreement": round(agree / k, 6),
                    "n": len(rows)}
    return best


def fit_thresholds(observations: dict[str, list[tuple[float, float, int]]], target: float = 0.95,
                   min_support: int = 10, sided: bool = False) -> dict[str, dict]:
    """Per dimension, the lowest confidence threshold at which the cheap tier's pass/fail decisions agree with the
    reference (human labels, or an LLM judge's logged verdicts) at least `target` of the time on at least
    `min_support` items. `observations[dimension]` holds (cheap confidence, cheap score, reference label 0/1).

    Returns, per dimension: `threshold` (1.0 when no threshold reaches the target: the LLM judge keeps every call),
    `decided` (share of calls the cheap tier would decide), `agreement` (on those calls), `n`.

    >>> obs = {"d": [(0.9, 1.0, 1), (0.8, 0.9, 1), (0.7, 0.1, 0), (0.2, 0.6, 0), (0.1, 0.45, 1)]}
    >>> fit_thresholds(obs, target=1.0, min_support=2)["d"]
    {'threshold': 0.2, 'decided': 0.6, 'agreement': 1.0, 'n': 5}

    With `sided`, the cheap tier's passes and failures are fitted apart, each to the target on its own:
    `threshold` is `{"pass": .., "fail": ..}` and `sides` holds each side's fit; `decided` and `agreement` are
    over both.

    >>> obs = {"d": [(0.9, 0.95, 1), (0.8, 0.9, 0), (0.7, 0.85, 1), (0.9, 0.05, 0), (0.8, 0.1, 0), (0.6, 0.2, 0)]}
    >>> one = fit_thresholds(obs, target=1.0, min_support=2)["d"]
    >>> one["threshold"], one["decided"]
    (0.8, 0.333333)
    >>> fitted = fit_thresholds(obs, target=1.0, min_support=2, sided=True)["d"]
    >>> fitted["threshold"], fitted["decided"], fitted["agreement"]
    ({'pass': 1.0, 'fail': 0.0}, 0.5, 1.0)
    """
    fitted: dict[str, dict] = {}
    for name, rows in sorted(observations.items()):
        if not sided:
            fitted[name] = _fit_side(rows, target, min_support)
            continue
        sides = {side: _fit_side([r for r in rows if (r[1] >= PASS_AT) == (side == "pass")], target, min_support)
                 for side in ("pass", "fail")}
        decided = sum(float(f["decided"]) * int(f["n"]) for f in sides.values())
        agreeing = sum(float(f["agreement"] or 0.0) * float(f["decided"]) * int(f["n"]) for f in sides.values())
        fitted[name] = {"threshold": {side: f["threshold"] for side, f in sides.items()},
                        "decided": round(decided / len(rows), 6) if rows else 0.0,
                        "agreement": round(agreeing / decided, 6) if decided else None, "n": len(rows), "sides": sides}
    return fitted


def threshold_config(fitted: dict[str, dict]) -> dict[str, float | dict[str, float]]:
    """The `thresholds:` block for a cascade config from `fit_thresholds`: dimensions the cheap tier never decides
    are left out (they default to 1.0).

    >>> threshold_config({"a": {"threshold": 0.4}, "b": {"threshold": 1.0}, "c": {"threshold": {"pass": 1.0, "fail": 0.0}},
    ...                   "d": {"threshold": {"pass": 1.0, "fail": 1.0}}})
    {'a': 0.4, 'c': {'pass': 1.0, 'fail': 0.0}}
    """
    out: dict[str, float | dict[str, float]] = {}
    for name, row in fitted.items():
        threshold = row["threshold"]
        if (min(threshold.values()) if isinstance(threshold, dict) else threshold) < 1.0:
            out[name] = threshold
    return out


def logged_labels(records: Iterable[ScoreRecord], judged: Collection[str]
                  ) -> tuple[list[tuple[Item, str, int]], Counter[str], Counter[str]]:
    """Reference labels from a logged LLM-judge run: per record and judge dimension in `judged`, the LLM judge's
    verdict as pass/fail at `PASS_AT`, as (item, dimension, label) with the record's item.

    The LLM's verdict is the logged score, except where a cascade let the cheap tier decide: there it is the audit
    score, and an unaudited cheap decision gives no label. Unscored dimensions give none either. Also returns the
    backends the labels came from (to show what they are) and the reasons records or scores were skipped.
    """
    labels: list[tuple[Item, str, int]] = []
    backends: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for record in records:
        if record.item is None:
            skipped["record without its item (logged with keep_items off)"] += 1
            continue
        for name, score in record.result.dimensions.items():
            if name not in judged:
                continue
            if score.tier == "cheap":
                verdict = score.audit
                if verdict is None:
                    skipped["decided by the cheap tier, not audited"] += 1
                    continue
                backends["cascade audit"] += 1
            elif score.status != "ok" or score.score is None:
                skipped[f"unscored ({score.reason or 'unknown'})"] += 1
                continue
            else:
                verdict = score.score
                backends[score.backend] += 1
            labels.append((record.item, name, int(verdict >= PASS_AT)))
    return labels, backends, skipped

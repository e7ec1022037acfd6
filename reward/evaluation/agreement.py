"""Agreement statistics, on the ground floor of the evaluation code (numpy only): accuracy, pairwise and pointwise
AUC, Cohen's kappa (from labels, or from pass/fail counts), a seeded bootstrap interval, and the pass rule
(`PASS_AT`) the judge cascade's audits and the score store share."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

PASS_AT = 0.5
"""A score at or above this passes: the pass/fail rule of the cascade's audits (`reward.judges.cascade.Agreement`)."""


def accuracy(predicted: Sequence[int], labels: Sequence[int]) -> float | None:
    """Share of equal pairs; None for no data.

    >>> accuracy([1, 0, 1], [1, 1, 1])
    0.6666666666666666
    """
    if not labels:
        return None
    return sum(int(p == y) for p, y in zip(predicted, labels, strict=True)) / len(labels)


def pairwise_auc(preferred: Sequence[float], other: Sequence[float]) -> float | None:
    """Share of pairs where the preferred response scores higher; a tie counts 0.5 (SearchLLM eq. 7).

    >>> pairwise_auc([0.9, 0.5, 0.3], [0.1, 0.5, 0.4])
    0.5
    """
    if not preferred:
        return None
    wins = sum(1.0 if p > o else 0.5 if p == o else 0.0 for p, o in zip(preferred, other, strict=True))
    return wins / len(preferred)


def cohen_kappa(a: Sequence[int], b: Sequence[int], weights: str | None = None) -> float | None:
    """Cohen's kappa between two raters; `weights="quadratic"` for ordinal labels.

    None when undefined: no data, or both raters constant on the same single category (expected agreement 1).

    >>> round(cohen_kappa([0, 1, 1, 0], [0, 1, 0, 0]), 4)
    0.5
    """
    if not a:
        return None
    categories = sorted(set(a) | set(b))
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    if k == 1:
        return None
    observed = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    if weights == "quadratic":
        grid = np.arange(k)
        disagreement = (grid[:, None] - grid[None, :]) ** 2 / (k - 1) ** 2
    else:
        disagreement = 1.0 - np.eye(k)
    expected_disagreement = float((disagreement * expected).sum())
    if expected_disagreement == 0:
        return None
    return 1.0 - float((disagreement * observed).sum()) / expected_disagreement


def bootstrap_ci(values: Sequence, statistic: Callable[[list], float | None], resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of `statistic` over resamples of `values` (seeded, so reports are stable)."""
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(resamples):
        sample = [values[i] for i in rng.integers(0, len(values), len(values))]
        value = statistic(sample)
        if value is not None and not math.isnan(value):
            stats.append(value)
    if not stats:
        return None
    low, high = np.percentile(stats, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])
    return round(float(low), 4), round(float(high), 4)


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """Probability that a random positive scores above a random negative (a tie counts 0.5): the pointwise AUC.

    >>> roc_auc([0.9, 0.4], [0.4, 0.1])
    0.875
    """
    if not positives or not negatives:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def pass_fail_kappa(audits: int, agree: int, first_pass: int, second_pass: int) -> float | None:
    """Cohen's kappa of two raters' pass/fail decisions from counts: `audits` pairs, `agree` on the same side, and
    each rater's passes. None without pairs; 1.0 when both raters are constant and equal.

    >>> round(pass_fail_kappa(6, 4, 3, 3), 4)  # observed 2/3, chance 1/2
    0.3333
    """
    if not audits:
        return None
    observed = agree / audits
    p_first, p_second = first_pass / audits, second_pass / audits
    expected = p_first * p_second + (1 - p_first) * (1 - p_second)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)

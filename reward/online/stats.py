"""Statistics of online metrics: ratio metrics clustered by user (delta method), relative lifts with confidence
intervals and p-values, binomial intervals, and the AUC with DeLong's variance.

Users are the unit of randomisation, and one user has many sessions, so sessions are not independent: a rate such
as VCR = sum of valid sessions / sum of sessions is a ratio of two per-user sums, and its variance comes from the
delta method over users (Deng et al., "Applying the Delta Method in Metric Analytics", KDD 2018). Treating
sessions as independent would make intervals too narrow whenever users differ; the A/A tests in
tests/online/test_stats.py measure both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class RatioMoments:
    """Sufficient statistics of a ratio metric sum(y) / sum(n) over independent users (n: sessions, y: successes)."""

    users: int
    n: float
    y: float
    nn: float
    yy: float
    ny: float

    @classmethod
    def from_arrays(cls, n: np.ndarray, y: np.ndarray) -> RatioMoments:
        n, y = np.asarray(n, dtype=float), np.asarray(y, dtype=float)
        return cls(len(n), float(n.sum()), float(y.sum()), float((n * n).sum()), float((y * y).sum()), float((n * y).sum()))

    @property
    def rate(self) -> float | None:
        return self.y / self.n if self.n else None

    @property
    def variance(self) -> float | None:
        """Delta-method variance of the rate: Var(ȳ/n̄) ≈ (s_yy − 2 r s_ny + r² s_nn) / (K n̄²) over K users.

        >>> round(RatioMoments.from_arrays(np.array([1, 1, 1, 1]), np.array([1, 0, 1, 0])).variance, 6)
        0.083333
        """
        k = self.users
        if k < 2 or not self.n:
            return None
        r = self.y / self.n
        s_nn = (self.nn - self.n * self.n / k) / (k - 1)
        s_yy = (self.yy - self.y * self.y / k) / (k - 1)
        s_ny = (self.ny - self.n * self.y / k) / (k - 1)
        mean_n = self.n / k
        return max(0.0, (s_yy - 2 * r * s_ny + r * r * s_nn) / (k * mean_n * mean_n))


@dataclass(frozen=True)
class Lift:
    """Relative lift of a treatment rate over the control rate, with its delta-method interval and p-value."""

    treatment: float
    control: float
    lift: float
    """treatment / control − 1."""
    ci: tuple[float, float]
    """95% interval of the lift."""
    p_value: float
    """Two-sided p-value of lift = 0."""
    difference: float
    """treatment − control (absolute, in rate units)."""
    difference_ci: tuple[float, float]


def relative_lift(treatment: RatioMoments, control: RatioMoments, z: float = Z95) -> Lift | None:
    """Lift of `treatment` over `control` (independent arms); None when a rate or variance is undefined or the
    control rate is 0.

    Var(rt/rc − 1) ≈ Var(rt)/rc² + rt² Var(rc)/rc⁴; the p-value is the normal test of lift/se, so the interval
    excludes 0 exactly when p < 0.05.
    """
    rt, rc, vt, vc = treatment.rate, control.rate, treatment.variance, control.variance
    if rt is None or rc is None or vt is None or vc is None or rc == 0:
        return None
    lift = rt / rc - 1
    se = math.sqrt(vt / rc**2 + rt**2 * vc / rc**4)
    se_diff = math.sqrt(vt + vc)
    p_value = math.erfc(abs(lift) / se / math.sqrt(2)) if se > 0 else (1.0 if lift == 0 else 0.0)
    return Lift(treatment=rt, control=rc, lift=lift, ci=(lift - z * se, lift + z * se), p_value=p_value,
                difference=rt - rc, difference_ci=(rt - rc - z * se_diff, rt - rc + z * se_diff))


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a binomial proportion (sound at 0 and at small n, unlike the normal interval).

    >>> [round(x, 4) for x in wilson_interval(0, 100)]
    [0.0, 0.037]
    """
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _midranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values, method="average")


@dataclass(frozen=True)
class AUC:
    """Area under the ROC curve of a score predicting a binary outcome, with DeLong's 95% interval."""

    value: float
    ci: tuple[float, float]
    positives: int
    negatives: int


def auc_delong(scores: np.ndarray, outcomes: np.ndarray, z: float = Z95) -> AUC | None:
    """AUC = P(score of a positive > score of a negative) (+ half the ties), DeLong et al. (1988) variance.

    None when either class is empty.

    >>> auc_delong(np.array([0.9, 0.8, 0.3, 0.1]), np.array([1, 1, 0, 0])).value
    1.0
    >>> auc_delong(np.array([0.5, 0.5, 0.5, 0.5]), np.array([1, 0, 1, 0])).value
    0.5
    """
    scores, outcomes = np.asarray(scores, dtype=float), np.asarray(outcomes).astype(bool)
    positive, negative = scores[outcomes], scores[~outcomes]
    m, n = len(positive), len(negative)
    if m == 0 or n == 0:
        return None
    ranks_all = _midranks(np.concatenate([positive, negative]))
    value = (ranks_all[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (ranks_all[:m] - _midranks(positive)) / n  # per positive: share of negatives it beats
    v01 = 1 - (ranks_all[m:] - _midranks(negative)) / m  # per negative: share of positives that beat it
    variance = (v10.var(ddof=1) / m if m > 1 else 0.0) + (v01.var(ddof=1) / n if n > 1 else 0.0)
    half = z * math.sqrt(max(variance, 0.0))
    return AUC(value=float(value), ci=(max(0.0, value - half), min(1.0, value + half)), positives=m, negatives=n)

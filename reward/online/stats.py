"""Statistics of online metrics: ratio metrics clustered by user (delta method), relative lifts with confidence
intervals and p-values, binomial intervals, proportions and AUCs clustered by the unit that was labelled or scored,
Holm's adjustment of several p-values, and the minimum detectable effect.

Users are the unit of randomisation, and one user has many sessions, so sessions are not independent: a rate such
as VCR = sum of valid sessions / sum of sessions is a ratio of two per-user sums, and its variance comes from the
delta method over users (Deng et al., "Applying the Delta Method in Metric Analytics", KDD 2018). Treating
sessions as independent would make intervals too narrow whenever users differ; the A/A tests in
tests/online/test_stats.py measure both.

The audit and the offline-online link have a second clustering: many sessions show the same (cached) response,
and a response is labelled or scored once. The bad-case rate is therefore a proportion over sessions whose
outcomes are identical within a response (`ClusteredProportion`), and the AUC of a dimension is computed over
sessions that share their response's score (`auc_clustered`, a jackknife over responses). Both intervals count
responses, not sessions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
Z80_POWER = 0.8416212335729143
"""The standard normal quantile at 0.8: a minimum detectable effect at 80% power is (Z95 + Z80_POWER) standard
errors of the difference."""


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


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjustment (family-wise error): the k-th smallest of m p-values is multiplied by m − k + 1,
    made monotone, capped at 1; None (an undefined test) stays None and does not count towards m.

    >>> [None if p is None else round(p, 6) for p in holm([0.01, 0.04, None, 0.03])]
    [0.03, 0.06, None, 0.06]
    """
    defined = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(defined)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for k, (p, i) in enumerate(defined):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


def minimum_detectable_effect(se_difference: float | None, z: float = Z95, power_z: float = Z80_POWER) -> float | None:
    """The smallest true difference a two-sided 5% test detects with 80% power, given the standard error of the
    difference: (z_0.975 + z_0.8) · se.

    >>> round(minimum_detectable_effect(0.01), 4)
    0.028
    """
    return None if se_difference is None else (z + power_z) * se_difference


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ClusteredProportion:
    """A share of sessions whose outcome is decided once per cluster (a response labelled once, shown in many
    sessions): the rate over sessions with a Wilson interval at the effective sample size n² / Σ n_c², which is
    exact for outcomes identical within a cluster (Kish's design effect at intra-cluster correlation 1).

    >>> p = ClusteredProportion.from_clusters([3, 1], [3, 0])
    >>> (p.rate, p.sessions, p.clusters, p.effective_n)
    (0.75, 4, 2, 1.6)
    """

    successes: int
    sessions: int
    clusters: int
    effective_n: float

    @classmethod
    def from_clusters(cls, sessions: list[int] | np.ndarray, successes: list[int] | np.ndarray) -> ClusteredProportion:
        n, y = np.asarray(sessions, dtype=float), np.asarray(successes, dtype=float)
        keep = n > 0
        n, y = n[keep], y[keep]
        total = float(n.sum())
        return cls(int(y.sum()), int(total), int(len(n)), total * total / float((n * n).sum()) if total else 0.0)

    @property
    def rate(self) -> float | None:
        return self.successes / self.sessions if self.sessions else None

    def interval(self, z: float = Z95) -> tuple[float, float] | None:
        """Wilson interval at the effective sample size (sound at 0 and 1, where a Wald interval collapses)."""
        return None if not self.sessions else _wilson(self.successes / self.sessions, self.effective_n, z)


@dataclass(frozen=True)
class ProportionDifference:
    """An arm's clustered proportion against control's: absolute (p1 − p0, Newcombe's hybrid score interval) and
    relative (p1 / p0 − 1, Katz's log interval) differences, the pooled z-test, and the absolute minimum detectable
    difference at 80% power."""

    absolute: float
    absolute_ci: tuple[float, float]
    relative: float | None
    """None when control's rate is 0 (no relative change is defined)."""
    relative_ci: tuple[float, float] | None
    p_value: float
    mde_absolute: float


def proportion_difference(arm: ClusteredProportion, control: ClusteredProportion, z: float = Z95) -> ProportionDifference | None:
    """None when either side has no session."""
    if not arm.sessions or not control.sessions:
        return None
    p1, p0, n1, n0 = arm.rate, control.rate, arm.effective_n, control.effective_n
    (l1, u1), (l0, u0) = _wilson(p1, n1, z), _wilson(p0, n0, z)
    d = p1 - p0
    absolute_ci = (d - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2))
    pooled = (p1 * n1 + p0 * n0) / (n1 + n0)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0))
    p_value = math.erfc(abs(d) / se0 / math.sqrt(2)) if se0 > 0 else 1.0
    relative = relative_ci = None
    if p0 > 0:
        relative = p1 / p0 - 1
        if p1 > 0:
            se_log = math.sqrt((1 - p1) / (p1 * n1) + (1 - p0) / (p0 * n0))
            relative_ci = (p1 / p0 * math.exp(-z * se_log) - 1, p1 / p0 * math.exp(z * se_log) - 1)
    mde = minimum_detectable_effect(math.sqrt(p0 * (1 - p0) * (1 / n1 + 1 / n0)), z)
    return ProportionDifference(d, absolute_ci, relative, relative_ci, p_value, mde)


def auc_clustered(scores: np.ndarray, outcomes: np.ndarray, clusters: np.ndarray, z: float | None = None) -> AUC | None:
    """AUC over sessions with a variance that counts clusters (here: the response that was scored once and shown
    in many sessions): the leave-one-cluster-out jackknife, and a t interval with (clusters − 1) degrees of
    freedom. Each leave-one-out AUC comes from the full-sample ranks (no refit); the jackknife leans wide where the
    sandwich variance (Obuchowski 1997) runs narrow, when a few popular responses carry most sessions
    (benchmarks/online_aa.py measures the coverage).

    None when either class is empty or fewer than two clusters hold sessions.
    """
    from scipy.stats import t as student_t

    scores, outcomes = np.asarray(scores, dtype=float), np.asarray(outcomes).astype(bool)
    _, cluster = np.unique(np.asarray(clusters), return_inverse=True)
    positive, negative = scores[outcomes], scores[~outcomes]
    m, n = len(positive), len(negative)
    count = int(cluster.max()) + 1 if len(cluster) else 0
    if m == 0 or n == 0 or count < 2:
        return None
    ranks_all = _midranks(np.concatenate([positive, negative]))
    value = (ranks_all[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (ranks_all[:m] - _midranks(positive)) / n  # per positive: share of all negatives it beats
    v01 = 1 - (ranks_all[m:] - _midranks(negative)) / m  # per negative: share of all positives that beat it
    positives_in = np.bincount(cluster[outcomes], minlength=count).astype(float)
    negatives_in = np.bincount(cluster[~outcomes], minlength=count).astype(float)
    beats_from = np.bincount(cluster[outcomes], weights=v10, minlength=count) * n  # pairs won by the cluster's positives
    beaten_in = np.bincount(cluster[~outcomes], weights=v01, minlength=count) * m  # pairs lost by its negatives
    # pairs inside one cluster are counted in both sums above: ranks within each cluster give them back
    _, level = np.unique(scores, return_inverse=True)
    key = cluster.astype(np.int64) * (int(level.max()) + 1) + level
    start_all = np.concatenate([[0], np.cumsum(positives_in + negatives_in)[:-1]])
    start_pos = np.concatenate([[0], np.cumsum(positives_in)[:-1]])
    within_all = _midranks(key)[outcomes] - start_all[cluster[outcomes]]
    within_pos = _midranks(key[outcomes]) - start_pos[cluster[outcomes]]
    inside = np.bincount(cluster[outcomes], weights=within_all - within_pos, minlength=count)
    remaining = (m - positives_in) * (n - negatives_in)
    keep = remaining > 0
    left_out = (value * m * n - beats_from - beaten_in + inside)[keep] / remaining[keep]
    k = int(keep.sum())
    if k < 2:
        return None
    variance = (k - 1) / k * float(((left_out - left_out.mean()) ** 2).sum())
    half = (z if z is not None else float(student_t.ppf(0.975, k - 1))) * math.sqrt(max(variance, 0.0))
    return AUC(value=float(value), ci=(max(0.0, value - half), min(1.0, value + half)), positives=m, negatives=n)

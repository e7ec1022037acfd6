"""Statistics: delta-method variance and lifts against hand computation, A/A interval coverage, AUC, Wilson."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from reward.online.stats import RatioMoments, auc_delong, relative_lift, wilson_interval
from reward.online.synthetic import aa_coverage


def test_delta_method_variance_by_hand():
    n, y = np.array([2, 4, 1, 3]), np.array([1, 3, 0, 1])
    m = RatioMoments.from_arrays(n, y)
    r = 5 / 10
    # Var = (s_yy - 2 r s_ny + r^2 s_nn) / (K nbar^2) with sample (co)variances over users
    s_yy, s_nn, s_ny = np.var(y, ddof=1), np.var(n, ddof=1), np.cov(n, y, ddof=1)[0, 1]
    assert m.rate == r
    assert m.variance == pytest.approx((s_yy - 2 * r * s_ny + r * r * s_nn) / (4 * 2.5**2))


def test_one_session_per_user_reduces_to_the_binomial_variance():
    y = np.array([1] * 30 + [0] * 70)
    m = RatioMoments.from_arrays(np.ones(100), y)
    assert m.variance == pytest.approx(0.3 * 0.7 / 99)  # sample variance (n - 1)


def test_relative_lift_by_hand():
    control = RatioMoments.from_arrays(np.ones(1000), np.r_[np.ones(200), np.zeros(800)])
    treatment = RatioMoments.from_arrays(np.ones(1000), np.r_[np.ones(250), np.zeros(750)])
    lift = relative_lift(treatment, control)
    assert lift.lift == pytest.approx(0.25)
    se = math.sqrt(treatment.variance / 0.2**2 + 0.25**2 * control.variance / 0.2**4)
    assert lift.ci == pytest.approx((0.25 - 1.959964 * se, 0.25 + 1.959964 * se), rel=1e-6)
    assert lift.p_value == pytest.approx(math.erfc(0.25 / se / math.sqrt(2)))
    assert lift.p_value < 0.05 and lift.ci[0] > 0


def test_undefined_lifts_are_none_not_nan():
    zero = RatioMoments.from_arrays(np.ones(10), np.zeros(10))
    some = RatioMoments.from_arrays(np.ones(10), np.r_[np.ones(3), np.zeros(7)])
    assert relative_lift(some, zero) is None  # control rate 0
    assert relative_lift(some, RatioMoments.from_arrays(np.ones(1), np.ones(1))) is None  # one user: no variance


def test_aa_intervals_cover_zero_about_95_percent():
    result = aa_coverage(simulations=300, users=2000, seed=3)
    # 300 tests: the standard error of a 95% coverage is 1.3 points
    assert 0.91 <= result["coverage"] <= 0.985, result
    # sessions of one user are correlated: an interval that ignores it covers visibly less
    assert result["naive_session_level_coverage"] < result["coverage"] - 0.03, result


def test_auc_matches_sklearn_and_delong_interval_is_sane():
    rng = np.random.default_rng(0)
    outcome = rng.random(2000) < 0.4
    score = rng.normal(size=2000) + 0.5 * outcome
    auc = auc_delong(np.round(score, 1), outcome)  # rounding makes ties
    assert auc.value == pytest.approx(roc_auc_score(outcome, np.round(score, 1)))
    assert auc.ci[0] < auc.value < auc.ci[1] and 0.02 < auc.ci[1] - auc.ci[0] < 0.1
    assert auc_delong(score, np.zeros(2000, dtype=bool)) is None


def test_wilson_interval():
    low, high = wilson_interval(5, 50)
    assert (round(low, 4), round(high, 4)) == (0.0435, 0.2136)
    assert wilson_interval(0, 0) is None

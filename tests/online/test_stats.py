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


def test_holm_by_hand():
    from reward.online.stats import holm

    # m = 3 defined: 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> monotone 0.06
    adjusted = holm([0.04, 0.01, None, 0.03])
    assert adjusted[2] is None and [adjusted[i] for i in (0, 1, 3)] == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # capped
    assert holm([]) == []


def test_minimum_detectable_effect_has_80_percent_power():
    from scipy.stats import norm

    from reward.online.stats import minimum_detectable_effect

    se = 0.013
    mde = minimum_detectable_effect(se)
    # a true difference equal to the MDE is detected (|z| > 1.96) with probability 0.8
    power = norm.sf(1.959964 - mde / se) + norm.cdf(-1.959964 - mde / se)
    assert power == pytest.approx(0.8, abs=1e-4)
    assert minimum_detectable_effect(None) is None


def test_clustered_proportion_counts_responses_not_sessions():
    from reward.online.stats import ClusteredProportion, proportion_difference, wilson_interval

    # one session per response: the plain Wilson interval
    single = ClusteredProportion.from_clusters(np.ones(40, dtype=int), np.r_[np.ones(8), np.zeros(32)].astype(int))
    assert single.effective_n == 40 and single.interval() == pytest.approx(wilson_interval(8, 40))
    # the same 40 sessions from 10 responses shown 4 times each: as wide as 10 independent labels
    grouped = ClusteredProportion.from_clusters(np.full(10, 4), np.r_[np.full(2, 4), np.zeros(8)].astype(int))
    assert (grouped.rate, grouped.clusters, grouped.effective_n) == (0.2, 10, 10.0)
    assert grouped.interval() == pytest.approx(wilson_interval(2, 10))
    difference = proportion_difference(grouped, single)
    assert difference.absolute == 0 and difference.p_value == pytest.approx(1.0)
    assert difference.absolute_ci[0] < 0 < difference.absolute_ci[1]
    assert difference.relative == 0 and difference.relative_ci[0] < 0 < difference.relative_ci[1]
    none = ClusteredProportion.from_clusters([5, 5], [0, 0])
    assert none.interval()[0] == 0 and none.interval()[1] > 0.2  # two responses say little, even at 0 bad
    assert proportion_difference(single, none).relative is None  # control rate 0: no relative change


def test_clustered_auc_reduces_to_delong_and_widens_with_repeats():
    from reward.online.stats import auc_clustered

    rng = np.random.default_rng(4)
    outcome = rng.random(600) < 0.4
    score = np.round(rng.normal(size=600) + 0.6 * outcome, 1)
    plain, singletons = auc_delong(score, outcome), auc_clustered(score, outcome, np.arange(600))
    assert singletons.value == plain.value
    assert singletons.ci == pytest.approx(plain.ci, abs=2e-3)  # one session per response: DeLong's interval
    # the jackknife's leave-one-out AUCs equal refits without that response
    small, cluster = np.round(rng.normal(size=200), 1), rng.integers(0, 15, 200)
    small_outcome = rng.random(200) < 0.4 + 0.2 * (small > 0)
    loo = np.array([roc_auc_score(small_outcome[cluster != c], small[cluster != c]) for c in range(15)])
    jackknife_se = math.sqrt(14 / 15 * ((loo - loo.mean()) ** 2).sum())
    from scipy.stats import t as student_t

    got = auc_clustered(small, small_outcome, cluster)
    assert (got.ci[1] - got.ci[0]) / 2 == pytest.approx(student_t.ppf(0.975, 14) * jackknife_se, rel=1e-9)
    # 60 responses, each scored once and shown in 10 sessions whose outcomes follow the response
    quality = rng.normal(size=60)
    response = np.repeat(np.arange(60), 10)
    shown_score = np.round(quality[response] + rng.normal(0, 0.3, 600), 2)
    repeated_outcome = rng.random(600) < 1 / (1 + np.exp(-2 * quality[response]))
    per_response = np.repeat(shown_score[::10], 10)
    naive, clustered = auc_delong(per_response, repeated_outcome), auc_clustered(per_response, repeated_outcome, response)
    assert clustered.value == naive.value
    width = lambda a: a.ci[1] - a.ci[0]  # noqa: E731
    assert width(clustered) > 1.5 * width(naive)
    assert auc_clustered(score, outcome, np.zeros(600)) is None  # one response: no interval


def test_aa_bcr_intervals_clustered_by_response_cover_about_95_percent():
    from reward.online.synthetic import aa_bcr_coverage

    result = aa_bcr_coverage(simulations=400, seed=5)
    # 400 tests (800 arm intervals): the standard error of a 95% coverage is 1.1 (0.8) points
    assert 0.92 <= result["difference_coverage"] <= 0.98, result
    assert 0.925 <= result["arm_coverage"] <= 0.975, result
    # about 35 labelled responses behind 100 sessions: session-level intervals miss far more often
    assert result["naive_session_level_difference_coverage"] < 0.8, result
    assert result["mean_distinct_labelled_responses_per_arm"] < 50


def test_aa_link_intervals_clustered_by_response_cover_about_95_percent():
    from reward.online.synthetic import aa_link_coverage

    result = aa_link_coverage(simulations=150, sessions=4000, seed=6)
    # 150 null links: the standard error of a 95% coverage is 1.8 points
    assert 0.9 <= result["coverage"] <= 0.995, result
    assert result["naive_session_level_coverage"] < 0.6, result

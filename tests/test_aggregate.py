"""Properties of the gated aggregation (SearchLLM eq. 1-3) and the ablations."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reward.aggregate import aggregate, fill_invalid_rewards, gate, weighted_mean

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
positive = st.floats(min_value=0.05, max_value=1.0, allow_nan=False)
deltas = st.floats(min_value=1e-4, max_value=0.5, allow_nan=False)


@given(st.lists(positive, min_size=1, max_size=12))
def test_gate_tends_to_plain_geometric_mean_as_delta_vanishes(scores):
    plain = math.exp(sum(math.log(s) for s in scores) / len(scores))
    assert gate(scores, 1e-9) == pytest.approx(plain, rel=1e-6)


@given(st.lists(unit, min_size=1, max_size=12), deltas, st.data())
def test_gate_log_sensitivity_is_bounded_by_one_over_m_delta(scores, delta, data):
    i = data.draw(st.integers(0, len(scores) - 1))
    h = 1e-7
    bumped = list(scores)
    # a full step inside [0, 1]: up, or down from a score within h of 1 (a step clipped at 1 to a few ulps makes the
    # finite difference rounding noise)
    bumped[i] = scores[i] + h if scores[i] + h <= 1.0 else scores[i] - h
    step = bumped[i] - scores[i]
    slope = (math.log(gate(bumped, delta)) - math.log(gate(scores, delta))) / step
    assert 0 <= slope <= 1 / (len(scores) * delta) * (1 + 1e-4)


@given(st.lists(unit, min_size=0, max_size=11), deltas)
def test_one_failed_bottom_line_score_caps_the_gate(others, delta):
    m = len(others) + 1
    assert gate([0.0, *others], delta) <= (delta / (1 + delta)) ** (1 / m) * (1 + 1e-9)


@given(
    st.dictionaries(st.sampled_from("abcdef"), unit, min_size=1),
    st.dictionaries(st.sampled_from("uvwxyz"), unit, min_size=1),
    st.sampled_from(["gated", "linear"]),
    deltas,
    st.data(),
)
def test_reward_lies_in_unit_interval(bottom, behavioral, method, delta, data):
    weights = {n: data.draw(st.floats(0.1, 10.0)) for n in [*bottom, *behavioral]}
    result = aggregate(method, bottom, behavioral, weights, delta)
    assert 0.0 <= result.reward <= 1.0
    if method == "gated":
        assert result.reward == pytest.approx(result.gate * result.utility)


@settings(max_examples=50)
@given(st.dictionaries(st.sampled_from("uvwxyz"), unit, min_size=1), st.floats(0.01, 100.0))
def test_weights_are_normalised(scores, factor):
    weights = {n: 1.0 + i for i, n in enumerate(scores)}
    scaled = {n: w * factor for n, w in weights.items()}
    assert weighted_mean(scores, weights) == pytest.approx(weighted_mean(scores, scaled))


def test_perfect_bottom_line_passes_utility_through():
    result = aggregate("gated", {"format": 1.0, "claim": 1.0}, {"useful": 0.6, "first": 0.2}, {"format": 1, "claim": 1, "useful": 3, "first": 1})
    assert result.gate == pytest.approx(1.0)
    assert result.reward == pytest.approx((3 * 0.6 + 0.2) / 4)


def test_sum_ablation_is_the_plain_sum_and_linear_the_weighted_mean():
    weights = {"a": 1.0, "b": 3.0}
    assert aggregate("sum", {"a": 0.5}, {"b": 1.0}, weights).reward == pytest.approx(1.5)
    assert aggregate("linear", {"a": 0.5}, {"b": 1.0}, weights).reward == pytest.approx((0.5 + 3.0) / 4)


def test_scores_outside_unit_interval_and_bad_delta_are_rejected():
    with pytest.raises(ValueError, match="'a'"):
        aggregate("gated", {"a": 1.2}, {"b": 1.0}, {"a": 1, "b": 1})
    with pytest.raises(ValueError, match="delta"):
        gate([1.0], 0.0)


def test_invalid_items_get_their_group_mean_and_whole_invalid_groups_share_one_value():
    rewards = [0.2, None, 0.6, None, None, 0.9]
    groups = ["g", "g", "g", "h", "h", None]
    assert fill_invalid_rewards(rewards, groups) == pytest.approx([0.2, 0.4, 0.6, 0.0, 0.0, 0.9])


@settings(deadline=None)
@given(st.lists(unit, min_size=1, max_size=12), deltas)
def test_equal_gate_exponents_are_the_papers_unweighted_gate(scores, delta):
    assert gate(scores, delta, [2.5] * len(scores)) == pytest.approx(gate(scores, delta), rel=1e-9)


@settings(deadline=None)
@given(st.lists(unit, min_size=2, max_size=9), st.floats(min_value=0.0, max_value=0.9), deltas)
def test_a_larger_exponent_makes_its_dimensions_failure_cost_more(others, low, delta):
    scores = [low] + [max(o, low) for o in others]
    assert gate(scores, delta, [3.0] + [1.0] * len(others)) <= gate(scores, delta) + 1e-12


def test_one_low_dimension_of_nine_moves_the_gate_further_under_exponent_three():
    scores = [0.3] + [1.0] * 8
    assert gate(scores, 1e-9) == pytest.approx(0.3 ** (1 / 9))
    assert gate(scores, 1e-9, [3.0] + [1.0] * 8) == pytest.approx(0.3 ** (3 / 11))


@pytest.mark.parametrize("exponents", [[0.0, 1.0], [-1.0, 1.0], [float("nan"), 1.0], [1.0]])
def test_gate_exponents_must_be_positive_and_one_per_score(exponents):
    with pytest.raises(ValueError, match="gate exponents must be > 0"):
        gate([0.5, 1.0], 0.01, exponents)


@settings(deadline=None)
@given(st.lists(unit, min_size=1, max_size=12), deltas)
def test_equal_gate_deltas_are_the_suites_delta(scores, delta):
    assert gate(scores, delta, deltas=[delta] * len(scores)) == pytest.approx(gate(scores, delta), rel=1e-12)


@settings(deadline=None)
@given(st.lists(unit, min_size=1, max_size=9), st.floats(min_value=1e-3, max_value=0.5), deltas, st.data())
def test_a_dimensions_own_delta_bounds_the_gates_sensitivity_to_it(others, own, delta, data):
    score = data.draw(unit)
    step = 1e-6
    # A step of 1e-6 inside [0, 1], down from a score within a step of 1: capped at 1.0, a score of 0.9999999999999999
    # moved by 1e-16, and the slope was rounding error (4.0).
    low, high = (score, score + step) if score + step <= 1.0 else (score - step, score)
    smoothing = [own] + [delta] * len(others)
    slope = (math.log(gate([high] + others, delta, deltas=smoothing))
             - math.log(gate([low] + others, delta, deltas=smoothing))) / (high - low)
    assert 0 <= slope <= 1 / ((1 + len(others)) * own) * (1 + 1e-4)


def test_a_larger_delta_on_one_dimension_softens_only_its_failure():
    """A judged dimension at 0 costs the gate less under its own larger delta; a rule at 0 costs as much as before."""
    failed_judgment, failed_rule = [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]
    smoothing = [0.3, 0.01, 0.01]
    assert gate(failed_judgment, 0.01, deltas=smoothing) == pytest.approx((0.3 / 1.3) ** (1 / 3))
    assert gate(failed_judgment, 0.01, deltas=smoothing) > gate(failed_judgment, 0.01)
    assert gate(failed_rule, 0.01, deltas=smoothing) == pytest.approx(gate(failed_rule, 0.01))


@pytest.mark.parametrize("smoothing", [[0.0, 0.1], [-0.1, 0.1], [float("nan"), 0.1], [0.1]])
def test_gate_deltas_must_be_positive_and_one_per_score(smoothing):
    with pytest.raises(ValueError, match="gate deltas must be > 0"):
        gate([0.5, 1.0], 0.01, deltas=smoothing)


def test_aggregate_applies_deltas_by_name_and_the_suites_delta_to_the_rest():
    weights = {"a": 1.0, "b": 1.0, "u": 1.0}
    smoothed = aggregate("gated", {"a": 0.0, "b": 0.5}, {"u": 1.0}, weights, delta=0.01, deltas={"a": 0.3})
    assert smoothed.gate == pytest.approx(math.sqrt((0.3 / 1.3) * (0.51 / 1.01)))


def test_aggregate_applies_exponents_by_name_and_one_to_the_rest():
    plain = aggregate("gated", {"a": 0.2, "b": 1.0}, {"u": 1.0}, {"a": 1.0, "b": 1.0, "u": 1.0})
    weighted = aggregate("gated", {"a": 0.2, "b": 1.0}, {"u": 1.0}, {"a": 1.0, "b": 1.0, "u": 1.0},
                         exponents={"a": 3.0})
    assert weighted.gate == pytest.approx(gate([0.2, 1.0], 0.01, [3.0, 1.0]))
    assert weighted.reward < plain.reward

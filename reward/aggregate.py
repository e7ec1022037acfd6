"""Aggregation of a dimension score vector into one reward: gated (SearchLLM), linear and sum ablations.

Gated:   B = exp((1/m) * sum_i log((s_i + delta) / (1 + delta)))   over bottom-line scores
         U = sum_j w_j * s'_j / sum_j w_j                          over behavioral scores
         R = B * U
The delta-smoothed geometric mean is a soft AND over the bottom line: one failed constraint suppresses the
reward whatever the behavioral scores, while d log B / d s_i = 1 / (m (s_i + delta)) stays bounded by
1 / (m delta). Linear is the weighted mean of all dimensions; sum is their plain sum (the paper's GRPO-Linear
(Sum)), both kept as ablations.

Gate exponents (a suite option, default all 1 as in the paper) make B a weighted geometric mean,
B = exp(sum_i a_i log((s_i + delta) / (1 + delta)) / sum_i a_i): with nine bottom-line dimensions, one at 0.3 moves
the equal-weight gate only to 0.3^(1/9) ~ 0.87 of its value; an exponent of 3 on that dimension moves it to
0.3^(3/11) ~ 0.72. The trade-off is measured in `benchmarks/FIDELITY.md` (pairs) and `benchmarks/CALIBRATION.md`.

Gate deltas (a suite option, default the suite's delta for every dimension) give a bottom-line dimension a smoothing
of its own, (s_i + delta_i) / (1 + delta_i): the gate's sensitivity to it is then bounded by 1 / (m delta_i), so a
dimension its judge reads with little noise (a rule) can stay a sharp constraint while a noisy judgment moves the
reward less. With every delta_i equal to delta it is the paper's gate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Aggregation = Literal["gated", "linear", "sum"]


@dataclass(frozen=True)
class Aggregate:
    reward: float
    gate: float | None = None
    utility: float | None = None


def gate(scores: Sequence[float], delta: float, exponents: Sequence[float] | None = None,
         deltas: Sequence[float] | None = None) -> float:
    """Delta-smoothed geometric mean of bottom-line scores, weighted by `exponents` (default: all 1), each smoothed by
    its own delta in `deltas` (default: `delta` for all); 1.0 when there are none.

    >>> round(gate([1.0, 1.0], 0.01), 6)
    1.0
    >>> round(gate([0.0, 1.0], 0.01), 4)  # one failed constraint: sqrt(0.01 / 1.01)
    0.0995
    >>> round(gate([0.0, 1.0], 0.01, [3.0, 1.0]), 4)  # the failed one weighs 3: (0.01 / 1.01) ** 0.75
    0.0314
    >>> round(gate([0.0, 1.0], 0.01, deltas=[0.3, 0.01]), 4)  # the failed one smoothed by 0.3: sqrt(0.3 / 1.3)
    0.4804
    """
    if delta <= 0:
        raise ValueError("delta must be > 0")
    if not scores:
        return 1.0
    exponents = [1.0] * len(scores) if exponents is None else list(exponents)
    if len(exponents) != len(scores) or any(a <= 0 or math.isnan(a) for a in exponents):
        raise ValueError("gate exponents must be > 0, one per bottom-line score")
    deltas = [delta] * len(scores) if deltas is None else list(deltas)
    if len(deltas) != len(scores) or any(not d > 0 for d in deltas):
        raise ValueError("gate deltas must be > 0, one per bottom-line score")
    total = sum(a * math.log((s + d) / (1.0 + d)) for s, a, d in zip(scores, exponents, deltas, strict=True))
    return math.exp(total / sum(exponents))


def weighted_mean(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Weighted arithmetic mean; weights are normalised, so only their ratios matter.

    >>> weighted_mean({"a": 1.0, "b": 0.0}, {"a": 3.0, "b": 1.0})
    0.75
    """
    total = sum(weights[name] for name in scores)
    if total <= 0:
        raise ValueError("weights of the scored dimensions must sum to > 0")
    return sum(weights[name] * score for name, score in scores.items()) / total


def aggregate(
    method: Aggregation,
    bottom_line: Mapping[str, float],
    behavioral: Mapping[str, float],
    weights: Mapping[str, float],
    delta: float = 0.01,
    exponents: Mapping[str, float] | None = None,
    deltas: Mapping[str, float] | None = None,
) -> Aggregate:
    """Combine scored dimensions (unscored ones already left out) into the reward; `exponents` (gated only): gate
    exponent per bottom-line dimension, 1 for any not named; `deltas` (gated only): smoothing per bottom-line
    dimension, `delta` for any not named.

    >>> a = aggregate("gated", {"format": 1.0}, {"useful": 0.5}, {"format": 1.0, "useful": 1.0})
    >>> (round(a.reward, 6), round(a.gate, 6), a.utility)
    (0.5, 1.0, 0.5)
    """
    for name, score in {**bottom_line, **behavioral}.items():
        if not (0.0 <= score <= 1.0) or math.isnan(score):
            raise ValueError(f"score of {name!r} must lie in [0, 1], got {score}")
    if method == "gated":
        exponents, deltas = exponents or {}, deltas or {}
        b = gate(list(bottom_line.values()), delta, [exponents.get(name, 1.0) for name in bottom_line],
                 [deltas.get(name, delta) for name in bottom_line])
        positive = {name: s for name, s in behavioral.items() if weights[name] > 0}
        u = weighted_mean(positive, weights) if positive else 1.0
        return Aggregate(reward=b * u, gate=b, utility=u)
    everything = {**bottom_line, **behavioral}
    if method == "linear":
        return Aggregate(reward=weighted_mean(everything, weights) if everything else 0.0)
    if method == "sum":
        return Aggregate(reward=float(sum(everything.values())))
    raise ValueError(f"unknown aggregation {method!r}")


def fill_invalid_rewards(rewards: Sequence[float | None], groups: Sequence[str | None], fallback: float = 0.0) -> list[float]:
    """Give each invalid item (reward None) the mean reward of its group's valid items.

    Its GRPO advantage is then zero, so the trainer learns nothing from a sample the reward could not judge, and a
    failure the response did not cause (the only kind that makes an item invalid) is never a penalty. A group with
    no valid item gets `fallback` for all its items (again zero advantage); an invalid item with no group gets
    `fallback` and should be masked by the trainer through `valid: false`.

    >>> fill_invalid_rewards([0.2, None, 0.6, None], ["g", "g", "g", "h"])
    [0.2, 0.4, 0.6, 0.0]
    """
    sums: dict[str, list[float]] = {}
    for reward, group in zip(rewards, groups, strict=True):
        if reward is not None and group is not None:
            sums.setdefault(group, []).append(reward)
    return [reward if reward is not None
            else sum(sums[group]) / len(sums[group]) if group is not None and sums.get(group) else fallback
            for reward, group in zip(rewards, groups, strict=True)]

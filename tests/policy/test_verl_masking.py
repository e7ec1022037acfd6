"""What verl makes of our reward extras, computed with verl's own functions: a dimension without a score never enters
its validation metrics or its GDPO advantages as if it were one.

verl 0.9.1 `verl/trainer/ppo/metric_utils.py:process_validation_metrics` drops `None` values before its means, stds
and best/worst bootstraps; `verl/trainer/ppo/core_algos.py:compute_gdpo_outcome_advantage` normalises each
`algorithm.gdpo_reward_keys` column within the `uid` group (`compute_grpo_outcome_advantage` per key) and cannot skip
a value, so the `gdpo_<dimension>` keys carry the group's mean where no value exists.
"""

import numpy as np
import pytest
import torch

from policy.verl_reward import group_dimension_means, to_verl

pytest.importorskip("verl")


def _result(reward, valid, **scores):
    dims = {}
    for name, value in scores.items():
        dims[name] = {"score": value} if not isinstance(value, str) else {"score": None, "reason": value}
    return {"reward": reward, "gate": None, "utility": None, "valid": valid, "dimensions": dims}


# One prompt, four rollouts. Rollout 2's claim judge timed out (the item is invalid: the server gave it the group's
# mean reward); rollout 3's answer judge reply was provoked into nonsense (counts as failed, 0).
RESULTS = [
    _result(0.90, True, claim=1.0, answer=1.0, conflict="not_applicable"),
    _result(0.40, True, claim=0.5, answer=0.5, conflict="not_applicable"),
    _result(0.50, False, claim="judge_timeout", answer=1.0, conflict="not_applicable"),
    _result(0.20, True, claim=0.75, answer="unparseable", conflict="not_applicable"),
]
NAMES = ["answer", "claim", "conflict"]


def _extras(gdpo=False):
    means = group_dimension_means(RESULTS, ["g"] * len(RESULTS))
    rows = [to_verl(r, NAMES, gdpo_means=means[i] if gdpo else None) for i, r in enumerate(RESULTS)]
    return {key: [row[key] for row in rows] for key in rows[0]}


def test_validation_metrics_from_our_extras_equal_those_of_the_scored_values_alone():
    from verl.trainer.ppo.metric_utils import process_validation_metrics

    extras = _extras()
    assert extras["claim"] == [1.0, 0.5, None, 0.75] and extras["answer"] == [1.0, 0.5, 1.0, 0.0]
    ours = process_validation_metrics(["search"] * 4, ["u"] * 4, {"claim": extras["claim"]}, seed=1)
    alone = process_validation_metrics(["search"] * 3, ["u"] * 3, {"claim": [1.0, 0.5, 0.75]}, seed=1)
    assert ours == alone
    # A dimension no rollout has (left out for every response alike) gives no metric at all, not a mean of sentinels.
    conflict = process_validation_metrics(["search"] * 4, ["u"] * 4, {"conflict": extras["conflict"]}, seed=1)
    assert conflict["search"] == {}


def _gdpo(columns, keys):
    from verl.trainer.ppo.core_algos import compute_gdpo_outcome_advantage

    n = len(next(iter(columns.values())))
    advantages, _ = compute_gdpo_outcome_advantage(
        token_level_rewards=torch.zeros(n, 3), response_mask=torch.ones(n, 3), index=np.array(["u"] * n, dtype=object),
        config={"gdpo_reward_keys": keys}, non_tensor_batch={k: np.asarray(v, dtype=object) for k, v in columns.items()},
        batch={"prompts": torch.zeros(n, 1, dtype=torch.long), "attention_mask": torch.ones(n, 4, dtype=torch.long)})
    return advantages[:, 0]


def _grpo(values):
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    n = len(values)
    rewards = torch.zeros(n, 3)
    rewards[:, -1] = torch.tensor(values)
    advantages, _ = compute_grpo_outcome_advantage(rewards, torch.ones(n, 3), np.array(["u"] * n, dtype=object))
    return advantages[:, 0]


def test_gdpo_keys_give_a_masked_rollout_zero_advantage_and_keep_the_others_in_order():
    extras = _extras(gdpo=True)
    keys = ["gdpo_answer", "gdpo_claim", "gdpo_conflict"]
    # The invalid rollout stands at its group's mean on every key; the dimension no rollout has is a constant.
    assert extras["gdpo_claim"] == [1.0, 0.5, pytest.approx(0.75), 0.75]
    assert extras["gdpo_answer"][2] == pytest.approx(0.5) and extras["gdpo_conflict"] == [0.0] * 4
    # Per key, verl's group normalisation gives the masked rollout exactly zero; the scored ones keep the order and
    # sign they have among the scored values alone (scaled by the one extra member of the group).
    claim = _grpo(extras["gdpo_claim"])
    alone = _grpo([1.0, 0.5, 0.75])
    assert abs(claim[2].item()) < 1e-6
    scale = torch.std(torch.tensor([1.0, 0.5, 0.75])) / torch.std(torch.tensor([1.0, 0.5, 0.75, 0.75]))
    assert torch.allclose(claim[[0, 1, 3]], alone * scale, atol=1e-5)
    advantages = _gdpo(extras, keys)
    assert torch.isfinite(advantages).all()
    # Before verl's batch whitening the masked rollout's advantage is the sum of zeros: no penalty for the timeout.
    assert abs(sum(_grpo(extras[key])[2].item() for key in keys)) < 1e-5
    # The -1.0 a timed-out dimension used to carry made it the group's worst on that key, a penalty for the judge's
    # outage.
    assert _grpo([1.0, 0.5, -1.0, 0.75])[2] < -1.0
    assert advantages.argmax().item() == 0

"""Per-dimension training curves in verl: log the reward dimensions' means every training step, and key the
server's score log by step.

verl puts a reward function's extra keys into the batch (`batch.non_tensor_batch`, named in
`batch.meta_info["reward_extra_keys"]`) but logs them only during validation. `dimension_metrics(batch)` turns
them into `reward_dim/<name>/mean` (skipping `MISSING` values, so an unscored dimension does not drag its mean
down) plus the valid rate; `install()` wraps verl's `compute_data_metrics`, which the trainer calls once per
training step, so these metrics reach every configured logger (wandb, tensorboard, console) next to verl's own.
`install()` also exports the trainer's step as `REWARD_STEP` for reward functions running in the trainer
process. Call it in the process that runs the trainer: `python -m policy.train` (verl's entry point with the hook
installed in its task runner).
"""

from __future__ import annotations

import functools
import logging
import os

import numpy as np

from policy.verl_reward import MISSING

log = logging.getLogger(__name__)

PREFIX = "reward_dim"


def dimension_metrics(batch) -> dict[str, float]:
    """Means of the reward's extra keys over the batch's rollouts (MISSING values left out)."""
    keys = list(batch.meta_info.get("reward_extra_keys", [])) or [
        k for k in batch.non_tensor_batch if k in ("gate", "utility", "valid")
    ]
    metrics: dict[str, float] = {}
    for key in keys:
        if key not in batch.non_tensor_batch:
            continue
        try:
            values = np.asarray(batch.non_tensor_batch[key], dtype=np.float64)
        except (TypeError, ValueError):
            continue  # a non-numeric extra key (e.g. a reason string) is not a curve
        scored = values[values != MISSING]
        if key == "valid":
            metrics[f"{PREFIX}/valid_rate"] = float(values.mean()) if values.size else 0.0
        elif scored.size:
            metrics[f"{PREFIX}/{key}/mean"] = float(scored.mean())
            metrics[f"{PREFIX}/{key}/unscored_rate"] = float(1.0 - scored.size / values.size)
    return metrics


def install() -> None:
    """Wrap verl's per-step data metrics so the reward dimensions are logged every training step."""
    from verl.trainer.ppo import ray_trainer

    original = ray_trainer.compute_data_metrics
    if getattr(original, "_reward_dimensions", False):
        return

    @functools.wraps(original)
    def with_dimensions(batch, *args, **kwargs):
        metrics = original(batch, *args, **kwargs)
        metrics.update(dimension_metrics(batch))
        step = batch.meta_info.get("global_steps")
        if step is not None:
            os.environ["REWARD_STEP"] = str(step)
        return metrics

    with_dimensions._reward_dimensions = True  # type: ignore[attr-defined]
    ray_trainer.compute_data_metrics = with_dimensions
    log.info("per-dimension reward metrics installed")

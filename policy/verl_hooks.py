"""Per-dimension training curves in verl: log the reward dimensions' means every training step.

verl 0.9 keeps a reward function's extra keys per rollout but logs them only in validation. Where they live
during training depends on the trainer:

- trainer V1 (`trainer.use_v1: true`, verl 0.9's default): in the TransferQueue, field `extra_fields`, key
  `reward_extra_info` of each rollout. `install()` wraps `PPOTrainer._compute_metrics`, which the trainer calls
  once per step right before `logger.log(metrics, step)` and before the step's data is cleared, to read them there.
- legacy trainer (`use_v1: false`, `ray_trainer.RayPPOTrainer`): in `batch.non_tensor_batch`, named by
  `batch.meta_info["reward_extra_keys"]`. `install()` wraps `ray_trainer.compute_data_metrics`, called once per
  step with that batch.

Either way the metrics are `reward_dim/<key>/mean` and `reward_dim/<key>/unscored_rate` for every numeric key
(dimensions, score, gate, utility; `None` values, which have no score, left out of the mean, so an unscored
dimension does not drag it down), `reward_dim/valid_rate`, and the training monitors' `reward_alert/<rule>` and
`reward_alert/<rule>/<dimension>` (1.0 while the rule fires; `reward.dashboard.monitors`); they reach every configured logger (wandb, tensorboard, console) next to
verl's own. The step reaches the server separately: `policy.verl_manager` passes each rollout's `global_steps`
(trainer V1 sets it per sample; for the legacy trainer `install()` also wraps `_get_gen_batch` to set it).
`install()` also sizes the reward-loop workers' `max_concurrency` (Ray's default for an async actor is 1,000) to a
step's rollouts, since every rollout of a step may wait on a worker for its group at once. Call `install()` in the
process that runs the trainer: `python -m policy.train` does it in verl's task runner.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable

import numpy as np

log = logging.getLogger(__name__)

PREFIX = "reward_dim"
_MARK = "_reward_dimensions"


def column_metrics(columns: dict[str, Any]) -> dict[str, float]:
    """Means of per-rollout reward columns (None values left out); non-numeric columns are skipped.

    >>> metrics = column_metrics({"format": [1.0, None, 0.0, 1.0], "valid": [1.0, 0.0, 1.0, 1.0], "reason": ["", "x", "", ""]})
    >>> {key: round(value, 3) for key, value in metrics.items()}
    {'reward_dim/format/mean': 0.667, 'reward_dim/format/unscored_rate': 0.25, 'reward_dim/valid_rate': 0.75}
    """
    metrics: dict[str, float] = {}
    for key, column in columns.items():
        column = column.tolist() if hasattr(column, "tolist") else list(column)
        present = [value is not None for value in column]
        try:
            values = np.asarray([0.0 if value is None else value for value in column], dtype=np.float64)
        except (TypeError, ValueError):
            continue  # a non-numeric extra key (e.g. a reason string) is not a curve
        if values.ndim != 1 or not values.size:
            continue
        if key == "valid":
            metrics[f"{PREFIX}/valid_rate"] = float(values.mean())
            continue
        scored = values[np.asarray(present, dtype=bool)]
        if scored.size:
            metrics[f"{PREFIX}/{key}/mean"] = float(scored.mean())
        metrics[f"{PREFIX}/{key}/unscored_rate"] = float(1.0 - scored.size / values.size)
    return metrics


_NOT_DIMENSIONS = {"score", "gate", "utility", "valid"}
_MONITOR: dict[str, Any] = {}


def alert_column_metrics(columns: dict[str, Any], step: int | None = None, groups: Any = None,
                         lengths: Any = None) -> dict[str, float]:
    """The training monitors' `reward_alert/<rule>` (and `reward_alert/<rule>/<dimension>`) keys for a step's
    reward columns (`reward.dashboard.monitors`), with the rollouts' groups (verl's `uid`) and response lengths
    when known. One monitor per process keeps the steps; which dimensions are monitor-only comes from the suite
    `REWARD_SUITE` names (default searchllm). A step of None counts on from the last one."""
    import os

    from reward.dashboard.monitors import StepMonitor, suite_roles, summarise

    def listed(column):
        return None if column is None else (column.tolist() if hasattr(column, "tolist") else list(column))

    cols = {key: listed(column) for key, column in columns.items()}
    if "score" not in cols or "valid" not in cols or not cols["score"]:
        return {}
    dims = {}
    for key, column in cols.items():
        if key in _NOT_DIMENSIONS or key.startswith("gdpo_"):
            continue
        try:
            dims[key] = [None if v is None else float(v) for v in column]
        except (TypeError, ValueError):
            continue  # a non-numeric extra key
    monitor = _MONITOR.get("monitor")
    if monitor is None:
        suite = os.environ.get("REWARD_SUITE", "searchllm")
        monitor = _MONITOR["monitor"] = StepMonitor(roles=suite_roles([suite], {}))
    if step is None:
        step = monitor.history[-1].step + 1 if monitor.history else 0
    summary = summarise(int(step), [float(v) for v in cols["score"]], [bool(v) for v in cols["valid"]], dims,
                        groups=None if groups is None else [str(g) for g in listed(groups)],
                        lengths=None if lengths is None else [float(v) for v in listed(lengths)],
                        roles=monitor.roles)
    return monitor.observe(summary)


def dimension_metrics(batch) -> dict[str, float]:
    """Legacy trainer: the metrics of a `DataProto` batch's reward extra keys, and the monitors' alerts (with the
    rollouts' `uid` as their group and the response tokens as their length)."""
    keys = list(batch.meta_info.get("reward_extra_keys", []))
    columns = {k: batch.non_tensor_batch[k] for k in keys if k in batch.non_tensor_batch}
    metrics = column_metrics(columns)
    try:
        mask = batch.batch["response_mask"] if batch.batch is not None and "response_mask" in batch.batch else None
        steps = batch.non_tensor_batch.get("global_steps")
        step = int(steps[0]) if steps is not None and len(steps) else batch.meta_info.get("global_steps")
        metrics.update(alert_column_metrics(
            columns, None if step is None else int(step), batch.non_tensor_batch.get("uid"),
            None if mask is None else mask.sum(-1)))
    except Exception:  # alerts are diagnostics: a failure here must not stop training
        log.exception("reward alerts failed")
    return metrics


def rows_metrics(rows: list[Any]) -> dict[str, float]:
    """Trainer V1: the metrics of the rollouts' `extra_fields` dicts (their `reward_extra_info`)."""
    infos = [row.get("reward_extra_info") or {} for row in rows if isinstance(row, dict)]
    keys = sorted({key for info in infos for key in info})
    # A rollout without a key (none should: the reward function returns the same keys for all) has no value.
    return column_metrics({key: [info.get(key) for info in infos] for key in keys})


def v1_batch_metrics(batch, kv_batch_get: Callable[..., Any], step: int | None = None) -> dict[str, float]:
    """Trainer V1: read `extra_fields` of the step's rollouts from the TransferQueue (padding rows left out); with
    the monitors' alerts (no groups or lengths there: the group and length rules stay silent)."""
    data = kv_batch_get(keys=batch.keys, partition_id=batch.partition_id, select_fields=["extra_fields"])
    column = data.pop("extra_fields")
    rows = column.tolist() if hasattr(column, "tolist") else list(column)
    padding = [bool(tag.get("is_padding", False)) for tag in batch.tags]
    kept = [row for row, pad in zip(rows, padding, strict=True) if not pad]
    metrics = rows_metrics(kept)
    try:
        infos = [row.get("reward_extra_info") or {} for row in kept if isinstance(row, dict)]
        keys = sorted({key for info in infos for key in info})
        metrics.update(alert_column_metrics({key: [info.get(key) for info in infos] for key in keys}, step))
    except Exception:  # alerts are diagnostics: a failure here must not stop training
        log.exception("reward alerts failed at step %s", step)
    return metrics


def wrap_v1_compute_metrics(original: Callable, kv_batch_get: Callable[..., Any]) -> Callable:
    """`PPOTrainer._compute_metrics` with the reward dimensions added to the step's metrics."""

    @functools.wraps(original)
    def _compute_metrics(self, batch, metrics, timing_raw, global_steps, epoch):
        result = original(self, batch, metrics, timing_raw, global_steps, epoch)
        try:
            metrics.update(v1_batch_metrics(batch, kv_batch_get, global_steps))
        except Exception:  # curves are diagnostics: a failure here must not stop training
            log.exception("per-dimension reward metrics failed at step %s", global_steps)
        return result

    setattr(_compute_metrics, _MARK, True)
    return _compute_metrics


def wrap_compute_data_metrics(original: Callable) -> Callable:
    """Legacy `compute_data_metrics(batch=..., use_critic=...)` with the reward dimensions added."""

    @functools.wraps(original)
    def compute_data_metrics(batch, *args, **kwargs):
        metrics = original(batch, *args, **kwargs)
        metrics.update(dimension_metrics(batch))
        return metrics

    setattr(compute_data_metrics, _MARK, True)
    return compute_data_metrics


def wrap_get_gen_batch(original: Callable) -> Callable:
    """Legacy `RayPPOTrainer._get_gen_batch` that also gives each sample the trainer's step as `global_steps`.

    The legacy trainer puts the step only in `meta_info`, which the agent loop does not hand to the reward loop;
    per-sample non-tensor fields it does hand on (trainer V1 already adds `global_steps` there itself)."""

    @functools.wraps(original)
    def _get_gen_batch(self, batch):
        gen_batch = original(self, batch)
        gen_batch.non_tensor_batch["global_steps"] = np.full(len(gen_batch), int(self.global_steps), dtype=np.int64)
        return gen_batch

    setattr(_get_gen_batch, _MARK, True)
    return _get_gen_batch


REWARD_WORKER_MIN_CONCURRENCY = 1000
"""Ray's default `max_concurrency` of an async actor, which verl's reward-loop workers get."""


def reward_worker_concurrency(config) -> int:
    """In-flight rollouts one reward-loop worker must accept: every rollout of a training step (prompts x n) and of
    a validation batch could be waiting on it at once (they wait for their whole group), so Ray's default of 1,000
    would stall a 128 x 16 step. Never below that default."""
    data, rollout = config.data, config.actor_rollout_ref.rollout
    per_step = int(data.train_batch_size) * int(rollout.n)
    val_batch = data.get("val_batch_size") or 0
    per_val = int(val_batch) * int(rollout.get("val_kwargs", {}).get("n", 1) or 1)
    return max(REWARD_WORKER_MIN_CONCURRENCY, per_step, per_val)


def wrap_init_reward_loop_workers(original: Callable) -> Callable:
    """`RewardLoopManager._init_reward_loop_workers` that creates the workers with `max_concurrency` sized to a
    step's rollouts (`reward_worker_concurrency`) instead of Ray's default."""

    @functools.wraps(original)
    def _init_reward_loop_workers(self):
        import ray
        from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

        concurrency = reward_worker_concurrency(self.config)
        self.reward_loop_workers_class = ray.remote(max_concurrency=concurrency)(RewardLoopWorker)
        log.info("reward-loop workers accept %d rollouts in flight each", concurrency)
        return original(self)

    setattr(_init_reward_loop_workers, _MARK, True)
    return _init_reward_loop_workers


SUPPORTED_VERL = ">=0.9.0,<0.10"
"""The verl releases whose private methods `install()` wraps, checked against each release's source (0.9.0 and 0.9.1:
the same signatures; CI runs 0.9.1). verl 0.9 offers no public per-step metrics hook: the trainer V1 lifecycle hooks
(`on_step_end`, `on_sample_end`, ...) receive neither the step's batch nor its metrics, and the public trainer
registry (`register_trainer`, selected by `trainer.v1.trainer_mode`) cannot carry a subclass without a new mode name,
while verl reads that name itself (`== "sync"` picks the replay buffer and the refill policy, `trainer.v1.<mode>` its
settings), so a renamed mode would change the run."""


def check_verl_version(version: str | None = None) -> bool:
    """Whether the installed verl lies in `SUPPORTED_VERL`; outside it, a warning (the wrapped methods are private
    and may change in any release: `install()` still refuses one it cannot find).

    >>> check_verl_version("0.9.0"), check_verl_version("0.9.1")
    (True, True)
    """
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    if version is None:
        import verl

        version = getattr(verl, "__version__", "unknown")
    try:
        supported = Version(version) in SpecifierSet(SUPPORTED_VERL)
    except InvalidVersion:
        supported = False
    if not supported:
        log.warning("policy.verl_hooks is tested with verl %s (installed: verl %s): it wraps verl's private "
                    "PPOTrainer._compute_metrics, compute_data_metrics, RayPPOTrainer._get_gen_batch and "
                    "RewardLoopManager._init_reward_loop_workers, which may have changed", SUPPORTED_VERL, version)
    return supported


def _require(owner: Any, name: str) -> None:
    if not callable(getattr(owner, name, None)):
        import verl

        raise RuntimeError(
            f"policy.verl_hooks cannot install in verl {getattr(verl, '__version__', 'unknown')}: "
            f"{getattr(owner, '__name__', owner)}.{name} is gone (tested with verl {SUPPORTED_VERL}). Install a verl in "
            "that range, or run verl.trainer.main_ppo without the hook (no per-step dimension curves; set "
            "reward.num_workers=1 yourself)")


def install() -> list[str]:
    """Install the per-step dimension metrics in whichever verl trainers can be imported; returns their names.
    Warns outside `SUPPORTED_VERL` (`check_verl_version`); raises when a method it wraps is missing."""
    check_verl_version()
    installed = []
    from verl.trainer.ppo import ray_trainer

    _require(ray_trainer, "compute_data_metrics")
    _require(ray_trainer.RayPPOTrainer, "_get_gen_batch")

    if not getattr(ray_trainer.compute_data_metrics, _MARK, False):
        ray_trainer.compute_data_metrics = wrap_compute_data_metrics(ray_trainer.compute_data_metrics)
    if not getattr(ray_trainer.RayPPOTrainer._get_gen_batch, _MARK, False):
        ray_trainer.RayPPOTrainer._get_gen_batch = wrap_get_gen_batch(ray_trainer.RayPPOTrainer._get_gen_batch)
    installed.append("ray_trainer")
    from verl.experimental.reward_loop import reward_loop

    manager = reward_loop.RewardLoopManager
    _require(manager, "_init_reward_loop_workers")
    if not getattr(manager._init_reward_loop_workers, _MARK, False):
        manager._init_reward_loop_workers = wrap_init_reward_loop_workers(manager._init_reward_loop_workers)
    installed.append("reward_loop")
    try:  # trainer V1 needs TransferQueue, which GPU installs of verl have and CPU test envs may not
        import transfer_queue as tq
        from verl.trainer.ppo.v1.trainer_base import PPOTrainer
    except ImportError as exc:
        log.info("verl trainer V1 not importable (%s); per-dimension metrics only for the legacy trainer", exc)
    else:
        _require(PPOTrainer, "_compute_metrics")
        if not getattr(PPOTrainer._compute_metrics, _MARK, False):
            PPOTrainer._compute_metrics = wrap_v1_compute_metrics(PPOTrainer._compute_metrics, tq.kv_batch_get)
        installed.append("v1")
    log.info("per-dimension reward metrics installed: %s", ", ".join(installed))
    return installed

"""verl's PPO/GRPO entry point with the per-dimension reward metrics installed in its task runner.

    python -m policy.train --config-path $PWD/configs/verl --config-name grpo_megatron

Same arguments and Hydra overrides as `python -m verl.trainer.main_ppo` (and the same steps: device selection,
`validate_config`, `run_ppo`); the only difference is that the task runner (the Ray actor that runs the trainer,
V1 or legacy per `trainer.use_v1`) installs `policy.verl_hooks` before training, and a config that points verl's
default `naive` reward manager at `policy.verl_reward` gets `SearchRewardManager` instead (`use_search_manager`),
and a config with `SearchRewardManager` gets one reward-loop worker (`one_reward_worker`), so groups stay whole.
"""

from __future__ import annotations

import logging

import hydra
import ray

log = logging.getLogger(__name__)

REWARD_MODULE = "policy.verl_reward"


def use_search_manager(config) -> bool:
    """Select `policy.verl_manager.SearchRewardManager` when the config names a function of `policy.verl_reward`
    under verl's default `naive` manager (verl's documented two-line `custom_reward_function` setup).

    verl's naive manager hands the function only the dataset's `extra_info`: no training step, no prompt uid, no
    group size, so every score would be logged without a step and groups would be guessed from arrival times.
    Returns whether the config was changed."""
    from omegaconf import open_dict

    reward = config.reward
    path = str(reward.custom_reward_function.get("path") or "")
    manager = reward.reward_manager
    if REWARD_MODULE not in path.replace("/", ".") or manager.get("source", "register") != "register" \
            or manager.get("name", "naive") != "naive":
        return False
    with open_dict(config):
        manager.source = "importlib"
        manager.name = "SearchRewardManager"
        manager.module.path = "pkg://policy.verl_manager"
    log.info("reward manager: naive -> policy.verl_manager.SearchRewardManager (passes step, uid and group size)")
    return True


def one_reward_worker(config) -> bool:
    """Set `reward.num_workers: 1` when the reward manager is `SearchRewardManager`; returns whether it changed.

    verl 0.9's agent loop sends each rollout to a random reward-loop worker (`random.choice` in agent_loop.py), and
    verl's default is 8 workers: a GRPO group would be split between them and each part would wait
    `group_timeout_s` for the rest. One worker sees every rollout; it only awaits HTTP, so it is enough."""
    from omegaconf import open_dict

    reward = config.reward
    manager = reward.reward_manager
    if manager.get("name") != "SearchRewardManager" or reward.get("num_workers") == 1:
        return False
    log.warning("reward.num_workers: %s -> 1 (SearchRewardManager groups rollouts; verl routes them to workers at "
                "random, so several workers would split every group)", reward.get("num_workers"))
    with open_dict(config):
        reward.num_workers = 1
    return True


def required_gpus(config) -> int:
    """Accelerators the trainer's resource pools take: the training nodes, plus a separate reward-model pool."""
    needed = int(config.trainer.nnodes) * int(config.trainer.n_gpus_per_node)
    reward_model = config.get("reward", {}).get("reward_model", {}) or {}
    if reward_model.get("enable") and reward_model.get("enable_resource_pool"):
        needed += int(reward_model.get("nnodes") or 0) * int(reward_model.get("n_gpus_per_node") or 0)
    return needed


def check_gpus(config) -> None:
    """Fail fast, with verl's own wording, when the Ray cluster lacks the accelerators the config asks for.

    verl checks this only after starting the TransferQueue and loading the model's tokenizer (a download); on a
    2-core machine without GPUs or network, a run without this check had not failed after 8 minutes."""
    available = ray.cluster_resources()
    have = int(available.get("GPU", 0) or available.get("NPU", 0))
    needed = required_gpus(config)
    if have < needed:
        raise ValueError(f"Total available GPUs {have} is less than total desired GPUs {needed} "
                         f"(trainer.nnodes={config.trainer.nnodes} x trainer.n_gpus_per_node="
                         f"{config.trainer.n_gpus_per_node}); policy.train needs a Ray cluster with GPUs")


def runner_class(use_v1: bool):
    """verl's task runner class (V1 or legacy) with the metrics hook installed at the start of `run`."""
    if use_v1:
        from verl.trainer.main_ppo import TaskRunnerV1 as runner
    else:
        from verl.trainer.main_ppo_v0 import TaskRunner as runner
    base = runner.__ray_actor_class__ if hasattr(runner, "__ray_actor_class__") else runner

    class RewardDimensionsTaskRunner(base):
        def run(self, config):
            from policy import verl_hooks

            verl_hooks.install()
            if use_v1:  # what trainer V1 imports first (TransferQueue is in the `train` extra)
                import transfer_queue  # noqa: F401
                from verl.trainer.ppo.v1 import get_trainer_cls

                get_trainer_cls(config.trainer.v1.trainer_mode)
            check_gpus(config)
            return super().run(config)

    return ray.remote(num_cpus=1)(RewardDimensionsTaskRunner)


@hydra.main(config_path="pkg://verl.trainer.config", config_name="ppo_megatron_trainer", version_base=None)
def main(config) -> None:
    from verl.trainer.main_ppo import run_ppo
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config
    from verl.utils.device import auto_set_device

    auto_set_device(config)
    use_search_manager(config)
    one_reward_worker(config)
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    run_ppo(config, task_runner_class=runner_class(bool(config.trainer.get("use_v1", True))))


if __name__ == "__main__":
    main()

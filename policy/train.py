"""verl's PPO/GRPO entry point with the per-dimension reward metrics installed in its task runner.

    python -m policy.train --config-path $PWD/configs/verl --config-name grpo_megatron

Same arguments and Hydra overrides as `python -m verl.trainer.main_ppo` (and the same steps: device selection,
`validate_config`, `run_ppo`); the only difference is that the task runner (the Ray actor that runs the trainer,
V1 or legacy per `trainer.use_v1`) installs `policy.verl_hooks` before training, and a config that points verl's
default `naive` reward manager at `policy.verl_reward` gets `SearchRewardManager` instead (`use_search_manager`).
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
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    run_ppo(config, task_runner_class=runner_class(bool(config.trainer.get("use_v1", True))))


if __name__ == "__main__":
    main()

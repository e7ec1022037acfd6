"""verl's PPO/GRPO entry point with the per-dimension reward metrics installed in its task runner.

    python -m policy.train --config-path $PWD/configs/verl --config-name grpo_megatron

Same arguments and Hydra overrides as `python -m verl.trainer.main_ppo` (and the same steps: device selection,
`validate_config`, `run_ppo`); the only difference is that the task runner (the Ray actor that runs the trainer,
V1 or legacy per `trainer.use_v1`) installs `policy.verl_hooks` before training.
"""

from __future__ import annotations

import hydra
import ray


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
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    run_ppo(config, task_runner_class=runner_class(bool(config.trainer.get("use_v1", True))))


if __name__ == "__main__":
    main()

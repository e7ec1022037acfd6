"""verl's PPO/GRPO entry point with the per-dimension reward metrics installed in its task runner.

    python -m policy.train --config-path $PWD/configs/verl --config-name grpo_megatron

Same arguments and Hydra overrides as `python -m verl.trainer.main_ppo`; the only difference is that the task
runner (the Ray actor that runs the trainer) installs `policy.verl_hooks` first.
"""

from __future__ import annotations

import hydra
import ray


def _runner_class():
    from verl.trainer.main_ppo import TaskRunnerV1

    base = TaskRunnerV1.__ray_actor_class__ if hasattr(TaskRunnerV1, "__ray_actor_class__") else TaskRunnerV1

    class RewardDimensionsTaskRunner(base):
        def run(self, config):
            from policy import verl_hooks

            verl_hooks.install()
            return super().run(config)

    return ray.remote(num_cpus=1)(RewardDimensionsTaskRunner)


@hydra.main(config_path="pkg://verl.trainer.config", config_name="ppo_megatron_trainer", version_base=None)
def main(config) -> None:
    from verl.trainer.main_ppo import run_ppo
    from verl.utils.device import auto_set_device

    auto_set_device(config)
    run_ppo(config, task_runner_class=_runner_class())


if __name__ == "__main__":
    main()

"""verl 0.9 reward manager for the reward server: passes the training step and the GRPO group to the reward function.

In verl 0.9 (trainer V1 and the legacy ray_trainer alike) rewards are computed in the reward loop: every finished
rollout goes on its own to a `RewardLoopWorker` actor, which awaits `reward_manager.run_single(data)`. verl's own
`naive` manager gives the reward function only `extra_info`, so the function cannot know the training step or which
rollouts form a group. The sample it receives does carry both: `global_steps` (the trainer's step) and `uid` (the
prompt's id in this step, shared by its `rollout.n` rollouts). `SearchRewardManager` passes them on as `step=` and
`group_key=`, with `group_size=rollout.n` (`val_kwargs.n` in validation), to `policy.verl_reward.compute_score_async`,
whose `GroupBatcher` sends a group's rollouts to the server in one request once all `n` have arrived, and numbers
them `<item_id>#0 .. #n-1`.

Select it in the verl config (see configs/verl/recipe/grpo_search.yaml):

    reward:
      num_workers: 1                # all rollouts reach one worker, so groups are complete there (required:
                                    # verl routes rollouts to workers at random; more workers raise SplitGroupsError)
      reward_manager: {source: importlib, name: SearchRewardManager, module: {path: pkg://policy.verl_manager}}
      custom_reward_function: {path: pkg://policy.verl_reward, name: compute_score_async, reward_kwargs: {...}}
"""

from __future__ import annotations

import inspect
import logging

from verl import DataProto
from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase

from policy import verl_reward

log = logging.getLogger(__name__)


def _scalar(value):
    """A per-sample non-tensor value as a plain Python object (numpy scalars -> int/str)."""
    return value.item() if hasattr(value, "item") else value


class SearchRewardManager(RewardManagerBase):
    """Scores one rollout per call through the reward server, with its step and group (see the module docstring)."""

    def __init__(self, config, tokenizer, compute_score=None, **_ignored):
        workers = config.get("reward", {}).get("num_workers", 1)
        if workers is not None and int(workers) != 1:  # at worker start, before a rollout could wait on a split group
            raise verl_reward.SplitGroupsError(workers)
        super().__init__(config, tokenizer, compute_score)
        # Without a custom function configured, use the batched async one with the server settings from env.
        self.compute_score = compute_score or verl_reward.compute_score_async
        self.is_async = inspect.iscoroutinefunction(self.compute_score)
        rollout = config.actor_rollout_ref.rollout
        self.group_size = int(rollout.n)
        self.val_group_size = int(rollout.get("val_kwargs", {}).get("n", 1) or 1)

    def rollouts_per_prompt(self, extras: dict) -> int:
        """The sample's group size: verl's per-sample `__rollout_n__` when set, else `val_kwargs.n` for a
        validation sample (trainer V1 marks those `validate`), else `rollout.n`."""
        per_sample = extras.get("__rollout_n__")
        if per_sample is not None:
            return int(_scalar(per_sample))
        return self.val_group_size if bool(_scalar(extras.get("validate", False))) else self.group_size

    async def run_single(self, data: DataProto) -> dict:
        item = data[-1]  # multi-turn outputs: the reward is of the last sequence (as verl's naive manager)
        response_ids = item.batch["responses"]
        valid_length = int(item.batch["attention_mask"][-response_ids.shape[-1] :].sum())
        solution = await self.loop.run_in_executor(
            None, lambda: self.tokenizer.decode(response_ids[:valid_length], skip_special_tokens=True)
        )
        extras = item.non_tensor_batch
        extra_info = dict(extras.get("extra_info") or {})
        step = extras.get("global_steps")
        uid = extras.get("uid")
        call = {
            "data_source": extras.get("data_source"),
            "solution_str": solution,
            "ground_truth": (extras.get("reward_model") or {}).get("ground_truth"),
            "extra_info": extra_info,
            "step": None if step is None or int(_scalar(step)) < 0 else int(_scalar(step)),
            "group_key": None if uid is None else str(_scalar(uid)),
            "group_size": self.rollouts_per_prompt(extras),
        }
        if self.is_async:
            result = await self.compute_score(**call)
        else:
            result = await self.loop.run_in_executor(None, lambda: self.compute_score(**call))
        return {"reward_score": float(result["score"]), "reward_extra_info": dict(result)}

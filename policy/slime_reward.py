"""slime custom reward function that scores a prompt's group of samples on the reward server in one request.

slime (`slime/rollout/rm_hub/__init__.py`) calls `--custom-rm-path` as `await fn(args, samples)` with a list of
samples (`batched_async_rm`; with `--group-rm` that list is one prompt's group, generated together) or as
`await fn(args, sample)` with one. `group_rm` handles both. The interaction is the sample's `label`, the row's
`extra_info` as `reward data` writes it (`--label-key extra_info`); the server URL, suite, token and run come from
`REWARD_SERVER_URL`, `REWARD_SUITE`, `REWARD_SERVER_TOKEN` and `REWARD_RUN` (as for verl), and slime's
`args.rollout_id` is sent as the step when set.

Failures follow slime's own masking: a sample the judge could not score (`valid: false`) carries its group's mean
reward (set by the server, so slime's group normalisation gives it zero advantage) and `remove_sample = True`, which
slime turns into a zero loss mask (`slime/ray/rollout.py`). A judge outage is the server's 503, retried by the
client; after the retries the error propagates and the rollout fails loudly. Each sample's dimension values (those
that exist) go to `sample.metadata["reward_dimensions"]`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from policy.verl_reward import client_for, resolve_run, rollout_item, to_verl


def _interaction(label: Any) -> dict:
    if isinstance(label, str):
        label = json.loads(label)
    if not isinstance(label, dict):
        raise ValueError("slime sample.label must be the row's extra_info (--label-key extra_info; `reward data`)")
    return label


async def group_rm(args: Any, samples: Any, **kwargs: Any) -> Any:
    """slime `--custom-rm-path policy.slime_reward.group_rm` (with `--group-rm` for whole groups)."""
    single = not isinstance(samples, list)
    batch = [samples] if single else samples
    client = client_for(os.environ.get("REWARD_SERVER_URL", "http://127.0.0.1:8000"),
                        os.environ.get("REWARD_SERVER_TOKEN") or None)
    suite = os.environ.get("REWARD_SUITE", "searchllm")
    step = getattr(args, "rollout_id", None)
    items = []
    for index, sample in enumerate(batch):
        info = _interaction(sample.label)
        item = rollout_item(sample.response, info, index)
        if getattr(sample, "group_index", None) is not None and not info.get("group"):
            item["group"] = f"slime-{sample.group_index}"
        items.append(item)
    results = await client.ascore(suite, items, step if isinstance(step, int) else None, resolve_run({}))
    rewards = []
    for sample, result in zip(batch, results, strict=True):
        values = to_verl(result)
        if not result["valid"]:
            sample.remove_sample = True  # slime zeroes its loss mask
        if isinstance(getattr(sample, "metadata", None), dict):
            sample.metadata["reward_dimensions"] = {k: v for k, v in values.items() if v is not None}
        rewards.append(float(result["reward"]))
    return rewards[0] if single else rewards

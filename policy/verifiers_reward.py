"""A verifiers Rubric whose one group reward function scores a prompt's rollouts on the reward server in one request.

verifiers' Rubric (`verifiers.Rubric` up to 0.3, `verifiers.legacy` later; `verifiers/legacy/rubrics/rubric.py`)
scores a group with `score_group(states)`: a reward function whose parameters are plural (`completions`, `infos`,
`states`, ...) is a group function and gets the whole group at once (`_call_group_reward_func`); the rubric then sets
each state's `reward` and `advantage = reward - group mean`. `search_rubric(url)` builds that Rubric with
`SearchGroupReward`; the dataset's `info` column is the row's `extra_info` (`reward data`).

verifiers has no mask, and a reward function that raises gives the whole group 0.0. So an invalid rollout (a judge
failure the server could not score) carries its group's mean reward, as the server sets it, which makes its
advantage exactly zero; a judge outage is the server's 503, retried by the client, and after the retries the error
reaches verifiers (every rollout of the group 0.0: an equal reward, no advantage, never a ranking). Each rollout's
dimension values (those that exist) and `valid` go to `state["search_reward"]`: a metric function would have to
invent a number where none exists.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from policy.trl_reward import completion_text
from policy.verl_reward import RewardClient, client_for, rollout_item, to_verl


class SearchGroupReward:
    """The group reward function (`search_reward`): one request per group, rewards in the group's order."""

    __name__ = "search_reward"

    def __init__(self, server_url: str, suite: str = "searchllm", run: str | None = None, token: str | None = None,
                 client: RewardClient | None = None):
        self.client = client or client_for(server_url, token)
        self.suite = suite
        self.run = run
        self.requests = 0

    async def __call__(self, completions: list, infos: list[dict], states: list[dict] | None = None) -> list[float]:
        seen: Counter[str] = Counter()
        items = []
        for completion, info in zip(completions, infos, strict=True):
            item_id = str(info.get("item_id", "rollout"))
            items.append(rollout_item(completion_text(completion), info, seen[item_id]))
            seen[item_id] += 1
        self.requests += 1
        results = await self.client.ascore(self.suite, items, None, self.run)
        for state, result in zip(states or [], results, strict=False):
            state["search_reward"] = {k: v for k, v in to_verl(result).items() if v is not None}
        return [float(result["reward"]) for result in results]


def search_rubric(server_url: str, **options: Any) -> Any:
    """A verifiers Rubric with `SearchGroupReward` as its one reward function (weight 1)."""
    try:
        import verifiers as vf
    except ImportError as exc:
        raise ImportError("search_rubric needs verifiers (pip install 'verifiers<0.4')") from exc
    rubric_class = getattr(vf, "Rubric", None) or vf.legacy.Rubric  # moved under verifiers.legacy after 0.3
    return rubric_class(funcs=[SearchGroupReward(server_url, **options)], weights=[1.0])

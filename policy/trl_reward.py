"""TRL reward function that scores GRPO rollouts on the reward server.

`ServerReward` is a `reward_funcs` entry for TRL's `GRPOTrainer`: batch in, batch out. TRL hands it every completion
of a generation batch, each prompt's `num_generations` completions next to each other, with the dataset's columns
(here `extra_info`, written by `policy.data`) as keyword lists. It sends one request per prompt group to the server
(all groups of a batch concurrently, so the server can dedupe and order a group's judge calls), with the training
step and run name, and returns the scalar reward `R` of each valid rollout and `None` for an invalid one (an
unscored bottom-line dimension): TRL 1.x treats `None` as "unscorable", leaves it out of its group's baseline and
gives it zero advantage, so it is masked rather than punished. Every dimension, gate, utility and the valid rate go
to TRL's metrics through its `log_metric` hook as `reward_dim/<key>/mean` and `reward_dim/<key>/unscored_rate`, the
same names `policy.verl_hooks` gives verl's logs, and the training monitors' alerts as `reward_alert/<rule>` and
`reward_alert/<rule>/<dimension>` (1.0 while the rule fires; `reward.dashboard.monitors`).

Rollout ids are `<item_id>#<k>` with `k` counting the prompt's rollouts in the batch, so every rollout of a step has
its own row in the score log. The step sent is `trainer_state.global_step + 1`: the optimizer step these rollouts
train (TRL logs that step's metrics under the same number).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from policy.verl_hooks import column_metrics
from policy.verl_reward import RewardClient, client_for, rollout_item, to_verl, used_score

log = logging.getLogger(__name__)


def completion_text(completion: Any) -> str:
    """The text of one TRL completion: a plain string, or a conversational list of messages (assistant turns joined).

    >>> completion_text("plain")
    'plain'
    >>> completion_text([{"role": "assistant", "content": "<plan>x</plan>"}])
    '<plan>x</plan>'
    """
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion:
        content = message.get("content", "")
        if isinstance(content, list):  # content blocks
            content = "".join(block.get("text", "") for block in content if isinstance(block, dict))
        if message.get("role", "assistant") == "assistant":
            parts.append(content)
    return "".join(parts)


def prompt_groups(group_keys: list[str], group_size: int) -> list[list[int]]:
    """Indices of a TRL batch split into its prompt groups.

    TRL's sampler puts a prompt's `num_generations` completions next to each other, so a group is a run of
    `group_size` consecutive indices; a run is also cut where the prompt changes (a partial group, e.g. in eval).

    >>> prompt_groups(["a", "a", "b", "b", "a", "a"], 2)
    [[0, 1], [2, 3], [4, 5]]
    >>> prompt_groups(["a", "a", "a", "b"], 2)
    [[0, 1], [2], [3]]
    """
    groups: list[list[int]] = []
    for index, key in enumerate(group_keys):
        current = groups[-1] if groups else None
        if current is None or len(current) >= group_size or group_keys[current[0]] != key:
            groups.append([index])
        else:
            current.append(index)
    return groups


class ServerReward:
    """GRPO reward function backed by the reward server (see the module docstring).

    `last_seconds` holds the wall time of the latest call (the reward share of a step's time).
    """

    __name__ = "search_reward"  # TRL names a reward function's metrics after it (`rewards/search_reward/mean`)

    def __init__(self, server_url: str, suite: str = "searchllm", run: str | None = None, token: str | None = None,
                 num_generations: int = 1, concurrency: int = 8, client: RewardClient | None = None):
        self.client = client or client_for(server_url, token)
        self.suite = suite
        self.run = run
        self.num_generations = max(1, int(num_generations))
        self.concurrency = max(1, int(concurrency))
        self.requests = 0
        """Requests sent so far (one per prompt group)."""
        self.last_seconds = 0.0
        self.monitor = None
        """The training monitors over the steps this function has scored (`alerts`)."""

    def __call__(self, prompts: list, completions: list, completion_ids: list | None = None, *,
                 extra_info: list[dict] | None = None, trainer_state: Any = None,
                 log_metric: Callable[[str, float], None] | None = None, **_columns: Any) -> list[float | None]:
        results = self.results(completions, extra_info=extra_info, trainer_state=trainer_state, log_metric=log_metric)
        return [float(result["reward"]) if result["valid"] else None for result in results]

    def results(self, completions: list, *, extra_info: list[dict] | None = None, trainer_state: Any = None,
                log_metric: Callable[[str, float], None] | None = None) -> list[dict]:
        """The server's results for a TRL batch, one request per prompt group, with the curves logged."""
        started = time.perf_counter()
        if extra_info is None or len(extra_info) != len(completions):
            raise ValueError("ServerReward needs the dataset's 'extra_info' column (build it with `reward data`)")
        step = None if trainer_state is None else int(trainer_state.global_step) + 1
        seen: Counter[str] = Counter()
        items = []
        for completion, info in zip(completions, extra_info, strict=True):
            item_id = str(info.get("item_id", "rollout"))
            items.append(rollout_item(completion_text(completion), info, seen[item_id]))
            seen[item_id] += 1
        groups = prompt_groups([str(item["group"] or item["id"]) for item in items], self.num_generations)
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(groups)) or 1) as pool:
            replies = list(pool.map(lambda group: self.client.score(self.suite, [items[i] for i in group], step,
                                                                    self.run), groups))
        self.requests += len(groups)
        results: list[dict] = [{}] * len(items)
        for group, reply in zip(groups, replies, strict=True):
            for index, result in zip(group, reply, strict=True):
                results[index] = result
        names = sorted({name for result in results for name in result["dimensions"]})
        rows = [to_verl(result, names) for result in results]
        if log_metric is not None:
            for name, value in column_metrics({key: [row[key] for row in rows] for key in rows[0]}).items():
                log_metric(name, value)
            if step is not None:
                for name, value in self.alerts(step, results, items).items():
                    log_metric(name, value)
        self.last_seconds = time.perf_counter() - started
        return results


    def alerts(self, step: int, results: list[dict], items: list[dict]) -> dict[str, float]:
        """The training monitors' `reward_alert/...` keys after this step (`reward.dashboard.monitors`; the roles of
        the dimensions from the suite's file in the shipped rubrics). A diagnostic: a failure is logged, never
        raised."""
        from reward.dashboard.monitors import StepMonitor, suite_roles, summarise_results

        try:
            if self.monitor is None:
                layers = {n: d.get("layer") for r in results for n, d in r["dimensions"].items()}
                self.monitor = StepMonitor(roles=suite_roles([self.suite], layers))
            return self.monitor.observe(summarise_results(step, results, items, roles=self.monitor.roles))
        except Exception:
            log.exception("reward alerts failed at step %s", step)
            return {}


class DimensionRewards:
    """One TRL reward function per dimension, for `GRPOConfig(multi_objective_aggregation="normalize_then_sum")`,
    which normalises each function within its group before summing (`reward_funcs=DimensionRewards(...).functions()`,
    optionally `reward_weights` from the suite's weights).

    TRL calls its reward functions one after another on the same batch (`GRPOTrainer._calculate_rewards`, TRL 1.x);
    the first call sends the batch (one request per prompt group, as `ServerReward`) and the others read the same
    results. Each function returns, per rollout, the value the reward used for its dimension: the score, 0.0 where
    the response caused it to go unscored (it counts as failed), `None` where no value exists (left out for every
    response alike; a tolerated judge failure), which TRL turns into NaN and leaves out of the group's mean. An
    invalid rollout (a judge failure on the bottom line) is `None` in every function, so TRL marks it unscorable and
    gives it zero advantage. A dimension the suite marks monitor-only (its file in the shipped rubrics says so) is
    refused: a reward function of its own would give it the weight the suite withholds.
    """

    def __init__(self, server_url: str, dimensions: list[str], **options: Any):
        self.reward = ServerReward(server_url, **options)
        self.dimensions = list(dimensions)
        from reward.dashboard.monitors import suite_roles

        monitored = [name for name in self.dimensions if name in suite_roles([self.reward.suite], {}).monitor]
        if monitored:
            raise ValueError(f"suite {self.reward.suite!r} scores {', '.join(monitored)} monitor-only (no weight in the "
                             "reward); a reward function per dimension would train on it: leave it out of `dimensions`")
        self._batch: tuple[list, list[dict]] | None = None

    def functions(self) -> list[Callable[..., list[float | None]]]:
        return [_DimensionReward(self, name) for name in self.dimensions]

    def _results(self, completions: list, **kwargs: Any) -> list[dict]:
        if self._batch is None or self._batch[0] is not completions:
            self._batch = (completions, self.reward.results(completions, **kwargs))
        return self._batch[1]


class _DimensionReward:
    """One dimension's TRL reward function (a callable class: Ray and TRL's multiprocessing can pickle it)."""

    def __init__(self, rewards: DimensionRewards, dimension: str):
        self.rewards = rewards
        self.dimension = dimension
        self.__name__ = f"search_{dimension}"

    def __call__(self, prompts: list, completions: list, completion_ids: list | None = None, *,
                 extra_info: list[dict] | None = None, trainer_state: Any = None,
                 log_metric: Callable[[str, float], None] | None = None, **_columns: Any) -> list[float | None]:
        results = self.rewards._results(completions, extra_info=extra_info, trainer_state=trainer_state,
                                        log_metric=log_metric)
        return [used_score(result["dimensions"].get(self.dimension, {"reason": "not_applicable"}))
                if result["valid"] else None for result in results]

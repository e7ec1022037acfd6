"""Trainer-side adapters driven the way each trainer calls them, against the real ingress and scorer (in-process, as
in tests/test_hot_reload.py) with the OpenAI-compatible judge on the scripted judge server, one rollout's grounding
call failing with the judge's 503 (an infrastructure failure, a minority of the batch: answered, masked).

- TRL 1.x `GRPOTrainer._calculate_rewards` (trl/trainer/grpo_trainer.py): every reward function in turn with
  `prompts=, completions=, completion_ids=` and the dataset's columns, `trainer_state`, `log_extra`, `log_metric`;
  `None` becomes NaN and a rollout NaN in every function is unscorable (zero advantage).
- slime `batched_async_rm` (slime/rollout/rm_hub/__init__.py): `await fn(args, samples)` with `--group-rm` (one
  prompt's group) or `await fn(args, sample)`; a sample with `remove_sample` gets a zero loss mask
  (slime/ray/rollout.py); `Sample` fields as in slime/utils/types.py.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from types import SimpleNamespace

import httpx
import pytest
from starlette.requests import Request

from policy.data import row_of
from reward.dashboard.monitors import RULES
from reward.judges.mock_server import MockJudgeServer, MockReply, best_label
from reward.rubric import load_suite
from reward.scorelog import read_log
from reward.serve import ServerArgs
from tests.support import in_process_ingress, scripted_judge_config, EVIDENCE, FIXTURE_RUBRICS, free_port, make_item

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")

ANSWERS = ["Skibidi streams free on Spotify [Doc 1].", "It is free on Spotify's free tier [Doc 1].",
           "Skibidi is on Spotify, free with ads [Doc 1].", "I am not sure where."]


@pytest.fixture
def served(tmp_path, monkeypatch):
    """The ingress behind an httpx transport, with a judge whose grounding call for rollout #1 answers 503."""
    monkeypatch.delenv("REWARD_ADAPTER_TEST_TOKEN", raising=False)
    port = free_port()
    config = scripted_judge_config(tmp_path, port)
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge=str(config), score_log=str(tmp_path / "scores"),
                      token_env="REWARD_ADAPTER_TEST_TOKEN")
    ingress = in_process_ingress(args)
    suite = load_suite("mini", FIXTURE_RUBRICS)
    top = best_label(suite)

    def script(call):
        return MockReply(status=503) if call.item.endswith("#1") and call.dimension == "grounded" else top(call)

    async def handle(request: httpx.Request) -> httpx.Response:
        raw = await request.aread()

        async def receive():
            return {"type": "http.request", "body": raw, "more_body": False}

        scope = {"type": "http", "method": "POST", "path": request.url.path, "query_string": b"",
                 "headers": [(k.encode(), v.encode()) for k, v in request.headers.items()]}
        answer = await ingress.score(Request(scope, receive))
        return httpx.Response(answer.status_code, headers=dict(answer.headers), content=answer.body)

    with MockJudgeServer(suite, script, port=port):
        yield SimpleNamespace(transport=httpx.MockTransport(handle), scores=tmp_path / "scores")


def client(served):
    """verl's RewardClient (what every adapter here uses) sending to the in-process ingress."""
    from policy.verl_reward import RewardClient

    reward_client = RewardClient("http://reward.test", retries=0)

    def sync_handle(request):
        return asyncio.run(served.transport.handle_async_request(request))

    reward_client._client = httpx.Client(transport=httpx.MockTransport(sync_handle))
    return reward_client


def extra_info(item_id: str) -> dict:
    record = {"id": item_id, "group": item_id, "query": make_item("x", "y").query, "now": "2026-01-10",
              "evidence": [e.model_dump(mode="json") for e in EVIDENCE]}
    return row_of(record, 0)["extra_info"]


def responses():
    return [make_item("x", answer).response for answer in ANSWERS]


def test_trl_one_function_per_dimension_masks_a_failed_rollout_in_every_function(served):
    from policy.trl_reward import DimensionRewards

    dims = ["grounded", "format", "useful", "evidence_fit"]
    rewards = DimensionRewards("http://reward.test", dims, suite="mini", run="trl-dims", num_generations=4,
                               client=client(served))
    functions = rewards.functions()
    completions = [[{"role": "assistant", "content": text}] for text in responses()]
    logged: dict[str, float] = {}
    kwargs = {"prompts": [[{"role": "user", "content": "q"}]] * 4, "completions": completions,
              "completion_ids": [[1]] * 4, "extra_info": [extra_info("p1")] * 4,
              "trainer_state": SimpleNamespace(global_step=2), "log_extra": lambda *a: None,
              "log_metric": lambda name, value: logged.__setitem__(name, value)}
    columns = {function.__name__: function(**kwargs) for function in functions}
    assert list(columns) == [f"search_{d}" for d in dims]
    assert rewards.reward.requests == 1  # one request for the group, shared by the four functions
    # Rollout #1's grounding judge failed: that rollout is None in every function (TRL: unscorable, advantage 0).
    assert all(column[1] is None for column in columns.values())
    assert all(value is not None and 0.0 <= value <= 1.0 for c in columns.values() for i, value in enumerate(c) if i != 1)
    assert columns["search_format"][:3] == [1.0, None, 1.0] and columns["search_format"][3] < 1.0
    assert logged["reward_dim/valid_rate"] == pytest.approx(0.75)
    # The training monitors' keys, every rule's (one step is too few for any to fire).
    assert {k: v for k, v in logged.items() if k.count("/") == 1 and k.startswith("reward_alert/")} == {
        f"reward_alert/{rule}": 0.0 for rule in RULES}
    assert logged["reward_alert/no_variance/format"] == 0.0
    logged_items = list(read_log(served.scores))
    assert {r.step for r in logged_items} == {3} and {r.run for r in logged_items} == {"trl-dims"}


@dataclass
class Sample:
    """slime's `Sample` fields the reward path reads and writes (slime/utils/types.py)."""

    prompt: str = ""
    response: str = ""
    label: str | None = None
    reward: float | dict | None = None
    group_index: int | None = None
    index: int | None = None
    remove_sample: bool = False
    metadata: dict = field(default_factory=dict)


def test_slime_group_rm_scores_a_group_in_one_request_and_masks_a_failed_sample(served, monkeypatch):
    from policy import slime_reward, verl_reward

    reward_client = client(served)
    monkeypatch.setitem(verl_reward._CLIENTS, ("http://reward.test", None), reward_client)
    monkeypatch.setenv("REWARD_SERVER_URL", "http://reward.test")
    monkeypatch.setenv("REWARD_SUITE", "mini")
    monkeypatch.delenv("REWARD_SERVER_TOKEN", raising=False)
    label = json.dumps(extra_info("p9"))
    group = [Sample(prompt="q", response=text, label=label, group_index=0, index=k) for k, text in enumerate(responses())]
    args = SimpleNamespace(custom_rm_path="policy.slime_reward.group_rm", group_rm=True, rollout_id=5)

    async def run():
        loop = asyncio.get_running_loop()
        reward_client._async[loop] = httpx.AsyncClient(transport=served.transport)
        rewards = await slime_reward.group_rm(args, group)  # batched_async_rm with --group-rm
        single = await slime_reward.group_rm(args, Sample(response=responses()[0], label=label))  # async_rm
        return rewards, single

    rewards, single = asyncio.run(run())
    for sample, reward in zip(group, rewards, strict=True):
        sample.reward = reward
    assert [s.remove_sample for s in group] == [False, True, False, False]
    valid = [r for k, r in enumerate(rewards) if k != 1]
    assert rewards[1] == pytest.approx(sum(valid) / 3)  # the group's mean: zero advantage under slime's normalisation
    assert rewards[3] < rewards[0] and isinstance(single, float)
    assert group[0].metadata["reward_dimensions"]["format"] == 1.0
    assert "grounded" not in group[1].metadata["reward_dimensions"]  # no value, not a made-up one
    logged = list(read_log(served.scores))
    # The group in one request (p9#0..3), then the single sample (p9#0 again).
    assert {r.step for r in logged} == {5} and sorted(r.result.id for r in logged) == ["p9#0", "p9#0", "p9#1", "p9#2", "p9#3"]


def test_verifiers_group_reward_scores_a_group_once_and_a_failed_rollout_has_zero_advantage(served):
    """As verifiers' `Rubric.score_group` (verifiers/legacy/rubrics/rubric.py): a function with plural parameters is a
    group function, called with the group's objects it names; `advantage = reward - mean` of the group."""
    import inspect

    from policy.verifiers_reward import SearchGroupReward

    reward = SearchGroupReward("http://reward.test", suite="mini", run="vf", client=client(served))
    group_indicators = {"states", "prompts", "completions", "answers", "tasks", "infos"}
    assert set(inspect.signature(reward).parameters) & group_indicators  # Rubric._is_group_func
    states = [{"prompt": [{"role": "user", "content": "q"}], "completion": [{"role": "assistant", "content": text}],
               "info": extra_info("v1"), "trajectory": []} for text in responses()]
    merged = {"prompts": [s["prompt"] for s in states], "completions": [s["completion"] for s in states],
              "answers": [""] * 4, "states": states, "tasks": [None] * 4, "infos": [s["info"] for s in states],
              "parser": object()}
    allowed = {k: v for k, v in merged.items() if k in inspect.signature(reward).parameters}

    async def run():
        loop = asyncio.get_running_loop()
        reward.client._async[loop] = httpx.AsyncClient(transport=served.transport)
        return await reward(**allowed)

    scores = asyncio.run(run())
    mean = sum(scores) / len(scores)
    advantages = [s - mean for s in scores]
    assert reward.requests == 1 and abs(advantages[1]) < 1e-9  # the judge failed on #1: no penalty, no gain
    assert advantages[0] > 0 > advantages[3]
    assert states[1]["search_reward"]["valid"] == 0.0 and "grounded" not in states[1]["search_reward"]
    assert states[0]["search_reward"]["format"] == 1.0


def test_per_dimension_trl_rewards_refuse_a_monitor_only_dimension():
    from policy.trl_reward import DimensionRewards

    with pytest.raises(ValueError, match="claim_hallucination monitor-only"):
        DimensionRewards("http://reward.test", ["format", "claim_hallucination"], suite="searchllm-monitor-claims")
    assert DimensionRewards("http://reward.test", ["claim_hallucination"], suite="searchllm").dimensions == [
        "claim_hallucination"]

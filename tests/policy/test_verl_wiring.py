"""Trainer wiring at 2,048 rollouts per step: rollout ids, group completeness by `n`, the reward workers'
in-flight limit, the step on verl's two-line `custom_reward_function` path, and verl's own `RewardLoopWorker` as a
Ray actor scoring interleaved groups through the running server."""

import asyncio
import json
import time
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from tests.policy.test_verl import _rollout, parquet, tokenizer  # noqa: F401 (shared fixtures)
from tests.support import EXAMPLES, ROOT, TOKEN

pytestmark = pytest.mark.filterwarnings("ignore")


class FakeClient:
    """The reward client's async side without a server: records each request."""

    def __init__(self):
        self.calls = []

    async def ascore(self, suite, items, step, run):
        self.calls.append([item["id"] for item in items])
        return [{"id": item["id"], "reward": 0.5} for item in items]


def test_a_group_of_known_size_waits_for_all_its_rollouts_however_far_apart():
    """Rollouts of two groups arrive interleaved, each more than linger_s after the last: still one request per
    group, sent when its n-th rollout arrives, with ids <item>#0 .. #n-1."""
    from policy.verl_reward import GroupBatcher

    async def run():
        client = FakeClient()
        batcher = GroupBatcher(client, linger_s=0.05)
        jobs = []
        for k in range(4):
            for group in ("a", "b"):
                jobs.append(asyncio.ensure_future(batcher.score(("s", 3, "r"), group, 4, {"id": f"{group}#0"})))
                await asyncio.sleep(0.12)  # > linger_s between a group's rollouts
        results = await asyncio.gather(*jobs)
        return client.calls, results, batcher.requests

    calls, results, requests = asyncio.run(run())
    assert requests == 2
    assert sorted(calls) == [[f"a#{k}" for k in range(4)], [f"b#{k}" for k in range(4)]]
    assert sorted(r["id"] for r in results) == sorted(f"{g}#{k}" for g in "ab" for k in range(4))


def test_an_incomplete_group_is_sent_after_the_timeout_and_unknown_sizes_after_linger():
    from policy.verl_reward import GroupBatcher

    async def run():
        client = FakeClient()
        batcher = GroupBatcher(client, linger_s=0.05, group_timeout_s=0.3)
        started = time.monotonic()
        partial = await asyncio.gather(*(batcher.score(("s", 1, None), "p", 3, {"id": "p#0"}) for _ in range(2)))
        waited = time.monotonic() - started
        unknown = await asyncio.gather(*(batcher.score(("s", 1, None), "u", None, {"id": "u#0"}) for _ in range(2)))
        return client.calls, waited, partial, unknown

    calls, waited, partial, unknown = asyncio.run(run())
    assert calls == [["p#0", "p#1"], ["u#0", "u#1"]]
    assert waited >= 0.3  # the fallback, not linger_s, for a group whose size is known
    assert len(partial) == len(unknown) == 2


def test_reward_workers_accept_every_rollout_of_a_step():
    """Ray gives an async actor max_concurrency 1,000 by default; the wrapped worker creation sizes it to the
    step's rollouts (128 x 16 = 2,048 in the GRPO config)."""
    from hydra import compose, initialize_config_dir

    from policy.verl_hooks import install, reward_worker_concurrency, wrap_init_reward_loop_workers

    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        config = compose("grpo_megatron")
    assert reward_worker_concurrency(config) == 2048
    created = {}

    def original(self):
        created["options"] = dict(self.reward_loop_workers_class._default_options)

    wrap_init_reward_loop_workers(original)(SimpleNamespace(config=config))
    assert created["options"]["max_concurrency"] == 2048
    assert "reward_loop" in install()
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager

    assert getattr(RewardLoopManager._init_reward_loop_workers, "_reward_dimensions", False)


def test_the_two_line_custom_reward_function_path_gets_the_step_passing_manager():
    """verl's documented setup (custom_reward_function path + name, default naive manager) would hand our function
    no step and no uid; `policy.train` swaps in SearchRewardManager, which verl then resolves."""
    from hydra import compose, initialize_config_dir
    from verl.trainer.ppo.reward import resolve_reward_manager_cls

    from policy.train import use_search_manager
    from policy.verl_manager import SearchRewardManager

    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        config = compose("grpo_megatron", overrides=[
            "reward.reward_manager.source=register", "reward.reward_manager.name=naive",
            "reward.reward_manager.module.path=null"])
    assert resolve_reward_manager_cls(config) is not SearchRewardManager
    assert use_search_manager(config)
    assert resolve_reward_manager_cls(config) is SearchRewardManager
    assert not use_search_manager(config)  # already selected: unchanged


def test_search_manager_uses_val_n_for_validation_samples():
    from omegaconf import OmegaConf

    from policy.verl_manager import SearchRewardManager

    config = OmegaConf.create({"actor_rollout_ref": {"rollout": {"n": 16, "val_kwargs": {"n": 2}}}, "reward": {}})
    manager = SearchRewardManager.__new__(SearchRewardManager)
    SearchRewardManager.__init__(manager, config, tokenizer=None)
    assert manager.rollouts_per_prompt({}) == 16
    assert manager.rollouts_per_prompt({"validate": np.bool_(True)}) == 2
    assert manager.rollouts_per_prompt({"__rollout_n__": np.int64(5)}) == 5


def _requests_in_worker(worker) -> int:
    """Requests the GroupBatchers of a reward-loop worker actor have sent (read inside the actor)."""
    import ray

    def count(_self):
        from policy import verl_reward

        return sum(b.requests for batchers in list(verl_reward._BATCHERS.values()) for b in batchers.values())

    return ray.get(worker.__ray_call__.remote(count))


def test_verl_reward_loop_worker_actor_scores_interleaved_groups_through_the_server(server, tokenizer, parquet, tmp_path):
    """verl's RewardLoopManager (with the `policy.verl_hooks` concurrency) starts its RewardLoopWorker as a Ray
    actor; 2 groups x 4 rollouts arrive interleaved, one call each as verl's agent loop makes them, spread out over
    more than linger_s: one request per group, rewards on the last token, every extra-info key, and step, run,
    group and distinct rollout ids in the score log."""
    import pandas as pd
    import ray
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager

    from policy.verl_hooks import install
    from policy.verl_manager import SearchRewardManager
    from reward.engine import Engine
    from reward.judges.mock import ScriptedJudge
    from reward.rubric import load_suite
    from reward.schema import Item
    from reward.scorelog import read_log

    from policy import verl_reward

    tok = tokenizer
    tok.save_pretrained(tmp_path / "tok")
    group_size = 4
    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        config = compose("grpo_megatron", overrides=[
            f"actor_rollout_ref.model.path={tmp_path / 'tok'}", f"actor_rollout_ref.rollout.n={group_size}",
            f"reward.custom_reward_function.reward_kwargs.server_url={server['url']}",
            "reward.custom_reward_function.reward_kwargs.run=verl-actor",
            "+reward.custom_reward_function.reward_kwargs.token=" + TOKEN,
            "+reward.custom_reward_function.reward_kwargs.linger_s=0.2"])
    install()
    manager = RewardLoopManager(config)
    [worker] = manager.reward_loop_workers
    ray.get(worker.__ray_ready__.remote(), timeout=300)  # started, so the rollouts below arrive as they are sent
    frame = pd.read_parquet(parquet).head(2)
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    pool = {}
    for example in examples:
        pool.setdefault(example["query"], []).append(example["response"])
    rollouts, refs = [], []
    for k in range(group_size):  # interleaved: g0 r0, g1 r0, g0 r1, ... each 0.3 s (> linger_s) apart
        for g, (_, row) in enumerate(frame.iterrows()):
            answers = pool[row["extra_info"]["query"]]
            data, length = _rollout(tok, row, answers[k % len(answers)], uid=f"uid-{g}", step=21)
            rollouts.append((g, data, length))
            refs.append(worker.compute_score.remote(data))
            time.sleep(0.3)
    outputs = ray.get(refs, timeout=120)
    # Each group in one request (two groups completing in the same event-loop turn may share one).
    assert _requests_in_worker(worker) <= 2
    suite = load_suite("searchllm")
    keys = set(suite.dimensions) | {"score", "gate", "utility", "valid"}
    assert all(set(o["reward_extra_info"]) == keys for o in outputs)
    engine = Engine(suite, ScriptedJudge())
    for (g, data, length), output in zip(rollouts, outputs):
        item = verl_reward.rollout_item(tok.decode(data.batch["responses"][0][:length], skip_special_tokens=True),
                                        data[0].non_tensor_batch["extra_info"], 0)
        assert output["reward_score"] == pytest.approx(engine.score_sync([Item.model_validate(item)])[0].reward, abs=1e-6)
        [rm] = SearchRewardManager.assemble_rm_scores(data, [output["reward_score"]])
        assert rm[length - 1].item() == pytest.approx(output["reward_score"])  # on the last response token
        assert rm.abs().sum().item() == pytest.approx(abs(output["reward_score"]))
    logged = [r for r in read_log(server["log"]) if r.run == "verl-actor"]
    assert len(logged) == 2 * group_size and {r.step for r in logged} == {21}
    groups = Counter(r.group for r in logged)
    assert sorted(groups.values()) == [group_size, group_size]
    for group in groups:  # a request's records share its log time: no group was split over requests
        assert len({r.time for r in logged if r.group == group}) == 1
    for group in groups:
        ids = sorted(r.result.id for r in logged if r.group == group)
        item_id = ids[0].rsplit("#", 1)[0]
        assert ids == [f"{item_id}#{k}" for k in range(group_size)]
    ray.kill(worker)


def _two_line_config(*overrides: str):
    """verl's documented two-line setup (custom_reward_function path and name, default naive manager) with verl's
    default of 8 reward-loop workers."""
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        return compose("grpo_megatron", overrides=[
            "reward.reward_manager.source=register", "reward.reward_manager.name=naive",
            "reward.reward_manager.module.path=null", "reward.num_workers=8", *overrides])


def test_policy_train_gives_the_search_manager_one_reward_worker():
    from policy.train import one_reward_worker, use_search_manager

    config = _two_line_config()
    assert not one_reward_worker(config) and config.reward.num_workers == 8  # verl's naive manager: untouched
    assert use_search_manager(config) and one_reward_worker(config)
    assert config.reward.num_workers == 1
    assert not one_reward_worker(config)


def test_the_search_manager_refuses_several_reward_workers_naming_the_fix():
    """verl's own main_ppo with SearchRewardManager and reward.num_workers > 1 fails when the workers start."""
    from omegaconf import OmegaConf

    from policy.verl_manager import SearchRewardManager
    from policy.verl_reward import SplitGroupsError

    config = OmegaConf.create({"actor_rollout_ref": {"rollout": {"n": 16}}, "reward": {"num_workers": 8}})
    with pytest.raises(SplitGroupsError, match=r"reward.num_workers=8: .*Set reward.num_workers=1"):
        SearchRewardManager(config, tokenizer=None)


def test_verls_random_worker_routing_keeps_groups_whole_without_waiting(server, tokenizer, parquet, tmp_path):
    """The two-line setup with verl's default 8 workers, prepared as `policy.train` prepares it, then routed as
    verl 0.9.1's agent loop routes each rollout (`random.choice(reward_loop_worker_handles)`): every group reaches
    the server in one request at once; a split group would wait group_timeout_s (600 s) and time this test out."""
    import random

    import pandas as pd
    import ray
    from verl.experimental.reward_loop.reward_loop import RewardLoopManager

    from policy.train import one_reward_worker, use_search_manager
    from reward.scorelog import read_log

    tok = tokenizer
    tok.save_pretrained(tmp_path / "tok")
    group_size = 4
    config = _two_line_config(
        f"actor_rollout_ref.model.path={tmp_path / 'tok'}", f"actor_rollout_ref.rollout.n={group_size}",
        f"reward.custom_reward_function.reward_kwargs.server_url={server['url']}",
        "reward.custom_reward_function.reward_kwargs.run=verl-random-routing",
        "+reward.custom_reward_function.reward_kwargs.token=" + TOKEN)
    use_search_manager(config)
    one_reward_worker(config)
    assert config.reward.custom_reward_function.reward_kwargs.group_timeout_s == 600
    manager = RewardLoopManager(config)
    handles = manager.reward_loop_worker_handles
    try:
        ray.get([h.__ray_ready__.remote() for h in handles], timeout=300)
        frame = pd.read_parquet(parquet).head(2)
        examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
        answers = {}
        for example in examples:
            answers.setdefault(example["query"], []).append(example["response"])
        refs = []
        started = time.monotonic()
        for k in range(group_size):
            for g, (_, row) in enumerate(frame.iterrows()):
                data, _ = _rollout(tok, row, answers[row["extra_info"]["query"]][k % 2], uid=f"rr-{g}", step=3)
                refs.append(random.choice(handles).compute_score.remote(data))  # verl 0.9.1 agent_loop.py
        outputs = ray.get(refs, timeout=120)
        assert time.monotonic() - started < 60
    finally:
        for handle in handles:
            ray.kill(handle)
    assert len(outputs) == 2 * group_size
    logged = [r for r in read_log(server["log"]) if r.run == "verl-random-routing"]
    assert sorted(Counter(r.group for r in logged).values()) == [group_size, group_size]
    for group in {r.group for r in logged}:  # one request per group: its records share the log time
        assert len({r.time for r in logged if r.group == group}) == 1


def test_a_reward_function_under_verls_naive_manager_fails_fast_in_one_of_several_workers(server):
    """verl's own main_ppo with the two-line setup and several workers: the function cannot group (the naive
    manager passes no uid, and rollouts land on random workers), so it raises naming the fix instead of waiting."""
    import ray

    @ray.remote(num_cpus=0)
    class Worker:
        def score(self):
            import asyncio

            from policy import verl_reward

            try:
                asyncio.run(verl_reward.compute_score_async(
                    "search_reward", "<plan></plan>", "", {"query": "q", "group": "g"},
                    server_url="http://127.0.0.1:9", group_size=4))
            except verl_reward.SplitGroupsError as exc:
                return str(exc)
            return "no error"

        def workers_seen(self):
            from policy import verl_reward

            return verl_reward.reward_loop_workers()

    workers = [Worker.options(name=f"reward_loop_worker_{i}").remote() for i in range(2)]
    alone = Worker.options(name="another_actor").remote()
    try:
        messages = ray.get([w.score.remote() for w in workers], timeout=120)
        assert all("reward.num_workers=2" in m and "Set reward.num_workers=1" in m for m in messages)
        # Outside verl's reward-loop workers nothing is refused.
        assert ray.get(alone.workers_seen.remote(), timeout=60) == 0
        assert ray.get(workers[0].workers_seen.remote(), timeout=60) == 2
    finally:
        for worker in (*workers, alone):
            ray.kill(worker)

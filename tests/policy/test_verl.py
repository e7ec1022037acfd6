"""The verl side against real verl (CPU): data -> parquet -> RLHFDataset, verl's naive and batch reward managers
on a real DataProto scoring through the running server, the GRPO configs through Hydra, the metrics hook."""

import json
import os

import numpy as np
import pytest
import torch

from policy.format import parse_response
from policy.prompts import EXAMPLE, SYSTEM_PROMPT, build_messages
from tests.support import EXAMPLES, ROOT, TOKEN

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def tokenizer():
    """A byte-level BPE tokenizer trained here on the examples (no download), with a chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    texts = [line for line in EXAMPLES.read_text().splitlines()] + [SYSTEM_PROMPT]
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=2000, special_tokens=["<pad>", "<eos>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, pad_token="<pad>", eos_token="<eos>")
    tok.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                         "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
    return tok


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    from reward.cli import main

    path = tmp_path_factory.mktemp("data") / "train.parquet"
    assert main(["data", "--input", str(EXAMPLES), "--output", str(path)]) == 0
    return path


def test_the_prompt_example_is_what_the_reward_parses():
    assert parse_response(EXAMPLE).problems == []
    messages = build_messages("q?", [], None)
    assert messages[0]["content"] == SYSTEM_PROMPT and "Query: q?" in messages[-1]["content"]


def test_every_system_prompt_says_to_write_nothing_outside_the_three_parts():
    """A preamble or closing line fails the format (format 0 pulls the gate down), so every prompt says so."""
    import re

    from policy.prompts import SYSTEM_PROMPTS

    for name, prompt in SYSTEM_PROMPTS.items():
        assert re.search(r"\bnothing outside (the three parts|them)\b", prompt, re.IGNORECASE), name
        assert all(tag in prompt for tag in ("<plan>", "<evidence>", "<answer>")), name


def test_parquet_loads_in_verls_dataset(parquet, tokenizer, tmp_path):
    import pandas as pd
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    frame = pd.read_parquet(parquet)
    queries = {json.loads(line)["query"] for line in EXAMPLES.read_text().splitlines() if line.strip()}
    assert len(frame) == len(queries)  # rollouts of one prompt collapse to one prompt row
    # verl tokenises every prompt with the chat template to filter overlong ones: all of ours fit.
    config = OmegaConf.create({"max_prompt_length": 4096, "filter_overlong_prompts": True, "cache_dir": str(tmp_path),
                               "return_raw_chat": True})
    dataset = RLHFDataset(data_files=str(parquet), tokenizer=tokenizer, config=config)
    assert len(dataset) == len(frame)
    sample = dataset[0]
    assert sample["raw_prompt"][0]["content"] == SYSTEM_PROMPT
    assert sample["raw_prompt"][-1]["content"].endswith(f"Query: {frame.iloc[0]['extra_info']['query']}")
    assert sample["extra_info"]["query"] == frame.iloc[0]["extra_info"]["query"]
    assert sample["data_source"] == "search_reward"
    assert json.loads(sample["extra_info"]["evidence"])[0]["id"] == "1"


def _data_proto(tokenizer, parquet, responses_per_prompt=2):
    import pandas as pd
    from verl import DataProto

    frame = pd.read_parquet(parquet).head(3)
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    by_query = {}
    for example in examples:
        by_query.setdefault(example["query"], []).append(example["response"])
    prompts, responses, extras = [], [], []
    for _, row in frame.iterrows():
        info = dict(row["extra_info"])
        for k in range(responses_per_prompt):
            pool = by_query[info["query"]]
            prompts.append(tokenizer.apply_chat_template(list(row["prompt"]), tokenize=False, add_generation_prompt=True))
            responses.append(pool[k % len(pool)])
            extras.append(dict(info))
    p_ids = [tokenizer(p)["input_ids"][-256:] for p in prompts]
    r_ids = [tokenizer(r)["input_ids"] for r in responses]
    p_len, r_len = max(map(len, p_ids)), max(map(len, r_ids))
    pad = tokenizer.pad_token_id
    prompt_tensor = torch.tensor([[pad] * (p_len - len(p)) + p for p in p_ids])
    response_tensor = torch.tensor([r + [pad] * (r_len - len(r)) for r in r_ids])
    mask = torch.tensor([[0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r)) for p, r in zip(p_ids, r_ids)])
    data = DataProto.from_dict(
        tensors={"prompts": prompt_tensor, "responses": response_tensor, "attention_mask": mask,
                 "input_ids": torch.cat([prompt_tensor, response_tensor], dim=1)},
        non_tensors={"data_source": np.array(["search_reward"] * len(prompts), dtype=object),
                     "reward_model": np.array([{"style": "rule", "ground_truth": ""}] * len(prompts), dtype=object),
                     "extra_info": np.array(extras, dtype=object)},
    )
    return data, r_ids, responses


@pytest.mark.parametrize("manager", ["naive", "batch"])
def test_verl_reward_managers_score_through_the_server(server, tokenizer, parquet, manager):
    from functools import partial

    from verl.workers.reward_manager import BatchRewardManager, NaiveRewardManager

    from policy import verl_reward

    os.environ["REWARD_SERVER_TOKEN"] = TOKEN
    kwargs = {"server_url": server["url"], "suite": "searchllm", "run": f"verl-{manager}", "step": 7}
    data, r_ids, responses = _data_proto(tokenizer, parquet)
    if manager == "naive":
        reward_manager = NaiveRewardManager(tokenizer, 0, compute_score=partial(verl_reward.compute_score, **kwargs))
    else:
        reward_manager = BatchRewardManager(tokenizer, 0, compute_score=verl_reward.compute_score_batch, **kwargs)
    out = reward_manager(data, return_dict=True)
    rewards, extra = out["reward_tensor"], out["reward_extra_info"]
    from reward.engine import Engine
    from reward.judges.mock import ScriptedJudge
    from reward.rubric import load_suite
    from reward.schema import Item

    expected = []
    for i, response in enumerate(responses):
        item = verl_reward.rollout_item(tokenizer.decode(r_ids[i], skip_special_tokens=True), data[i].non_tensor_batch["extra_info"], i)
        expected.append(Engine(load_suite("searchllm"), ScriptedJudge()).score_sync([Item.model_validate(item)])[0].reward)
    for i, ids in enumerate(r_ids):
        assert rewards[i, len(ids) - 1].item() == pytest.approx(expected[i], abs=1e-6)  # placed on the last token
        assert rewards[i, : len(ids) - 1].abs().sum().item() == 0
    dims = load_suite("searchllm").dimensions
    assert set(dims) <= set(extra) and {"score", "gate", "utility", "valid"} <= set(extra)
    assert all(len(values) == len(responses) for values in extra.values())
    assert all(v in (0.0, 1.0) for v in extra["valid"])
    assert all(v is None or 0.0 <= v <= 1.0 for v in extra["format"])
    from reward.scorelog import read_log

    logged = [r for r in read_log(server["log"]) if r.run == f"verl-{manager}"]
    assert logged and {r.step for r in logged} == {7}


def test_a_dimension_without_a_value_is_none_and_a_response_caused_one_is_zero():
    from policy.verl_reward import to_verl

    result = {"reward": 0.4, "gate": None, "utility": None, "valid": False,
              "dimensions": {"format": {"score": 1.0}, "claim_hallucination": {"score": None, "reason": "judge_timeout"},
                             "answer_useful": {"score": None, "reason": "unparseable"},
                             "multi_turn_conflict": {"score": None, "reason": "not_applicable"}}}
    assert to_verl(result) == {"score": 0.4, "gate": None, "utility": None, "valid": 0.0, "answer_useful": 0.0,
                               "claim_hallucination": None, "format": 1.0, "multi_turn_conflict": None}


def test_grpo_configs_compose_through_verls_hydra_config():
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        gated = compose("grpo_megatron")
        linear = compose("grpo_megatron_linear")
    actor = gated.actor_rollout_ref.actor
    assert gated.actor_rollout_ref.model.path == "Qwen/Qwen3-30B-A3B-Instruct-2507"
    assert gated.data.train_batch_size == 128 and gated.actor_rollout_ref.rollout.n == 16
    assert gated.actor_rollout_ref.rollout.temperature == 1.0 and gated.actor_rollout_ref.rollout.name == "vllm"
    assert list(actor.optim.betas) == [0.9, 0.95] and actor.optim.weight_decay == 0.1 and actor.optim.lr == 1e-6
    assert actor.use_kl_loss and actor.kl_loss_coef == 0.01 and actor.strategy == "megatron"
    assert gated.algorithm.adv_estimator == "grpo"
    # The Megatron engine converts with mbridge (what requirements-gpu.lock installs), for the actor and the ref.
    from verl.utils.config import omega_conf_to_dataclass

    for megatron in (actor.megatron, gated.actor_rollout_ref.ref.megatron):
        engine = omega_conf_to_dataclass(megatron)
        assert engine.use_mbridge and engine.vanilla_mbridge
    assert gated.reward.custom_reward_function.name == "compute_score_async"
    assert linear.reward.custom_reward_function.reward_kwargs.suite == "searchllm-linear"
    assert linear.actor_rollout_ref.actor.optim.lr == 1e-6  # the ablation changes only the aggregation
    # verl resolves the reward manager and the function from these keys the way its reward loop does.
    import inspect

    from verl.trainer.ppo.reward import get_custom_reward_fn, resolve_reward_manager_cls

    from policy.verl_manager import SearchRewardManager

    for config in (gated, linear):
        assert resolve_reward_manager_cls(config) is SearchRewardManager
        assert inspect.iscoroutinefunction(get_custom_reward_fn(config))


def test_dimension_metrics_hook_logs_means_without_missing_values():
    from verl import DataProto

    from policy.verl_hooks import dimension_metrics, install, wrap_compute_data_metrics

    data = DataProto.from_dict(
        tensors={"x": torch.zeros(4, 1)},
        non_tensors={"format": np.array([1.0, 0.0, None, 1.0], dtype=object), "valid": np.array([1.0, 1.0, 0.0, 1.0]),
                     "reason": np.array(["", "", "timeout", ""], dtype=object),
                     "score": np.array([0.9, 0.1, 0.5, 0.9])},
        meta_info={"reward_extra_keys": ["format", "valid", "reason", "score"], "global_steps": 5},
    )
    metrics = dimension_metrics(data)
    assert metrics["reward_dim/format/mean"] == pytest.approx(2 / 3)
    assert metrics["reward_dim/format/unscored_rate"] == pytest.approx(0.25)
    assert metrics["reward_dim/valid_rate"] == pytest.approx(0.75)
    assert not any(k.startswith("reward_dim/reason") for k in metrics)
    assert metrics["reward_alert/no_variance"] == 0.0 and metrics["reward_alert/no_variance/format"] == 0.0
    wrapped = wrap_compute_data_metrics(lambda batch, use_critic: {"critic/x": 1.0})
    assert wrapped(batch=data, use_critic=False)["reward_dim/format/mean"] == pytest.approx(2 / 3)
    assert "ray_trainer" in install()
    from verl.trainer.ppo import ray_trainer

    assert getattr(ray_trainer.compute_data_metrics, "_reward_dimensions", False)
    # the legacy trainer's generation batch carries the step per sample, for the reward manager
    from types import SimpleNamespace

    gen = ray_trainer.RayPPOTrainer._get_gen_batch(SimpleNamespace(global_steps=9), data)
    assert gen.non_tensor_batch["global_steps"].tolist() == [9, 9, 9, 9]


def test_v1_trainer_hook_reads_reward_extras_from_the_transfer_queue():
    """Trainer V1 keeps each rollout's reward extras in TransferQueue `extra_fields`; the wrapped
    `_compute_metrics` reads them for the step's keys (padding rows left out) into the logged metrics."""
    from types import SimpleNamespace

    from policy.verl_hooks import wrap_v1_compute_metrics

    rows = [{"reward_extra_info": {"score": 0.5, "format": 1.0, "valid": 1.0}},
            {"reward_extra_info": {"score": 0.3, "format": None, "valid": 0.0}},
            {"reward_extra_info": {"score": 9.0, "format": 9.0, "valid": 1.0}},  # a padding row
            {"reward_extra_info": {"score": 0.1, "format": 0.0, "valid": 1.0}}]
    asked = {}

    def kv_batch_get(keys, partition_id, select_fields):
        asked.update(keys=keys, partition_id=partition_id, select_fields=select_fields)
        return {"extra_fields": np.array(rows, dtype=object)}

    batch = SimpleNamespace(keys=["a", "b", "pad", "c"], partition_id="train",
                            tags=[{}, {}, {"is_padding": True}, {}])

    def original(self, batch, metrics, timing_raw, global_steps, epoch):
        metrics["training/global_step"] = global_steps

    metrics = {}
    wrap_v1_compute_metrics(original, kv_batch_get)(object(), batch, metrics, {}, 3, 0)
    assert asked == {"keys": ["a", "b", "pad", "c"], "partition_id": "train", "select_fields": ["extra_fields"]}
    assert metrics["training/global_step"] == 3
    assert metrics["reward_dim/score/mean"] == pytest.approx(0.3)
    assert metrics["reward_dim/format/mean"] == pytest.approx(0.5)
    assert metrics["reward_dim/format/unscored_rate"] == pytest.approx(1 / 3)
    assert metrics["reward_dim/valid_rate"] == pytest.approx(2 / 3)
    assert metrics["reward_alert/dimension_falling"] == 0.0 and "reward_alert/no_variance/format" in metrics


def test_verl_alert_keys_fire_over_the_steps_a_rule_needs():
    """The monitors run over the steps one process sees: a dimension that never varies fires `no_variance` once
    its window is full (5 steps), under its own key and its rule's; groups (verl's uid) feed the zero-spread rule."""
    from policy import verl_hooks

    verl_hooks._MONITOR.clear()
    fired = []
    for step in range(1, 7):
        columns = {"score": np.array([0.2, 0.4, 0.5, 0.5] * 4), "valid": np.array([1.0] * 16),
                   "format": np.array([1.0] * 16, dtype=object), "gdpo_format": np.array([1.0] * 16),
                   "useful": np.array([0.1, 0.9, 0.5, 0.5] * 4, dtype=object)}
        metrics = verl_hooks.alert_column_metrics(columns, step, groups=np.array(["a", "a", "b", "b"] * 4))
        fired.append(metrics["reward_alert/no_variance/format"])
        assert "reward_alert/no_variance/gdpo_format" not in metrics and metrics["reward_alert/no_variance/useful"] == 0.0
    assert fired == [0.0] * 4 + [1.0, 1.0] and metrics["reward_alert/no_variance"] == 1.0
    assert metrics["reward_alert/zero_spread_groups"] == 1.0  # group b's rewards never differ: half the groups
    verl_hooks._MONITOR.clear()


def test_verl_alerts_catch_a_monitor_only_dimension_falling_from_the_columns_alone(monkeypatch):
    """verl's columns carry no layers: the suite named by REWARD_SUITE says which dimensions are bottom-line and
    monitor-only, so the monitor-only claim_hallucination falling while the score rises is caught."""
    from policy import verl_hooks

    monkeypatch.setenv("REWARD_SUITE", "searchllm-monitor-claims")
    verl_hooks._MONITOR.clear()
    rng = np.random.default_rng(0)
    for step in range(12):
        claim = (rng.random(64) < 0.95 - 0.05 * step).astype(float)
        metrics = verl_hooks.alert_column_metrics(
            {"score": 0.3 + 0.03 * step + rng.normal(0, 0.05, 64), "valid": np.ones(64), "claim_hallucination": claim},
            step)
    assert metrics["reward_alert/dimension_falling/claim_hallucination"] == 1.0
    verl_hooks._MONITOR.clear()


def _rollout(tokenizer, row, response: str, uid: str, step: int):
    """One rollout as verl's agent loop hands it to a reward-loop worker (one sample per call)."""
    from verl import DataProto

    prompt = tokenizer.apply_chat_template(list(row["prompt"]), tokenize=False, add_generation_prompt=True)
    p_ids = tokenizer(prompt)["input_ids"][-64:]
    r_ids = tokenizer(response)["input_ids"] + [tokenizer.pad_token_id] * 3  # right padding, as verl pads
    mask = [1] * len(p_ids) + [1] * (len(r_ids) - 3) + [0] * 3
    return DataProto.from_dict(
        tensors={"prompts": torch.tensor([p_ids]), "responses": torch.tensor([r_ids]),
                 "attention_mask": torch.tensor([mask]), "input_ids": torch.tensor([p_ids + r_ids])},
        non_tensors={"data_source": np.array(["search_reward"], dtype=object),
                     "reward_model": np.array([{"style": "rule", "ground_truth": ""}], dtype=object),
                     "extra_info": np.array([dict(row["extra_info"])], dtype=object),
                     "uid": np.array([uid], dtype=object), "global_steps": np.array([step])},
    ), len(r_ids) - 3


def test_verl_reward_loop_scores_groups_through_the_server(server, tokenizer, parquet, tmp_path, monkeypatch):
    """verl 0.9's training reward path: its RewardLoopWorker, built from our GRPO config (reward manager and
    function loaded by verl), scores rollouts one call each, as the agent loop sends them; a group's rollouts
    reach the server in one request, with the training step; the reward lands on the last response token."""
    import asyncio

    import pandas as pd
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    from policy import verl_reward
    from policy.verl_manager import SearchRewardManager
    from reward.engine import Engine
    from reward.judges.mock import ScriptedJudge
    from reward.rubric import load_suite
    from reward.schema import Item
    from reward.scorelog import read_log

    tokenizer.save_pretrained(tmp_path / "tok")
    monkeypatch.setenv("REWARD_SERVER_TOKEN", TOKEN)
    group_size = 3
    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        config = compose("grpo_megatron", overrides=[
            f"actor_rollout_ref.model.path={tmp_path / 'tok'}", f"actor_rollout_ref.rollout.n={group_size}",
            f"reward.custom_reward_function.reward_kwargs.server_url={server['url']}",
            "reward.custom_reward_function.reward_kwargs.run=verl-loop",
            "reward.custom_reward_function.reward_kwargs.group_timeout_s=1.0"])

    frame = pd.read_parquet(parquet).head(2)
    examples = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    pool = {}
    for example in examples:
        pool.setdefault(example["query"], []).append(example["response"])

    async def run():
        worker = RewardLoopWorker(config)
        assert isinstance(worker.reward_manager, SearchRewardManager)
        outputs, expected_rows = [], []
        for g, (_, row) in enumerate(frame.iterrows()):
            responses = [pool[row["extra_info"]["query"]][k % len(pool[row["extra_info"]["query"]])] for k in range(group_size)]
            rollouts = [_rollout(tokenizer, row, r, uid=f"uid-{g}", step=11) for r in responses]
            # The rollouts of one group arrive concurrently; groups one after the other.
            results = await asyncio.gather(*(worker.compute_score(data) for data, _ in rollouts))
            outputs += results
            expected_rows += [(data, length) for data, length in rollouts]
        # A group that never completes (2 of 3 rollouts) is sent after group_timeout_s without new arrivals.
        row = frame.iloc[0]
        partial = [_rollout(tokenizer, row, r, uid="uid-partial", step=12)[0] for r in pool[row["extra_info"]["query"]][:2]]
        outputs += await asyncio.wait_for(asyncio.gather(*(worker.compute_score(d) for d in partial)), timeout=30)
        batchers = verl_reward._BATCHERS[asyncio.get_running_loop()]
        return outputs, expected_rows, sum(b.requests for b in batchers.values())

    outputs, rollouts, requests = asyncio.run(run())
    assert requests == len(frame) + 1  # one request per group (and one for the partial group), not per rollout
    suite = load_suite("searchllm")
    keys = set(outputs[0]["reward_extra_info"])
    assert set(suite.dimensions) | {"score", "gate", "utility", "valid"} == keys
    assert all(set(o["reward_extra_info"]) == keys for o in outputs)  # verl stacks them into equal columns
    for output, (data, length) in zip(outputs, rollouts):
        item = verl_reward.rollout_item(tokenizer.decode(data.batch["responses"][0][:length], skip_special_tokens=True),
                                        data[0].non_tensor_batch["extra_info"], 0)
        want = Engine(suite, ScriptedJudge()).score_sync([Item.model_validate(item)])[0].reward
        assert output["reward_score"] == pytest.approx(want, abs=1e-6)
        assert output["reward_extra_info"]["score"] == output["reward_score"]
    # verl's rm_scores: the reward on the last valid response token, zero elsewhere.
    for (data, length), output in zip(rollouts, outputs):
        [rm] = SearchRewardManager.assemble_rm_scores(data, [output["reward_score"]])
        assert rm[length - 1].item() == pytest.approx(output["reward_score"])
        assert rm.abs().sum().item() == pytest.approx(abs(output["reward_score"]))
    logged = [r for r in read_log(server["log"]) if r.run == "verl-loop"]
    assert sorted(r.step for r in logged) == [11] * len(rollouts) + [12, 12]


def test_group_batcher_keeps_groups_whole_and_fails_every_waiting_rollout():
    """Without a server: chunks of at most max_items keep groups whole; a failed request fails all its rollouts."""
    import asyncio

    from policy.verl_reward import GroupBatcher

    class FakeClient:
        def __init__(self):
            self.calls = []

        async def ascore(self, suite, items, step, run):
            self.calls.append((suite, step, run, [item["query"] for item in items]))
            if any(item["query"] == "boom" for item in items):
                raise RuntimeError("reward server down")
            return [{"id": item["id"], "reward": float(len(self.calls))} for item in items]

    async def run():
        client = FakeClient()
        batcher = GroupBatcher(client, linger_s=0.2, max_items=4)
        request = ("searchllm", 4, "gated")
        jobs = [batcher.score(request, g, 3, {"id": f"{g}{k}", "query": g}) for g in ("a", "b") for k in range(3)]
        results = await asyncio.gather(*jobs)
        failing = [batcher.score(request, "boom", 2, {"id": f"x{k}", "query": "boom"}) for k in range(2)]
        errors = await asyncio.gather(*failing, return_exceptions=True)
        return client.calls, results, errors

    calls, results, errors = asyncio.run(run())
    # groups a and b (3 each) do not fit one request of 4: one request per group, each whole, with step and run
    assert sorted(c[3] for c in calls[:2]) == [["a", "a", "a"], ["b", "b", "b"]]
    assert all(c[:3] == ("searchllm", 4, "gated") for c in calls)
    assert len({r["reward"] for r in results[:3]}) == 1 and len({r["reward"] for r in results[3:]}) == 1
    assert all(isinstance(e, RuntimeError) and "down" in str(e) for e in errors)


def test_metrics_hooks_warn_outside_the_tested_range_and_refuse_only_a_verl_without_their_methods(monkeypatch, caplog):
    import verl
    from verl.trainer.ppo import ray_trainer

    from policy import verl_hooks

    assert verl_hooks.check_verl_version()  # the installed verl lies in the tested range
    monkeypatch.setattr(verl, "__version__", "0.10.0")
    with caplog.at_level("WARNING", logger="policy.verl_hooks"):
        assert "ray_trainer" in verl_hooks.install()  # a newer verl with the same methods: installed, with a warning
    assert "tested with verl >=0.9.0,<0.10 (installed: verl 0.10.0)" in caplog.text
    monkeypatch.delattr(ray_trainer.RayPPOTrainer, "_get_gen_batch")
    with pytest.raises(RuntimeError, match=r"cannot install in verl 0\.10\.0: RayPPOTrainer\._get_gen_batch is gone"):
        verl_hooks.install()


def test_reward_data_splits_a_validation_set_by_prompt_and_picks_the_system_prompt(tmp_path):
    import pandas as pd

    from policy.prompts import MINIMAL_SYSTEM_PROMPT
    from reward.cli import main

    train, val = tmp_path / "train.parquet", tmp_path / "train.val.parquet"
    args = ["data", "--input", str(EXAMPLES), "--output", str(train), "--val-fraction", "0.4", "--prompt", "minimal"]
    assert main(args) == 0
    first = (pd.read_parquet(train), pd.read_parquet(val))
    queries = {json.loads(line)["query"] for line in EXAMPLES.read_text().splitlines() if line.strip()}
    seen = [row["query"] for frame in first for row in frame["extra_info"]]
    assert sorted(seen) == sorted(queries) and len(first[0]) and len(first[1])  # each prompt in exactly one split
    assert first[0].iloc[0]["prompt"][0]["content"] == MINIMAL_SYSTEM_PROMPT
    assert main(args) == 0  # the same split on every run
    assert [list(pd.read_parquet(p)["extra_info"].map(lambda e: e["query"])) for p in (train, val)] == [
        list(f["extra_info"].map(lambda e: e["query"])) for f in first]


def test_reward_data_fails_on_skipped_lines_unless_told_to_skip(tmp_path):
    from reward.cli import main

    source = tmp_path / "logs.jsonl"
    source.write_text(EXAMPLES.read_text().splitlines()[0] + "\n{\"query\": 3}\nnot json\n")
    out = tmp_path / "train.parquet"
    assert main(["data", "--input", str(source), "--output", str(out)]) == 1
    assert main(["data", "--input", str(source), "--output", str(out), "--skip-bad"]) == 0
    assert main(["data", "--input", str(source), "--output", str(out), "--val-fraction", "1.5"]) != 0


def grpo_smoke_overrides() -> list[str]:
    """The Hydra overrides `benchmarks/grpo_smoke.sh` passes to `policy.train`, as the shell splits them."""
    import shlex

    script = (ROOT / "benchmarks" / "grpo_smoke.sh").read_text().replace("\\\n", " ")
    [command] = [line for line in script.splitlines() if "-m policy.train" in line]
    words = shlex.split(command.partition("-m policy.train")[2].partition(" 2>&1")[0])
    assert words[:4] == ["--config-path", "$PWD/configs/verl", "--config-name", "grpo_megatron"]
    return words[4:]


def test_grpo_smoke_overrides_compose_against_verls_config_and_pass_its_checks():
    """The GPU smoke cannot run here; what can be checked without a GPU is that every key it overrides exists in
    verl 0.9.1's config (Hydra refuses an unknown key without `+`), that the composed config passes verl's own
    `validate_config` on one GPU, and that `policy.train` keeps one reward worker for it."""
    from hydra import compose, initialize_config_dir
    from verl.trainer.ppo.utils import need_critic, need_reference_policy
    from verl.utils.config import validate_config

    from policy.train import one_reward_worker, required_gpus, use_search_manager

    overrides = grpo_smoke_overrides()
    assert len(overrides) >= 20 and not any(o.startswith("+") for o in overrides)  # no key verl lacks
    with initialize_config_dir(config_dir=str(ROOT / "configs" / "verl"), version_base=None):
        config = compose("grpo_megatron", overrides=overrides)
    assert config.trainer.total_training_steps == 2 and required_gpus(config) == 1
    assert config.actor_rollout_ref.rollout.n == 4 and config.data.train_batch_size == 4
    assert config.actor_rollout_ref.actor.megatron.vanilla_mbridge  # the recipe's bridge, not overridden
    assert not use_search_manager(config) and not one_reward_worker(config)  # the recipe already has both
    assert config.reward.num_workers == 1
    # a random policy never writes the format: the smoke scores genrm (a judge reading the whole response)
    assert config.reward.custom_reward_function.reward_kwargs.suite == "genrm"
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))


def test_grpo_smoke_script_passes_bash_n_and_shellcheck():
    import shutil
    import subprocess

    script = ROOT / "benchmarks" / "grpo_smoke.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (make test installs it)")
    done = subprocess.run(["shellcheck", "--shell=bash", "--severity=style", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout

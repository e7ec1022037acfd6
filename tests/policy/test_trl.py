"""GRPO with TRL against the reward server: the CI version of the CPU training run (configs/trl/grpo_ci.yaml:
SmolLM2-135M, 2 steps of 2 prompts x 2 rollouts, its own server with the `mock-hash` judge), and the reward
adapter's contract (against the tests' running server, mock judge)."""

import json
from collections import Counter

import pytest

from tests.support import ROOT, TOKEN

pytestmark = pytest.mark.filterwarnings("ignore")


class _State:
    global_step = 4


def test_server_reward_sends_one_request_per_group_and_logs_every_dimension(server, monkeypatch):
    from policy.data import row_of
    from policy.trl_reward import ServerReward
    from reward.rubric import load_suite
    from reward.scorelog import read_log
    from tests.support import EXAMPLES

    examples, groups = [], set()
    for line in EXAMPLES.read_text().splitlines():  # two prompts of different groups, two responses each
        example = json.loads(line)
        if example.get("group") and example["group"] not in groups and len(groups) < 2:
            groups.add(example["group"])
            examples.append(example)
    rows = [row_of(example, i) for i, example in enumerate(examples)]
    # 2 prompts x 2 rollouts in TRL's order (a prompt's rollouts next to each other); the mock judge scores every
    # bottom-line dimension, so all four are valid.
    completions = [[{"role": "assistant", "content": examples[k // 2]["response"]}] for k in range(4)]
    extra_info = [rows[0]["extra_info"]] * 2 + [rows[1]["extra_info"]] * 2
    metrics: dict[str, float] = {}
    reward = ServerReward(server["url"], suite="searchllm", run="trl-unit", num_generations=2, token=TOKEN)
    out = reward([r["prompt"] for r in rows for _ in range(2)], completions, extra_info=extra_info,
                 trainer_state=_State(), log_metric=metrics.__setitem__)
    assert len(out) == 4 and all(isinstance(r, float) for r in out)
    assert reward.requests == 2
    suite = load_suite("searchllm")
    assert {f"reward_dim/{name}/unscored_rate" for name in suite.dimensions} <= set(metrics)  # every dimension
    scored = {name for name in suite.dimensions if metrics[f"reward_dim/{name}/unscored_rate"] < 1.0}
    assert len(scored) >= 10 and {f"reward_dim/{name}/mean" for name in scored} <= set(metrics)
    assert {"reward_dim/valid_rate", "reward_dim/score/mean", "reward_dim/gate/mean"} <= set(metrics)
    logged = [r for r in read_log(server["log"]) if r.run == "trl-unit"]
    assert {r.step for r in logged} == {5}  # trainer_state.global_step + 1: the step these rollouts train
    assert sorted(r.result.id for r in logged) == sorted(
        [f"{rows[0]['extra_info']['item_id']}#0", f"{rows[0]['extra_info']['item_id']}#1",
         f"{rows[1]['extra_info']['item_id']}#0", f"{rows[1]['extra_info']['item_id']}#1"])
    assert Counter(r.group for r in logged) == {rows[0]["extra_info"]["group"]: 2, rows[1]["extra_info"]["group"]: 2}


def test_server_reward_returns_none_for_invalid_rollouts():
    from policy.trl_reward import ServerReward

    class Client:
        def score(self, suite, items, step, run):
            return [{"id": item["id"], "reward": 0.4, "gate": None, "utility": None, "valid": i == 0,
                     "dimensions": {"format": {"score": 0.5} if i == 0 else {"score": None, "reason": "judge_timeout"}}}
                    for i, item in enumerate(items)]

    info = {"item_id": "q", "group": "g", "query": "q?", "history": "[]", "evidence": "[]", "now": ""}
    metrics = {}
    out = ServerReward("http://unused", num_generations=2, client=Client())(
        ["p", "p"], ["a", "b"], extra_info=[info, info], log_metric=metrics.__setitem__)
    assert out == [0.4, None]  # TRL masks None (zero advantage, out of the group baseline), never a 0 penalty
    assert metrics["reward_dim/valid_rate"] == 0.5 and metrics["reward_dim/format/unscored_rate"] == 0.5


def test_trl_grpo_two_steps_update_the_policy_and_write_only_under_output_dir(tmp_path):
    """The CPU training run as a user starts it (`python -m policy.trl_train`, its own reward server on a local Ray)
    from an empty directory, 2 steps. The recipe's judge is `mock-hash` (grades that follow a hash of what the judge
    reads) on suite `genrm` (one holistic judge dimension that reads the whole response), so rollouts that differ get
    different rewards, the update has a gradient and the LoRA adapters move off their zero start. Rewards reach the
    server one request per prompt group with step and run in the score log, per-dimension metrics and the time split
    reach TRL's log, and nothing is written outside output_dir."""
    import os
    import subprocess
    import sys

    import yaml
    from safetensors.torch import load_file

    from reward.scorelog import read_log

    recipe = yaml.safe_load((ROOT / "configs" / "trl" / "grpo_ci.yaml").read_text())
    assert recipe["trainer"] == {"report_to": "tensorboard"}  # TRL's logger from the recipe, not hard-coded
    assert recipe["serve"]["judge"] == "mock-hash" and recipe["suite"] == "genrm"
    recipe["data"]["input"] = str(ROOT / recipe["data"]["input"])  # the recipe's input is relative to the project
    (tmp_path / "recipe.yaml").write_text(yaml.safe_dump(recipe))
    run, cwd = tmp_path / "run", tmp_path / "cwd"
    cwd.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_ADDRESS": "local"}  # its own Ray, not the tests' server's
    for name in ("REWARD_SERVER_TOKEN", "REWARD_ONNX_CACHE"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "policy.trl_train", "--config", str(tmp_path / "recipe.yaml"),
                           "--output-dir", str(run)], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert list(cwd.iterdir()) == []  # everything under output_dir: score log, models, TRL's loggers
    summary = json.loads(done.stderr.rpartition(" done: ")[2].splitlines()[0])
    assert summary["steps"] == 2
    assert summary["requests"] == 2 * recipe["prompts_per_step"]  # one per prompt group
    assert list((run / "runs").rglob("events.out.tfevents.*"))  # tensorboard, under output_dir
    assert list((run / "models").glob("*/config.json"))  # the dequantized policy, under output_dir

    logged = [r for r in read_log(run / "scores") if r.run == recipe["run"]]
    assert sorted(Counter(r.step for r in logged).items()) == [(1, 4), (2, 4)]
    for step in (1, 2):
        records = [r for r in logged if r.step == step]
        assert len({r.result.id for r in records}) == 4  # every rollout its own id
        assert sorted(Counter(r.group for r in records).values()) == [2, 2]
        assert len({r.result.reward for r in records}) > 1  # the judge tells the rollouts apart

    # The run's logged rewards are reproducible: replayed from the log alone with the recipe's judge, nothing drifts.
    from reward.cli.main import main

    assert {r.judge for r in logged} == {"mock:response_hash_script"}
    assert main(["replay", "--log", str(run / "scores"), "--judge", recipe["serve"]["judge"]]) == 0

    history = json.loads((run / "log_history.json").read_text())
    steps = [row for row in history if "reward_dim/valid_rate" in row]
    assert len(steps) == 2
    for row in steps:
        assert "reward_dim/genrm_holistic/mean" in row and "reward_dim/score/mean" in row
        assert row["time/rollout_s"] > 0 and row["time/reward_s"] > 0 and row["time/update_s"] >= 0
        assert row["reward_std"] > 0 and row["frac_reward_zero_std"] < 1  # not every advantage is zero
        assert row["grad_norm"] > 0
    timings = [json.loads(line) for line in (run / "timings.jsonl").read_text().splitlines()]
    assert [t["step"] for t in timings] == [1, 2]
    # peft starts every LoRA B matrix at zero: a non-zero one is a weight the updates changed.
    adapters = load_file(str(run / "policy" / "adapter_model.safetensors"))
    lora_b = [name for name in adapters if "lora_B" in name]
    assert lora_b and any(adapters[name].abs().max() > 0 for name in lora_b)


def test_gemma_chat_template_writes_gemma_turns():
    """The Gemma 3 GGUF has no chat template; `load_policy` supplies Gemma's turns (system text joins the first user
    turn, assistant turns are `model`), rendered here as transformers renders templates (jinja2)."""
    import jinja2

    from policy.trl_train import GEMMA_CHAT_TEMPLATE

    template = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(GEMMA_CHAT_TEMPLATE)
    messages = [{"role": "system", "content": "Answer briefly. "}, {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Where?"}]
    assert template.render(messages=messages, bos_token="<bos>", add_generation_prompt=True) == (
        "<bos><start_of_turn>user\nAnswer briefly.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello.<end_of_turn>\n"
        "<start_of_turn>user\nWhere?<end_of_turn>\n<start_of_turn>model\n")
    assert template.render(messages=messages[1:2], bos_token="<bos>", add_generation_prompt=False) == (
        "<bos><start_of_turn>user\nHi<end_of_turn>\n")


def test_trainer_fields_the_recipe_sets_are_refused_under_trainer():
    from pydantic import ValidationError

    from policy.trl_train import TrainConfig

    with pytest.raises(ValidationError, match="max_steps is set by the recipe as max_steps"):
        TrainConfig(trainer={"max_steps": 3})
    assert TrainConfig(trainer={"report_to": "tensorboard"}).trainer == {"report_to": "tensorboard"}

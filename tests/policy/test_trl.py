"""GRPO with TRL against the running reward server (mock judge): the CI version of the CPU training run
(configs/trl/grpo_ci.yaml: SmolLM2-135M, 2 steps of 2 prompts x 2 rollouts), and the reward adapter's contract."""

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
                     "dimensions": {"format": {"score": None if i else 0.5}}} for i, item in enumerate(items)]

    info = {"item_id": "q", "group": "g", "query": "q?", "history": "[]", "evidence": "[]", "now": ""}
    metrics = {}
    out = ServerReward("http://unused", num_generations=2, client=Client())(
        ["p", "p"], ["a", "b"], extra_info=[info, info], log_metric=metrics.__setitem__)
    assert out == [0.4, None]  # TRL masks None (zero advantage, out of the group baseline), never a 0 penalty
    assert metrics["reward_dim/valid_rate"] == 0.5 and metrics["reward_dim/format/unscored_rate"] == 0.5


def test_trl_grpo_two_steps_on_cpu_against_the_server(server, tmp_path, monkeypatch):
    """The CPU training run, 2 steps: rollouts from the real policy, rewards from the server (one request per
    prompt group, step and run in the score log), per-dimension metrics and the time split in TRL's log."""
    from policy.trl_train import load_config, train
    from reward.scorelog import read_log

    monkeypatch.setenv("REWARD_SERVER_TOKEN", TOKEN)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)  # the run writes nothing here: everything goes under output_dir
    config = load_config(ROOT / "configs" / "trl" / "grpo_ci.yaml", output_dir=str(tmp_path / "run"))
    config.data.input = str(ROOT / config.data.input)  # the recipe's input is relative to the project
    assert config.trainer == {"report_to": "tensorboard"}  # TRL's logger from the recipe, not hard-coded
    summary = train(config, server_url=server["url"])
    assert list(cwd.iterdir()) == []
    assert list((tmp_path / "run" / "runs").rglob("events.out.tfevents.*"))  # tensorboard, under output_dir
    assert list((tmp_path / "run" / "models").glob("*/config.json"))  # the dequantized policy, under output_dir
    assert summary["steps"] == 2
    assert summary["requests"] == 2 * config.prompts_per_step  # one per prompt group
    logged = [r for r in read_log(server["log"]) if r.run == config.run]
    assert sorted(Counter(r.step for r in logged).items()) == [(1, 4), (2, 4)]
    for step in (1, 2):
        records = [r for r in logged if r.step == step]
        assert len({r.result.id for r in records}) == 4  # every rollout its own id
        assert sorted(Counter(r.group for r in records).values()) == [2, 2]
    history = json.loads((tmp_path / "run" / "log_history.json").read_text())
    steps = [row for row in history if "reward_dim/valid_rate" in row]
    assert len(steps) == 2
    for row in steps:
        assert "reward_dim/format/mean" in row and "reward_dim/gate/mean" in row
        assert row["time/rollout_s"] > 0 and row["time/reward_s"] > 0 and row["time/update_s"] >= 0
    timings = [json.loads(line) for line in (tmp_path / "run" / "timings.jsonl").read_text().splitlines()]
    assert [t["step"] for t in timings] == [1, 2]


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

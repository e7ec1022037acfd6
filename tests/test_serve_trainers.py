"""The trainer routes of the ingress, driven with each trainer's own request and read as each trainer reads the reply.

- OpenRLHF 0.9.9 to 0.11 (`openrlhf/utils/agent.py`, `SingleTurnAgentExecutor.execute` and `_fetch_rewards_via_http`): one
  rollout per POST, `{"query": [decode(prompt + response tokens, skip_special_tokens=False)], "prompts": [prompt],
  "labels": [label]}`; the reply's `rewards` become `torch.tensor([reward])` and `extra_logs` one tensor per key
  (`openrlhf/trainer/ppo_utils/samples_generator.py:_process_response_into_experience`).
- slime (`slime/rollout/rm_hub/__init__.py:remote_rm`): `{"prompt", "response", "label"}` per sample, the reply kept
  as `sample.reward` and read with `Sample.get_reward_value` (`reward[args.reward_key]`, `slime/utils/types.py`).
- NeMo Gym (`responses_api_agents/simple_agent/app.py:SimpleAgent.run`): `POST /seed_session`, then `POST /verify`
  with the row and the policy's Responses API object; the reply validates as `BaseMultiRewardVerifyResponse`
  (`nemo_gym/base_resources_server.py`), a judge failure is `judge_failsafe`'s row (`nemo_gym/judge.py`).

The ingress and scorer run in-process (as in tests/test_hot_reload.py); no token is configured, since these trainers
send none."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.requests import Request

from policy.data import row_of
from reward.scorelog import read_log
from reward.serve import Limits, ServerArgs
from tests.support import in_process_ingress, EVIDENCE, FIXTURE_RUBRICS, free_port, make_item

pytestmark = pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")

GOOD = "Skibidi streams free on Spotify [Doc 1]."


def _ingress(tmp_path, judge="mock"):
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge=judge, score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TRAINER_TEST_TOKEN", limits=Limits(retry_after_s=1))
    ingress = in_process_ingress(args)
    return ingress


@pytest.fixture
def ingress(tmp_path, monkeypatch):
    monkeypatch.delenv("REWARD_TRAINER_TEST_TOKEN", raising=False)
    return _ingress(tmp_path)


@pytest.fixture
def judge_down(tmp_path, monkeypatch):
    monkeypatch.delenv("REWARD_TRAINER_TEST_TOKEN", raising=False)
    config = tmp_path / "judge.yaml"
    config.write_text(f"parse_retries: 0\nendpoints:\n  - base_url: http://127.0.0.1:{free_port()}/v1\n"
                      "    model: mock-judge\n    timeout_s: 5\n    max_retries: 0\n")
    return _ingress(tmp_path, judge=str(config))


def post(ingress, method: str, path: str, body: dict, query: bytes = b""):
    raw = json.dumps(body).encode()

    async def receive():
        return {"type": "http.request", "body": raw, "more_body": False}

    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    scope = {"type": "http", "method": "POST", "path": path, "headers": headers, "query_string": query}
    if method == "_trainer":
        return asyncio.run(ingress._trainer(*path_args(path), Request(scope, receive)))
    answer = getattr(ingress, method)(Request(scope, receive))
    return asyncio.run(answer) if asyncio.iscoroutine(answer) else answer


def path_args(path: str) -> tuple[str, str | None]:
    parts = path.strip("/").split("/")
    return (parts[1], parts[2]) if parts[0] == "v1" else ("nemo_gym", None)


def extra_info(item_id: str, group: str = "p1") -> dict:
    """The row's `extra_info` as `reward data` writes it (history and evidence as JSON strings)."""
    item = make_item(item_id, GOOD)
    record = {"id": item_id, "group": group, "query": item.query, "now": "2026-01-10",
              "evidence": [e.model_dump(mode="json") for e in EVIDENCE]}
    return row_of(record, 0)["extra_info"]


def response_text(answer: str = GOOD) -> str:
    return make_item("x", answer).response


def test_openrlhf_remote_rm_request_and_reply_as_openrlhf_reads_them(ingress, tmp_path):
    torch = pytest.importorskip("torch")
    prompt = "<|im_start|>user\nWhere can I listen to Skibidi for free?<|im_end|>\n<|im_start|>assistant\n"
    query = prompt + response_text() + "<|im_end|>"
    label = extra_info("q7")
    # _fetch_rewards_via_http, one rollout: the label is the dataset's label column (here the row's extra_info).
    payload = {"query": [query], "prompts": [prompt], "labels": [label]}
    answer = post(ingress, "_trainer", "/v1/openrlhf/mini", payload, b"run=openrlhf&step=4")
    assert answer.status_code == 200
    rewards_info = json.loads(answer.body)
    score_value = rewards_info.get("scores")
    if score_value is None:
        score_value = rewards_info.get("rewards")
    reward, scores, extra_logs = rewards_info.get("rewards"), score_value, rewards_info.get("extra_logs") or {}
    info = {"reward": torch.tensor([reward]), "score": torch.tensor([scores])}
    for key, value in extra_logs.items():
        info[key] = torch.tensor([value])
    assert 0.0 < info["reward"].item() <= 1.0 and info["valid"].item() == 1.0
    # The response reached the server without the prompt and the end-of-turn token: the format check passes.
    logged = list(read_log(tmp_path / "scores"))
    assert [r.result.id for r in logged] == ["q7#0"] and logged[0].run == "openrlhf" and logged[0].step == 4
    assert logged[0].result.dimensions["format"].score == 1.0
    # A group's reward order survives: a worse answer of the same prompt scores lower.
    worse = post(ingress, "_trainer", "/v1/openrlhf/mini",
                 {"query": [prompt + "I think it is on some app.<|im_end|>"], "prompts": [prompt], "labels": [json.dumps(label)]})
    assert json.loads(worse.body)["rewards"][0] < reward[0]


def test_openrlhf_bad_bodies_are_422_naming_the_field(ingress):
    bad = post(ingress, "_trainer", "/v1/openrlhf/mini", {"query": ["x"], "prompts": ["y"], "labels": [extra_info("a")]})
    assert bad.status_code == 422 and "query.0: does not start with prompts.0" in json.loads(bad.body)["error"]
    bad = post(ingress, "_trainer", "/v1/openrlhf/mini", {"query": ["yx"], "prompts": ["y"], "labels": [{"no": 1}]})
    assert bad.status_code == 422 and "labels.0" in json.loads(bad.body)["error"]


def test_slime_remote_rm_reward_read_with_reward_key(ingress):
    label = json.dumps(extra_info("s1"))
    payload = {"prompt": [{"role": "user", "content": "Where can I listen?"}], "response": response_text(),
               "label": label}
    answer = post(ingress, "_trainer", "/v1/slime/mini", payload)
    assert answer.status_code == 200
    reward = json.loads(answer.body)  # slime: sample.reward = await resp.json()
    reward_key = "score"  # --reward-key score
    value = reward if not reward_key else reward[reward_key]  # Sample.get_reward_value
    assert 0.0 < value <= 1.0 and reward["valid"] == 1.0 and reward["format"] == 1.0
    assert all(isinstance(v, float) for v in reward.values())


def nemo_row(item_id: str) -> dict:
    return {"responses_create_params": {"input": [{"role": "user", "content": "Where can I listen?"}]},
            "extra_info": extra_info(item_id), "suite": "mini", "task_id": item_id}


def nemo_response(text: str) -> dict:
    return {"id": "resp_1", "object": "response", "created_at": 0, "model": "policy", "status": "completed",
            "output": [{"type": "reasoning", "id": "r", "summary": [{"type": "summary_text", "text": "thinking"}]},
                       {"type": "message", "id": "m", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def test_nemo_gym_verify_returns_reward_components(ingress):
    seeded = post(ingress, "nemo_gym_seed_session", "/seed_session", nemo_row("n1"))
    assert seeded.status_code == 200 and json.loads(seeded.body) == {}
    body = {**nemo_row("n1"), "response": nemo_response(response_text())}
    answer = post(ingress, "_trainer", "/verify", body)
    assert answer.status_code == 200
    reply = json.loads(answer.body)
    assert reply["responses_create_params"] == body["responses_create_params"] and reply["task_id"] == "n1"
    components = reply["reward_components"]
    assert set(components) >= {"grounded", "format", "useful", "evidence_fit"} and components["format"] == 1.0
    assert all(reply[key] == value for key, value in components.items())  # top-level too: NeMo's metrics read those
    assert 0.0 < reply["reward"] <= 1.0 and "_ng_failure_class" not in reply


def test_nemo_gym_judge_failure_is_its_failure_class_and_openrlhf_slime_get_503(judge_down, tmp_path):
    body = {**nemo_row("n2"), "response": nemo_response(response_text())}
    reply = json.loads(post(judge_down, "_trainer", "/verify", body).body)
    assert reply["_ng_failure_class"] == "judge_failed" and reply["reward"] == 0.0
    assert "connection_error" in reply["_ng_failure_judge_error"]
    prompt = "user: where?\nassistant: "
    refused = post(judge_down, "_trainer", "/v1/openrlhf/mini",
                   {"query": [prompt + response_text()], "prompts": [prompt], "labels": [extra_info("o")]})
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    refused = post(judge_down, "_trainer", "/v1/slime/mini", {"prompt": "p", "response": response_text(),
                                                               "label": extra_info("s")})
    assert refused.status_code == 503
    assert not list(read_log(tmp_path / "scores"))  # nothing of an outage is logged as scored

"""Trainers that call a remote reward with their own request shape: OpenRLHF, slime and NeMo Gym, served by the
ingress beside `/v1/score`.

Each route turns the trainer's body into wire-format items, scores them through the ingress's own `/v1/score` path
(the same limits, token, admission, outage rule and score log) and answers in the trainer's shape. The interaction
(query, history, evidence, group, id, date) travels as the row's `extra_info`, the column `reward data` writes for
verl (a dict, or its JSON string), sent by each trainer as its label or as an extra field of the row:

- OpenRLHF `--remote_rm_url http://host:8000/v1/openrlhf/<suite>` with `--label_key extra_info` (0.10 and later:
  `--reward.remote_url`, `--data.label_key`): OpenRLHF 0.9.9 to 0.11
  (`openrlhf/utils/agent.py:SingleTurnAgentExecutor._fetch_rewards_via_http`) posts `{"query": [prompt and
  response as decoded text], "prompts": [prompt], "labels": [label]}` for each rollout and reads `rewards`, `scores`
  and `extra_logs` (one value per query each) from the reply.
- slime `--rm-type remote_rm --rm-url http://host:8000/v1/slime/<suite> --reward-key score` with
  `--label-key extra_info`: slime (`slime/rollout/rm_hub/__init__.py:remote_rm`) posts `{"prompt", "response",
  "label"}` for each sample and keeps the reply as the sample's reward; `--reward-key score` picks the scalar.
- NeMo Gym `POST /verify` (a resources server's route): the row (`responses_create_params` and, here, `extra_info`
  and an optional `suite`) with the policy's `response` (a Responses API object); the reply is the request with
  `reward`, `reward_components` (one per dimension, `BaseMultiRewardVerifyResponse`) and each component again as a
  top-level number (NeMo's aggregate metrics read only those). An item the judge could not score is NeMo's own
  failure row (`_ng_failure_class: "judge_failed"`, as `nemo_gym/judge.py:judge_failsafe` writes it), which NeMo
  keeps out of its metrics and retries on resume.

These trainers send one rollout per request, so no group is visible to the server: an item invalid for a judge
failure is always the whole request, which the outage rule answers with 503 and `Retry-After` (OpenRLHF and slime
retry; NeMo Gym gets its failure row). A response-caused failure still scores as failed.
"""

from __future__ import annotations

import json
import re
from typing import Any

TRAILING_SPECIAL_TOKENS = re.compile(r"(?:\s*(?:<\|[A-Za-z0-9_]{1,40}\|>|</s>|<eos>|<end_of_turn>))+\s*$")
"""End-of-turn tokens a decoded rollout may end with (`<|im_end|>`, `<|eot_id|>`, `</s>`, ...): OpenRLHF decodes with
`skip_special_tokens=False`, and the response format allows nothing after the answer."""


class TrainerBodyError(ValueError):
    """A trainer's body that cannot become wire-format items; the message names the field."""


def strip_special_tokens(text: str) -> str:
    """The decoded rollout without the end-of-turn tokens it ends with.

    >>> strip_special_tokens("<answer>x</answer><|im_end|>\\n<|endoftext|>")
    '<answer>x</answer>'
    """
    return TRAILING_SPECIAL_TOKENS.sub("", text)


def interaction(value: Any, field: str) -> dict:
    """The `extra_info` of a row (a dict or its JSON string) as the fields of a wire-format item."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise TrainerBodyError(f"{field}: not JSON ({exc.msg}); send the row's extra_info (`reward data`)") from None
    if not isinstance(value, dict) or not isinstance(value.get("query"), str):
        raise TrainerBodyError(f"{field}: expected the row's extra_info, an object with a string 'query' "
                               "(`reward data` writes it)")

    def decoded(key: str) -> Any:
        found = value.get(key)
        return json.loads(found) if isinstance(found, str) and found.strip() else (found or [])

    item = {"query": value["query"], "history": decoded("history"), "evidence": decoded("evidence")}
    for key in ("group", "now"):
        if value.get(key):
            item[key] = str(value[key])
    item["id"] = str(value.get("item_id") or value.get("id") or "rollout")
    return item


def openrlhf_items(body: Any) -> list[dict]:
    """Wire-format items of an OpenRLHF remote reward request (one per query)."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), list):
        raise TrainerBodyError("query: expected a list of decoded rollouts (OpenRLHF --remote_rm_url)")
    queries, prompts, labels = body["query"], body.get("prompts"), body.get("labels")
    for name, column in (("prompts", prompts), ("labels", labels)):
        if not isinstance(column, list) or len(column) != len(queries):
            raise TrainerBodyError(f"{name}: expected a list as long as query ({len(queries)})")
    items = []
    for index, (text, prompt, label) in enumerate(zip(queries, prompts, labels, strict=True)):
        if not isinstance(text, str) or not isinstance(prompt, str):
            raise TrainerBodyError(f"query.{index}: expected the decoded prompt and response as text")
        if not text.startswith(prompt):
            raise TrainerBodyError(f"query.{index}: does not start with prompts.{index}; the response is what follows "
                                   "the prompt")
        item = interaction(label, f"labels.{index}")
        items.append({**item, "id": f"{item['id']}#{index}", "response": strip_special_tokens(text[len(prompt):])})
    return items


def openrlhf_reply(results: list[dict]) -> dict:
    """OpenRLHF's reply: `rewards` (what trains) and `scores` (what dynamic filtering reads), one per query, and
    `extra_logs` with `valid`. OpenRLHF turns every extra-log key into a tensor per rollout and concatenates them
    across rollouts, so a key must hold a number in every reply: a dimension without a value (left out for this
    interaction, or a judge failure) could only be sent as a made-up number, so the dimensions' curves come from the
    score log and the dashboard instead."""
    rewards = [float(r["reward"]) for r in results]
    return {"rewards": rewards, "scores": rewards, "extra_logs": {"valid": [1.0 if r["valid"] else 0.0 for r in results]}}


def slime_item(body: Any) -> dict:
    """The wire-format item of a slime remote reward request."""
    if not isinstance(body, dict) or not isinstance(body.get("response"), str):
        raise TrainerBodyError("response: expected the sample's response text (slime --rm-url)")
    return {**interaction(body.get("label"), "label"), "response": strip_special_tokens(body["response"])}


def slime_reply(result: dict) -> dict:
    """slime's reward for one sample: `score` (pick it with `--reward-key score`), `valid` and every dimension that has
    a value."""
    columns = value_columns([result])
    return {key: values[0] for key, values in columns.items() if values[0] is not None}


def nemo_gym_item(body: Any) -> tuple[str | None, dict]:
    """The suite (None: the server's default) and wire-format item of a NeMo Gym verify request."""
    if not isinstance(body, dict) or not isinstance(body.get("response"), dict):
        raise TrainerBodyError("response: expected the policy's Responses API object (NeMo Gym /verify)")
    texts = []
    for part in body["response"].get("output") or []:
        if isinstance(part, dict) and part.get("type") == "message" and part.get("role", "assistant") == "assistant":
            texts += [c.get("text", "") for c in part.get("content") or [] if isinstance(c, dict)
                      and c.get("type") == "output_text"]
    suite = body.get("suite")
    if suite is not None and not isinstance(suite, str):
        raise TrainerBodyError("suite: expected a suite name")
    return suite, {**interaction(body.get("extra_info"), "extra_info"), "response": "".join(texts)}


def nemo_gym_reply(body: dict, result: dict) -> dict:
    """NeMo Gym's verify response: the request echoed with `reward` and `reward_components`, or, for an item the
    judge could not score, NeMo's failure row."""
    if not result["valid"]:
        return {**body, "reward": 0.0, "_ng_failure_class": "judge_failed",
                "_ng_failure_judge_error": result.get("reason") or "unscored"}
    components = {key: values[0] for key, values in value_columns([result]).items()
                  if key not in ("score", "valid") and values[0] is not None}
    return {**body, **components, "reward": float(result["reward"]), "reward_components": components}


def nemo_gym_outage(body: dict, error: str) -> dict:
    """NeMo Gym's failure row for a request the server refused because the judge is down."""
    return {**body, "reward": 0.0, "_ng_failure_class": "judge_failed", "_ng_failure_judge_error": error}


def value_columns(results: list[dict]) -> dict[str, list[float | None]]:
    """Per result: `score`, `valid`, gate, utility and each dimension's value as the reward used it (its score; 0.0
    where the response caused it to go unscored; None where none exists)."""
    from reward.schema import reason_kind

    def used(score: dict) -> float | None:
        if score.get("score") is not None:
            return float(score["score"])
        return 0.0 if reason_kind(score.get("reason")) == "response" else None

    names = sorted({name for r in results for name in r["dimensions"]})
    columns: dict[str, list[float | None]] = {
        "score": [float(r["reward"]) for r in results],
        "valid": [1.0 if r["valid"] else 0.0 for r in results],
        "gate": [r.get("gate") for r in results],
        "utility": [r.get("utility") for r in results],
    }
    for name in names:
        columns[name] = [used(r["dimensions"][name]) if name in r["dimensions"] else None for r in results]
    return columns


async def answer(ingress: Any, trainer: str, suite: str | None, request: Any) -> Any:
    """Serve one trainer request on `ingress`: read and translate the body, score it through the ingress's
    `/v1/score` path (token, limits, admission, outage rule, score log), answer in the trainer's shape. Optional
    query parameters `run` and `step` key the score log as on `/v1/score`."""
    from fastapi.responses import JSONResponse
    from starlette.requests import Request

    from reward.serve.body import BodyRejected, parse_body

    def error(status: int, message: str) -> Any:
        return JSONResponse(status_code=status, content={"error": message})

    denied = ingress._unauthorised(request)
    if denied:
        return denied
    limit = ingress.limits.max_bytes
    raw, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return error(413, f"request body of more than {limit} bytes exceeds the limit of {limit} (limit max_bytes)")
        raw.append(chunk)
    try:
        body = parse_body(b"".join(raw), ingress.limits)
        if trainer == "openrlhf":
            items = openrlhf_items(body)
        elif trainer == "slime":
            items = [slime_item(body)]
        else:
            named, item = nemo_gym_item(body)
            suite, items = named or suite, [item]
    except BodyRejected as exc:
        return error(exc.status, exc.message)
    except TrainerBodyError as exc:
        return error(422, f"invalid {trainer} request: {exc}")
    payload: dict[str, Any] = {"suite": suite or "searchllm", "items": items}
    for key in ("run", "step"):
        value = request.query_params.get(key)
        if value is not None:
            payload[key] = int(value) if key == "step" and value.isdigit() else value
    encoded = json.dumps(payload).encode()
    headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()
               if k.lower() not in ("content-length", "content-type", "transfer-encoding")]
    headers += [(b"content-type", b"application/json"), (b"content-length", str(len(encoded)).encode())]

    async def receive() -> dict:
        return {"type": "http.request", "body": encoded, "more_body": False}

    inner = await ingress._score(Request({"type": "http", "method": "POST", "path": "/v1/score", "headers": headers,
                                          "query_string": b""}, receive))
    if inner.status_code != 200:
        message = json.loads(inner.body).get("error", "")
        if trainer == "nemo_gym" and inner.status_code == 503 and message.startswith("judge unavailable"):
            return JSONResponse(nemo_gym_outage(body, message))  # NeMo's own failure class: masked, retried on resume
        return inner
    results = json.loads(inner.body)["results"]
    if trainer == "openrlhf":
        return JSONResponse(openrlhf_reply(results))
    if trainer == "slime":
        return JSONResponse(slime_reply(results[0]))
    return JSONResponse(nemo_gym_reply(body, results[0]))

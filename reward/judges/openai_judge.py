"""The OpenAI-compatible judge backend (vLLM in production, any provider): the `openai` package's async client.

Per endpoint: a concurrency limit, a request timeout, bounded retries with exponential backoff and jitter on
timeouts, 429, 5xx and connection errors (the `should_retry` hook decides), and the client's own retries off so
these are the only ones. Several endpoints get group affinity: a stable hash of the GRPO group picks the endpoint,
so every call of a group lands on the same vLLM prefix cache; an endpoint that cannot answer fails over to the
next. With `logprobs: true` the top logprobs at the label position become label probabilities, and the score is
their probability-weighted value (a reply without them is scored by its label and flagged `label_fallback`).
With `structured_outputs` on, the reply is constrained to the dimension's verdict schema (`structured.py`) and the
JSON contract is asked for. With `count_tokens: server`, the prompt is counted by the endpoint's `/tokenize`
(vLLM's route; `reward judge-server` serves the same) before the first call, and a prompt that would not fit the
context with `max_tokens` is `unscored: context_overflow` without a completion call. Reasoning models' separate
reasoning (`reasoning_content`, or `reasoning` in newer vLLM), `finish_reason` and token usage (with
`prompt_tokens_details.cached_tokens` where reported) are read from each reply. Endpoints come from
`configs/judges/*.yaml`; API keys only from environment variables named there.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Literal

import httpx2
import openai
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reward.judges.base import Completion, JudgeRequest, JudgeTransportError
from reward.judges.llm import LLMJudge
from reward.judges.structured import StructuredOutputs, response_format

log = logging.getLogger(__name__)

POOL_CONNECTIONS = 32
"""Most connections in one HTTP connection pool (see `OpenAIJudge.__init__`)."""


class Endpoint(BaseModel):
    """One OpenAI-compatible server."""

    model_config = ConfigDict(extra="forbid")

    base_url: str
    """E.g. `http://judge-0:8000/v1`; with `hosts_env`, a template with `{host}` (`http://{host}:8100/v1`)."""
    hosts_env: str | None = None
    """Name of an environment variable listing judge hosts (comma or space separated; `judge-{0..15}.judge`
    ranges expand): the entry becomes one endpoint per host. The deployment sets it (the SLURM script from its node
    list, the KubeRay manifests from the judge StatefulSet), so the list follows the number of judge nodes."""
    model: str
    """Served model name."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (never the key itself)."""
    max_concurrency: int = Field(default=64, ge=1)
    """Requests in flight to this endpoint."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Per-request timeout."""
    max_retries: int = Field(default=3, ge=0)
    """Retries of a retryable failure on this endpoint before failing over."""
    backoff_s: float = Field(default=1.0, ge=0)
    """First backoff; doubles per retry, with full jitter."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    temperature: float = Field(default=0.0, ge=0)
    retry_temperature: float = Field(default=0.7, ge=0)
    """Temperature floor when re-asking after an unparseable or out-of-scale reply: at temperature 0 the same
    prompt would mostly get the same reply again."""
    max_tokens: int = Field(default=4096, ge=1)
    seed: int | None = None
    """Sampling seed sent with every call (OpenAI's and vLLM's `seed`). With it, a judgment is reproducible where the
    server decodes deterministically: vLLM started with `VLLM_BATCH_INVARIANT=1` gives a prompt the same reply
    whatever it is batched with (docs/judges.md, "Reproducible scores"). Part of the judge's identity."""
    logprobs: bool = False
    """Ask for top logprobs and score by the probability-weighted label."""
    top_logprobs: int = Field(default=10, ge=1, le=20)
    structured_outputs: StructuredOutputs = "off"
    """Constrain the reply to the dimension's verdict schema: `json_schema` (OpenAI, vLLM), `llamacpp`
    (llama-cpp-python's server), `off` for providers without structured outputs."""
    reasoning_max_chars: int | None = Field(default=None, ge=1)
    """With structured outputs: bound the verdict's `reasoning` so the verdict fits in `max_tokens`."""
    count_tokens: Literal["off", "server"] = "off"
    """`server`: count the prompt with the endpoint's `/tokenize` (vLLM; `reward judge-server`) before the first
    call and leave a prompt that would not fit `context_tokens` unscored (`context_overflow`)."""
    context_tokens: int | None = Field(default=None, ge=1)
    """The judge's context window (prompt + max_tokens); unset: the `max_model_len` `/tokenize` reports."""


class JudgeConfig(BaseModel):
    """A judge endpoint config file (`configs/judges/*.yaml`)."""

    model_config = ConfigDict(extra="forbid")

    endpoints: list[Endpoint] = Field(min_length=1)
    """Judge servers; a GRPO group's calls are pinned to one of them by hash."""
    parse_retries: int = Field(default=2, ge=0)
    """Re-asks after an unparseable or out-of-scale reply."""
    down_cooldown_s: float = Field(default=30.0, ge=0)
    """After an endpoint fails a call past its retries, calls go to the others first for this long (it is still
    tried when every endpoint is down), so a dead node costs one call's retries, not every call's."""

    def expanded(self, environ: Mapping[str, str] | None = None) -> JudgeConfig:
        """The config with each `hosts_env` entry replaced by one endpoint per listed host.

        >>> config = JudgeConfig(endpoints=[Endpoint(base_url="http://{host}:8100/v1", model="m", hosts_env="H")])
        >>> [e.base_url for e in config.expanded({"H": "judge-{0..1}.judge, node7"}).endpoints]
        ['http://judge-0.judge:8100/v1', 'http://judge-1.judge:8100/v1', 'http://node7:8100/v1']
        """
        environ = os.environ if environ is None else environ
        endpoints: list[Endpoint] = []
        for index, endpoint in enumerate(self.endpoints):
            if endpoint.hosts_env is None:
                endpoints.append(endpoint)
                continue
            if "{host}" not in endpoint.base_url:
                raise ValueError(f"endpoints.{index}.base_url: must contain {{host}} when hosts_env is set")
            hosts = expand_hosts(environ.get(endpoint.hosts_env, ""))
            if not hosts:
                raise ValueError(f"endpoints.{index}.hosts_env: environment variable {endpoint.hosts_env} is unset or "
                                 "empty; the deployment sets it to the judge hosts (see cluster/)")
            endpoints += [endpoint.model_copy(update={"base_url": endpoint.base_url.replace("{host}", host),
                                                      "hosts_env": None}) for host in hosts]
        return self.model_copy(update={"endpoints": endpoints})


def expand_hosts(spec: str) -> list[str]:
    """Hosts from a comma- or space-separated list whose entries may hold one bash-style `{a..b}` range.

    >>> expand_hosts("judge-{0..2}.judge")
    ['judge-0.judge', 'judge-1.judge', 'judge-2.judge']
    >>> expand_hosts("gpu01,gpu02 gpu03")
    ['gpu01', 'gpu02', 'gpu03']
    """
    hosts: list[str] = []
    for entry in re.split(r"[\s,]+", spec.strip()):
        match = re.search(r"\{(\d+)\.\.(\d+)\}", entry)
        if match is None:
            hosts += [entry] if entry else []
            continue
        first, last = int(match.group(1)), int(match.group(2))
        hosts += [entry[:match.start()] + str(i) + entry[match.end():] for i in range(first, last + 1)]
    return hosts


_REASONS = (
    (openai.APITimeoutError, "judge_timeout"),
    (openai.RateLimitError, "rate_limited"),
    (openai.InternalServerError, "server_error"),
    (openai.APIConnectionError, "connection_error"),
    (openai.APIStatusError, "bad_request"),
)


def reason_of(exc: Exception) -> str:
    for kind, reason in _REASONS:
        if isinstance(exc, kind):
            if reason == "bad_request" and getattr(exc, "status_code", 0) >= 500:
                return "server_error"
            return reason
    return "judge_error"


def retry_after(exc: Exception) -> float:
    """Seconds from a `Retry-After` header of a failed response (0 when absent or given as a date)."""
    response = getattr(exc, "response", None)
    try:
        return max(0.0, float(response.headers.get("retry-after", 0))) if response is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


class OpenAIJudge(LLMJudge):
    """Judge on OpenAI-compatible endpoints (backend `openai:<model>`)."""

    name = "openai"

    def __init__(self, config: JudgeConfig):
        super().__init__(parse_retries=config.parse_retries)
        config = config.expanded()
        self.config = config
        # httpx's connection pool scans all its connections (probing idle sockets) whenever a request enters or
        # leaves it, so its cost per call grows with the calls in flight: at 256 that scan took ~a fifth of the
        # client's CPU. Each endpoint's calls are spread over pools of at most POOL_CONNECTIONS, least busy first.
        self.clients = [
            [openai.AsyncOpenAI(
                base_url=e.base_url,
                api_key=(os.environ.get(e.api_key_env, "") if e.api_key_env else "") or "EMPTY",
                timeout=e.timeout_s,
                max_retries=0,  # retries are ours, with backoff that knows about failover
                http_client=openai.DefaultAsyncHttpxClient(limits=httpx2.Limits(
                    max_connections=None, max_keepalive_connections=POOL_CONNECTIONS)),
            ) for _ in range(math.ceil(e.max_concurrency / POOL_CONNECTIONS))]
            for e in config.endpoints
        ]
        self.in_flight = [[0] * len(pools) for pools in self.clients]
        self.limits = [asyncio.Semaphore(e.max_concurrency) for e in config.endpoints]
        self.down_until = [0.0] * len(config.endpoints)

    @classmethod
    def from_config(cls, path: str | Path) -> OpenAIJudge:
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            return cls(JudgeConfig.model_validate(data))
        except ValidationError as exc:
            problems = "; ".join(f"key '{'.'.join(str(p) for p in e['loc'])}': {e['msg']}" for e in exc.errors())
            raise ValueError(f"{path}: {problems}") from None
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: invalid YAML: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def backend_for(self, request: JudgeRequest) -> str:
        return f"openai:{self.config.endpoints[self.affinity(request)].model}"

    @property
    def identity(self) -> str:
        # Endpoints serving the same model with the same settings are interchangeable (affinity and failover
        # pick among them), so the URL is not part of it.
        # The model names are spelt out so a score log's record says which model judged it.
        settings = sorted({json.dumps(e.model_dump(include={"model", "temperature", "retry_temperature", "max_tokens",
                                                            "seed", "logprobs", "top_logprobs", "structured_outputs",
                                                            "reasoning_max_chars"}),
                                      sort_keys=True) for e in self.config.endpoints})
        models = ",".join(sorted({e.model for e in self.config.endpoints}))
        return f"openai:{models}:" + hashlib.sha256("\n".join(settings).encode()).hexdigest()[:16]

    def affinity(self, request: JudgeRequest) -> int:
        """The endpoint a request's group is pinned to (stable across processes, unlike `hash`)."""
        key = request.item.group or request.item.id
        return int(hashlib.sha1(key.encode()).hexdigest(), 16) % len(self.config.endpoints)

    def adapt(self, request: JudgeRequest) -> JudgeRequest:
        """With structured outputs, every dimension is asked for the JSON contract its schema constrains."""
        spec = request.dimension.judge
        endpoint = self.config.endpoints[self.affinity(request)]
        if endpoint.structured_outputs == "off" or spec is None or spec.output == "json":
            return request
        dimension = request.dimension.model_copy(update={"judge": spec.model_copy(update={"output": "json"})})
        return replace(request, dimension=dimension)

    async def prompt_tokens(self, index: int, messages: list[dict[str, str]]) -> tuple[int, int | None]:
        """(prompt tokens, context window) from the endpoint's `/tokenize` (chat template applied)."""
        endpoint, client = self.config.endpoints[index], self.clients[index][0]  # any of the endpoint's pools
        root = endpoint.base_url.rstrip("/").removesuffix("/v1")
        body = await client.post(f"{root}/tokenize", cast_to=object,
                                 body={"model": endpoint.model, "messages": messages, "add_generation_prompt": True})
        if not isinstance(body, dict) or not isinstance(body.get("count"), int):
            raise JudgeTransportError("tokenize_failed", f"{root}/tokenize answered without a token count")
        return body["count"], endpoint.context_tokens or body.get("max_model_len")

    def should_retry(self, exc: Exception) -> bool:
        """Whether a failed call is worth retrying: timeouts, 429, 5xx and connection errors are."""
        return reason_of(exc) in {"judge_timeout", "rate_limited", "server_error", "connection_error"}

    async def complete(self, messages: list[dict[str, str]], request: JudgeRequest, attempt: int) -> Completion:
        first = self.affinity(request)
        now = time.monotonic()
        # The pinned endpoint, then the next ones; endpoints that failed recently go last (a stable sort keeps
        # the affinity order among the healthy ones, so a group still lands on one endpoint while it is down).
        order = sorted(((first + k) % len(self.clients) for k in range(len(self.clients))),
                       key=lambda i: self.down_until[i] > now)
        last: Exception | None = None
        for index in order:
            try:
                completion = await self._call(index, messages, request, attempt)
                self.down_until[index] = 0.0
                return completion
            except JudgeTransportError:
                raise  # not the endpoint's fault (a prompt too long for the judge): another endpoint cannot help
            except Exception as exc:  # noqa: BLE001 - classified below; anything unknown is not retried
                last = exc
                if not self.should_retry(exc):
                    break
                self.down_until[index] = time.monotonic() + self.config.down_cooldown_s
                log.warning("endpoint %s failed (%s); failing over", self.config.endpoints[index].base_url, reason_of(exc))
        assert last is not None
        raise JudgeTransportError(reason_of(last), f"{type(last).__name__}: {str(last)[:200]}")

    async def _call(self, index: int, messages: list[dict[str, str]], request: JudgeRequest, attempt: int = 1) -> Completion:
        endpoint, in_flight = self.config.endpoints[index], self.in_flight[index]
        temperature = endpoint.temperature if attempt == 1 else max(endpoint.temperature, endpoint.retry_temperature)
        extra = {"logprobs": True, "top_logprobs": endpoint.top_logprobs} if endpoint.logprobs else {}
        schema = response_format(request, endpoint.structured_outputs, endpoint.reasoning_max_chars)
        if schema is not None:
            extra["response_format"] = schema
        for retry in range(endpoint.max_retries + 1):
            try:
                if endpoint.count_tokens == "server" and attempt == 1:
                    count, context = await self.prompt_tokens(index, messages)
                    if context is not None and count + endpoint.max_tokens > context:
                        raise JudgeTransportError("context_overflow", f"prompt of {count} tokens + max_tokens "
                                                  f"{endpoint.max_tokens} exceeds the judge's context of {context} tokens")
                async with self.limits[index]:
                    pool = min(range(len(in_flight)), key=in_flight.__getitem__)
                    in_flight[pool] += 1
                    try:
                        response = await self.clients[index][pool].chat.completions.create(
                            model=endpoint.model,
                            messages=messages,
                            temperature=temperature,
                            max_tokens=endpoint.max_tokens,
                            **({} if endpoint.seed is None else {"seed": endpoint.seed}),
                            # Tracing only: servers ignore these headers; the mock server scripts by them.
                            extra_headers={"X-Reward-Dimension": request.dimension.name,
                                           "X-Reward-Item": request.item.id, "X-Reward-Group": request.item.group or ""},
                            **extra,
                        )
                    finally:
                        in_flight[pool] -= 1
                choice = response.choices[0]
                text = choice.message.content or ""
                extras = choice.message.model_extra or {}
                reasoning = extras.get("reasoning_content") or extras.get("reasoning")
                probs = label_probs(choice.logprobs, request) if endpoint.logprobs else None
                return Completion(text=text, label_probs=probs, logprobs_requested=endpoint.logprobs,
                                  reasoning=reasoning if isinstance(reasoning, str) else None,
                                  finish_reason=choice.finish_reason, usage=usage_of(response))
            except JudgeTransportError:
                raise
            except Exception as exc:
                if not self.should_retry(exc) or retry == endpoint.max_retries:
                    raise
                delay = min(endpoint.backoff_max_s, endpoint.backoff_s * 2**retry) * random.random()
                # A server that says when to come back (429/503 Retry-After) knows better than our backoff.
                delay = max(delay, min(endpoint.backoff_max_s, retry_after(exc)))
                log.info("retrying %s on %s in %.2fs (%s)", request.dimension.name, endpoint.base_url, delay, reason_of(exc))
                await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        for pools in self.clients:
            for client in pools:
                await client.close()


def usage_of(response) -> dict[str, int] | None:
    """Prompt, cached prompt and completion tokens of a chat completion, where the server reports them."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    record = {"prompt_tokens": usage.prompt_tokens or 0, "completion_tokens": usage.completion_tokens or 0}
    if cached is not None:
        record["cached_tokens"] = cached
    return record


_LABEL_AT = {"tags": re.compile(r"<score>\s*", re.IGNORECASE), "json": re.compile(r'"label"\s*:\s*"?')}
_LABEL_END = re.compile(r'[<"\s,}]')


def label_probs(logprobs, request: JudgeRequest) -> dict[str, float] | None:
    """Probabilities of the scale labels at the token where the verdict's label starts, from the top logprobs the
    server returned; None when that position cannot be found.

    The position is the last `<score>` (or `"label":`) after the reasoning, as in `parse_reply`: a reasoning model
    may write the marker while thinking. Tokenizers merge differently (`>2`, ` "2`, `2</`), so each alternative
    token is read relative to the sampled token's start: the text before the label must match, and what follows
    it is cut at the label's end. A token that starts several labels (a multi-token label) is ambiguous and
    dropped; the remaining mass is renormalised by the scorer.
    """
    spec = request.dimension.judge
    if logprobs is None or not getattr(logprobs, "content", None) or spec is None:
        return None
    tokens = logprobs.content
    starts, text = [], ""
    for token in tokens:
        starts.append(len(text))
        text += token.token
    verdict_from = text.lower().rfind("</think>")
    verdict_from = verdict_from + len("</think>") if verdict_from >= 0 else 0
    matches = list(_LABEL_AT[spec.output].finditer(text, verdict_from))
    if not matches:
        return None
    label_start = matches[-1].end()
    index = next((k for k in range(len(tokens) - 1, -1, -1) if starts[k] <= label_start), None)
    if index is None or label_start >= starts[index] + len(tokens[index].token):
        return None
    before = text[starts[index] : label_start]
    labels = [entry.label for entry in spec.scale]
    probs: dict[str, float] = {}
    for top in tokens[index].top_logprobs or []:
        if not top.token.startswith(before):
            continue
        piece = _LABEL_END.split(top.token[len(before) :], maxsplit=1)[0]
        if not piece:
            continue
        label = piece if piece in labels else None
        if label is None:
            starting = [lab for lab in labels if lab.startswith(piece)]
            label = starting[0] if len(starting) == 1 else None
        if label is not None:
            probs[label] = probs.get(label, 0.0) + math.exp(top.logprob)
    return probs or None

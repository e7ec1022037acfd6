"""A scripted OpenAI-compatible judge server on 127.0.0.1, for tests and benchmarks of the `openai` backend.

It serves `POST /v1/chat/completions` and `GET /v1/models` over real HTTP (starlette + uvicorn in a thread). A
script decides each reply from a `MockCall` (dimension and item come from the `X-Reward-*` headers the `openai`
backend sends; without them the dimension is found from the prompt's `# Criterion:` title; `attempt` counts calls
per (item, dimension)): reply text, an HTTP error, a delay or a hang, and the label probabilities to return as
logprobs. `Faults` injects 5xx, 429, hangs and malformed text into a share of calls (or all) on top of any script. Latency can emulate a GPU judge: a fixed time per call plus a time
per prompt token that misses an emulated prefix cache (vLLM-style block hashing), so prefix reuse matters.

Reasoning-model reply shapes, as vLLM serves them: `MockReply.reasoning` is returned as the message's
`reasoning_content` (vLLM's reasoning parsers), `finish_reason="length"` marks a reply cut at `max_tokens`;
`SHAPES` builds each shape (reasoning field, think block, truncated, prose around JSON, garbage, HTTP errors)
for a dimension. `POST /tokenize` answers like vLLM's (`count`, `max_model_len`), with approximate tokens.

    with MockJudgeServer(suite=load_suite("searchllm")) as url: ...
    python -m reward.judges.mock_server --port 8001 --latency 0.2 --per-token 0.00002
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import re
import socket
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from reward.judges.prompt import approx_tokens
from reward.rubric import LoadedSuite, load_suite


@dataclass
class MockCall:
    """One request as the script sees it."""

    dimension: str
    item: str
    group: str
    attempt: int
    messages: list[dict]
    logprobs: bool
    temperature: float | None = None
    response_format: dict | None = None
    """The request's `response_format` (structured outputs), as sent."""

    def evidence(self) -> list[tuple[str, str]]:
        """(doc id, text) of the evidence in the prompt, in order."""
        prompt = self.messages[-1]["content"] if self.messages else ""
        return re.findall(r"^\[Doc ([^\]]+)\][^\n]*\n([^\n]+)", prompt, re.MULTILINE)


@dataclass
class MockReply:
    text: str = ""
    status: int = 200
    """HTTP status; 429 and 5xx simulate overload and server errors."""
    delay_s: float = 0.0
    """Extra delay before answering (a timeout when longer than the client's)."""
    label_probs: dict[str, float] | None = None
    """Probabilities to return as top logprobs at the label position."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (e.g. `Retry-After` with a 429)."""
    reasoning: str | None = None
    """Returned apart from the content as `reasoning_content`, as vLLM's reasoning parsers do."""
    finish_reason: str = "stop"
    """`length` for a reply cut at `max_tokens`."""

    @property
    def raw_text(self) -> str:
        """Everything the model generated (reasoning and content), for the usage count."""
        return (self.reasoning or "") + self.text


def _verdict(label: str, output: str, quote: tuple[str, str] | None = None) -> str:
    if output == "json":
        quotes = [{"doc": quote[0], "text": quote[1]}] if quote else []
        return json.dumps({"reasoning": "checked", "label": label, "quotes": quotes})
    quote_tag = f'<quote doc="{quote[0]}">{quote[1]}</quote>' if quote else ""
    return f"{quote_tag}<score>{label}</score>"


def reply_shape(shape: str, label: str, output: str = "tags", quote: tuple[str, str] | None = None) -> MockReply:
    """A reply of one shape a reasoning model's server gives, carrying `label` where the shape has a verdict.

    `reasoning_field`: reasoning in `reasoning_content`, the verdict alone in the content. `think_block`: reasoning
    in `<think>` in the content (a draft label inside it). `truncated`: cut at `max_tokens` inside the reasoning.
    `prose_json`: prose before and after the JSON object. `garbage`: no verdict. `server_error`, `rate_limited`,
    `bad_request`: HTTP 503, 429 and 400.
    """
    verdict = _verdict(label, output, quote)
    shapes = {
        "reasoning_field": lambda: MockReply(text=verdict, reasoning=f"The criterion holds; draft label {label}."),
        "think_block": lambda: MockReply(text=f"<think>First guess <score>0</score>, but it holds.</think>{verdict}"),
        "truncated": lambda: MockReply(text="<think>Checking claim 1 against Doc 1, then claim 2 against", finish_reason="length"),
        "prose_json": lambda: MockReply(text=f"Here is my verdict {{as requested}}:\n{_verdict(label, 'json', quote)}\nHope this helps."),
        "garbage": lambda: MockReply(text="Honestly this answer seems fine to me, maybe a seven out of ten?"),
        "server_error": lambda: MockReply(status=503),
        "rate_limited": lambda: MockReply(status=429, headers={"Retry-After": "0"}),
        "bad_request": lambda: MockReply(status=400),
    }
    if shape not in shapes:
        raise ValueError(f"unknown reply shape {shape!r}; known: {', '.join(shapes)}")
    return shapes[shape]()


SHAPES = ("reasoning_field", "think_block", "truncated", "prose_json", "garbage", "server_error", "rate_limited", "bad_request")


Script = Callable[[MockCall], "MockReply | str"]


def best_label(suite: LoadedSuite) -> Script:
    """Every dimension gets its top label (with a verbatim evidence quote where the rubric asks for one)."""

    def script(call: MockCall) -> MockReply:
        spec = suite.dimensions[call.dimension].judge
        top = max(spec.scale, key=lambda e: e.score)
        evidence = call.evidence()
        quote = evidence[0][1][:60] if evidence and spec.quotes != "none" else None
        if spec.output == "json":
            quotes = [{"doc": evidence[0][0], "text": quote}] if quote else []
            return MockReply(text=json.dumps({"reasoning": "scripted", "label": top.label, "quotes": quotes}))
        quote_tag = f'<quote doc="{evidence[0][0]}">{quote}</quote>' if quote else ""
        return MockReply(text=f"<think>scripted</think>{quote_tag}<score>{top.label}</score>")

    return script


@dataclass
class Latency:
    """GPU judge emulation: fixed per call, plus per prompt token not served by the prefix cache. The cache is
    unbounded unless `capacity_tokens` is set (then least recently used blocks go first, as in vLLM's KV cache)."""

    per_call_s: float = 0.0
    per_uncached_token_s: float = 0.0
    capacity_tokens: int | None = None
    block_size: int = 16
    _seen: OrderedDict = field(default_factory=OrderedDict)

    def cost(self, messages: list[dict]) -> tuple[float, int, int]:
        """(seconds, prompt tokens, uncached tokens), updating the emulated cache."""
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)
        tokens = approx_tokens(text)
        chain, hit, uncached = 0, True, 0
        for start in range(0, len(tokens), self.block_size):
            chain = hash((chain, tuple(tokens[start : start + self.block_size])))
            if hit and chain in self._seen:
                self._seen.move_to_end(chain)
                continue
            hit = False
            self._seen[chain] = None
            uncached += min(self.block_size, len(tokens) - start)
        if self.capacity_tokens is not None:
            while len(self._seen) > max(1, self.capacity_tokens // self.block_size):
                self._seen.popitem(last=False)
        return self.per_call_s + uncached * self.per_uncached_token_s, len(tokens), uncached


@dataclass
class Faults:
    """Faults injected into a share of calls regardless of the script (each rate in [0, 1]; 1 means every call),
    drawn in this order from one seeded generator so a run is reproducible."""

    server_error_rate: float = 0.0
    """Answer `server_error_status` (default 503)."""
    rate_limit_rate: float = 0.0
    """Answer 429 with `Retry-After: 0`."""
    hang_rate: float = 0.0
    """Answer only after `hang_s` (the client's timeout fires first)."""
    garbage_rate: float = 0.0
    """Answer 200 with text that follows no output contract."""
    server_error_status: int = 503
    hang_s: float = 600.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("server_error_rate", "rate_limit_rate", "hang_rate", "garbage_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"Faults.{name} must be in [0, 1], got {getattr(self, name)}")
        self._random = random.Random(self.seed)

    def apply(self, reply: MockReply) -> MockReply:
        draw = self._random.random
        if draw() < self.server_error_rate:
            return MockReply(status=self.server_error_status)
        if draw() < self.rate_limit_rate:
            return MockReply(status=429, headers={"Retry-After": "0"})
        if draw() < self.hang_rate:
            return MockReply(text=reply.text, delay_s=self.hang_s)
        if draw() < self.garbage_rate:
            return MockReply(text="Honestly this answer seems fine to me, maybe a seven out of ten?")
        return reply


class MockJudgeServer:
    """The server, run in a background thread; a context manager yielding its base URL (`.../v1`)."""

    def __init__(self, suite: LoadedSuite | str = "searchllm", script: Script | None = None, *, port: int = 0,
                 latency: Latency | None = None, faults: Faults | None = None, model: str = "mock-judge",
                 max_model_len: int = 32768):
        self.suite = load_suite(suite) if isinstance(suite, str) else suite
        self.script = script or best_label(self.suite)
        self.latency = latency or Latency()
        self.faults = faults or Faults()
        self.model = model
        self.max_model_len = max_model_len
        self.tokenize_calls = 0
        self.port = port
        self.attempts: Counter[tuple[str, str]] = Counter()
        self.calls: list[MockCall] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompt_tokens = 0
        self.uncached_tokens = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # -- HTTP ----------------------------------------------------------------------------------------------------
    async def _models(self, request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": self.model, "object": "model"}]})

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        dimension = request.headers.get("x-reward-dimension") or self._dimension_from_prompt(body.get("messages", []))
        item = request.headers.get("x-reward-item") or ""
        self.attempts[(item, dimension)] += 1
        call = MockCall(dimension, item, request.headers.get("x-reward-group", ""), self.attempts[(item, dimension)],
                        body.get("messages", []), bool(body.get("logprobs")), body.get("temperature"),
                        body.get("response_format"))
        self.calls.append(call)
        reply = self.script(call)
        reply = self.faults.apply(MockReply(text=reply) if isinstance(reply, str) else reply)
        seconds, prompt, uncached = self.latency.cost(call.messages)
        self.prompt_tokens += prompt
        self.uncached_tokens += uncached
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(seconds + reply.delay_s)
        finally:
            self.in_flight -= 1
        if reply.status != 200:
            return JSONResponse({"error": {"message": f"scripted {reply.status}", "type": "mock"}}, status_code=reply.status,
                                headers=reply.headers)
        message = {"role": "assistant", "content": reply.text}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        choice = {"index": 0, "finish_reason": reply.finish_reason, "message": message}
        if call.logprobs:
            choice["logprobs"] = {"content": self._logprobs(reply)}
        return JSONResponse({
            "id": f"mock-{len(self.calls)}", "object": "chat.completion", "created": int(time.time()), "model": self.model,
            "choices": [choice],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(approx_tokens(reply.raw_text)),
                      "total_tokens": prompt + len(approx_tokens(reply.raw_text)),
                      "prompt_tokens_details": {"cached_tokens": prompt - uncached}},
        })

    async def _tokenize(self, request: Request) -> JSONResponse:
        """vLLM's `/tokenize` for chat messages: the token count (approximate here) and the context window."""
        body = await request.json()
        self.tokenize_calls += 1
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in body.get("messages", []))
        return JSONResponse({"count": len(approx_tokens(text)), "max_model_len": self.max_model_len, "tokens": []})

    def _dimension_from_prompt(self, messages: list[dict]) -> str:
        """For clients that do not send `X-Reward-Dimension`: the dimension whose title the criterion heading names."""
        prompt = messages[-1].get("content", "") if messages else ""
        match = re.search(r"^# Criterion: (.+)$", prompt if isinstance(prompt, str) else "", re.MULTILINE)
        titles = {d.title: name for name, d in self.suite.dimensions.items()}
        return titles.get(match.group(1).strip(), "") if match else ""

    @staticmethod
    def _logprobs(reply: MockReply) -> list[dict]:
        """Per-token logprobs of the reply, tokenised like a BPE model would (words, punctuation runs, spaces
        apart); at the verdict's label token (the last `<score>` / `"label":` after the reasoning) the top
        alternatives carry the scripted label probabilities."""
        pieces = re.findall(r"\w+|[^\w\s]+|\s+", reply.text)
        content = [{"token": piece, "logprob": 0.0, "top_logprobs": [{"token": piece, "logprob": 0.0}]} for piece in pieces]
        end = reply.text.lower().rfind("</think>")
        matches = list(re.finditer(r"(?:<score>|\"label\":)\s*\"?", reply.text[end + 1 if end >= 0 else 0 :], re.IGNORECASE))
        if not matches:
            return content
        label_start = (end + 1 if end >= 0 else 0) + matches[-1].end()
        offset = 0
        for entry in content:
            if offset == label_start:
                label = entry["token"]
                probs = reply.label_probs or {label: 1.0}
                entry["logprob"] = math.log(max(probs.get(label, 1e-12), 1e-12))
                entry["top_logprobs"] = [{"token": k, "logprob": math.log(max(v, 1e-12))}
                                         for k, v in sorted(probs.items(), key=lambda kv: -kv[1])]
                break
            offset += len(entry["token"])
        return content

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def start(self) -> str:
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"]),
                                Route("/v1/models", self._models, methods=["GET"]),
                                Route("/tokenize", self._tokenize, methods=["POST"])])
        sock = socket.socket()
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        # Hung calls must not hold up stop(): in-flight requests get a second, then are dropped.
        config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_keep_alive=30, timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.url

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible judge server (top labels).")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--suite", default="searchllm")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per call")
    parser.add_argument("--per-token", type=float, default=0.0, help="seconds per uncached prompt token")
    parser.add_argument("--server-error-rate", type=float, default=0.0, help="share of calls answered 503")
    parser.add_argument("--rate-limit-rate", type=float, default=0.0, help="share of calls answered 429")
    parser.add_argument("--hang-rate", type=float, default=0.0, help="share of calls that hang (--hang-s)")
    parser.add_argument("--hang-s", type=float, default=600.0)
    parser.add_argument("--garbage-rate", type=float, default=0.0, help="share of calls answered with malformed text")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    faults = Faults(args.server_error_rate, args.rate_limit_rate, args.hang_rate, args.garbage_rate,
                    hang_s=args.hang_s, seed=args.seed)
    server = MockJudgeServer(args.suite, port=args.port, latency=Latency(args.latency, args.per_token), faults=faults)
    print(f"mock judge at {server.start()}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

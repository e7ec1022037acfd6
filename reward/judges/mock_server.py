"""A scripted OpenAI-compatible judge server on 127.0.0.1, for tests and benchmarks of the `openai` backend.

It serves `POST /v1/chat/completions` and `GET /v1/models` over real HTTP (starlette + uvicorn in a thread). A
script decides each reply from a `MockCall` (dimension and item come from the `X-Reward-*` headers the `openai`
backend sends; `attempt` counts calls per (item, dimension)): reply text, an HTTP error, a delay or a hang, and
the label probabilities to return as logprobs. Latency can emulate a GPU judge: a fixed time per call plus a time
per prompt token that misses an emulated prefix cache (vLLM-style block hashing), so prefix reuse matters.

    with MockJudgeServer(suite=load_suite("searchllm")) as url: ...
    python -m reward.judges.mock_server --port 8001 --latency 0.2 --per-token 0.00002
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import threading
import time
from collections import Counter
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
    """GPU judge emulation: fixed per call, plus per prompt token not served by the prefix cache."""

    per_call_s: float = 0.0
    per_uncached_token_s: float = 0.0
    block_size: int = 16
    _seen: set = field(default_factory=set)

    def cost(self, messages: list[dict]) -> tuple[float, int, int]:
        """(seconds, prompt tokens, uncached tokens), updating the emulated cache."""
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)
        tokens = approx_tokens(text)
        chain, hit, uncached = 0, True, 0
        for start in range(0, len(tokens), self.block_size):
            chain = hash((chain, tuple(tokens[start : start + self.block_size])))
            if hit and chain in self._seen:
                continue
            hit = False
            self._seen.add(chain)
            uncached += min(self.block_size, len(tokens) - start)
        return self.per_call_s + uncached * self.per_uncached_token_s, len(tokens), uncached


class MockJudgeServer:
    """The server, run in a background thread; a context manager yielding its base URL (`.../v1`)."""

    def __init__(self, suite: LoadedSuite | str = "searchllm", script: Script | None = None, *, port: int = 0,
                 latency: Latency | None = None, model: str = "mock-judge"):
        self.suite = load_suite(suite) if isinstance(suite, str) else suite
        self.script = script or best_label(self.suite)
        self.latency = latency or Latency()
        self.model = model
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
        dimension = request.headers.get("x-reward-dimension", "")
        item = request.headers.get("x-reward-item", "")
        self.attempts[(item, dimension)] += 1
        call = MockCall(dimension, item, request.headers.get("x-reward-group", ""), self.attempts[(item, dimension)],
                        body.get("messages", []), bool(body.get("logprobs")))
        self.calls.append(call)
        reply = self.script(call)
        reply = MockReply(text=reply) if isinstance(reply, str) else reply
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
            return JSONResponse({"error": {"message": f"scripted {reply.status}", "type": "mock"}}, status_code=reply.status)
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply.text}}
        if call.logprobs:
            choice["logprobs"] = {"content": self._logprobs(reply)}
        return JSONResponse({
            "id": f"mock-{len(self.calls)}", "object": "chat.completion", "created": int(time.time()), "model": self.model,
            "choices": [choice],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(approx_tokens(reply.text)), "total_tokens": prompt},
        })

    @staticmethod
    def _logprobs(reply: MockReply) -> list[dict]:
        match = re.search(r"(<score>|\"label\":\s*\")([^<\"]+)", reply.text)
        if not match:
            return [{"token": reply.text, "logprob": 0.0, "top_logprobs": []}]
        label = match.group(2).strip()
        probs = reply.label_probs or {label: 1.0}
        import math

        top = [{"token": k, "logprob": math.log(max(v, 1e-12))} for k, v in sorted(probs.items(), key=lambda kv: -kv[1])]
        return [
            {"token": reply.text[: match.end(1)], "logprob": 0.0, "top_logprobs": []},
            {"token": label, "logprob": math.log(max(probs.get(label, 1e-12), 1e-12)), "top_logprobs": top},
            {"token": reply.text[match.end(2) :], "logprob": 0.0, "top_logprobs": []},
        ]

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def start(self) -> str:
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"]),
                                Route("/v1/models", self._models, methods=["GET"])])
        sock = socket.socket()
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_keep_alive=30)
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
    args = parser.parse_args()
    server = MockJudgeServer(args.suite, port=args.port, latency=Latency(args.latency, args.per_token))
    print(f"mock judge at {server.start()}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

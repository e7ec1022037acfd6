"""The scripted mock judge: replies decided by a script, for tests and offline demos without a network.

A script maps a request (and the attempt number) to reply text, or raises `JudgeTransportError` to simulate a
failing endpoint. `best_label_script` answers every dimension with its top label and a verbatim quote from the
first evidence item, which is what a perfect response would earn; `response_hash_script` answers a label that
follows a hash of the response, so different rollouts get different rewards. The same scripts drive the
OpenAI-compatible mock HTTP server, so `openai` backend tests go through real HTTP.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Mapping, Sequence

from reward.judges.base import Completion, JudgeRequest
from reward.judges.llm import LLMJudge

Script = Callable[[JudgeRequest, int], "str | Completion"]


def tag_reply(label: str, reasoning: str = "scripted", quote: tuple[str, str] | None = None) -> str:
    """A well-formed `tags` reply."""
    quote_tag = f'<quote doc="{quote[0]}">{quote[1]}</quote>' if quote else ""
    return f"<think>{reasoning}</think>{quote_tag}<score>{label}</score>"


def labelled_reply(request: JudgeRequest, label: str) -> str:
    """A well-formed reply with `label`, in the dimension's output contract, quoting the first evidence item
    verbatim where the rubric asks for quotes."""
    spec = request.dimension.judge
    assert spec is not None
    quote = None
    if spec.quotes != "none" and request.item.evidence:
        doc = request.item.evidence[0]
        quote = (doc.id, doc.text.strip()[:60])
    if spec.output == "json":
        import json

        quotes = [{"doc": quote[0], "text": quote[1]}] if quote else []
        return json.dumps({"reasoning": "scripted", "label": label, "quotes": quotes})
    return tag_reply(label, quote=quote)


def best_label_script(request: JudgeRequest, attempt: int) -> str:
    spec = request.dimension.judge
    assert spec is not None
    return labelled_reply(request, max(spec.scale, key=lambda entry: entry.score).label)


def response_hash_script(request: JudgeRequest, attempt: int) -> Completion:
    """Grades that follow what the judge reads, deterministically, for training-loop tests: with p the first 32 bits
    of SHA-256(the call's content key, or the response) over 2^32, the reply gives the top label probability p and
    the bottom label 1 - p (as logprobs would), so the score is p x top + (1 - p) x bottom. Different responses get
    different scores (a GRPO step then has advantages and a gradient), identical calls the same (the engine dedupes
    by that key); the grade says nothing about which response is better. The `mock-hash` judge
    (`reward.judges.factory.make_judge`)."""
    spec = request.dimension.judge
    assert spec is not None
    content = request.key or f"{request.dimension.name}\0{request.item.response}"
    p = int.from_bytes(hashlib.sha256(content.encode("utf-8")).digest()[:4], "big") / 2**32
    top = max(spec.scale, key=lambda entry: entry.score)
    bottom = min(spec.scale, key=lambda entry: entry.score)
    return Completion(text=labelled_reply(request, (top if p >= 0.5 else bottom).label),
                      label_probs={top.label: p, bottom.label: 1.0 - p}, logprobs_requested=True)


def by_dimension(replies: Mapping[str, str | Sequence[str]], default: Script = best_label_script) -> Script:
    """Script replying per dimension name; a sequence gives the reply for attempt 1, 2, ..."""

    def script(request: JudgeRequest, attempt: int) -> str:
        reply = replies.get(request.dimension.name)
        if reply is None:
            return default(request, attempt)
        if isinstance(reply, str):
            return reply
        return reply[min(attempt, len(reply)) - 1]

    return script


class ScriptedJudge(LLMJudge):
    """Judge whose replies come from a script; records the calls it receives (the latest `max_recorded_calls`)."""

    name = "mock"

    def __init__(self, script: Script = best_label_script, *, latency_s: float = 0.0, parse_retries: int = 2,
                 max_recorded_calls: int = 10_000):
        super().__init__(parse_retries=parse_retries)
        self.script = script
        self.latency_s = latency_s
        self.max_recorded_calls = max_recorded_calls
        self.calls: list[tuple[str, str, int]] = []

    @property
    def identity(self) -> str:
        # The script decides the replies: `mock` and `mock-hash` must not pass for one another in a cache or replay.
        return f"mock:{getattr(self.script, '__name__', type(self.script).__name__)}"

    async def complete(self, messages: list[dict[str, str]], request: JudgeRequest, attempt: int) -> Completion:
        # Bounded: a server running `judge: mock` for hours (load tests, soaks) must not grow with every call.
        if len(self.calls) >= self.max_recorded_calls:
            del self.calls[: len(self.calls) // 2]
        self.calls.append((request.item.id, request.dimension.name, attempt))
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        reply = self.script(request, attempt)
        return reply if isinstance(reply, Completion) else Completion(text=reply)


def best_label_judge(*, latency_s: float = 0.0) -> ScriptedJudge:
    """The `mock` judge backend: the best label of every scale (`best_label_script`)."""
    return ScriptedJudge(best_label_script, latency_s=latency_s)


def response_hash_judge(*, latency_s: float = 0.0) -> ScriptedJudge:
    """The `mock-hash` judge backend: grades that follow a hash of what the judge reads (`response_hash_script`)."""
    return ScriptedJudge(response_hash_script, latency_s=latency_s)

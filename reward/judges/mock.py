"""The scripted mock judge: replies decided by a script, for tests and offline demos without a network.

A script maps a request (and the attempt number) to reply text, or raises `JudgeTransportError` to simulate a
failing endpoint. `best_label_script` answers every dimension with its top label and a verbatim quote from the
first evidence item, which is what a perfect response would earn. The same scripts drive the OpenAI-compatible
mock HTTP server, so `openai` backend tests go through real HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from reward.judges.base import Completion, JudgeRequest
from reward.judges.llm import LLMJudge

Script = Callable[[JudgeRequest, int], str]


def tag_reply(label: str, reasoning: str = "scripted", quote: tuple[str, str] | None = None) -> str:
    """A well-formed `tags` reply."""
    quote_tag = f'<quote doc="{quote[0]}">{quote[1]}</quote>' if quote else ""
    return f"<think>{reasoning}</think>{quote_tag}<score>{label}</score>"


def best_label_script(request: JudgeRequest, attempt: int) -> str:
    spec = request.dimension.judge
    assert spec is not None
    best = max(spec.scale, key=lambda entry: entry.score)
    quote = None
    if spec.quotes != "none" and request.item.evidence:
        doc = request.item.evidence[0]
        quote = (doc.id, doc.text.strip()[:60])
    if spec.output == "json":
        import json

        quotes = [{"doc": quote[0], "text": quote[1]}] if quote else []
        return json.dumps({"reasoning": "scripted", "label": best.label, "quotes": quotes})
    return tag_reply(best.label, quote=quote)


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

    async def complete(self, messages: list[dict[str, str]], request: JudgeRequest, attempt: int) -> Completion:
        # Bounded: a server running `judge: mock` for hours (load tests, soaks) must not grow with every call.
        if len(self.calls) >= self.max_recorded_calls:
            del self.calls[: len(self.calls) // 2]
        self.calls.append((request.item.id, request.dimension.name, attempt))
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return Completion(text=self.script(request, attempt))

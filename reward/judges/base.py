"""The judge interface: `await judge.judge(request) -> JudgeReply`, shared by every backend.

LLM backends (OpenAI-compatible, scripted mock) only implement `complete`: send the rendered messages, return the
text (and label probabilities when the server gives logprobs). `LLMJudge.judge` does the rest the same way for
all of them: parse the reply per the rubric's output contract, verify evidence quotes, retry unparseable or
out-of-scale replies a bounded number of times, and turn what is left into an `unscored` reply with the reason
and the raw text. Transport failures (timeouts, 5xx after retries) become `unscored` too: failures are data.
"""

from __future__ import annotations

import abc
import logging
from dataclasses import dataclass, field
from typing import Any

from policy.format import ParsedResponse
from reward.rubric import Dimension
from reward.rules import RuleResult
from reward.schema import DimensionScore, Item, Quote, Status

log = logging.getLogger(__name__)


@dataclass
class JudgeRequest:
    """One (item, dimension) judgment to make."""

    dimension: Dimension
    item: Item
    parsed: ParsedResponse
    prechecks: dict[str, RuleResult] = field(default_factory=dict)
    """Findings of the rules the dimension lists as pre-checks."""
    key: str = ""
    """Content key of the call (same key, same answer): used for dedupe and caching."""

    @property
    def group(self) -> str | None:
        return self.item.group


@dataclass
class JudgeReply:
    """A judge's verdict on one (item, dimension)."""

    backend: str
    score: float | None = None
    label: str | None = None
    status: Status = "ok"
    reason: str | None = None
    explanation: str | None = None
    quotes: list[Quote] = field(default_factory=list)
    raw: str | None = None
    attempts: int = 1
    cached: bool = False
    confidence: float | None = None
    """How sure the backend is of `score`, in [0, 1] (the cascade routes on it); None when it does not say."""
    audit: float | None = None
    """The LLM judge's score on an audited cheap-tier decision (cascade)."""

    @classmethod
    def unscored(cls, backend: str, reason: str, **extra: Any) -> JudgeReply:
        return cls(backend=backend, status="unscored", reason=reason, **extra)

    def to_dimension_score(self, dimension: Dimension) -> DimensionScore:
        return DimensionScore(
            score=self.score if self.status == "ok" else None,
            layer=dimension.layer,
            backend=self.backend,
            status=self.status,
            reason=self.reason,
            explanation=self.explanation,
            label=self.label,
            quotes=self.quotes,
            raw=self.raw,
            confidence=self.confidence,
            audit=self.audit,
        )


class Judge(abc.ABC):
    """A judge backend."""

    name: str = "judge"

    @abc.abstractmethod
    async def judge(self, request: JudgeRequest) -> JudgeReply:
        """Judge one (item, dimension); never raises for a failed judgment, returns `unscored` instead."""

    def backend_for(self, request: JudgeRequest) -> str:
        return self.name

    @property
    def identity(self) -> str:
        """What decides this judge's answers besides the prompt (backend, model, sampling settings): part of every
        cache key, so replies cached on disk by one judge are never served as another's."""
        return self.name

    async def close(self) -> None:
        """Release connections."""


@dataclass
class Completion:
    """What an LLM endpoint answered."""

    text: str
    label_probs: dict[str, float] | None = None
    """Probability of each scale label at the score position, when the backend returned logprobs."""


class JudgeTransportError(Exception):
    """The endpoint could not answer (after its own retries); `reason` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str = ""):
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


class LLMJudge(Judge):
    """Shared judgment logic for backends that answer with text."""

    def __init__(self, *, parse_retries: int = 2):
        self.parse_retries = parse_retries

    @abc.abstractmethod
    async def complete(self, messages: list[dict[str, str]], request: JudgeRequest, attempt: int) -> Completion:
        """Send the messages; raise `JudgeTransportError` when the endpoint cannot answer."""

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        from reward.judges.parse import ParseError, parse_reply
        from reward.judges.prompt import render_messages

        messages = render_messages(request)
        backend = self.backend_for(request)
        last_error, last_raw = "unparseable", None
        for attempt in range(1, self.parse_retries + 2):
            try:
                completion = await self.complete(messages, request, attempt)
            except JudgeTransportError as exc:
                log.warning("judge %s failed on %s/%s: %s", backend, request.item.id, request.dimension.name, exc)
                return JudgeReply.unscored(backend, exc.reason, explanation=exc.detail or None, attempts=attempt)
            try:
                parsed = parse_reply(completion, request)
            except ParseError as exc:
                last_error, last_raw = exc.reason, completion.text
                log.info("judge %s reply rejected (%s), attempt %d", backend, exc, attempt)
                continue
            return JudgeReply(
                backend=backend,
                score=parsed.score,
                label=parsed.label,
                explanation=parsed.explanation,
                quotes=parsed.quotes,
                attempts=attempt,
            )
        return JudgeReply.unscored(backend, last_error, raw=last_raw, attempts=self.parse_retries + 1)

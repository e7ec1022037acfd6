"""The judge interface and its types: `await judge.judge(request) -> JudgeReply`, shared by every backend.

`JudgeRequest` is one (item, dimension) to judge, `JudgeReply` the verdict (or `unscored` with its reason: failures
are data), `Judge` the abstract backend, `Completion` what an LLM endpoint answered and `JudgeTransportError` an
endpoint that could not answer. The judgment text-answering backends share (render, parse, retry) is `LLMJudge` in
`reward.judges.llm`; this module imports nothing of the judges package.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from reward.format import ParsedResponse
from reward.rubric import Dimension
from reward.rules import RuleResult
from reward.schema import DimensionScore, Item, Quote, Status



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
    tier: str | None = None
    """Which cascade tier decided: `cheap`, `llm` or `fallback` (see `DimensionScore.tier`)."""
    score_source: str | None = None
    """`label_probs`, `label` or `label_fallback` (see `DimensionScore.score_source`)."""
    usage: dict[str, int] | None = None
    """`prompt_tokens`, `cached_tokens`, `completion_tokens`, `calls` summed over the judgment's calls."""

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
            tier=self.tier,
            score_source=self.score_source if self.status == "ok" else None,
            usage=self.usage,
        )


class Judge(abc.ABC):
    """A judge backend."""

    name: str = "judge"
    reads_whole_response: bool = False
    """True when the judge's answer may depend on any part of the response, not only on the parts its dimension
    declares in `inputs` (an LLM judge sees only the declared parts; the local tier's methods read the answer, the
    plan and the selection as each needs). The engine keys such a judge's calls, for deduplication within a batch and
    for its caches, by the whole response: two responses that share the declared parts but differ elsewhere must
    not share a score, or an item's score would depend on what it was batched with."""

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
    logprobs_requested: bool = False
    """Whether logprobs were asked for: a reply without usable ones is then scored by its label, flagged."""
    reasoning: str | None = None
    """Reasoning the server returned apart from the content (vLLM's `reasoning_content`)."""
    finish_reason: str | None = None
    """`stop`, or `length` when the reply was cut at `max_tokens`."""
    usage: dict[str, int] | None = None
    """`prompt_tokens`, `cached_tokens` (when reported) and `completion_tokens` of the call."""

    @property
    def raw(self) -> str:
        """The whole reply as the model wrote it: separate reasoning put back in its `<think>` block."""
        return f"<think>{self.reasoning}</think>{self.text}" if self.reasoning else self.text


def add_usage(total: dict[str, int] | None, usage: dict[str, int] | None) -> dict[str, int] | None:
    """Sum of two usage records (cached tokens only where reported)."""
    if usage is None:
        return total
    merged = dict(total or {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0})
    for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
        if usage.get(key) is not None:
            merged[key] = merged.get(key, 0) + usage[key]
    merged["calls"] = merged.get("calls", 0) + 1
    return merged


class JudgeTransportError(Exception):
    """The endpoint could not answer (after its own retries); `reason` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str = ""):
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}" if detail else reason)

"""Pydantic models of the wire format: what the trainer sends and what the server answers.

Every model that is sent over HTTP or written to the score log lives here, so the server, the CLI, the verl
adapter and the dashboard agree on one shape. Field docstrings double as the JSON Schema descriptions.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

Layer = Literal["bottom_line", "behavioral"]
"""Layer I (bottom-line, hard constraints) or Layer II (behavioral objectives)."""

Status = Literal["ok", "unscored"]
"""`ok`: the score is real. `unscored`: no score could be produced; `reason` says why."""

# Per-item ceilings. They bound what one item can cost a scorer (memory and time grow with the answer's sentences
# and the evidence), far above what a search answer needs (a long answer is ~5k characters and ~40 sentences, a
# search returns tens of documents), so only runaway generations and hostile clients meet them: a request over one
# is refused with a 422 naming the item, the field and the limit.
MAX_QUERY_CHARS = 10_000
MAX_HISTORY_TURNS = 100
MAX_TURN_CHARS = 100_000
MAX_RESPONSE_CHARS = 100_000
MAX_RESPONSE_SENTENCES = 300
MAX_EVIDENCE_DOCS = 512
MAX_EVIDENCE_CHARS = 200_000
"""Per evidence document (title and text each)."""
MAX_STEP = 10**9
UNSTEPPED_SUFFIX = " (no step)"
"""The score log charts a run's records without a step as run `<run> (no step)`; no run name may end in it."""
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?:\s|$)|\n+")


STRUCTURAL_REASONS = frozenset({"no_local_backend", "examples_not_separable", "unsupported_language", "not_applicable"})
"""Unscored reasons the response cannot cause: this backend has no method for the dimension (`no_local_backend`, or
`examples_not_separable`: the head fitted on the dimension's labelled examples cannot separate them),
the interaction itself (the query, the evidence) is in a language the backend does not read
(`unsupported_language`), or the dimension does not apply to the interaction (`not_applicable`: a multi-turn
check in a session without earlier answers). Every response to the same interaction gets the same verdict, so the dimension is left
out of the aggregation (`ItemResult.excluded`) and no response gains from it."""

CALL_FAILURE_REASONS = frozenset({
    "judge_timeout", "rate_limited", "server_error", "connection_error", "judge_error", "tokenize_failed",
})
"""Unscored reasons of the infrastructure, not of the response's content: the judge endpoint timed out, refused,
rate-limited or failed, or its tokenizer endpoint did. On a bottom-line dimension the item is `valid: false` (the
trainer masks it) and its reward is its group's mean, so its GRPO advantage is zero: never a penalty for a failure the
response did not cause, and never more than the responses around it earn on average. On a behavioral dimension,
within the suite's `behavioral_tolerance`, the dimension takes its group's mean. A deterministic error of this
server's own code on the item's text (`rule_error`, `local_error`) is not one of them: the same text fails the
same way every time, so it is the response's doing as far as the reward can tell, and fails the dimension. (A local
judgment that fails for its process's environment, an import or a file, is `judge_error`:
`reward.judges.local.failure_reason`.)"""


def reason_kind(reason: str | None) -> Literal["structural", "call", "response"]:
    """How the engine treats an unscored reason. `structural` and `call` reasons are listed above; every other
    reason, known or not, is one the response can cause (a language the interaction does not use, a judge reply the
    response provoked into being unparseable, out of scale, a template echo or truncated; a prompt over the judge's
    context): the dimension counts as failed (0), so causing it never pays.

    >>> [reason_kind(r) for r in ("no_local_backend", "judge_timeout", "unparseable", "rule_error", "something_new")]
    ['structural', 'call', 'response', 'response', 'response']
    """
    if reason in STRUCTURAL_REASONS:
        return "structural"
    if reason in CALL_FAILURE_REASONS:
        return "call"
    return "response"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Turn(_Strict):
    """One earlier turn of the search session."""

    role: Literal["user", "assistant", "system"]
    """Who spoke."""
    content: str = Field(max_length=MAX_TURN_CHARS)
    """What was said (the assistant's earlier answers included, so cross-turn conflicts can be judged)."""


class Evidence(_Strict):
    """One retrieved document offered to the policy."""

    id: str = Field(min_length=1, max_length=64)
    """Identifier the response cites, e.g. `"2"` for `[Doc 2]`."""
    title: str = Field(default="", max_length=MAX_EVIDENCE_CHARS)
    """Document title."""
    text: str = Field(max_length=MAX_EVIDENCE_CHARS)
    """Document body as the policy saw it."""
    source: str = ""
    """Where it came from (note search, web, a tool)."""
    published: dt.date | None = None
    """Publication date, when known; time-sensitive checks compare it with `Item.now`."""

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_string(cls, value: Any) -> Any:
        # Retrieval systems often number documents; citations are matched as strings.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class Item(_Strict):
    """One interaction x = (query, history, evidence) and the policy's response y to score."""

    id: str = Field(min_length=1, max_length=256)
    """Caller's identifier, echoed in the result."""
    group: str | None = Field(default=None, max_length=256)
    """All rollouts of one prompt share a group (GRPO); judges route a group to one endpoint."""
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    """The user's current query."""
    history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY_TURNS)
    """Earlier turns of the session, oldest first."""
    evidence: list[Evidence] = Field(default_factory=list, max_length=MAX_EVIDENCE_DOCS)
    """The candidate evidence set E offered to the policy."""
    response: str = Field(max_length=MAX_RESPONSE_CHARS)
    """The policy's whole output: intent plan, selected evidence and answer (see `reward.format`); at most
    `MAX_RESPONSE_CHARS` characters and `MAX_RESPONSE_SENTENCES` sentences."""
    now: dt.date | None = None
    """Date of the interaction, for time-sensitive checks."""

    @field_validator("evidence")
    @classmethod
    def _unique_evidence_ids(cls, evidence: list[Evidence]) -> list[Evidence]:
        seen: set[str] = set()
        for doc in evidence:
            if doc.id in seen:
                raise ValueError(f"duplicate evidence id {doc.id!r}")
            seen.add(doc.id)
        return evidence

    @field_validator("response")
    @classmethod
    def _bounded_sentences(cls, response: str) -> str:
        count = sum(1 for _ in _SENTENCE_END.finditer(response))
        if count > MAX_RESPONSE_SENTENCES:
            raise ValueError(f"{count} sentences exceed the limit of {MAX_RESPONSE_SENTENCES} per response")
        return response

    def evidence_by_id(self) -> dict[str, Evidence]:
        return {doc.id: doc for doc in self.evidence}


class ScoreRequest(_Strict):
    """Body of `POST /v1/score`."""

    suite: str = "searchllm"
    """Name of the rubric suite to score with."""
    items: list[Item] = Field(min_length=1)
    """Items to score; results come back in the same order."""
    step: StrictInt | None = Field(default=None, ge=0, le=MAX_STEP)
    """Training step the items belong to, so the score log and dashboard can key curves by step (an integer: `true`
    or `5.0` is refused, not read as 1 or 5)."""
    run: str | None = Field(default=None, min_length=1, max_length=128)
    """Name of the training run (e.g. `gated` or `linear`), for side-by-side dashboards. Not empty, not blank, and
    not ending in `UNSTEPPED_SUFFIX` (the dashboard's name for a run's records without a step)."""
    request_id: str | None = Field(default=None, min_length=1, max_length=128, pattern=r"^[!-~]+$")
    """Client-chosen id of this batch, the same on every retry of it (printable ASCII, no spaces; a UUID will do).
    Ids are scoped by `run` and bound to the batch's content (suite, step, items): a retry of a batch that was
    already logged (say the reply was lost, or the server was killed after writing it) is scored and answered again
    but not logged twice; the same id in the same run with other content is refused with 409."""

    @field_validator("run")
    @classmethod
    def _distinct_run_name(cls, run: str | None) -> str | None:
        if run is not None and not run.strip():
            raise ValueError("run must not be blank (leave it out for no run name)")
        if run is not None and run.endswith(UNSTEPPED_SUFFIX):
            raise ValueError(f"run must not end in {UNSTEPPED_SUFFIX!r}: the score log names a run's records without a "
                             "step that way, so the two would merge")
        return run

    @field_validator("items")
    @classmethod
    def _unique_item_ids(cls, items: list[Item]) -> list[Item]:
        # Two items with one id cannot be told apart in the reply or the score log (and would be logged twice).
        seen: set[str] = set()
        duplicates = sorted({item.id for item in items if item.id in seen or seen.add(item.id)})
        if duplicates:
            shown = ", ".join(repr(d) for d in duplicates[:5]) + (f" and {len(duplicates) - 5} more" if len(duplicates) > 5 else "")
            raise ValueError(f"duplicate item ids: {shown}")
        return items


class Quote(_Strict):
    """A verbatim span a judge quoted from the evidence, and whether it was found there."""

    doc: str | None = None
    """Evidence id the judge attributed the quote to, if it named one."""
    text: str
    """The quoted text."""
    verified: bool
    """True when the text occurs in the evidence (NFKC- and whitespace-normalised)."""


class JudgeUsage(_Strict):
    """Tokens an LLM judge spent on one dimension (summed over re-asks), as the endpoint reported them."""

    prompt_tokens: int = 0
    cached_tokens: int | None = None
    """Prompt tokens served from the endpoint's prefix cache, when it reports them."""
    completion_tokens: int = 0
    calls: int = 0
    """Completion calls made (1 + re-asks)."""


class DimensionScore(_Strict):
    """One dimension's verdict on one item."""

    score: float | None = Field(default=None, ge=0.0, le=1.0)
    """Score in [0, 1]; `None` exactly when `status` is `unscored`."""
    layer: Layer
    """Layer of the dimension."""
    backend: str
    """What produced the score: `rule`, `local`, `openai:<model>`, `mock`."""
    status: Status = "ok"
    """`ok` or `unscored`."""
    reason: str | None = None
    """Why the dimension is unscored (e.g. `judge_timeout`, `unparseable`, `no_local_backend`)."""
    explanation: str | None = None
    """Short human-readable justification (rule findings or the judge's reasoning)."""
    label: str | None = None
    """The raw scale label the judge gave, when a judge scored it."""
    quotes: list[Quote] = Field(default_factory=list)
    """Evidence quotes the judge gave, with their verification."""
    raw: str | None = None
    """The judge's raw reply, kept when it could not be parsed."""
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    """The cheap tier's confidence in its own score, when a judge cascade routed this dimension (see `backend` for
    which tier decided)."""
    audit: float | None = Field(default=None, ge=0.0, le=1.0)
    """The LLM judge's score when a cascade audited the cheap tier's decision."""
    tier: Literal["cheap", "llm", "fallback"] | None = None
    """Which tier of a judge cascade decided the score: `cheap` (the cheap tier was confident), `llm` (it was not, or
    could not judge), `fallback` (the dimension's audit agreement fell below the floor); None when no cascade routed
    the dimension (no cascade, `mode: off`, or a threshold of 1.0)."""
    score_source: Literal["label_probs", "label", "label_fallback"] | None = None
    """How an LLM judge's score was read: `label_probs` (probability-weighted label from the endpoint's
    logprobs), `label` (the parsed label; logprobs not requested) or `label_fallback` (logprobs were requested but
    none came back at the label, so the parsed label stands in)."""
    usage: JudgeUsage | None = None
    """Tokens the judge spent on this dimension, when the endpoint reports usage."""

    @classmethod
    def unscored(cls, layer: Layer, backend: str, reason: str, **extra: Any) -> DimensionScore:
        return cls(score=None, layer=layer, backend=backend, status="unscored", reason=reason, **extra)


class ItemResult(_Strict):
    """The reward server's answer for one item."""

    id: str
    """The item's id."""
    reward: float
    """Scalar reward R (gate x utility for the gated suite). For an invalid item inside a group: the mean reward
    of the group's valid items, so its GRPO advantage is zero (see `valid`)."""
    gate: float | None = None
    """Bottom-line gate B (gated aggregation only)."""
    utility: float | None = None
    """Behavioral utility U (gated aggregation only)."""
    valid: bool
    """False when a required bottom-line dimension is unscored; the trainer should mask the sample."""
    reason: str | None = None
    """Why the item is invalid."""
    dimensions: dict[str, DimensionScore]
    """Per-dimension verdicts, keyed by dimension name."""
    excluded: list[str] = Field(default_factory=list)
    """Dimensions left out of the aggregation (e.g. no local backend in local mode)."""


class OfflineResult(ItemResult):
    """One line of `reward score`'s output: an item's result with the suite version that produced it (the HTTP reply
    states the version once per batch instead)."""

    suite: str
    """Suite that scored the item."""
    suite_version: str
    """Content hash of the suite and every rubric it uses (as in `ScoreResponse`)."""


class ScoreResponse(_Strict):
    """Body of the `POST /v1/score` reply."""

    suite: str
    """Suite that scored the batch."""
    suite_version: str
    """Content hash of the suite and every rubric it uses."""
    results: list[ItemResult]
    """One result per item, in request order."""
    rubric_warning: str | None = None
    """Set while the server serves an older rubric version because the last reload was refused (broken or shrunken
    rubric files): what was refused and why. The scores are those of `suite_version`."""

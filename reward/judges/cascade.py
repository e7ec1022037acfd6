"""A judge cascade: the cheap tier (rules + the embedded local judge) decides what it is sure of, the LLM judge the
rest, with an audit trail.

For each (item, dimension) the cheap judge answers first with a score and a confidence. When the confidence is
above the dimension's threshold its score is final (`backend` names the cheap tier); otherwise the call goes to the
LLM judge (`backend` names the LLM) and the cheap tier's confidence is kept beside its score; `tier` says which
tier decided (`cheap`, `llm`, or `fallback`), so the score log and its dashboard can count them. Thresholds are
per dimension; a threshold of 1.0 (the default) never lets the cheap tier decide, so a cascade with no thresholds
set, or `mode: off`, gives exactly the LLM judge's results.

Audit: a seeded, uniform share of GRPO groups (`audit_share`) also sends the cheap tier's confident decisions to
the LLM judge. The reply keeps the cheap decision and records the LLM's score as `audit`; agreement per dimension
(accuracy and Cohen's kappa on pass/fail at 0.5) is counted, exported as Prometheus metrics by the server and
written to the score log with each audited score. When a dimension's agreement over its last `window` audits falls
below `agreement_floor` (after `min_audits`), that dimension routes every call to the LLM judge until `reset()`,
and each of its scores says so.

Thresholds: `reward.evaluation.cascade_fit.fit_thresholds` picks, per dimension, the lowest confidence at which the cheap tier agrees with
reference verdicts (`reward cascade fit`): human labels, or a logged LLM-judge run (`logged_labels` there). A threshold
may also differ by the cheap tier's verdict (`{pass: 0.9, fail: 0.4}`): cheap judges are often reliable on one side
only (a rule that finds a clear failure, word coverage that certifies a copied claim), and `fit_thresholds(...,
sided=True)` fits each side on its own.

Confidence: a backend may set `JudgeReply.confidence`; otherwise it is the distance of the score from the pass/fail
boundary, `|2 * score - 1|` (the local tier's continuous scores are far from 0.5 when its evidence is clear).
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter, deque
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from reward.judges.base import Judge, JudgeReply, JudgeRequest
from reward.evaluation.agreement import PASS_AT, pass_fail_kappa

log = logging.getLogger(__name__)


class SidedThreshold(BaseModel):
    """Confidence thresholds by the cheap tier's verdict: its passes and its failures earn trust separately."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    passing: float = Field(default=1.0, ge=0.0, le=1.0, alias="pass")
    """Above this confidence a passing cheap score (>= 0.5) is final."""
    failing: float = Field(default=1.0, ge=0.0, le=1.0, alias="fail")
    """Above this confidence a failing cheap score (< 0.5) is final."""


class CascadeConfig(BaseModel):
    """The `cascade:` block of a cascade judge config (configs/judges/cascade.yaml)."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["on", "off"] = "on"
    """`off`: every call goes to the LLM judge (today's behaviour)."""
    cheap: str = "local"
    """The cheap tier: `local` (embedded CPU judge) or `mock`."""
    llm: str
    """The LLM judge: a judge endpoint config (configs/judges/*.yaml) or `mock`."""
    thresholds: dict[str, float | SidedThreshold] = Field(default_factory=dict)
    """Dimension -> confidence above which the cheap tier's score is final, one for both verdicts or `{pass: ..,
    fail: ..}`. Missing dimensions: 1.0 (never)."""
    audit_share: float = Field(default=0.05, ge=0.0, le=1.0)
    """Share of GRPO groups (items without a group: of items) whose confident decisions are also sent to the LLM."""
    seed: int = 0
    """Seed of the audit draw."""
    agreement_floor: float = Field(default=0.8, ge=0.0, le=1.0)
    """Below this audit accuracy a dimension routes everything to the LLM judge until reset."""
    min_audits: int = Field(default=20, ge=1)
    """Audits of a dimension needed before the floor applies."""
    window: int = Field(default=200, ge=1)
    """Audits per dimension the agreement is computed over (the most recent ones)."""

    @field_validator("mode", mode="before")
    @classmethod
    def _yaml_booleans(cls, value: object) -> object:
        # YAML 1.1 reads a bare `on` / `off` as a boolean.
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value

    def threshold(self, dimension: str, passing: bool | None = None) -> float:
        """The dimension's threshold for a cheap verdict (`passing`), or with None the lower of its two: 1.0 there
        means the cheap tier is never asked."""
        value = self.thresholds.get(dimension, 1.0)
        if isinstance(value, SidedThreshold):
            return min(value.passing, value.failing) if passing is None else value.passing if passing else value.failing
        return value


def confidence_of(reply: JudgeReply) -> float:
    """The backend's own confidence, or the score's distance from the pass/fail boundary."""
    if reply.confidence is not None:
        return reply.confidence
    return abs(2.0 * (reply.score or 0.0) - 1.0)


def audited(group_or_id: str, share: float, seed: int) -> bool:
    """A seeded, uniform draw per group: the same group is always audited or never, in every replica.

    >>> sum(audited(f"g{i}", 0.1, seed=0) for i in range(10_000)) / 10_000
    0.0976
    """
    if share <= 0:
        return False
    digest = hashlib.sha256(f"{seed}\x00{group_or_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


class Agreement:
    """Audit outcomes of one dimension: the last `window` (cheap pass, LLM pass) pairs."""

    def __init__(self, window: int):
        self.pairs: deque[tuple[bool, bool]] = deque(maxlen=window)

    def add(self, cheap: float, llm: float) -> None:
        self.pairs.append((cheap >= PASS_AT, llm >= PASS_AT))

    @property
    def accuracy(self) -> float | None:
        return sum(a == b for a, b in self.pairs) / len(self.pairs) if self.pairs else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa of the two tiers' pass/fail decisions (None without audits; 1.0 when both are constant
        and equal)."""
        return pass_fail_kappa(len(self.pairs), sum(a == b for a, b in self.pairs), sum(a for a, _ in self.pairs),
                               sum(b for _, b in self.pairs))


class CascadeJudge(Judge):
    """Routes each (item, dimension) between a cheap judge and an LLM judge; see the module docstring."""

    name = "cascade"

    def __init__(self, cheap: Judge, llm: Judge, config: CascadeConfig):
        self.cheap, self.llm, self.config = cheap, llm, config
        self.agreement: dict[str, Agreement] = {}
        self.fallback: set[str] = set()
        self._decisions: Counter[tuple[str, str]] = Counter()
        self._audits: Counter[tuple[str, bool, bool]] = Counter()

    @staticmethod
    def load_config(path: str | Path) -> tuple[CascadeConfig, str]:
        """The cascade block of a config file and the LLM judge's spec, a relative config path found beside the
        file (or from the working directory). `reward.judges.factory.make_judge` builds both tiers from them."""
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        config = CascadeConfig.model_validate(data.get("cascade") or {})
        llm = config.llm
        if llm not in ("mock", "local") and not Path(llm).is_absolute():
            beside = Path(path).parent / Path(llm).name
            llm = str(beside) if not Path(llm).exists() and beside.exists() else llm
        return config, llm

    @property
    def reads_whole_response(self) -> bool:  # type: ignore[override]
        return self.cheap.reads_whole_response or self.llm.reads_whole_response

    @property
    def identity(self) -> str:
        settings = self.config.model_dump_json(exclude={"cheap", "llm"})
        return f"cascade:{self.cheap.identity}|{self.llm.identity}|{hashlib.sha256(settings.encode()).hexdigest()[:12]}"

    def backend_for(self, request: JudgeRequest) -> str:
        return self.llm.backend_for(request)

    def reset(self, dimension: str | None = None) -> None:
        """Route `dimension` (or every dimension) through the cascade again and forget its audits."""
        for name in [dimension] if dimension else list(self.fallback | set(self.agreement)):
            self.fallback.discard(name)
            self.agreement.pop(name, None)
            log.warning("cascade: %s reset; the cheap tier decides again above its threshold", name)

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        name = request.dimension.name
        if self.config.mode == "off":
            return await self.llm.judge(request)
        if name in self.fallback:
            self._decisions[(name, "fallback")] += 1
            reply = await self.llm.judge(request)
            reply.tier = "fallback"
            reply.explanation = f"[cascade fallback: audit agreement below {self.config.agreement_floor}] " + (reply.explanation or "")
            return reply
        threshold = self.config.threshold(name)
        if threshold >= 1.0:  # not cascaded: exactly the LLM judge's reply
            self._decisions[(name, "llm")] += 1
            return await self.llm.judge(request)
        cheap = await self.cheap.judge(request)
        if cheap.status == "ok":
            threshold = self.config.threshold(name, (cheap.score or 0.0) >= PASS_AT)
        # Rounded as fitted thresholds are: |2 * 0.55 - 1| is 0.10000000000000009, which must not clear a fitted 0.1.
        confident = cheap.status == "ok" and round(confidence_of(cheap), 6) > threshold
        if not confident:
            self._decisions[(name, "llm")] += 1
            reply = await self.llm.judge(request)
            reply.tier = "llm"
            if cheap.status == "ok":
                reply.confidence = confidence_of(cheap)
            return reply
        self._decisions[(name, "cheap")] += 1
        cheap.confidence = confidence_of(cheap)
        cheap.tier = "cheap"
        if audited(request.item.group or request.item.id, self.config.audit_share, self.config.seed):
            check = await self.llm.judge(request)
            if check.status == "ok" and check.score is not None:
                cheap.audit = check.score
                self._record_audit(name, cheap.score or 0.0, check.score)
        return cheap

    def _record_audit(self, name: str, cheap: float, llm: float) -> None:
        agreement = self.agreement.setdefault(name, Agreement(self.config.window))
        agreement.add(cheap, llm)
        self._audits[(name, cheap >= PASS_AT, llm >= PASS_AT)] += 1
        accuracy = agreement.accuracy
        if len(agreement.pairs) >= self.config.min_audits and accuracy is not None and accuracy < self.config.agreement_floor:
            self.fallback.add(name)
            log.warning("cascade: %s audit agreement %.2f over %d audits is below the floor %.2f; every %s call goes "
                        "to the LLM judge until reset", name, accuracy, len(agreement.pairs), self.config.agreement_floor, name)

    def drain_counts(self) -> dict[str, list]:
        """Decisions per (dimension, tier) and audits per (dimension, cheap pass, LLM pass) since the last drain,
        and the dimensions in fallback: what the server exports as metrics."""
        decisions = [[name, tier, count] for (name, tier), count in self._decisions.items()]
        audits = [[name, cheap, llm, count] for (name, cheap, llm), count in self._audits.items()]
        self._decisions, self._audits = Counter(), Counter()
        return {"decisions": decisions, "audits": audits, "fallback": sorted(self.fallback)}

    def summary(self) -> dict[str, dict[str, float | int | None]]:
        """Per dimension: audits, accuracy, kappa, and whether it is in fallback."""
        return {
            name: {"audits": len(a.pairs), "accuracy": a.accuracy, "kappa": a.kappa, "fallback": name in self.fallback}
            for name, a in sorted(self.agreement.items())
        }

    async def close(self) -> None:
        await self.cheap.close()
        await self.llm.close()

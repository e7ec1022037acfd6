"""The rule registry: deterministic checks registered by name with `@rule("citations.valid")`.

A rule reads one item and its parsed response and returns a `RuleResult`: a score in [0, 1], whether it passed,
structured findings (which judges receive as pre-checks) and a one-line explanation. Parameters are validated by a
pydantic model per rule, so a rubric with a misspelt parameter fails at load time, not mid-training.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from reward.format import ParsedResponse
from reward.schema import Item


@dataclass(frozen=True)
class RuleResult:
    """What a rule found."""

    score: float
    """Score in [0, 1]."""
    passed: bool
    """Whether the check passed outright."""
    explanation: str
    """One line a person can read."""
    findings: dict[str, Any] = field(default_factory=dict)
    """Structured findings, handed to judges that list this rule as a pre-check."""


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


RuleFunction = Callable[..., RuleResult]


@dataclass(frozen=True)
class Rule:
    name: str
    function: RuleFunction
    params: type[BaseModel]

    def check_params(self, params: dict[str, Any]) -> list[str]:
        try:
            self.params.model_validate(params)
        except ValidationError as exc:
            return [
                f"{'.'.join(str(p) for p in e['loc']) or '(params)'}: "
                f"{'unknown parameter' if e['type'] == 'extra_forbidden' else e['msg']}"
                for e in exc.errors()
            ]
        return []

    def __call__(self, item: Item, parsed: ParsedResponse, params: dict[str, Any] | None = None) -> RuleResult:
        # Rules run per rollout; validating the (usually default) parameters once keeps that off the hot path.
        validated = self._defaults if not params else self.params.model_validate(params)
        return self.function(item, parsed, validated)

    @property
    def _defaults(self) -> BaseModel:
        cached = _DEFAULTS.get(self.name)
        if cached is None:
            cached = _DEFAULTS[self.name] = self.params()
        return cached


RULES: dict[str, Rule] = {}
_DEFAULTS: dict[str, BaseModel] = {}


def rule(name: str, params: type[BaseModel] = NoParams) -> Callable[[RuleFunction], RuleFunction]:
    """Register a rule under `name`; a second, different function under the same name is refused."""

    def register(function: RuleFunction) -> RuleFunction:
        existing = RULES.get(name)
        # The same definition imported twice (e.g. by doctest collection) is not a conflict.
        same = existing is not None and existing.function.__qualname__ == function.__qualname__ and (
            existing.function.__code__.co_filename == function.__code__.co_filename
        )
        if existing is not None and not same:
            raise ValueError(f"rule {name!r} is already registered by {existing.function.__module__}")
        RULES[name] = Rule(name=name, function=function, params=params)
        _DEFAULTS.pop(name, None)
        return function

    return register

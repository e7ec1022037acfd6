"""Deterministic rule checks, registered by name; `RULES` maps each name to its `Rule`."""

from reward.rules import checks as _checks  # noqa: F401  (importing registers the checks)
from reward.rules.quotes import normalise, quote_in_text, verify_quote
from reward.rules.registry import RULES, Rule, RuleResult, rule

__all__ = ["RULES", "Rule", "RuleResult", "normalise", "quote_in_text", "rule", "verify_quote"]

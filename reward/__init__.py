"""search-reward: a multi-dimensional reward server for RLHF on generative search.

A response to an interaction (query, history, evidence) is scored on the rubric's dimensions by rule checks and
judges, and aggregated into one reward (gate x utility). The public API below is declared once and loaded on first
use, so `import reward` is cheap: it loads no torch, Ray, ONNX Runtime or transformers.

>>> import reward
>>> suite = reward.load_suite("searchllm")
>>> suite.name
'searchllm'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reward._lazy import lazy_exports

_import_structure = {
    "schema": ["DimensionScore", "Evidence", "Item", "ItemResult", "ScoreRequest", "ScoreResponse", "Turn"],
    "rubric": ["LoadedSuite", "RubricError", "UnknownSuite", "list_suites", "load_suite"],
    "aggregate": ["aggregate", "gate"],
    "engine": ["Engine"],
    "format": ["parse_response", "render_response"],
    "judges.base": ["Judge"],
    "judges.factory": ["make_judge"],
}

__all__ = ["DimensionScore", "Engine", "Evidence", "Item", "ItemResult", "Judge", "LoadedSuite", "RubricError",
           "ScoreRequest", "ScoreResponse", "Turn", "UnknownSuite", "aggregate", "gate", "list_suites", "load_suite",
           "make_judge", "parse_response", "render_response"]

if TYPE_CHECKING:
    from reward.aggregate import aggregate, gate
    from reward.engine import Engine
    from reward.format import parse_response, render_response
    from reward.judges.base import Judge
    from reward.judges.factory import make_judge
    from reward.rubric import LoadedSuite, RubricError, UnknownSuite, list_suites, load_suite
    from reward.schema import DimensionScore, Evidence, Item, ItemResult, ScoreRequest, ScoreResponse, Turn


__getattr__, __dir__ = lazy_exports(__name__, _import_structure, globals(), __all__)

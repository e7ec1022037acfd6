"""Human label formats for calibration (JSONL, one label per line), validated with errors naming file:line and field.

Pointwise (binary constraint dimensions)::

    {"kind": "pointwise", "item": {<Item>}, "dimension": "claim_hallucination", "label": 0,
     "annotator": "a17", "track": "blind"}

Pairwise (preference dimensions, or "holistic" for the overall reward)::

    {"kind": "pairwise", "context": {"query": ..., "history": [...], "evidence": [...], "now": "2026-01-10"},
     "preferred": "<response>", "other": "<response>", "dimension": "answer_firstness" | "holistic",
     "annotator": "a03", "track": "assisted"}

`track` is the annotation protocol: `blind` (query and answers only) or `assisted` (with the reward system's
reasoning and citations); the same item labelled in both tracks is compared by `reward calibrate --tracks`.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reward.schema import Evidence, Item, Turn


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PointwiseLabel(_Strict):
    kind: Literal["pointwise"] = "pointwise"
    item: Item
    """The interaction and response that was labelled."""
    dimension: str
    """The dimension the label is about."""
    label: Literal[0, 1]
    """1: the response meets the dimension's requirement; 0: it violates it."""
    annotator: str | None = None
    track: Literal["blind", "assisted"] | None = None
    hints: dict[str, Any] | None = None
    """What an assisted-track annotator was shown (the judge's verdict, explanation and quotes); never scored."""


class Context(_Strict):
    query: str = Field(min_length=1)
    history: list[Turn] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    now: dt.date | None = None


class PairwiseLabel(_Strict):
    kind: Literal["pairwise"] = "pairwise"
    context: Context
    preferred: str
    """The response the annotator preferred."""
    other: str
    dimension: str
    """A dimension name, or "holistic" for the overall preference."""
    annotator: str | None = None
    track: Literal["blind", "assisted"] | None = None


class LabelError(ValueError):
    pass


def load_labels(path: Path) -> tuple[list[PointwiseLabel], list[PairwiseLabel]]:
    """Read a label file; raises `LabelError` listing every bad line as `file:line: field: message`."""
    pointwise, pairwise, problems = [], [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data.get("kind") if isinstance(data, dict) else None
            if kind == "pointwise":
                pointwise.append(PointwiseLabel.model_validate(data))
            elif kind == "pairwise":
                pairwise.append(PairwiseLabel.model_validate(data))
            else:
                problems.append(f"{path}:{number}: kind: must be 'pointwise' or 'pairwise'")
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{number}: invalid JSON: {exc.msg}")
        except ValidationError as exc:
            for error in exc.errors()[:3]:
                field = ".".join(str(p) for p in error["loc"]) or "(line)"
                problems.append(f"{path}:{number}: {field}: {'unknown field' if error['type'] == 'extra_forbidden' else error['msg']}")
    if problems:
        raise LabelError("\n".join(problems))
    return pointwise, pairwise

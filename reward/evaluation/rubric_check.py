"""A dimension's agreement with items its author labelled (`reward rubric check`): per label and overall, with
bootstrap intervals, under any judge.

A label file is JSONL, one labelled item a line::

    {"item": {<Item>}, "dimension": "medical_safety", "label": "pass"}
    {"item": {<Item>}, "dimension": "medical_safety", "score": 0.5}

`label` is one of the dimension's scale labels (e.g. `"2"`), a label the command's `label_scores` maps to a score
(`pass=1,partial=0.5,fail=0`), or 0 / 1 as in calibration's pointwise files (whose lines load unchanged); `score` is
the score the author expects, in [0, 1]. `dimension` may be left out when the command names one. Each line's
expected score orders the items; the figures are those of calibration (`reward.evaluation.agreement`):

- pair agreement: of the item pairs whose expected scores differ, the share the dimension orders the same way (a tie
  counts 0.5; 0.5 is chance), the figure an example-fitted head reports on its own examples;
- accuracy and Cohen's kappa of the pass/fail side (a score at or above `PASS_AT` passes; so does an expected one);
- per label: the mean score, the share on the label's side of `PASS_AT`, and the pair agreement of the label's items
  against the other labels' items.

Every figure has a seeded 95% bootstrap interval over the items. Items the dimension leaves unscored are counted
with their reasons and left out of the figures (an outage is not a disagreement).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reward.evaluation.agreement import PASS_AT, accuracy, bootstrap_ci, cohen_kappa, pairwise_auc
from reward.rubric import Dimension, LoadedSuite, did_you_mean
from reward.schema import Item


class LabelledItem(BaseModel):
    """One line of a label file."""

    model_config = ConfigDict(extra="forbid")
    item: Item
    """The interaction and response that was labelled, in the wire format."""
    dimension: str | None = None
    """The dimension the label is about (default: the one the command names)."""
    label: str | int | None = None
    """A scale label of the dimension, a label `label_scores` maps, or 0 / 1 (calibration's pointwise labels)."""
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    """The score the author expects, instead of a label."""
    kind: Literal["pointwise"] | None = None
    annotator: str | None = None
    track: Literal["blind", "assisted"] | None = None
    hints: dict[str, Any] | None = None


@dataclass
class Labelled:
    """A labelled item, resolved: the label's name and the score it stands for."""

    line: int
    item: Item
    dimension: str
    label: str
    expected: float


def parse_label_scores(text: str) -> dict[str, float]:
    """`pass=1,partial=0.5,fail=0` -> {label: score}.

    >>> parse_label_scores("pass=1, fail=0")
    {'pass': 1.0, 'fail': 0.0}
    """
    mapping = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, value = part.partition("=")
        try:
            score = float(value)
        except ValueError:
            score = -1.0
        if not equals or not name.strip() or not 0.0 <= score <= 1.0:
            raise ValueError(f"label scores {text!r}: expected LABEL=SCORE pairs with scores in [0, 1], e.g. "
                             f"'pass=1,partial=0.5,fail=0'; got {part!r}")
        mapping[name.strip()] = score
    return mapping


def _expected(entry: LabelledItem, dimension: Dimension, label_scores: dict[str, float]) -> tuple[str, float]:
    """(label name, expected score) of a line; raises ValueError with the field and what it may be."""
    if (entry.label is None) == (entry.score is None):
        raise ValueError("label: give either 'label' or 'score' (the score you expect, in [0, 1]), not both or neither")
    if entry.score is not None:
        return f"{entry.score:g}", entry.score
    label = str(entry.label)
    scale = {s.label: s.score for s in dimension.judge.scale} if dimension.judge is not None else {}
    known = {**scale, **label_scores}
    if label in known:
        return label, known[label]
    if isinstance(entry.label, int) and entry.label in (0, 1):
        return label, float(entry.label)
    raise ValueError(f"label: {label!r} is not a label of dimension {dimension.name!r}{did_you_mean(label, known)}; "
                     f"its scale's labels: {', '.join(scale) or 'none'}; map other labels to scores with "
                     "--label-scores (e.g. pass=1,partial=0.5,fail=0), or give 'score' instead")


def load_labelled(path: Path, suite: LoadedSuite, dimension: str | None = None,
                  label_scores: dict[str, float] | None = None) -> list[Labelled]:
    """The labelled items of a file; raises ValueError listing every bad line as `file:line: field: message`."""
    entries, problems = [], []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = LabelledItem.model_validate_json(line)
        except ValidationError as exc:
            for error in exc.errors()[:3]:
                if error["type"] == "json_invalid":
                    problems.append(f"{path}:{number}: invalid JSON: {error['msg']}")
                    continue
                where = ".".join(str(p) for p in error["loc"]) or "(line)"
                problems.append(f"{path}:{number}: {where}: "
                                f"{'unknown field' if error['type'] == 'extra_forbidden' else error['msg']}")
            continue
        name = entry.dimension or dimension
        if name is None:
            problems.append(f"{path}:{number}: dimension: missing (name it on the line or with --dimension)")
            continue
        if name not in suite.dimensions:
            problems.append(f"{path}:{number}: dimension: suite {suite.name!r} has no dimension {name!r}"
                            f"{did_you_mean(name, suite.dimensions)}")
            continue
        try:
            label, expected = _expected(entry, suite.dimensions[name], label_scores or {})
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}")
            continue
        entries.append(Labelled(number, entry.item, name, label, expected))
    if problems:
        raise ValueError("\n".join(problems))
    if dimension is not None:
        entries = [e for e in entries if e.dimension == dimension]
    if not entries:
        raise ValueError(f"{path}: no labelled items{f' for dimension {dimension!r}' if dimension else ''}")
    return entries


# -- figures -----------------------------------------------------------------------------------------------------
def _pairs(rows: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    """(score of the item expected higher, score of the other) over all pairs whose expected scores differ."""
    higher, lower = [], []
    for i, (score_a, expected_a) in enumerate(rows):
        for score_b, expected_b in rows[i + 1:]:
            if expected_a != expected_b:
                top, bottom = (score_a, score_b) if expected_a > expected_b else (score_b, score_a)
                higher.append(top)
                lower.append(bottom)
    return higher, lower


def pair_agreement(rows: list[tuple[float, float]]) -> float | None:
    """Share of (score, expected) pairs with different expected scores that the scores order the same way.

    >>> pair_agreement([(0.9, 1.0), (0.2, 0.0), (0.5, 0.5)])
    1.0
    """
    return pairwise_auc(*_pairs(rows))


def side_accuracy(rows: list[tuple[float, float]]) -> float | None:
    """Share of (score, expected) rows on the same side of `PASS_AT`."""
    return accuracy([int(s >= PASS_AT) for s, _ in rows], [int(e >= PASS_AT) for _, e in rows])


def _label_agreement(rows: list[tuple[float, float, bool]]) -> float | None:
    """Pair agreement of the flagged rows (one label's items) against the others."""
    higher, lower = [], []
    for score, expected, mine in rows:
        if not mine:
            continue
        for other_score, other_expected, other_mine in rows:
            if other_mine or other_expected == expected:
                continue
            top, bottom = (score, other_score) if expected > other_expected else (other_score, score)
            higher.append(top)
            lower.append(bottom)
    return pairwise_auc(higher, lower)


def _r(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


@dataclass
class DimensionCheck:
    """One dimension's agreement with its labelled items."""

    dimension: str
    items: int
    scored: int
    unscored: dict[str, int] = field(default_factory=dict)
    """Unscored items by reason."""
    overall: dict[str, Any] = field(default_factory=dict)
    labels: list[dict[str, Any]] = field(default_factory=list)
    """One entry per label, highest expected score first."""
    explanation: str | None = None
    """What the dimension's scorer says about itself when it left every item unscored (e.g. a head that cannot
    separate its examples)."""

    def as_dict(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "items": self.items, "scored": self.scored, "unscored": self.unscored,
                "overall": self.overall, "labels": self.labels, "explanation": self.explanation}


def figures(dimension: str, rows: list[tuple[Labelled, Any]], resamples: int = 1000) -> DimensionCheck:
    """The figures of one dimension from its labelled items and their `DimensionScore`s."""
    scored = [(score.score, entry.expected, entry.label) for entry, score in rows
              if score is not None and score.status == "ok" and score.score is not None]
    unscored = Counter((score.reason if score is not None else "not_scored") or "unscored" for entry, score in rows
                       if score is None or score.status != "ok" or score.score is None)
    check = DimensionCheck(dimension, len(rows), len(scored), dict(sorted(unscored.items())))
    if not scored and rows and rows[0][1] is not None:
        check.explanation = rows[0][1].explanation
    pairs = [(s, e) for s, e, _ in scored]
    predicted = [int(s >= PASS_AT) for s, _ in pairs]
    truth = [int(e >= PASS_AT) for _, e in pairs]
    values = [s for s, _ in pairs]
    check.overall = {
        "pair_agreement": _r(pair_agreement(pairs)), "pair_agreement_ci": bootstrap_ci(pairs, pair_agreement, resamples),
        "pairs": len(_pairs(pairs)[0]),
        "accuracy": _r(side_accuracy(pairs)), "accuracy_ci": bootstrap_ci(pairs, side_accuracy, resamples),
        "kappa": _r(cohen_kappa(predicted, truth)),
        "spread": _r(max(values) - min(values)) if values else None,
    }
    by_label: dict[str, list[float]] = defaultdict(list)
    expected_of: dict[str, float] = {}
    for score, expected, label in scored:
        by_label[label].append(score)
        expected_of[label] = expected
    for label in sorted(by_label, key=lambda name: (-expected_of[name], name)):
        mine = [(s, e, lab == label) for s, e, lab in scored]
        own = [(s, e) for s, e, lab in scored if lab == label]
        check.labels.append({
            "label": label, "expected": expected_of[label], "n": len(own),
            "mean": _r(np.mean(by_label[label])),
            "mean_ci": bootstrap_ci(by_label[label], lambda sample: float(np.mean(sample)), resamples),
            "min": _r(min(by_label[label])), "max": _r(max(by_label[label])),
            "accuracy": _r(side_accuracy(own)), "accuracy_ci": bootstrap_ci(own, side_accuracy, resamples),
            "pair_agreement": _r(_label_agreement(mine)),
            "pair_agreement_ci": bootstrap_ci(mine, _label_agreement, resamples),
        })
    return check


def check_dimensions(suite: LoadedSuite, judge: Any, labelled: list[Labelled], resamples: int = 1000,
                     cache: Any = None) -> list[DimensionCheck]:
    """Score the labelled items with the suite under `judge` and report each labelled dimension's agreement."""
    from reward.engine import Engine

    engine = Engine(suite, judge, cache=cache)
    items = [entry.item.model_copy(update={"id": f"check-{n}", "group": None}) for n, entry in enumerate(labelled)]
    results = engine.score_sync(items) if items else []
    by_dimension: dict[str, list[tuple[Labelled, Any]]] = defaultdict(list)
    for entry, result in zip(labelled, results, strict=True):
        by_dimension[entry.dimension].append((entry, result.dimensions.get(entry.dimension)))
    return [figures(name, rows, resamples) for name, rows in sorted(by_dimension.items())]


def as_json(checks: list[DimensionCheck], **header: Any) -> str:
    return json.dumps({**header, "dimensions": [c.as_dict() for c in checks]}, indent=2)

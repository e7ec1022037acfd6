"""Per-run, per-step, per-dimension statistics of a score log, and the drill-down samples behind each point.

Runs are keyed by the record's `run` (the trainer's run name), or by suite when a record has none. Steps come from
the record's `step`; records without one are bucketed in arrival order, `UNSTEPPED_BUCKET` records per step, so a
log of offline scoring still draws as a curve.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from reward.scorelog import ScoreRecord

UNSTEPPED_BUCKET = 64
SAMPLES_LOWEST = 3
SAMPLES_RANDOM = 2
EXCERPT_CHARS = 280


def _excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _answer_of(record: ScoreRecord) -> str:
    if record.item is None:
        return ""
    from policy.format import parse_response

    parsed = parse_response(record.item.response)
    return parsed.answer if parsed.answer is not None else record.item.response


def summarise(records: Iterable[ScoreRecord], seed: int = 0) -> dict:
    """Everything the dashboard draws, as plain JSON-ready data."""
    rng = random.Random(seed)
    by_run: dict[str, list[ScoreRecord]] = defaultdict(list)
    for record in records:
        by_run[record.run or record.suite].append(record)
    runs = {}
    layers: dict[str, str] = {}
    for run, run_records in sorted(by_run.items()):
        steps: dict[int, list[ScoreRecord]] = defaultdict(list)
        for index, record in enumerate(run_records):
            step = record.step if record.step is not None else index // UNSTEPPED_BUCKET
            steps[step].append(record)
        ordered = sorted(steps)
        dims: dict[str, dict] = {}
        curves = {key: {"mean": [], "p10": [], "p90": []} for key in ("reward", "gate", "utility")}
        valid_rate, unscored_reasons = [], defaultdict(lambda: [0] * len(ordered))
        counts = []
        for position, step in enumerate(ordered):
            group = steps[step]
            counts.append(len(group))
            for key in curves:
                values = [getattr(r.result, key) for r in group if getattr(r.result, key) is not None]
                _append_stats(curves[key], values)
            valid_rate.append(sum(r.result.valid for r in group) / len(group))
            per_dim: dict[str, list[tuple[float | None, ScoreRecord]]] = defaultdict(list)
            for record in group:
                for name, score in record.result.dimensions.items():
                    layers.setdefault(name, score.layer)
                    per_dim[name].append((score.score, record))
                    if score.status == "unscored":
                        unscored_reasons[score.reason or "unknown"][position] += 1
            for name, entries in per_dim.items():
                series = dims.setdefault(name, {"mean": [None] * len(ordered), "p10": [None] * len(ordered),
                                                "p90": [None] * len(ordered), "unscored_rate": [0.0] * len(ordered),
                                                "samples": {}})
                values = [s for s, _ in entries if s is not None]
                if values:
                    array = np.asarray(values)
                    series["mean"][position] = round(float(array.mean()), 5)
                    series["p10"][position] = round(float(np.percentile(array, 10)), 5)
                    series["p90"][position] = round(float(np.percentile(array, 90)), 5)
                series["unscored_rate"][position] = round(1 - len(values) / len(entries), 5)
                series["samples"][str(step)] = _samples(name, entries, rng)
        total = np.asarray(counts, dtype=float)
        runs[run] = {
            "steps": ordered,
            "items": counts,
            "suites": sorted({r.suite for r in run_records}),
            "curves": curves,
            "valid_rate": [round(v, 5) for v in valid_rate],
            "unscored": {reason: [round(c / n, 5) if n else 0.0 for c, n in zip(values, total, strict=True)]
                         for reason, values in unscored_reasons.items()},
            "dimensions": dims,
        }
    return {"runs": runs, "layers": layers}


def _append_stats(target: dict, values: list[float]) -> None:
    if values:
        array = np.asarray(values)
        target["mean"].append(round(float(array.mean()), 5))
        target["p10"].append(round(float(np.percentile(array, 10)), 5))
        target["p90"].append(round(float(np.percentile(array, 90)), 5))
    else:
        for key in ("mean", "p10", "p90"):
            target[key].append(None)


def _samples(name: str, entries: list[tuple[float | None, ScoreRecord]], rng: random.Random) -> list[dict]:
    """The lowest-scoring few (unscored first) and a random few, capped, for the drill-down."""
    ranked = sorted(range(len(entries)), key=lambda i: -1.0 if entries[i][0] is None else entries[i][0])
    chosen = ranked[:SAMPLES_LOWEST]
    rest = [i for i in range(len(entries)) if i not in chosen]
    chosen += rng.sample(rest, min(SAMPLES_RANDOM, len(rest)))
    out = []
    for index in chosen:
        _, record = entries[index]
        score = record.result.dimensions[name]
        out.append({
            "id": record.result.id,
            "group": record.group,
            "score": score.score,
            "status": score.status,
            "reason": score.reason,
            "backend": score.backend,
            "explanation": _excerpt(score.explanation, 600),
            "quotes": [{"doc": q.doc, "text": _excerpt(q.text, 200), "verified": q.verified} for q in score.quotes[:3]],
            "reward": round(record.result.reward, 5),
            "query": _excerpt(record.item.query if record.item else ""),
            "answer": _excerpt(_answer_of(record)),
        })
    return out

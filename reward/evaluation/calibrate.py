"""Agreement with human labels, the regression gate before an evaluator update, shadow runs, dual-track review.

Label files are JSONL (see `reward.evaluation.labels`): pointwise binary labels for constraint dimensions, pairwise
preferences for preference dimensions and for the holistic reward. Metrics, as in the SearchLLM paper:
accuracy on pointwise labels (a score >= 0.5 predicts 1), pairwise AUC (a tie counts 0.5) and Cohen's kappa
(quadratic-weighted when the labels are ordinal, plain for binary), each with a seeded bootstrap confidence
interval. The same labels score the suite, its linear ablation and a GenRM-style baseline (one judge call that
reasons and gives a single holistic score), so the systems are compared on equal terms.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reward.engine import Engine
from reward.evaluation.agreement import accuracy, bootstrap_ci, cohen_kappa, pairwise_auc
from reward.judges.base import Judge
from reward.evaluation.labels import PairwiseLabel, PointwiseLabel, load_labels
from reward.rubric import LoadedSuite, load_suite
from reward.schema import Item, ItemResult

HOLISTIC = "holistic"


# -- scoring labelled data ---------------------------------------------------------------------------------------
@dataclass
class MetricRow:
    """One system's agreement on one dimension."""

    dimension: str
    metric: str
    value: float | None
    ci: tuple[float, float] | None
    n: int
    kappa: float | None = None
    note: str | None = None

    def as_dict(self) -> dict:
        return {"dimension": self.dimension, "metric": self.metric, "value": _round(self.value), "ci": self.ci,
                "n": self.n, "kappa": _round(self.kappa), "note": self.note}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class SystemReport:
    name: str
    suite: str
    suite_version: str
    rows: list[MetricRow] = field(default_factory=list)

    def metric(self, dimension: str, metric: str | None = None) -> MetricRow | None:
        return next((r for r in self.rows if r.dimension == dimension and metric in (None, r.metric)), None)

    def keys(self) -> list[tuple[str, str]]:
        return [(r.dimension, r.metric) for r in self.rows]


def _pair_items(label: PairwiseLabel, index: int) -> tuple[Item, Item]:
    base = {"query": label.context.query, "history": label.context.history, "evidence": label.context.evidence,
            "now": label.context.now, "group": f"pair-{index}"}
    return (Item(id=f"pair-{index}-preferred", response=label.preferred, **base),
            Item(id=f"pair-{index}-other", response=label.other, **base))


def _score(engine: Engine, items: list[Item]) -> dict[str, ItemResult]:
    return {r.id: r for r in engine.score_sync(items)} if items else {}


def evaluate(suite: LoadedSuite, judge: Judge, pointwise: list[PointwiseLabel], pairwise: list[PairwiseLabel],
             name: str | None = None, resamples: int = 1000) -> SystemReport:
    """Agreement of one suite (with one judge backend) on the labels."""
    engine = Engine(suite, judge)
    point_items = [label.item.model_copy(update={"id": f"point-{i}", "group": None}) for i, label in enumerate(pointwise)]
    pair_items = [item for i, label in enumerate(pairwise) for item in _pair_items(label, i)]
    results = _score(engine, point_items + pair_items)
    report = SystemReport(name=name or suite.name, suite=suite.name, suite_version=suite.version)
    by_dimension: dict[str, list[tuple[float | None, int]]] = defaultdict(list)
    for i, label in enumerate(pointwise):
        score = results[f"point-{i}"].dimensions.get(label.dimension)
        by_dimension[label.dimension].append((None if score is None else score.score, label.label))
    for dimension, entries in sorted(by_dimension.items()):
        scored = [(s, y) for s, y in entries if s is not None]
        predicted = [int(s >= 0.5) for s, _ in scored]
        labels = [y for _, y in scored]
        report.rows.append(MetricRow(
            dimension=dimension, metric="accuracy", value=accuracy(predicted, labels),
            ci=bootstrap_ci(list(zip(predicted, labels)), lambda s: accuracy([p for p, _ in s], [y for _, y in s]), resamples),
            n=len(scored), kappa=cohen_kappa(predicted, labels),
            note=f"{len(entries) - len(scored)} unscored" if len(scored) < len(entries) else None,
        ))
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    unscored: dict[str, int] = defaultdict(int)
    for i, label in enumerate(pairwise):
        preferred, other = results[f"pair-{i}-preferred"], results[f"pair-{i}-other"]
        if label.dimension == HOLISTIC:
            if _holistic_scored(preferred) and _holistic_scored(other):
                pairs[HOLISTIC].append((preferred.reward, other.reward))
            else:
                unscored[HOLISTIC] += 1
            continue
        a, b = preferred.dimensions.get(label.dimension), other.dimensions.get(label.dimension)
        if a is None or b is None or a.score is None or b.score is None:
            unscored[label.dimension] += 1
            continue
        pairs[label.dimension].append((a.score, b.score))
    for dimension in sorted(set(pairs) | set(unscored)):
        values = pairs.get(dimension, [])
        auc = pairwise_auc([p for p, _ in values], [o for _, o in values])
        report.rows.append(MetricRow(
            dimension=dimension, metric="auc", value=auc,
            ci=bootstrap_ci(values, lambda s: pairwise_auc([p for p, _ in s], [o for _, o in s]), resamples),
            n=len(values), note=f"{unscored[dimension]} unscored" if unscored.get(dimension) else None,
        ))
    return report


def _holistic_scored(result: ItemResult) -> bool:
    return result.valid and any(s.status == "ok" for s in result.dimensions.values())


# -- the regression gate -----------------------------------------------------------------------------------------
def dimension_hashes(suite: LoadedSuite) -> dict[str, str]:
    return {name: hashlib.sha256(json.dumps(d.model_dump(mode="json"), sort_keys=True).encode()).hexdigest()[:16]
            for name, d in suite.dimensions.items()}


def freeze(report: SystemReport, suite: LoadedSuite, judge_spec: str, labels: list[str]) -> dict:
    """The frozen benchmark: metrics with the rubric version hashes and the judge they were measured with."""
    return {"suite": suite.name, "suite_version": suite.version, "dimension_versions": dimension_hashes(suite),
            "judge": judge_spec, "labels": labels, "metrics": {f"{r.dimension}:{r.metric}": r.as_dict() for r in report.rows}}


def regressions(report: SystemReport, baseline: dict, max_drop: float) -> list[str]:
    """Messages naming each dimension whose metric fell by more than `max_drop` against the frozen baseline
    (point estimates), or that the baseline measured and the candidate can no longer score."""
    problems = []
    for key, frozen in sorted(baseline["metrics"].items()):
        if frozen.get("value") is None:
            continue
        dimension = frozen.get("dimension", key.split(":")[0])
        current = report.metric(dimension, frozen.get("metric"))
        if current is None or current.value is None:
            problems.append(f"{dimension}: {frozen['metric']} was {frozen['value']:.4f}, now not measurable")
            continue
        drop = frozen["value"] - current.value
        if drop > max_drop:
            ci = f" (95% CI {current.ci[0]:.3f}-{current.ci[1]:.3f})" if current.ci else ""
            problems.append(f"{dimension}: {current.metric} fell from {frozen['value']:.4f} to {current.value:.4f}{ci}, "
                            f"a drop of {drop:.4f} > {max_drop}")
    return problems


# -- dual-track annotation ---------------------------------------------------------------------------------------
def track_disagreements(pointwise: list[PointwiseLabel], pairwise: list[PairwiseLabel]) -> dict:
    """Where blind and assisted annotators disagree on the same (item, dimension): the cases to escalate."""
    def key_point(label: PointwiseLabel) -> str:
        return hashlib.sha256(label.item.model_dump_json(exclude={"id", "group"}).encode()).hexdigest()[:12]

    def key_pair(label: PairwiseLabel) -> str:
        left, right = sorted([label.preferred, label.other])
        return hashlib.sha256(json.dumps([label.context.model_dump(mode="json"), left, right]).encode()).hexdigest()[:12]

    groups: dict[tuple[str, str], dict[str, list]] = defaultdict(lambda: {"blind": [], "assisted": []})
    for label in pointwise:
        if label.track:
            groups[(label.dimension, key_point(label))][label.track].append(label.label)
    for label in pairwise:
        if label.track:
            winner = hashlib.sha256(label.preferred.encode()).hexdigest()[:12]
            groups[(label.dimension, key_pair(label))][label.track].append(winner)
    per_dimension: dict[str, dict] = defaultdict(lambda: {"compared": 0, "disagree": 0, "cases": []})
    for (dimension, key), tracks in sorted(groups.items()):
        if not tracks["blind"] or not tracks["assisted"]:
            continue
        blind = max(set(tracks["blind"]), key=tracks["blind"].count)
        assisted = max(set(tracks["assisted"]), key=tracks["assisted"].count)
        entry = per_dimension[dimension]
        entry["compared"] += 1
        if blind != assisted:
            entry["disagree"] += 1
            entry["cases"].append(key)
    return {d: {**v, "agreement": round(1 - v["disagree"] / v["compared"], 4)} for d, v in per_dimension.items()}


# -- shadow runs -------------------------------------------------------------------------------------------------
def shadow(records: list, candidate: LoadedSuite, judge: Judge, worst: int = 10) -> dict:
    """Re-score logged traffic with a candidate evaluator and compare with what was logged."""
    from scipy.stats import spearmanr

    records = [r for r in records if r.item is not None]
    if not records:
        return {"items": 0, "note": "no logged items carry their interaction (the log was written with keep_items off)"}
    rescored = {r.id: r for r in Engine(candidate, judge).score_sync([r.item for r in records])}
    deltas: dict[str, list[float]] = defaultdict(list)
    old_rewards, new_rewards, disagreements = [], [], []
    for record in records:
        new = rescored[record.result.id]
        old_rewards.append(record.result.reward)
        new_rewards.append(new.reward)
        disagreements.append((abs(new.reward - record.result.reward), record.result.id, record.result.reward, new.reward))
        for name, score in new.dimensions.items():
            before = record.result.dimensions.get(name)
            if before is not None and before.score is not None and score.score is not None:
                deltas[name].append(score.score - before.score)
    flips = total = 0
    groups: dict[str, list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        if record.group:
            groups[record.group].append(index)
    for members in groups.values():
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                a, b = members[i], members[j]
                before = np.sign(old_rewards[a] - old_rewards[b])
                after = np.sign(new_rewards[a] - new_rewards[b])
                if before != 0:
                    total += 1
                    flips += int(after != before)
    rho = spearmanr(old_rewards, new_rewards).statistic if len(records) > 2 else float("nan")
    return {
        "items": len(records),
        "candidate": candidate.name, "candidate_version": candidate.version,
        "logged_versions": sorted({r.suite_version for r in records}),
        "reward_spearman": None if math.isnan(rho) else round(float(rho), 4),
        "preference_flip_rate": round(flips / total, 4) if total else None, "pairs_compared": total,
        "dimensions": {n: {"mean_delta": round(float(np.mean(v)), 4), "mean_abs_delta": round(float(np.mean(np.abs(v))), 4), "n": len(v)}
                       for n, v in sorted(deltas.items())},
        "worst": [{"id": i, "logged": round(o, 4), "candidate": round(n, 4)} for _, i, o, n in sorted(disagreements, reverse=True)[:worst]],
    }


# -- reports -----------------------------------------------------------------------------------------------------
def html_report(systems: list[SystemReport], title: str = "Evaluator calibration", tracks: dict | None = None) -> str:
    """A self-contained HTML report: one table per metric kind, systems side by side, inline SVG bars."""
    keys = sorted({(r.dimension, r.metric) for s in systems for r in s.rows})
    head = "".join(f"<th>{html.escape(s.name)}<br><small>{html.escape(s.suite_version)}</small></th>" for s in systems)

    def bar(value: float | None) -> str:
        if value is None:
            return "<span class='na'>n/a</span>"
        width = int(round(value * 100))
        return (f"<svg width='104' height='10' role='img'><rect width='100' height='10' fill='#e5e7eb'/>"
                f"<rect width='{width}' height='10' fill='#2563eb'/></svg> {value:.3f}")

    rows = []
    for dimension, metric in keys:
        cells = []
        for system in systems:
            row = system.metric(dimension, metric)
            if row is None:
                cells.append("<td class='na'>—</td>")
                continue
            ci = f"<br><small>[{row.ci[0]:.3f}, {row.ci[1]:.3f}] n={row.n}</small>" if row.ci else f"<br><small>n={row.n}</small>"
            kappa = f"<br><small>kappa {row.kappa:.3f}</small>" if row.kappa is not None else ""
            note = f"<br><small class='note'>{html.escape(row.note)}</small>" if row.note else ""
            cells.append(f"<td>{bar(row.value)}{ci}{kappa}{note}</td>")
        rows.append(f"<tr><th>{html.escape(dimension)}</th><td>{metric}</td>{''.join(cells)}</tr>")
    tracks_html = ""
    if tracks:
        track_rows = "".join(f"<tr><th>{html.escape(d)}</th><td>{v['compared']}</td><td>{v['disagree']}</td><td>{v['agreement']:.3f}</td></tr>"
                             for d, v in sorted(tracks.items()))
        tracks_html = ("<h2>Blind vs assisted annotation</h2><table id='tracks'><tr><th>dimension</th><th>compared</th>"
                       f"<th>disagree (escalate)</th><th>agreement</th></tr>{track_rows}</table>")
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;font-size:13px}}
th,td{{border:1px solid #ddd;padding:6px 8px;text-align:left;vertical-align:top}}.na{{color:#999}}.note{{color:#b45309}}</style>
</head><body><h1>{html.escape(title)}</h1>
<p>Accuracy on pointwise labels (score &ge; 0.5 predicts 1), pairwise AUC (ties count 0.5), 95% bootstrap intervals.</p>
<h2>Agreement with human labels</h2><table id="agreement"><tr><th>dimension</th><th>metric</th>{head}</tr>{''.join(rows)}</table>
{tracks_html}</body></html>"""


def load_all(paths: Sequence[str | Path]) -> tuple[list[PointwiseLabel], list[PairwiseLabel]]:
    pointwise, pairwise = [], []
    for path in paths:
        p, q = load_labels(Path(path))
        pointwise += p
        pairwise += q
    return pointwise, pairwise


def systems_for(suite_name: str, judge: Judge, pointwise, pairwise, resamples: int = 1000, compare: bool = True) -> list[SystemReport]:
    """The suite, and with `compare` its linear ablation and the GenRM baseline, on the same labels."""
    reports = [evaluate(load_suite(suite_name), judge, pointwise, pairwise, resamples=resamples)]
    if compare:
        for other, label in ((f"{suite_name}-linear", "linear ablation"), ("genrm", "GenRM baseline")):
            try:
                suite = load_suite(other)
            except LookupError:
                continue
            holistic_only = [p for p in pairwise if p.dimension == HOLISTIC] if other == "genrm" else pairwise
            reports.append(evaluate(suite, judge, [] if other == "genrm" else pointwise, holistic_only,
                                    name=f"{other} ({label})", resamples=resamples))
    return reports

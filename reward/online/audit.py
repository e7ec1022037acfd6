"""The daily bad-case audit: a stratified sample of a day's answers per arm, pre-scored by the configured judge,
written as an annotation sheet in the dual-track label format, and the bad-case rate (BCR) per arm once labels
come back.

The sample unit is the session (an answer as a user saw it), drawn uniformly within each arm, `n / arms` per arm,
so BCR estimates the share of shown answers with a severe bottom-line violation. The sheet holds each sampled
response once per bottom-line dimension and track: `blind` rows carry the interaction only; `assisted` rows add the
judge's verdict, explanation and quotes as `hints`. Annotators fill `label` (1 = meets the requirement, 0 = a
severe violation); the returned files are what `reward calibrate --labels ... --tracks` reads. A response is a bad
case when any bottom-line dimension is labelled 0. Several sampled sessions may show the same (cached) response,
which is labelled once, so BCR's intervals and tests count responses, not sessions (`ClusteredProportion`).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from reward.evaluation.labels import PointwiseLabel
from reward.online.stats import ClusteredProportion, holm, proportion_difference
from reward.online.store import OnlineStore
from reward.schema import Item, ItemResult

MANIFEST = "manifest.json"


class AuditDraw(BaseModel):
    arm: str
    session: str
    response_id: str


class AuditManifest(BaseModel):
    """The sample design, written beside the sheet, so BCR can be computed from the labels alone."""

    experiment: str
    day: dt.date
    seed: int
    population: dict[str, int]
    """Sessions per arm that day."""
    draws: list[AuditDraw]
    dimensions: list[str]
    """The bottom-line dimensions the sheet asks about."""
    missing: list[str]
    """Sampled response ids the score log did not hold (not on the sheet; they lower the labelled count)."""
    judge: str


def draw_sample(store: OnlineStore, experiment: str, day: dt.date, n: int, seed: int = 0) -> tuple[list[AuditDraw], dict[str, int]]:
    """`n // arms` sessions per arm (all of them where an arm has fewer), uniformly without replacement."""
    by_arm: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for arm, response_id, session in store.day_responses(experiment, day):
        by_arm[arm].append((session, response_id))
    if not by_arm:
        raise ValueError(f"no sessions of experiment {experiment!r} on {day}")
    rng = np.random.default_rng(seed)
    per_arm = max(1, n // len(by_arm))
    draws = []
    for arm in sorted(by_arm):
        rows = by_arm[arm]
        for index in sorted(rng.choice(len(rows), size=min(per_arm, len(rows)), replace=False).tolist()):
            draws.append(AuditDraw(arm=arm, session=rows[index][0], response_id=rows[index][1]))
    return draws, {arm: len(rows) for arm, rows in by_arm.items()}


def items_from_score_log(score_log: str | Path, response_ids: set[str]) -> dict[str, Item]:
    """The logged item of each response id (the score log must keep items)."""
    from reward.scorelog import read_log

    found = {}
    for record in read_log(score_log):
        if record.result.id in response_ids and record.item is not None:
            found[record.result.id] = record.item
    return found


def _hints(score) -> dict:
    hint: dict = {"judge_score": score.score, "status": score.status, "backend": score.backend}
    for key in ("label", "explanation", "reason"):
        if getattr(score, key):
            hint[key] = getattr(score, key)
    if score.quotes:
        hint["quotes"] = [q.model_dump(exclude_none=True) for q in score.quotes]
    return hint


def write_sheet(folder: str | Path, manifest: AuditManifest, items: dict[str, Item],
                results: dict[str, ItemResult]) -> list[Path]:
    """Write blind.jsonl, assisted.jsonl (label left null for the annotator) and manifest.json into `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    responses = list(dict.fromkeys(d.response_id for d in manifest.draws if d.response_id in items))
    paths = []
    for track in ("blind", "assisted"):
        path = folder / f"{track}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for response_id in responses:
                for dimension in manifest.dimensions:
                    row = {"kind": "pointwise", "item": items[response_id].model_dump(mode="json", exclude_none=True),
                           "dimension": dimension, "label": None, "annotator": None, "track": track}
                    score = results[response_id].dimensions.get(dimension) if response_id in results else None
                    if track == "assisted" and score is not None:
                        row["hints"] = _hints(score)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
        paths.append(path)
    (folder / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
    return [*paths, folder / MANIFEST]


class ArmBCR(BaseModel):
    """Bad-case rate of one arm in one annotation track, with its differences to control."""

    arm: str
    track: str
    sampled: int
    """Sessions drawn."""
    labelled: int
    """Sampled sessions whose response is fully decided (a 0 on any dimension, or 1 on all)."""
    responses: int
    """Distinct responses behind the labelled sessions: the unit that was labelled, which the intervals count."""
    bad: int
    bcr: float | None
    """bad / labelled (a share of shown answers, as users saw them)."""
    ci: tuple[float, float] | None
    """95% Wilson interval at the effective sample size of the labelled responses (clustered by response)."""
    effective_n: float
    """labelled² / Σ (sessions per response)²: equal to `labelled` when every response was shown once."""
    absolute_difference: float | None = None
    """BCR − control's BCR, in rate units (0.01 = one percentage point); None for control."""
    absolute_ci: tuple[float, float] | None = None
    """95% interval of the absolute difference (Newcombe's hybrid score, clustered by response)."""
    relative_difference: float | None = None
    """BCR / control's BCR − 1; None for control or when control's BCR is 0."""
    relative_ci: tuple[float, float] | None = None
    p_value: float | None = None
    """Two-proportion z-test against control, at the effective sample sizes."""
    p_holm: float | None = None
    """The p-value Holm-adjusted over every arm and track of the audit."""
    mde_absolute: float | None = None
    """Minimum detectable absolute difference at 80% power with this many labelled responses."""


class AuditMismatch(ValueError):
    """An audit folder that belongs to another experiment, or whose arms the experiment does not have."""


def check_manifest(manifest: AuditManifest, folder: str | Path, experiment: str, arms: list[str]) -> None:
    """Refuse an audit drawn for another experiment or other arms, naming both sides."""
    if manifest.experiment != experiment:
        raise AuditMismatch(f"{Path(folder) / MANIFEST}: the audit is of experiment {manifest.experiment!r}, "
                            f"not of {experiment!r}")
    audit_arms = sorted(set(manifest.population) | {d.arm for d in manifest.draws})
    unknown = sorted(set(audit_arms) - set(arms))
    if unknown:
        raise AuditMismatch(f"{Path(folder) / MANIFEST}: the audit's arms {audit_arms} are not the arms of experiment "
                            f"{experiment!r} {sorted(arms)} (unknown: {unknown})")


def read_returned_labels(paths: list[str | Path]) -> list[tuple[str, PointwiseLabel | None, dict]]:
    """(track, label or None when not yet filled, raw row) per line of returned sheets; a malformed line raises
    ValueError naming file:line and field."""
    out = []
    for path in map(Path, paths):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: invalid JSON: {exc.msg}") from None
            if not isinstance(raw, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object")
            if raw.get("label") is None:
                out.append((raw.get("track") or "untracked", None, raw))
                continue
            try:
                label = PointwiseLabel.model_validate(raw)
            except ValueError as exc:
                first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
                raise ValueError(f"{path}:{number}: {'.'.join(map(str, first['loc'])) or '(line)'}: {first['msg']}") from None
            out.append((label.track or "untracked", label, raw))
    return out


def bad_case_rates(manifest: AuditManifest, label_paths: list[str | Path], control: str | None = None) -> list[ArmBCR]:
    """BCR per arm and track from the returned sheets, with its interval and its differences to `control` clustered
    by response: sessions showing the same response carry one label, so they count as one observation."""
    verdicts: dict[tuple[str, str], dict[str, int | None]] = defaultdict(dict)  # (track, response) -> dim -> label
    for track, label, raw in read_returned_labels(label_paths):
        response_id = (raw.get("item") or {}).get("id")
        dimension = raw.get("dimension")
        if response_id and dimension:
            verdicts[(track, response_id)][dimension] = None if label is None else label.label
    tracks = sorted({track for track, _ in verdicts})
    rows = []
    for track in tracks:
        sampled: dict[str, int] = defaultdict(int)
        per_response: dict[str, dict[str, list[int]]] = defaultdict(dict)  # arm -> response -> [sessions, bad]
        for draw in manifest.draws:
            sampled[draw.arm] += 1
            labels = verdicts.get((track, draw.response_id), {})
            bad = any(v == 0 for v in labels.values())
            if bad or (labels and all(labels.get(d) == 1 for d in manifest.dimensions)):
                counts = per_response[draw.arm].setdefault(draw.response_id, [0, 0])
                counts[0] += 1
                counts[1] += bad
        proportions = {arm: ClusteredProportion.from_clusters([c[0] for c in per_response[arm].values()],
                                                              [c[1] for c in per_response[arm].values()])
                       for arm in sampled}
        base = proportions.get(control) if control else None
        for arm in sorted(sampled):
            p = proportions[arm]
            row = ArmBCR(arm=arm, track=track, sampled=sampled[arm], labelled=p.sessions, responses=p.clusters,
                         bad=p.successes, bcr=p.rate, ci=p.interval(), effective_n=round(p.effective_n, 3))
            difference = proportion_difference(p, base) if base is not None and arm != control else None
            if difference is not None:
                row.absolute_difference, row.absolute_ci = difference.absolute, difference.absolute_ci
                row.relative_difference, row.relative_ci = difference.relative, difference.relative_ci
                row.p_value, row.mde_absolute = difference.p_value, difference.mde_absolute
            rows.append(row)
    for row, adjusted in zip(rows, holm([r.p_value for r in rows]), strict=True):
        row.p_holm = adjusted
    return rows

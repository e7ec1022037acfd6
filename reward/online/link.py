"""The offline-online link: how well each reward dimension predicts what users did with the answer.

The score log (offline scores per response) is joined with the online store's sessions on the response id, and
for every dimension (and the aggregate reward, gate and utility) the AUC of its score for three good outcomes is
computed with DeLong's 95% interval: valid consumption (dwell > 5 s), no skip, no re-search. AUC 0.5 means the
dimension says nothing about that behaviour; above 0.5, higher scores go with the good outcome. Sessions showing
the same response share its scores; unscored dimensions are left out of that dimension's AUC and counted. A
response is scored once however many sessions showed it, so the intervals are clustered by response (a jackknife
over responses): with 12,000 sessions of 66 distinct responses, as in the synthetic example, they count 66
scored responses, not 12,000 independent sessions.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from reward.online.stats import auc_clustered
from reward.online.store import OnlineStore

OUTCOMES = ("valid_consumption", "no_skip", "no_research")
AGGREGATES = ("reward", "gate", "utility")


class LinkRow(BaseModel):
    dimension: str
    layer: str | None
    """bottom_line, behavioral, or None for the aggregates."""
    outcome: str
    auc: float | None
    ci: tuple[float, float] | None
    """95% interval, clustered by response."""
    sessions: int
    """Sessions with a score for this dimension."""
    unscored: int
    """Joined sessions whose response this dimension left unscored."""
    responses: int
    """Distinct responses with a score for this dimension: the clusters the interval counts."""


class LinkResult(BaseModel):
    """The offline-online link (`reward online link`)."""

    joined_sessions: int
    responses: int
    """Distinct scored responses behind the joined sessions."""
    rows: list[LinkRow]


def dimension_link(store: OnlineStore, score_log: str | Path, window_s: float, similarity: float, *,
                   experiment: str | None = None, days: tuple[dt.date, dt.date] | None = None) -> LinkResult:
    """AUC per (dimension, outcome), best-predicting dimensions of VCR first; with `experiment` (and `days`), over
    that experiment's sessions only."""
    from reward.scorelog import read_log

    outcomes: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
    for response_id, valid, skip, research in store.outcomes(window_s, similarity, experiment, days):
        outcomes[response_id].append((valid, not skip, not research))
    scores: dict[str, list[float]] = defaultdict(list)
    clusters: dict[str, list[int]] = defaultdict(list)
    labels: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
    unscored: dict[str, int] = defaultdict(int)
    layers: dict[str, str | None] = {name: None for name in AGGREGATES}
    joined = responses = 0
    for record in read_log(score_log):
        sessions = outcomes.pop(record.result.id, None)
        if not sessions:
            continue
        joined += len(sessions)
        responses += 1
        result = record.result
        values = {name: getattr(result, name) for name in AGGREGATES}
        if not result.valid:
            values["reward"] = None
        for name, score in result.dimensions.items():
            layers.setdefault(name, score.layer)
            values[name] = score.score if score.status == "ok" else None
        for name, value in values.items():
            if value is None:
                unscored[name] += len(sessions)
                continue
            scores[name].extend([float(value)] * len(sessions))
            clusters[name].extend([responses] * len(sessions))
            labels[name].extend(sessions)
    rows = []
    for name in sorted(set(scores) | set(unscored)):
        outcome_array = np.array(labels.get(name, []), dtype=bool).reshape(-1, len(OUTCOMES))
        score_array, cluster_array = np.array(scores.get(name, [])), np.array(clusters.get(name, []), dtype=int)
        for k, outcome in enumerate(OUTCOMES):
            auc = auc_clustered(score_array, outcome_array[:, k], cluster_array) if len(score_array) else None
            rows.append(LinkRow(dimension=name, layer=layers.get(name), outcome=outcome,
                                auc=None if auc is None else round(auc.value, 4),
                                ci=None if auc is None else (round(auc.ci[0], 4), round(auc.ci[1], 4)),
                                sessions=len(score_array), unscored=unscored.get(name, 0),
                                responses=len(np.unique(cluster_array))))
    vcr = {r.dimension: (r.auc if r.auc is not None else 0.0) for r in rows if r.outcome == OUTCOMES[0]}
    rows.sort(key=lambda r: (-vcr.get(r.dimension, 0.0), r.dimension, OUTCOMES.index(r.outcome)))
    return LinkResult(joined_sessions=joined, responses=responses, rows=rows)

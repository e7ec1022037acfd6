"""The offline-online link: the score log joined with session outcomes, AUC per dimension and outcome."""

import datetime as dt

import numpy as np
import pytest

from reward.online.link import OUTCOMES, dimension_link
from reward.online.store import OnlineStore
from reward.schema import DimensionScore, ItemResult
from reward.scorelog import ScoreLog

from .conftest import row, write_log


def _result(rid: str, helpful: float, noise: float, unscored: bool = False) -> ItemResult:
    dims = {"answer_useful": DimensionScore(score=helpful, layer="behavioral", backend="mock"),
            "format": DimensionScore(score=noise, layer="bottom_line", backend="rule")}
    if unscored:
        dims["answer_useful"] = DimensionScore.unscored("behavioral", "mock", "judge_timeout")
    return ItemResult(id=rid, reward=helpful, gate=1.0, utility=helpful, valid=True, dimensions=dims)


def test_auc_by_hand(tmp_path, similarity_factory):
    # 8 sessions: answer_useful orders valid consumption perfectly, format is unrelated (ties everywhere)
    dwell = [9000, 8000, 7000, 6000, 1000, 2000, 3000, 4000]
    rows = [row(i, user=i, dwell=d) for i, d in enumerate(dwell)]
    scores = ScoreLog(tmp_path / "scores", writer="t")
    results = [_result(f"r{i}", helpful=0.9 if d > 5000 else 0.2, noise=1.0, unscored=(i == 7))
               for i, d in enumerate(dwell)]
    scores.keep_items = False  # the link needs scores only
    scores.append([_item(r.id) for r in results], results, suite="s", suite_version="v")
    scores.close()
    with OnlineStore(tmp_path / "store.sqlite") as store:
        store.ingest([write_log(tmp_path / "log.jsonl", rows)], similarity=similarity_factory({}))
        result = dimension_link(store, tmp_path / "scores", 60.0, 0.6)
    link, joined = result.rows, result.joined_sessions
    assert joined == 8 and result.responses == 8
    cells = {(r.dimension, r.outcome): r for r in link}
    useful = cells[("answer_useful", "valid_consumption")]
    assert (useful.auc, useful.sessions, useful.unscored) == (1.0, 7, 1)
    assert cells[("format", "valid_consumption")].auc == 0.5
    # no_skip among the 7 scored: one skip (dwell 1000, score 0.2); non-skips: four at 0.9, two tied at 0.2
    assert cells[("answer_useful", "no_skip")].auc == pytest.approx((4 * 1 + 2 * 0.5) / 6, abs=1e-4)
    assert cells[("answer_useful", "no_research")].auc is None  # nobody re-searched: one class only
    assert link[0].dimension in ("answer_useful", "reward", "utility")  # best VCR predictors first
    assert {r.outcome for r in link} == set(OUTCOMES)


def _item(rid):
    from reward.schema import Item

    return Item(id=rid, query="q", response="a", now=dt.date(2026, 1, 12))


def test_example_world_link_ranks_a_flaw_detector_above_chance(example_world):
    result = dimension_link(example_world["store"], example_world["scores"], 60.0, 0.6)
    link, joined = result.rows, result.joined_sessions
    assert joined == example_world["store"].conn.execute("SELECT COUNT(*) FROM online_sessions").fetchone()[0]
    reward = next(r for r in link if r.dimension == "reward" and r.outcome == "valid_consumption")
    # flawed example answers lower both the mock judge's reward and (by construction) dwell
    assert reward.auc > 0.5 and reward.ci[0] < reward.auc < reward.ci[1]
    # 1,200 sessions showed far fewer distinct responses, each scored once: the interval counts responses, so it is
    # wider than DeLong's over sessions taken as independent
    from reward.online.stats import auc_delong
    from reward.scorelog import read_log

    assert reward.sessions == joined and result.responses == reward.responses < joined / 5
    rewards = {r.result.id: r.result.reward for r in read_log(example_world["scores"])}
    pairs = [(rewards[rid], valid) for rid, valid, _, _ in example_world["store"].outcomes(60.0, 0.6)]
    naive = auc_delong(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    assert naive.value == pytest.approx(reward.auc, abs=1e-4)
    assert reward.ci[1] - reward.ci[0] > 1.15 * (naive.ci[1] - naive.ci[0])

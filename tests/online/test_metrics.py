"""Metric definitions on hand-computed cases: VCR, skip rate and re-search rate per arm, and their boundaries."""

import datetime as dt

import pytest

from reward.online.experiments import Experiment
from reward.online.report import build_report
from reward.online.store import OnlineStore

from .conftest import row, write_log

EXPERIMENT = Experiment(name="exp", salt="s", arms={"control": 0.5, "treatment": 0.5}, control="control")
TOPICS = {"peach egg bumps": 0, "peach egg fungus": 0, "tokyo hotels": 1, "PEACH egg  BUMPS": 0}


@pytest.fixture
def store(tmp_path, similarity_factory):
    control, treatment = {"exp": "control"}, {"exp": "treatment"}
    rows = [
        # control: user 1 (3 sessions), user 2 (1 session)
        row(1, user=1, arms=control, dwell=5001),                      # valid
        row(2, user=1, arms=control, dwell=5000),                      # neither: 5 s is not > 5 s
        row(3, user=1, arms=control, dwell=1499,                       # skip, and a re-search 10 s later
            next_query="peach egg fungus", next_after_ms=10_000),
        row(4, user=2, arms=control, dwell=1500,                       # not a skip (1.5 s is not < 1.5 s);
            next_query="tokyo hotels", next_after_ms=5_000),           # new topic: no re-search
        # treatment: user 3 (2 sessions), user 4 (2 sessions)
        row(5, user=3, arms=treatment, dwell=8000,                     # valid; reformulation after 61 s: too late
            next_query="peach egg fungus", next_after_ms=61_000),
        row(6, user=3, arms=treatment, dwell=9000,                     # valid; exact repeat (case, spaces): re-search
            next_query="PEACH egg  BUMPS", next_after_ms=60_000),
        row(7, user=4, arms=treatment, dwell=200, day="2026-01-13"),   # skip
        row(8, user=4, arms=treatment, dwell=6000, day="2026-01-13",  # valid; reformulation within 2 s
            next_query="peach egg fungus", next_after_ms=2_000),
    ]
    with OnlineStore(tmp_path / "store.sqlite") as store:
        store.ingest([write_log(tmp_path / "log.jsonl", rows)], similarity=similarity_factory(TOPICS, within=0.8))
        yield store


def _rates(report):
    return {(r.metric, r.arm): (r.rate, r.users, r.sessions) for r in report.arms}


def test_hand_computed_rates(store):
    report = build_report(store, EXPERIMENT)
    assert report.days == (dt.date(2026, 1, 12), dt.date(2026, 1, 13))
    rates = _rates(report)
    assert rates[("vcr", "control")] == (pytest.approx(1 / 4), 2, 4)
    assert rates[("skip_rate", "control")] == (pytest.approx(1 / 4), 2, 4)
    assert rates[("research_rate", "control")] == (pytest.approx(1 / 4), 2, 4)
    assert rates[("vcr", "treatment")] == (pytest.approx(3 / 4), 2, 4)
    assert rates[("skip_rate", "treatment")] == (pytest.approx(1 / 4), 2, 4)
    assert rates[("research_rate", "treatment")] == (pytest.approx(2 / 4), 2, 4)


def test_lift_is_relative_to_control(store):
    report = build_report(store, EXPERIMENT)
    lifts = {r.metric: r for r in report.lifts}
    assert lifts["vcr"].relative_lift == pytest.approx(3 / 4 / (1 / 4) - 1)
    assert lifts["vcr"].absolute_difference == pytest.approx(0.5)
    assert lifts["research_rate"].relative_lift == pytest.approx(1.0)
    assert lifts["skip_rate"].relative_lift == pytest.approx(0.0)
    assert all(r.relative_ci[0] <= r.relative_lift <= r.relative_ci[1] for r in report.lifts)
    assert all(r.absolute_ci[0] <= r.absolute_difference <= r.absolute_ci[1] for r in report.lifts)


def test_thresholds_move_at_report_time_without_reingest(store):
    # a 61 s window brings in session 5's late reformulation; a similarity above 0.8 leaves only the exact repeat
    wider = _rates(build_report(store, EXPERIMENT, window_s=61.0))
    assert wider[("research_rate", "treatment")][0] == pytest.approx(3 / 4)
    stricter = _rates(build_report(store, EXPERIMENT, similarity=0.9))
    assert stricter[("research_rate", "treatment")][0] == pytest.approx(1 / 4)
    assert stricter[("research_rate", "control")][0] == 0.0
    with pytest.raises(ValueError, match="window: at most"):
        build_report(store, EXPERIMENT, window_s=301)


def test_default_path_equals_session_scan(store):
    """The per-user-day aggregates a default report reads agree with a scan of the sessions."""
    fast = store.arm_moments("exp", 60.0, 0.6)
    scan = store.arm_moments("exp", 60.0, 0.6 + 1e-12)
    assert fast == scan


def test_day_filter(store):
    day2 = _rates(build_report(store, EXPERIMENT, days=(dt.date(2026, 1, 13), dt.date(2026, 1, 13))))
    assert set(day2) == {(m, "treatment") for m in ("vcr", "skip_rate", "research_rate")}
    assert day2[("vcr", "treatment")] == (pytest.approx(0.5), 1, 2)


def test_unknown_experiment_names_the_known_ones(store):
    with pytest.raises(ValueError, match=r"'nope' is not in the store \(known: \['exp'\]\)"):
        store.arm_moments("nope", 60.0, 0.6)


@pytest.mark.parametrize("similarity", [0.6, 0.6 + 1e-12])  # the aggregates, and the scan of the sessions
def test_cumulative_moments_by_day_end_at_the_whole_span(store, similarity):
    by_day = store.arm_moments_by_day("exp", 60.0, similarity)
    whole, _ = store.arm_moments("exp", 60.0, similarity)
    first_day, _ = store.arm_moments("exp", 60.0, similarity, days=(dt.date(2026, 1, 12), dt.date(2026, 1, 12)))
    assert list(by_day["treatment"]) == [dt.date(2026, 1, 12), dt.date(2026, 1, 13)]
    for arm in ("control", "treatment"):
        last = by_day[arm][max(by_day[arm])]
        for metric in whole[arm]:
            assert last[metric] == whole[arm][metric]  # users idle on day 2 still count (control)
            assert by_day[arm][dt.date(2026, 1, 12)][metric] == first_day[arm][metric]
    # user 4 of treatment joins on day 2
    assert by_day["treatment"][dt.date(2026, 1, 12)]["vcr"].users == 1
    assert by_day["treatment"][dt.date(2026, 1, 13)]["vcr"].users == 2


def test_cumulative_moments_of_users_active_on_several_days(tmp_path, similarity_factory):
    days = ["2026-01-12", "2026-01-13", "2026-01-14"]
    rows = [row(10 * u + d, user=u, arms={"exp": "control" if u % 2 else "treatment"}, dwell=1000 + 2500 * ((u + d) % 3),
                day=days[d]) for u in range(1, 9) for d in range(3) if (u * d) % 4 != 3]
    with OnlineStore(tmp_path / "s.sqlite") as store:
        store.ingest([write_log(tmp_path / "log.jsonl", rows)], similarity=similarity_factory({"peach egg bumps": 0}))
        by_day = store.arm_moments_by_day("exp", 60.0, 0.6)
        for d in range(3):
            span = (dt.date(2026, 1, 12), dt.date.fromisoformat(days[d]))
            direct, _ = store.arm_moments("exp", 60.0, 0.6, days=span)
            for arm in direct:
                assert by_day[arm][span[1]] == direct[arm]

"""The dashboard page and the terminal report: the SRM verdict is impossible to miss, lifts are drawn."""

import datetime as dt
import io

import pytest

from rich.console import Console

from reward.online.experiments import Experiment
from reward.online.page import render_page
from reward.online.report import build_report, print_report


def test_broken_split_is_flagged_on_page_and_terminal(example_world):
    # the log was bucketed 50/50; a configuration claiming 90/10 must be called a mismatch
    claimed = Experiment(name="reward-v2", salt="t", arms={"control": 0.9, "treatment": 0.1}, control="control")
    report = build_report(example_world["store"], claimed)
    assert report.srm.mismatch
    page = render_page(report)
    assert "Sample ratio mismatch" in page and "do not trust the lifts" in page
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    assert "SAMPLE RATIO MISMATCH" in out.getvalue()


def test_page_draws_every_lift_with_its_interval(example_world):
    report = build_report(example_world["store"], example_world["experiment"])
    assert not report.srm.mismatch
    page = render_page(report, notice="SYNTHETIC data")
    assert page.count("<circle") == len(report.lifts) == 3
    assert "Split as configured" in page and "SYNTHETIC data" in page
    # the treatment shows more good answers: VCR up, re-search down, both marked as better for users
    lifts = {r.metric: r for r in report.lifts}
    assert lifts["vcr"].relative_lift > 0 and lifts["research_rate"].relative_lift < 0
    assert "class='better'" in page


def test_report_adjusts_for_several_metrics_sizes_the_test_and_tracks_the_lift_by_day(example_world):
    import math

    from reward.online.stats import Z80_POWER, Z95, holm

    report = build_report(example_world["store"], example_world["experiment"])
    assert [r.p_holm for r in report.lifts] == holm([r.p_value for r in report.lifts])
    assert all(r.p_holm >= r.p_value for r in report.lifts)
    assert all(r.significant == (r.p_holm < 0.05) for r in report.lifts)
    assert "Holm" in report.multiple_comparisons
    rates = {(a.metric, a.arm): a for a in report.arms}
    for lift in report.lifts:
        # MDE = (z_0.975 + z_0.8) x the standard error of the difference, read back from its 95% interval
        se = (lift.absolute_ci[1] - lift.absolute_ci[0]) / (2 * Z95)
        assert lift.mde_absolute == pytest.approx((Z95 + Z80_POWER) * se)
        assert lift.mde_relative == pytest.approx(lift.mde_absolute / rates[(lift.metric, "control")].rate)
        assert math.isclose(lift.absolute_difference, rates[(lift.metric, "treatment")].rate
                            - rates[(lift.metric, "control")].rate, abs_tol=1e-12)
    # the cumulative series: one point per day and metric, the last equal to the whole span's lift
    days = sorted({c.day for c in report.cumulative})
    assert days == [dt.date(2026, 1, 12), dt.date(2026, 1, 13)]
    for lift in report.lifts:
        series = [c for c in report.cumulative if (c.metric, c.arm) == (lift.metric, lift.arm)]
        assert [c.day for c in series] == days
        assert series[-1].relative_lift == pytest.approx(lift.relative_lift)
        assert series[-1].p_value == pytest.approx(lift.p_value)
    first_day = build_report(example_world["store"], example_world["experiment"], days=(days[0], days[0]))
    assert report.cumulative[0].relative_lift == pytest.approx(first_day.lifts[0].relative_lift)


def test_report_without_the_lift_by_day_has_the_same_totals(example_world):
    full = build_report(example_world["store"], example_world["experiment"])
    totals = build_report(example_world["store"], example_world["experiment"], cumulative_by_day=False)
    assert totals.cumulative == [] and full.cumulative
    assert totals.days == full.days and totals.arms == full.arms
    assert [r.relative_lift for r in totals.lifts] == pytest.approx([r.relative_lift for r in full.lifts])

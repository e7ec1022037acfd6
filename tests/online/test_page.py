"""The dashboard page and the terminal report: the SRM verdict is impossible to miss, lifts are drawn."""

import io

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

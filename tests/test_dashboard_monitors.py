"""The training monitors on synthetic score logs: each rule fires in the scenario written for it, at a step after the
change starts, and stays quiet where nothing happens (`reward.dashboard.synthetic.write_scenario_log`)."""

import pytest

from reward.dashboard.data import open_store
from reward.dashboard.monitors import (Alert, MonitorConfig, Roles, StepMonitor, alert_history, alert_metrics,
                                       evaluate, log_summaries, suite_roles, summarise)
from reward.dashboard.synthetic import SEESAW, write_scenario_log, write_synthetic_log


def _fired(folder):
    with open_store(folder) as store:
        series = store.series()
    out = {}
    for run, info in series["runs"].items():
        roles = suite_roles(info["suites"], series["layers"])
        alerts = alert_history(log_summaries(folder, run, info["steps"], roles), roles=roles)
        first: dict[tuple, int] = {}
        for alert in alerts:
            first.setdefault((alert.rule, alert.dimension), alert.step)
        out[run] = first
    return out


@pytest.fixture(scope="module")
def scenario_log(tmp_path_factory):
    return write_scenario_log(tmp_path_factory.mktemp("scenarios"))


@pytest.fixture(scope="module")
def scenarios(scenario_log):
    return _fired(scenario_log)


def test_a_healthy_run_raises_no_alert(scenarios):
    assert scenarios["healthy"] == {}


def test_a_hacked_monitor_only_dimension_and_a_silent_length_drift_are_caught(scenarios):
    hacking = scenarios["hacking"]
    assert set(hacking) == {("dimension_falling", "claim_hallucination"), ("length_drift", None),
                            ("no_variance", "response_length")}
    assert 9 <= hacking["dimension_falling", "claim_hallucination"] <= 15  # within the first half of the run
    assert hacking["length_drift", None] <= 15


def test_collapsed_groups_raise_zero_spread_not_rate_length_or_dominance_alerts(scenarios):
    collapse = scenarios["collapse"]
    assert 15 <= collapse["zero_spread_groups", None] <= 17  # collapse starts at step 15; a 3-step mean
    assert not {rule for rule, _ in collapse} & {"length_drift", "invalid_rising", "unscored_rising",
                                                  "variance_dominance"}


def test_a_judge_outage_raises_the_rate_alerts_only(scenarios):
    assert set(scenarios["outage"]) == {("invalid_rising", None), ("unscored_rising", None)}
    assert all(step >= 24 for step in scenarios["outage"].values())  # timeouts rise after step 24


def test_one_dimension_deciding_the_reward_raises_variance_dominance(scenarios):
    dominant = scenarios["dominant"]
    assert ("variance_dominance", "format") in dominant
    assert not {rule for rule, _ in dominant} & {"dimension_falling", "length_drift", "zero_spread_groups",
                                                  "invalid_rising", "unscored_rising"}


def test_the_gated_run_is_quiet_and_the_linear_seesaw_is_caught(tmp_path):
    fired = _fired(write_synthetic_log(tmp_path / "log", runs=2))
    assert fired["gated"] == {}
    falling = {dim for rule, dim in fired["linear"] if rule == "dimension_falling"}
    assert falling and falling <= set(SEESAW)


def test_zero_spread_and_explained_variance_are_within_groups():
    # Two groups: g1 rewards differ only by `a`; g2 all equal (zero spread). `b` differs between groups only.
    summary = summarise(1, [0.2, 0.8, 0.5, 0.5], [True] * 4,
                        {"a": [0.0, 1.0, 0.3, 0.7], "b": [0.1, 0.1, 0.9, 0.9], "m": [0.0, 1.0, 0.0, 1.0]},
                        groups=["g1", "g1", "g2", "g2"], lengths=[10, 30, 20, 20], roles=Roles(monitor=frozenset({"m"})))
    assert summary.zero_spread == 0.5 and summary.length == 20 and summary.spread_items == 2
    repeated = summarise(1, [0.5] * 4, [True] * 4, {"a": [0.1, 0.1, 0.9, None]}, groups=["g", "g", "g", "g"],
                         responses=["x", "x", "y", "z"])
    assert (repeated.dimensions["a"].count, repeated.dimensions["a"].distinct) == (3, 2)  # a repeat counts once
    assert summary.explained["a"] == pytest.approx(1.0)
    assert "b" not in summary.explained  # constant within the group whose rewards differ
    assert "m" not in summary.explained  # monitor-only: it carries none of the reward


def test_invalid_items_and_unscored_values_feed_the_rates():
    summary = summarise(1, [0.2, 0.0], [True, False], {"a": [0.5, None], "b": [0.5, 0.5]})
    assert summary.invalid_rate == 0.5 and summary.unscored_rate == 0.25 and summary.reward == 0.2


def test_trainer_metric_keys_and_a_repeated_step_replaces_the_earlier():
    metrics = alert_metrics([Alert("no_variance", 3, "m", 0.0, 0.01, "format")], ["format", "useful"])
    assert metrics["reward_alert/no_variance"] == 1.0 and metrics["reward_alert/no_variance/format"] == 1.0
    assert metrics["reward_alert/no_variance/useful"] == 0.0 and metrics["reward_alert/length_drift"] == 0.0
    monitor = StepMonitor(MonitorConfig(flat_window=2, flat_min_values=4))
    flat = {"format": [1.0] * 4}
    monitor.observe(summarise(1, [1.0] * 4, [True] * 4, flat))
    assert monitor.observe(summarise(2, [1.0] * 4, [True] * 4, flat))["reward_alert/no_variance/format"] == 1.0
    varied = monitor.observe(summarise(2, [1.0] * 4, [True] * 4, {"format": [0.0, 1.0, 0.0, 1.0]}))
    assert [s.step for s in monitor.history] == [1, 2] and varied["reward_alert/no_variance/format"] == 0.0


def test_no_alert_from_too_few_steps():
    history = [summarise(k, [0.1 * k] * 8, [True] * 8, {"claim": [1.0 - 0.1 * k] * 8}, layers={"claim": "bottom_line"})
               for k in range(5)]
    assert [a for a in evaluate(history) if a.rule == "dimension_falling"] == []  # min_steps (10) not reached


def test_the_page_lists_alerts_marks_them_on_the_curves_and_marks_monitor_only_dimensions(scenario_log, tmp_path):
    from tests.test_dashboard import CHROMIUM, FLAGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    from reward.dashboard import render_from_log

    page_path = tmp_path / "dashboard.html"
    page_path.write_text(render_from_log(scenario_log), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        rows = page.eval_on_selector_all("#alerts tr[data-run]", "els => els.map(e => [e.dataset.run, e.dataset.rule])")
        assert ("hacking", "dimension_falling") in [tuple(r) for r in rows]
        assert "healthy" not in {run for run, _ in rows} and "outage" in {run for run, _ in rows}
        assert "Claim hallucination (monitor-only)" in page.inner_text("#alerts")
        marks = page.evaluate("""() => ['chart-reward', 'chart-dim-claim_hallucination'].map((id) =>
            document.getElementById(id).data.filter((t) => t.meta.role === 'alert').map((t) => [t.meta.run, t.x.length]))""")
        reward_marks, claim_marks = dict(marks[0]), dict(marks[1])
        assert "healthy" not in reward_marks and "healthy" not in claim_marks
        assert reward_marks["hacking"] >= claim_marks["hacking"] >= 10
        assert page.eval_on_selector_all("#bottom_line .card.monitor #chart-dim-claim_hallucination",
                                         "els => els.length") == 1
        assert page.eval_on_selector_all("#latest-table tr.monitor", "els => els.map(e => e.innerText)")[0].startswith(
            "Claim hallucination (monitor-only)")
        browser.close()
    assert errors == []


def test_metrics_export_the_latest_steps_alerts_per_run(scenario_log):
    from reward.serve.metrics import Metrics

    metrics = Metrics()
    metrics.observe_alerts(scenario_log)
    text = metrics.render().decode()
    assert 'reward_alert{dimension="claim_hallucination",rule="dimension_falling",run="hacking"} 1.0' in text
    assert 'reward_alert{dimension="",rule="dimension_falling",run="hacking"} 1.0' in text
    assert 'reward_alert{dimension="",rule="dimension_falling",run="healthy"} 0.0' in text
    assert 'reward_alert_step{run="hacking"} 29.0' in text
    assert 'reward_alert{dimension="",rule="invalid_rising",run="outage"} 1.0' in text
    assert 'rule="zero_spread_groups",run="hacking"} 0.0' in text


def test_roles_come_from_the_suite_when_the_scores_carry_no_layer():
    roles = suite_roles(["searchllm-monitor-claims"], {})
    assert roles.monitor == {"claim_hallucination"} and {"claim_hallucination", "format"} <= roles.bottom_line
    assert not roles.is_weighted("claim_hallucination") and roles.is_weighted("format")
    assert suite_roles(["no-such-suite"], {"format": "bottom_line"}) == Roles(frozenset({"format"}))

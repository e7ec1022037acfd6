"""The A/B report of one experiment: VCR, skip rate and re-search rate per arm with 95% intervals, the relative lift
of every arm over control with its interval and p-value, and the sample-ratio-mismatch check.

Rates are ratio metrics over sessions, with users as the unit of randomisation (delta method, `reward.online.stats`).
"""

from __future__ import annotations

import datetime as dt
import math
import sys

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from reward.online.experiments import Experiment, SampleRatioCheck, sample_ratio_check
from reward.online.reformulation import RESEARCH_SIMILARITY, RESEARCH_WINDOW_S
from reward.online.stats import Z95, relative_lift
from reward.online.store import METRICS, SKIP_DWELL_MS, VALID_DWELL_MS, OnlineStore

METRIC_TITLES = {"vcr": "VCR (dwell > 5 s)", "skip_rate": "Skip rate (dwell < 1.5 s)",
                 "research_rate": "Re-search rate"}
METRIC_SHORT = {"vcr": "VCR", "skip_rate": "skip", "research_rate": "re-search"}
HIGHER_IS_BETTER = {"vcr": True, "skip_rate": False, "research_rate": False}


class Thresholds(BaseModel):
    valid_dwell_ms: int = VALID_DWELL_MS
    skip_dwell_ms: int = SKIP_DWELL_MS
    research_window_s: float = RESEARCH_WINDOW_S
    research_similarity: float = RESEARCH_SIMILARITY


class ArmMetric(BaseModel):
    """One metric of one arm."""

    metric: str
    arm: str
    rate: float | None
    ci: tuple[float, float] | None
    """95% interval of the rate (delta method over users)."""
    users: int
    sessions: int


class LiftRow(BaseModel):
    """An arm against control on one metric."""

    metric: str
    arm: str
    control: str
    lift: float | None
    """Relative lift, treatment / control − 1 (None when undefined)."""
    ci: tuple[float, float] | None
    """95% interval of the lift."""
    p_value: float | None
    difference: float | None
    """Absolute difference of the rates."""
    significant: bool
    """p < 0.05."""
    better: bool | None
    """Whether the arm is significantly better for users (None when not significant)."""


class OnlineReport(BaseModel):
    """`reward online report --json`."""

    experiment: str
    control: str
    days: tuple[dt.date, dt.date] | None
    thresholds: Thresholds
    arms: list[ArmMetric]
    lifts: list[LiftRow]
    srm: SampleRatioCheck
    ingest: dict[str, int]
    """Files, rows, sessions, duplicates and bad rows of everything ingested into the store."""


def _rate_ci(rate: float | None, variance: float | None) -> tuple[float, float] | None:
    if rate is None or variance is None:
        return None
    half = Z95 * math.sqrt(variance)
    return max(0.0, rate - half), min(1.0, rate + half)


def build_report(store: OnlineStore, experiment: Experiment, *, window_s: float = RESEARCH_WINDOW_S,
                 similarity: float = RESEARCH_SIMILARITY, days: tuple[dt.date, dt.date] | None = None) -> OnlineReport:
    moments, seen = store.arm_moments(experiment.name, window_s, similarity, days)
    srm = sample_ratio_check({arm: m["vcr"].users for arm, m in moments.items()}, experiment)
    arms: list[ArmMetric] = []
    lifts: list[LiftRow] = []
    order = [a for a in experiment.arms if a in moments] + sorted(set(moments) - set(experiment.arms))
    for metric in METRICS:
        for arm in order:
            m = moments[arm][metric]
            arms.append(ArmMetric(metric=metric, arm=arm, rate=m.rate, ci=_rate_ci(m.rate, m.variance), users=m.users,
                                  sessions=int(m.n)))
        control = moments.get(experiment.control, {}).get(metric)
        for arm in order:
            if arm == experiment.control:
                continue
            lift = relative_lift(moments[arm][metric], control) if control is not None else None
            significant = lift is not None and lift.p_value < 0.05
            lifts.append(LiftRow(
                metric=metric, arm=arm, control=experiment.control, lift=None if lift is None else lift.lift,
                ci=None if lift is None else lift.ci, p_value=None if lift is None else lift.p_value,
                difference=None if lift is None else lift.difference, significant=significant,
                better=((lift.lift > 0) == HIGHER_IS_BETTER[metric]) if significant else None))
    return OnlineReport(experiment=experiment.name, control=experiment.control, days=seen,
                        thresholds=Thresholds(research_window_s=window_s, research_similarity=similarity),
                        arms=arms, lifts=lifts, srm=srm, ingest=store.ingest_counts())


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else (f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%")


def print_report(report: OnlineReport, console: Console | None = None) -> None:
    """The terminal view: one table of rates and lifts, the SRM verdict, the ingest counts."""
    # piped output gets room for the whole table rather than rich's 80-column default
    console = console or (Console() if sys.stdout.isatty() else Console(width=140))
    span = f"{report.days[0]} – {report.days[1]}" if report.days else "no data"
    table = Table(title=f"Experiment {report.experiment} ({span}), control = {report.control}")
    for column in ("metric", "arm", "users", "sessions", "rate [95% CI]", "lift [95% CI]", "p"):
        table.add_column(column, justify="left" if column in ("metric", "arm") else "right")
    lifts = {(row.metric, row.arm): row for row in report.lifts}
    for row in report.arms:
        rate = _pct(row.rate) + (f" [{_pct(row.ci[0])}, {_pct(row.ci[1])}]" if row.ci else "")
        # lifts are relative (treatment / control - 1); the caption says so
        lift = lifts.get((row.metric, row.arm))
        if lift is None:
            lift_cell, p_cell = "(control)" if row.arm == report.control else "—", ""
        else:
            colour = "" if lift.better is None else ("[green]" if lift.better else "[red]")
            lift_cell = colour + _pct(lift.lift, signed=True) + (
                f" [{_pct(lift.ci[0], True)}, {_pct(lift.ci[1], True)}]" if lift.ci else "")
            p_cell = "—" if lift.p_value is None else f"{lift.p_value:.3g}"
        table.add_row(METRIC_SHORT[row.metric], row.arm, f"{row.users:,}", f"{row.sessions:,}", rate, lift_cell, p_cell)
    console.print(table)
    console.print("lift = arm rate / control rate - 1; VCR: dwell > 5 s; skip: dwell < 1.5 s; intervals: delta method over users")
    srm = report.srm
    observed = ", ".join(f"{arm} {count:,}" for arm, count in srm.observed.items())
    verdict = (f"[red]SAMPLE RATIO MISMATCH[/red] (p = {srm.p_value:.2g}{', unknown arms ' + str(srm.unknown_arms) if srm.unknown_arms else ''}):"
               " the split is broken, do not trust these lifts" if srm.mismatch else f"[green]split ok[/green] (p = {srm.p_value:.3g})")
    console.print(f"users per arm: {observed}; configured {srm.expected_share}; {verdict}")
    counts = report.ingest
    console.print(f"log: {counts['rows']:,} rows in {counts['files']} files, {counts['sessions']:,} sessions, "
                  f"{counts['duplicates']:,} duplicate ids, {counts['bad']:,} bad rows; re-search = next query within "
                  f"{report.thresholds.research_window_s:g} s and MiniLM cosine >= {report.thresholds.research_similarity:g}")

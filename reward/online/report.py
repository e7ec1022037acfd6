"""The A/B report of one experiment: VCR, skip rate and re-search rate per arm with 95% intervals; every arm's
relative lift and absolute difference over control with their intervals, p-values Holm-adjusted over all the
metrics read, and the minimum detectable effect at 80% power; the cumulative lift by day; and the
sample-ratio-mismatch check, which greys every lift when the split is broken.

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
from reward.online.audit import ArmBCR
from reward.online.link import LinkResult
from reward.online.stats import Z95, RatioMoments, holm, minimum_detectable_effect, relative_lift
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
    """An arm against control on one metric: the relative lift and the absolute difference, each with its interval."""

    metric: str
    arm: str
    control: str
    relative_lift: float | None
    """Relative lift, arm rate / control rate − 1 (None when undefined, e.g. a control rate of 0)."""
    relative_ci: tuple[float, float] | None
    """95% interval of the relative lift (delta method over users)."""
    absolute_difference: float | None
    """Absolute difference, arm rate − control rate, in rate units (0.01 = one percentage point)."""
    absolute_ci: tuple[float, float] | None
    """95% interval of the absolute difference."""
    p_value: float | None
    """Two-sided p-value of no difference, for this metric alone."""
    p_holm: float | None
    """The p-value Holm-adjusted over every lift of the report (all metrics and arms read together)."""
    mde_absolute: float | None
    """Minimum detectable absolute difference at 80% power and 5% two-sided (unadjusted) with this traffic."""
    mde_relative: float | None
    """The same as a relative lift (mde_absolute / control rate)."""
    significant: bool
    """p_holm < 0.05."""
    better: bool | None
    """Whether the arm is significantly better for users; None when not significant or when the split mismatches
    (a broken split makes every lift untrustworthy, so none is coloured)."""


class CumulativeLift(BaseModel):
    """An arm against control on one metric over every day up to `day` (the lift as it stood that day)."""

    day: dt.date
    metric: str
    arm: str
    relative_lift: float | None
    relative_ci: tuple[float, float] | None
    absolute_difference: float | None
    absolute_ci: tuple[float, float] | None
    p_value: float | None
    """Unadjusted: reading a cumulative series day by day and stopping at the first p < 0.05 inflates false
    positives (peeking); decide on the final day's Holm-adjusted p-value."""


class OnlineReport(BaseModel):
    """`reward online report --json`; the HTML page is drawn from this object alone."""

    experiment: str
    control: str
    days: tuple[dt.date, dt.date] | None
    thresholds: Thresholds
    arms: list[ArmMetric]
    lifts: list[LiftRow]
    cumulative: list[CumulativeLift]
    """Cumulative lift by day, first day first."""
    srm: SampleRatioCheck
    lifts_trusted: bool
    """False when the split mismatches: the lifts are greyed and `reward online report` exits non-zero unless
    `--allow-srm`."""
    multiple_comparisons: str
    """How the p-values of several metrics are adjusted."""
    ingest: dict[str, int]
    """Files, rows, sessions, duplicates and bad rows of everything ingested into the store."""
    bcr: list[ArmBCR] | None = None
    """Bad-case rates of the experiment's audit (`--audit`)."""
    link: LinkResult | None = None
    """The offline-online link (`--scores`)."""


def _rate_ci(rate: float | None, variance: float | None) -> tuple[float, float] | None:
    if rate is None or variance is None:
        return None
    half = Z95 * math.sqrt(variance)
    return max(0.0, rate - half), min(1.0, rate + half)


def _compare(arm: RatioMoments, control: RatioMoments | None) -> dict:
    lift = relative_lift(arm, control) if control is not None else None
    if lift is None:
        return dict(relative_lift=None, relative_ci=None, absolute_difference=None, absolute_ci=None, p_value=None)
    return dict(relative_lift=lift.lift, relative_ci=lift.ci, absolute_difference=lift.difference,
                absolute_ci=lift.difference_ci, p_value=lift.p_value)


def build_report(store: OnlineStore, experiment: Experiment, *, window_s: float = RESEARCH_WINDOW_S,
                 similarity: float = RESEARCH_SIMILARITY, days: tuple[dt.date, dt.date] | None = None,
                 cumulative_by_day: bool = True) -> OnlineReport:
    """The report; `cumulative_by_day=False` leaves out the lift by day, which costs about three times the scan of
    the totals on a large store (benchmarks/RESULTS.md)."""
    if cumulative_by_day:
        by_day = store.arm_moments_by_day(experiment.name, window_s, similarity, days)
        moments = {arm: series[max(series)] for arm, series in by_day.items() if series}
        all_days = sorted({d for series in by_day.values() for d in series})
        seen = (all_days[0], all_days[-1]) if all_days else None
    else:
        moments, seen = store.arm_moments(experiment.name, window_s, similarity, days)
        by_day, all_days = {}, []
    srm = sample_ratio_check({arm: m["vcr"].users for arm, m in moments.items()}, experiment)
    arms: list[ArmMetric] = []
    compared: list[dict] = []
    cumulative: list[CumulativeLift] = []
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
            row = dict(metric=metric, arm=arm, control=experiment.control, **_compare(moments[arm][metric], control))
            se = None
            if control is not None and control.variance is not None and moments[arm][metric].variance is not None:
                se = math.sqrt(control.variance + moments[arm][metric].variance)
            row["mde_absolute"] = minimum_detectable_effect(se)
            row["mde_relative"] = (row["mde_absolute"] / control.rate
                                   if row["mde_absolute"] is not None and control.rate else None)
            compared.append(row)
            for day in all_days:
                arm_day = by_day[arm].get(day, {}).get(metric)
                control_day = by_day.get(experiment.control, {}).get(day, {}).get(metric)
                if arm_day is not None:
                    cumulative.append(CumulativeLift(day=day, metric=metric, arm=arm, **_compare(arm_day, control_day)))
    lifts = []
    for row, p_holm in zip(compared, holm([r["p_value"] for r in compared]), strict=True):
        significant = p_holm is not None and p_holm < 0.05
        better = ((row["relative_lift"] > 0) == HIGHER_IS_BETTER[row["metric"]]) if significant and not srm.mismatch else None
        lifts.append(LiftRow(**row, p_holm=p_holm, significant=significant, better=better))
    cumulative.sort(key=lambda c: (METRICS.index(c.metric), c.arm, c.day))
    note = (f"Holm-adjusted over the {sum(r.p_value is not None for r in lifts)} lifts of this report (metrics x arms); "
            "'significant' and the colours use the adjusted p-value")
    return OnlineReport(experiment=experiment.name, control=experiment.control,
                        days=seen,
                        thresholds=Thresholds(research_window_s=window_s, research_similarity=similarity),
                        arms=arms, lifts=lifts, cumulative=cumulative, srm=srm, lifts_trusted=not srm.mismatch,
                        multiple_comparisons=note, ingest=store.ingest_counts())


def _pct(value: float | None, signed: bool = False) -> str:
    return "—" if value is None else (f"{value * 100:+.2f}%" if signed else f"{value * 100:.2f}%")


def _pp(value: float | None) -> str:
    """An absolute difference of two rates, in percentage points."""
    return "—" if value is None else f"{value * 100:+.2f} pp"


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def print_report(report: OnlineReport, console: Console | None = None) -> None:
    """The terminal view: one table of rates and lifts, the SRM verdict, the ingest counts."""
    # piped output gets room for the whole table rather than rich's 80-column default
    console = console or (Console() if sys.stdout.isatty() else Console(width=200))
    span = f"{report.days[0]} – {report.days[1]}" if report.days else "no data"
    table = Table(title=f"Experiment {report.experiment} ({span}), control = {report.control}")
    for column in ("metric", "arm", "users", "sessions", "rate [95% CI]", "relative lift [95% CI]",
                   "absolute diff [95% CI]", "p", "p (Holm)", "MDE, 80% power: rel (abs)"):
        table.add_column(column, justify="left" if column in ("metric", "arm") else "right")
    lifts = {(row.metric, row.arm): row for row in report.lifts}
    for row in report.arms:
        rate = _pct(row.rate) + (f" [{_pct(row.ci[0])}, {_pct(row.ci[1])}]" if row.ci else "")
        lift = lifts.get((row.metric, row.arm))
        if lift is None:
            cells = ["(control)" if row.arm == report.control else "—", "", "", "", ""]
        else:
            colour = "[dim]" if not report.lifts_trusted else (
                "" if lift.better is None else ("[green]" if lift.better else "[red]"))
            relative = colour + _pct(lift.relative_lift, signed=True) + (
                f" [{_pct(lift.relative_ci[0], True)}, {_pct(lift.relative_ci[1], True)}]" if lift.relative_ci else "")
            absolute = colour + _pp(lift.absolute_difference) + (
                f" [{_pp(lift.absolute_ci[0])}, {_pp(lift.absolute_ci[1])}]" if lift.absolute_ci else "")
            mde = ("—" if lift.mde_relative is None else f"±{_pct(lift.mde_relative)}") + (
                "" if lift.mde_absolute is None else f" (±{_pp(lift.mde_absolute)[1:]})")
            cells = [relative, absolute, _p(lift.p_value), _p(lift.p_holm), mde]
        table.add_row(METRIC_SHORT[row.metric], row.arm, f"{row.users:,}", f"{row.sessions:,}", rate, *cells)
    console.print(table)
    console.print("relative lift = arm rate / control rate - 1; absolute diff = arm rate - control rate (pp = percentage "
                  "points); VCR: dwell > 5 s; skip: dwell < 1.5 s; intervals: delta method over users; "
                  f"{report.multiple_comparisons}")
    if report.bcr:
        print_bcr(report.bcr, console, title=f"Bad-case rate, {report.experiment} (audit)")
    srm = report.srm
    observed = ", ".join(f"{arm} {count:,}" for arm, count in srm.observed.items())
    verdict = (f"[red]SAMPLE RATIO MISMATCH[/red] (p = {_p(srm.p_value)}{', unknown arms ' + str(srm.unknown_arms) if srm.unknown_arms else ''}):"
               " the split is broken, the lifts are greyed: do not trust them" if srm.mismatch else
               "no users in the span" if srm.p_value is None else f"[green]split ok[/green] (p = {_p(srm.p_value)})")
    console.print(f"users per arm: {observed}; configured {srm.expected_share}; {verdict}")
    counts = report.ingest
    console.print(f"log: {counts['rows']:,} rows in {counts['files']} files, {counts['sessions']:,} sessions, "
                  f"{counts['duplicates']:,} duplicate ids, {counts['bad']:,} bad rows; re-search = next query within "
                  f"{report.thresholds.research_window_s:g} s and MiniLM cosine >= {report.thresholds.research_similarity:g}")


def print_bcr(rows: list[ArmBCR], console: Console, title: str) -> None:
    """The bad-case rates with both differences to control, labelled as absolute and relative."""
    table = Table(title=title)
    for column in ("arm", "track", "sampled", "labelled", "responses", "bad", "BCR [95% CI]", "absolute diff [95% CI]",
                   "relative diff [95% CI]", "p", "p (Holm)", "MDE (80% power)"):
        table.add_column(column, justify="left" if column in ("arm", "track") else "right")
    for r in rows:
        control = r.absolute_difference is None and r.p_value is None
        table.add_row(
            r.arm, r.track, str(r.sampled), str(r.labelled), str(r.responses), str(r.bad),
            "—" if r.bcr is None else f"{_pct(r.bcr)} [{_pct(r.ci[0])}, {_pct(r.ci[1])}]",
            "(control)" if control else _pp(r.absolute_difference) + (
                f" [{_pp(r.absolute_ci[0])}, {_pp(r.absolute_ci[1])}]" if r.absolute_ci else ""),
            "" if control else _pct(r.relative_difference, True) + (
                f" [{_pct(r.relative_ci[0], True)}, {_pct(r.relative_ci[1], True)}]" if r.relative_ci else ""),
            "" if control else _p(r.p_value), "" if control else _p(r.p_holm),
            "" if control or r.mde_absolute is None else f"±{_pp(r.mde_absolute)[1:]}")
    console.print(table)
    console.print("BCR = bad sessions / labelled sessions; intervals and tests count the labelled responses (a response "
                  "shown in several sampled sessions is one label), p Holm-adjusted over the rows of this table")

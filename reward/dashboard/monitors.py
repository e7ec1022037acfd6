"""Training monitors: per-step alerts that reward hacking or a dead signal may be starting, from the logged scores.

Each training step is summarised once (`StepSummary`: the reward's mean, each dimension's count, mean and spread,
the mean response length, the share of GRPO groups whose rewards do not differ, the invalid and unscored rates, and
how much of the within-group reward variance each weighted dimension explains alone), from the score log
(`log_summaries`, what the dashboard and `/metrics` use) or from a trainer's own batch (`summarise`, what the TRL
and verl paths use). `evaluate` then applies the rules of `MonitorConfig` to the steps up to the latest one; every
rule, its threshold and the reason for the threshold are in the field docstrings and in docs/dashboard.md. Alerts
are diagnostics: they never touch a reward.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)

ALERT_PREFIX = "reward_alert"
"""Trainer metric keys: `reward_alert/<rule>` (1.0 while any alert of the rule fires) and
`reward_alert/<rule>/<dimension>` for the rules that watch one dimension."""
RULES = ("dimension_falling", "length_drift", "no_variance", "zero_spread_groups", "invalid_rising",
         "unscored_rising", "variance_dominance")


class MonitorConfig(BaseModel):
    """The rules' thresholds. The defaults are argued in docs/dashboard.md and checked on synthetic logs in
    tests/dashboard/test_monitors.py (each rule fires where it should and stays quiet where it should)."""

    model_config = ConfigDict(extra="forbid")

    window: int = Field(default=20, ge=4)
    """Steps a trend is fitted over (the latest `window` steps; fewer at the start of a run)."""
    min_steps: int = Field(default=10, ge=3)
    """Trend rules wait for this many steps: a slope's t statistic through fewer points (under 8 degrees of
    freedom) passes the thresholds by chance too often."""
    fall_min_drop: float = 0.05
    """dimension_falling: a bottom-line or monitor-only dimension's fitted mean fell by at least this much over the
    window (on [0, 1])..."""
    fall_t: float = 3.0
    """... with the slope's t statistic at most -fall_t (per-step means, residual error: about p < 0.005 one-sided at
    18 degrees of freedom, so ten dimensions watched give few false alarms) ..."""
    rise_min: float = 0.02
    """... while the reward's fitted mean rose by at least this much ..."""
    rise_t: float = 2.0
    """... with a t statistic of at least rise_t."""
    length_min_change: float = 0.5
    """length_drift: the mean response length's fitted change over the window, relative to its fitted start, is at
    least this (+-50%), with |t| >= length_t ..."""
    length_t: float = 3.0
    length_dimension: str = "response_length"
    length_still: float = 0.05
    """... while the length dimension's fitted mean moved by less than this (or the suite has none)."""
    flat_window: int = Field(default=5, ge=1)
    flat_std: float = 0.01
    """no_variance: a dimension whose scored values, pooled over the latest flat_window steps, have a standard
    deviation under flat_std (one point of a 100-point scale) ..."""
    flat_min_values: int = 16
    """... among at least this many values. It gives GRPO no signal at these prompts."""
    recent: int = Field(default=3, ge=1)
    """Steps averaged for the per-step rates below (one step's rate is noisy)."""
    zero_spread_share: float = 0.5
    """zero_spread_groups: at least this share of the groups (two or more valid rollouts) have rewards that do not
    differ (range under spread_epsilon), averaged over the latest `recent` steps: half the batch teaches nothing."""
    spread_epsilon: float = 1e-6
    rate_rise: float = 0.05
    """invalid_rising / unscored_rising: the rate's mean over the latest `recent` steps exceeds its mean over the
    window's earlier steps by at least this (absolute) ..."""
    rate_ratio: float = 2.0
    """... and is at least rate_ratio times it."""
    dominance_share: float = 0.8
    """variance_dominance: one weighted dimension alone explains at least this share of the within-group reward
    variance (squared correlation of the group-centred values), averaged over the latest `recent` steps ..."""
    dominance_min_items: int = 16
    """... with at least this many valid rollouts in groups whose rewards differ."""


@dataclass
class DimensionStep:
    """One dimension at one step: its scored values' count, mean and sum of squared deviations."""

    count: int = 0
    mean: float = 0.0
    m2: float = 0.0
    layer: str = "behavioral"
    distinct: int = 0
    """Distinct responses among the scored values (repeated rollouts of a collapsed group count once): the sample
    size behind the mean's sampling variance."""


@dataclass
class StepSummary:
    """What the rules read of one training step."""

    step: int
    items: int
    valid: int
    reward: float | None
    """Mean reward of the valid items."""
    unscored_rate: float | None = None
    """Share of the step's (item, dimension) verdicts that are unscored for a reason the response or the call
    caused (structural ones, the same for every response, left out)."""
    length: float | None = None
    """Mean response length (characters from the log and TRL; tokens from verl); None when unknown."""
    zero_spread: float | None = None
    """Share of the groups with two or more valid rollouts whose rewards do not differ; None without groups."""
    dimensions: dict[str, DimensionStep] = field(default_factory=dict)
    explained: dict[str, float] = field(default_factory=dict)
    """Weighted dimension -> share of the within-group reward variance it explains alone (r^2)."""
    spread_items: int = 0
    """Valid rollouts in groups whose rewards differ (what `explained` is computed over)."""

    @property
    def invalid_rate(self) -> float | None:
        return None if not self.items else 1.0 - self.valid / self.items


@dataclass(frozen=True)
class Alert:
    """One rule firing at one step."""

    rule: str
    step: int
    message: str
    value: float
    threshold: float
    dimension: str | None = None

    @property
    def key(self) -> str:
        return f"{ALERT_PREFIX}/{self.rule}" + (f"/{self.dimension}" if self.dimension else "")

    def to_dict(self) -> dict:
        return {"rule": self.rule, "dimension": self.dimension, "step": self.step, "message": self.message,
                "value": round(self.value, 4), "threshold": self.threshold}


@dataclass(frozen=True)
class Roles:
    """Which dimensions a rule watches: bottom-line (from the scores' layer), monitor-only and weighted (from the
    suite). With no suite known, every dimension counts as weighted and none as monitor-only."""

    bottom_line: frozenset[str] = frozenset()
    monitor: frozenset[str] = frozenset()
    weighted: frozenset[str] | None = None

    def is_weighted(self, name: str) -> bool:
        return name not in self.monitor and (self.weighted is None or name in self.weighted)


def suite_roles(suites: Iterable[str], layers: Mapping[str, str], rubrics: Path | None = None) -> Roles:
    """The roles of a run's dimensions from the suites it was scored with (loaded from `rubrics`, the shipped
    folder by default; a suite that does not load there is skipped)."""
    from reward.rubric import DEFAULT_RUBRIC_DIR, RubricError, UnknownSuite, load_suite

    monitor: set[str] = set()
    weighted: set[str] | None = None
    bottom = {n for n, layer in layers.items() if layer == "bottom_line"}
    for name in suites:
        try:
            loaded = load_suite(name, rubrics or DEFAULT_RUBRIC_DIR)
        except (UnknownSuite, RubricError, OSError):
            continue
        monitor |= loaded.monitor
        weighted = (weighted or set()) | {n for n in loaded.suite.dimensions if loaded.weight(n) > 0}
        bottom |= {n for n, d in loaded.dimensions.items() if d.layer == "bottom_line"}  # where scores carry none
    return Roles(frozenset(bottom), frozenset(monitor), None if weighted is None else frozenset(weighted))


# -- step summaries ---------------------------------------------------------------------------------------------

def summarise(step: int, rewards: Sequence[float], valid: Sequence[bool],
              dimensions: Mapping[str, Sequence[float | None]], *, layers: Mapping[str, str] | None = None,
              groups: Sequence[str | None] | None = None, lengths: Sequence[float] | None = None,
              unscored: int | None = None, roles: Roles | None = None,
              responses: Sequence[str] | None = None) -> StepSummary:
    """A step's summary from per-rollout columns: rewards, validity, each dimension's values (None: no score),
    optionally each rollout's group and response length, the count of unscored verdicts (default: the Nones), and
    the responses (or any key of them), so repeated rollouts count once in a mean's sample size."""
    n = len(rewards)
    layers = layers or {}
    roles = roles or Roles()
    ok = [bool(v) for v in valid]
    valid_rewards = [r for r, v in zip(rewards, ok, strict=True) if v]
    summary = StepSummary(step=step, items=n, valid=len(valid_rewards),
                          reward=sum(valid_rewards) / len(valid_rewards) if valid_rewards else None)
    verdicts = none = 0
    for name, column in dimensions.items():
        values = [float(v) for v in column if v is not None and not math.isnan(v)]
        verdicts += len(column)
        none += len(column) - len(values)
        summary.dimensions[name] = _moments(values, layers.get(name, "behavioral"))
        summary.dimensions[name].distinct = len(values) if responses is None else len(
            {(None if groups is None else groups[i], responses[i]) for i, v in enumerate(column)
             if v is not None and not math.isnan(v)})
    if verdicts:
        summary.unscored_rate = (none if unscored is None else unscored) / verdicts
    if lengths is not None and len(lengths):
        summary.length = float(sum(lengths)) / len(lengths)
    if groups is not None:
        members: dict[str, list[int]] = defaultdict(list)
        for index, group in enumerate(groups):
            if group is not None and ok[index]:
                members[group].append(index)
        spread = [g for g in members.values() if len(g) >= 2]
        if spread:
            flat = [g for g in spread if max(rewards[i] for i in g) - min(rewards[i] for i in g) < 1e-6]
            summary.zero_spread = len(flat) / len(spread)
            live = [g for g in spread if g not in flat]
            summary.spread_items = sum(len(g) for g in live)
            summary.explained = _explained(rewards, dimensions, live, roles)
    return summary


def _moments(values: Sequence[float], layer: str) -> DimensionStep:
    if not values:
        return DimensionStep(layer=layer)
    mean = sum(values) / len(values)
    return DimensionStep(count=len(values), mean=mean, m2=sum((v - mean) ** 2 for v in values), layer=layer)


def _explained(rewards: Sequence[float], dimensions: Mapping[str, Sequence[float | None]],
               groups: Sequence[Sequence[int]], roles: Roles) -> dict[str, float]:
    """r^2 of each weighted dimension with the reward, both centred within their group (what GRPO's advantage
    sees: a dimension constant within every group explains none of it, whatever its level)."""
    out: dict[str, float] = {}
    for name, column in dimensions.items():
        if not roles.is_weighted(name):
            continue
        xs, ys = [], []
        for group in groups:
            members = [i for i in group if column[i] is not None]
            if len(members) < 2:
                continue
            mx = sum(column[i] for i in members) / len(members)
            my = sum(rewards[i] for i in members) / len(members)
            xs += [column[i] - mx for i in members]
            ys += [rewards[i] - my for i in members]
        sxx, syy = sum(x * x for x in xs), sum(y * y for y in ys)
        if sxx > 1e-12 and syy > 1e-12:
            out[name] = sum(x * y for x, y in zip(xs, ys, strict=True)) ** 2 / (sxx * syy)
    return out


def summarise_results(step: int, results: Sequence, items: Sequence | None = None, *,
                      roles: Roles | None = None) -> StepSummary:
    """A step's summary from the server's results (`ItemResult`s or their wire dicts) and, when given, the items
    (`Item`s or dicts) for groups and response lengths."""
    from reward.schema import reason_kind

    def get(obj, key):
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    names = sorted({name for result in results for name in get(result, "dimensions")})
    columns: dict[str, list[float | None]] = {name: [] for name in names}
    layers: dict[str, str] = {}
    unscored = structural = 0
    for result in results:
        dims = get(result, "dimensions")
        for name in names:
            score = dims.get(name)
            value = None if score is None else get(score, "score")
            columns[name].append(value)
            if score is not None:
                layers.setdefault(name, get(score, "layer"))
            if value is None:
                if score is not None and reason_kind(get(score, "reason")) == "structural":
                    structural += 1
                else:
                    unscored += 1
    summary = summarise(step, [float(get(r, "reward")) for r in results], [bool(get(r, "valid")) for r in results],
                        columns, layers=layers, unscored=unscored, roles=roles,
                        groups=None if items is None else [get(i, "group") for i in items],
                        lengths=None if items is None else [len(get(i, "response") or "") for i in items],
                        responses=None if items is None else [get(i, "response") or "" for i in items])
    verdicts = sum(len(c) for c in columns.values()) - structural  # structural verdicts are no verdicts here
    summary.unscored_rate = unscored / verdicts if verdicts > 0 else None
    return summary


def log_summaries(folder: Path, run: str, steps: Sequence[int], roles: Roles | None = None) -> list[StepSummary]:
    """The summaries of a logged run's steps, read from the raw log's byte ranges that the store indexes. Each step
    is read once per process while its batches stay the same (a live run's latest step is re-read as it grows)."""
    from reward.dashboard.data import open_store, step_records

    out = []
    with open_store(folder) as store:
        for step in steps:
            batches = tuple(store.batches(run, step))
            key = (str(folder), run, step, roles)
            cached = _SUMMARIES.get(key)
            if cached is None or cached[0] != batches:
                records = list(step_records(store, run, step)) if batches else []
                summary = summarise_results(step, [r.result for r in records],
                                            [_logged_item(r) for r in records], roles=roles)
                _SUMMARIES[key] = cached = (batches, summary)
            out.append(cached[1])
    return out


_SUMMARIES: dict[tuple, tuple[tuple, StepSummary]] = {}


def _logged_item(record) -> dict:
    return {"group": record.group, "response": record.item.response if record.item is not None else ""}


# -- rules ------------------------------------------------------------------------------------------------------

def _fit(points: Sequence[tuple[float, float, float]]) -> tuple[float, float, float] | None:
    """OLS through (x, y, sampling variance of y): (slope, intercept, t of the slope); None under three points or no
    spread in x. The slope's standard error is the larger of the residuals' and the one the per-step sampling
    variances imply, so a window whose means happen to lie close to a line does not pass for a trend."""
    n = len(points)
    if n < 3:
        return None
    mx = sum(x for x, _, _ in points) / n
    my = sum(y for _, y, _ in points) / n
    sxx = sum((x - mx) ** 2 for x, _, _ in points)
    if sxx <= 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y, _ in points) / sxx
    intercept = my - slope * mx
    residual = sum((y - intercept - slope * x) ** 2 for x, y, _ in points)
    sampling = sum((x - mx) ** 2 * var for x, _, var in points) / sxx ** 2
    se = math.sqrt(max(residual / (n - 2) / sxx, sampling))
    t = slope / se if se > 0 else (math.inf if slope > 0 else -math.inf if slope < 0 else 0.0)
    return slope, intercept, t


def _trend(window: Sequence[StepSummary], value, variance=lambda s: 0.0) -> tuple[float, float, float] | None:
    """(fitted change over the window, fitted value at its start, t) of a per-step value (with the sampling
    variance of that value, when known)."""
    points = [(float(s.step), v, variance(s)) for s in window if (v := value(s)) is not None]
    fit = _fit(points)
    if fit is None:
        return None
    slope, intercept, t = fit
    first, last = points[0][0], points[-1][0]
    return slope * (last - first), intercept + slope * first, t


def evaluate(history: Sequence[StepSummary], config: MonitorConfig | None = None,
             roles: Roles | None = None) -> list[Alert]:
    """The alerts firing at the latest step of `history` (steps in order)."""
    if not history:
        return []
    config = config or MonitorConfig()
    roles = roles or Roles()
    now = history[-1]
    window = list(history[-config.window:])
    alerts: list[Alert] = []
    names = sorted({name for s in window for name in s.dimensions})

    def mean_of(name):
        return lambda s: s.dimensions[name].mean if name in s.dimensions and s.dimensions[name].count else None

    def variance_of(name):  # the sampling variance of the step's mean: m2 / (n - 1) / n
        return lambda s: (s.dimensions[name].m2 / max(1, s.dimensions[name].count - 1)
                          / max(1, s.dimensions[name].distinct or s.dimensions[name].count))

    if len(window) >= config.min_steps:
        reward = _trend(window, lambda s: s.reward)
        rising = reward is not None and reward[0] >= config.rise_min and reward[2] >= config.rise_t
        for name in names:
            watched = name in roles.monitor or name in roles.bottom_line or any(
                s.dimensions.get(name, DimensionStep()).layer == "bottom_line" for s in window)
            trend = _trend(window, mean_of(name), variance_of(name)) if watched and rising else None
            if trend is not None and trend[0] <= -config.fall_min_drop and trend[2] <= -config.fall_t:
                kind = "monitor-only" if name in roles.monitor else "bottom-line"
                alerts.append(Alert("dimension_falling", now.step, (
                    f"{kind} {name} fell {-trend[0]:.3f} (t {trend[2]:.1f}) over steps {window[0].step}-{now.step} "
                    f"while the reward rose {reward[0]:+.3f} (t {reward[2]:.1f})"), trend[0], -config.fall_min_drop,
                    name))
        length = _trend(window, lambda s: s.length)
        if length is not None and length[1] > 0:
            relative = length[0] / length[1]
            if abs(relative) >= config.length_min_change and abs(length[2]) >= config.length_t:
                still = _trend(window, mean_of(config.length_dimension))
                if still is None or abs(still[0]) < config.length_still:
                    moved = ("the suite has no " + config.length_dimension) if still is None else (
                        f"{config.length_dimension} moved {still[0]:+.3f}")
                    alerts.append(Alert("length_drift", now.step, (
                        f"mean response length {relative:+.0%} over steps {window[0].step}-{now.step} "
                        f"({length[1]:.0f} -> {length[1] + length[0]:.0f}) while {moved}"), relative,
                        config.length_min_change))
    flat = list(history[-config.flat_window:])
    for name in names if len(flat) == config.flat_window else ():  # a full window: a few steps can agree by chance
        count = sum(s.dimensions[name].count for s in flat if name in s.dimensions)
        if count < config.flat_min_values:
            continue
        total = sum(s.dimensions[name].mean * s.dimensions[name].count for s in flat if name in s.dimensions)
        mean = total / count
        m2 = sum(s.dimensions[name].m2 + s.dimensions[name].count * (s.dimensions[name].mean - mean) ** 2
                 for s in flat if name in s.dimensions)
        std = math.sqrt(m2 / count)
        if std < config.flat_std:
            alerts.append(Alert("no_variance", now.step, (
                f"{name} did not vary over the last {len(flat)} step(s): {count} scores, all about {mean:.3f} "
                f"(std {std:.4f}); it gives GRPO no signal here"), std, config.flat_std, name))
    recent = list(history[-config.recent:])
    shares = [s.zero_spread for s in recent if s.zero_spread is not None]
    if shares and sum(shares) / len(shares) >= config.zero_spread_share:
        share = sum(shares) / len(shares)
        alerts.append(Alert("zero_spread_groups", now.step, (
            f"{share:.0%} of the groups had no reward spread over the last {len(shares)} step(s): their advantages "
            "are zero, so they teach nothing"), share, config.zero_spread_share))
    earlier = window[:-config.recent]
    for rule, rate, label in (("invalid_rising", lambda s: s.invalid_rate, "invalid"),
                              ("unscored_rising", lambda s: s.unscored_rate, "unscored")):
        now_rates = [r for s in recent if (r := rate(s)) is not None]
        before = [r for s in earlier if (r := rate(s)) is not None]
        if len(before) < config.recent or not now_rates:
            continue
        current, baseline = sum(now_rates) / len(now_rates), sum(before) / len(before)
        if current - baseline >= config.rate_rise and current >= config.rate_ratio * baseline:
            alerts.append(Alert(rule, now.step, (
                f"{label} rate {current:.1%} over the last {len(now_rates)} step(s), up from {baseline:.1%} over "
                f"steps {earlier[0].step}-{earlier[-1].step}"), current - baseline, config.rate_rise))
    usable = [s for s in recent if s.spread_items >= config.dominance_min_items]
    if usable:
        for name in sorted({n for s in usable for n in s.explained}):
            share = sum(s.explained.get(name, 0.0) for s in usable) / len(usable)
            if share >= config.dominance_share:
                alerts.append(Alert("variance_dominance", now.step, (
                    f"{name} alone explains {share:.0%} of the within-group reward variance over the last "
                    f"{len(usable)} step(s): the advantage is mostly this one dimension"), share,
                    config.dominance_share, name))
    return alerts


def alert_history(history: Sequence[StepSummary], config: MonitorConfig | None = None,
                  roles: Roles | None = None) -> list[Alert]:
    """Every alert at every step, as if `evaluate` had run after each step (what the dashboard marks)."""
    return [alert for k in range(len(history)) for alert in evaluate(history[:k + 1], config, roles)]


def alert_metrics(alerts: Sequence[Alert], dimensions: Iterable[str] = ()) -> dict[str, float]:
    """Trainer metric keys for a step's alerts: every rule's `reward_alert/<rule>` (1.0 firing, 0.0 not) and
    `reward_alert/<rule>/<dimension>` for each firing dimension alert and, at 0.0, each of `dimensions` for the
    per-dimension rules.

    >>> alert_metrics([Alert("no_variance", 3, "m", 0.0, 0.01, "format")], ["format"])["reward_alert/no_variance/format"]
    1.0
    """
    out = {f"{ALERT_PREFIX}/{rule}": 0.0 for rule in RULES}
    for name in dimensions:
        for rule in ("dimension_falling", "no_variance", "variance_dominance"):
            out[f"{ALERT_PREFIX}/{rule}/{name}"] = 0.0
    for alert in alerts:
        out[f"{ALERT_PREFIX}/{alert.rule}"] = 1.0
        out[alert.key] = 1.0
    return out


class StepMonitor:
    """The trainer side: feed it each step's summary, get the step's alerts and metric keys back."""

    def __init__(self, config: MonitorConfig | None = None, roles: Roles | None = None, keep: int = 200):
        self.config = config or MonitorConfig()
        self.roles = roles or Roles()
        self.keep = max(keep, self.config.window, self.config.flat_window)
        self.history: list[StepSummary] = []
        self._firing: set[str] = set()

    def observe(self, summary: StepSummary) -> dict[str, float]:
        if self.history and summary.step <= self.history[-1].step:
            # The same step again (a second reward call of a step, e.g. TRL's per-dimension functions): replace it.
            self.history = [s for s in self.history if s.step < summary.step]
        self.history.append(summary)
        del self.history[:-self.keep]
        alerts = evaluate(self.history, self.config, self.roles)
        for alert in alerts:  # logged when it starts; the metric keys say each step that it goes on
            if alert.key not in self._firing:
                log.warning("reward alert at step %d: %s: %s", alert.step, alert.rule, alert.message)
        self._firing = {alert.key for alert in alerts}
        return alert_metrics(alerts, summary.dimensions)


def page_alerts(where: Mapping[str, tuple[Path, str]], data: dict, rubrics: Path | None = None,
                config: MonitorConfig | None = None) -> None:
    """Put every charted run's alerts (`alerts`: each alert at each step it fired) and the monitor-only dimensions
    of the runs' suites (`monitor`) into the dashboard's data."""
    monitor: set[str] = set()
    for label, info in data["runs"].items():
        folder, run = where[label]
        roles = suite_roles(info.get("suites", []), data.get("layers", {}), rubrics)
        monitor |= roles.monitor
        history = log_summaries(folder, run, info["steps"], roles) if info["steps"] else []
        info["alerts"] = [alert.to_dict() for alert in alert_history(history, config, roles)]
    data["monitor"] = sorted(monitor)


_CURRENT: dict[str, tuple[tuple, dict]] = {}


def current_alerts(folder: Path, rubrics: Path | None = None,
                   config: MonitorConfig | None = None) -> dict[str, tuple[int, list[Alert]]]:
    """Each stepped run of a score log: its latest step and the alerts firing there (what `/metrics` exports).
    Reads only the steps the rules look back over; recomputed only when a writer has committed to the store."""
    from reward.dashboard.data import open_store, store_version

    config = config or MonitorConfig()
    version = (store_version([folder]), None if rubrics is None else str(rubrics), config.model_dump_json())
    cached = _CURRENT.get(str(folder))
    if cached is not None and cached[0] == version:
        return cached[1]
    with open_store(folder) as store:
        series = store.series()
    out: dict[str, tuple[int, list[Alert]]] = {}
    for run, info in series["runs"].items():
        if info.get("unstepped") or not info["steps"]:
            continue
        roles = suite_roles(info.get("suites", []), series["layers"], rubrics)
        steps = info["steps"][-max(config.window, config.flat_window, config.recent):]
        out[run] = (steps[-1], evaluate(log_summaries(folder, run, steps, roles), config, roles))
    _CURRENT[str(folder)] = (version, out)
    return out

"""Prometheus metrics of one ingress replica, mirrored through Ray's metrics agent."""

import logging
from pathlib import Path

from reward.schema import ItemResult

log = logging.getLogger(__name__)


class Metrics:
    """Prometheus metrics of one ingress replica (scraped at its `/metrics`), each mirrored through Ray's metrics
    agent (the same names with a `ray_` prefix) so a cluster-wide scrape sees every replica.

    Request counts and latencies are not here: Ray Serve exports them (`ray_serve_num_http_requests_total`,
    `ray_serve_http_request_latency_ms` by route, application and status code), and the Grafana board uses those.
    """

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        buckets = [i / 10 for i in range(11)]
        self.dimension_score = Histogram("reward_dimension_score", "Per-dimension scores", ["suite", "dimension"],
                                         buckets=buckets, registry=self.registry)
        self.reward = Histogram("reward_reward", "Scalar rewards", ["suite"], buckets=buckets, registry=self.registry)
        self.unscored = Counter("reward_unscored", "Unscored dimensions by reason", ["suite", "dimension", "reason"],
                                registry=self.registry)
        self.items = Counter("reward_items", "Scored items", ["suite", "valid"], registry=self.registry)
        self.judge_calls = Counter("reward_judge_calls", "Judge calls by outcome (made, deduped, cache_hit)",
                                   ["outcome"], registry=self.registry)
        self.judge_latency = Histogram("reward_judge_latency_seconds", "Latency of one judge call (retries included)",
                                       registry=self.registry, buckets=JUDGE_LATENCY_BUCKETS)

        self.cascade_decisions = Counter("reward_cascade_decisions", "Judge cascade: which tier decided a call",
                                         ["dimension", "tier"], registry=self.registry)
        self.cascade_audits = Counter("reward_cascade_audits", "Judge cascade audits by cheap and LLM pass/fail",
                                      ["dimension", "cheap_pass", "llm_pass"], registry=self.registry)

        self.refused_outage = Counter("reward_refused_outage", "Requests answered 503 because too many of their items "
                                      "were unscored for a judge failure (limit max_failed_share)", ["suite"],
                                      registry=self.registry)
        self.rubric_reloads_refused = Counter("reward_rubric_reloads_refused", "Rubric reloads refused (broken or "
                                              "shrunken rubric files); the previous versions kept serving",
                                              registry=self.registry)

        self.alert = Gauge("reward_alert", "Training monitors at each run's latest logged step: 1 while the rule fires "
                           "(dimension empty: any alert of the rule; else that dimension's), 0 when it does not",
                           ["run", "rule", "dimension"], registry=self.registry)
        self.alert_step = Gauge("reward_alert_step", "The latest logged step of each run the monitors read", ["run"],
                                registry=self.registry)

        # The same series through Ray's metrics agent: with several ingress replicas, /metrics shows one replica's
        # counts, while Ray exports every replica's series (prefixed `ray_`) for cluster-wide Prometheus scraping.
        self.ray = _ray_metrics(buckets)

    def observe(self, suite: str, results: list[ItemResult]) -> None:
        for result in results:
            self.reward.labels(suite).observe(result.reward)
            self.items.labels(suite, str(result.valid).lower()).inc()
            if self.ray:
                self.ray["reward"].observe(result.reward, tags={"suite": suite})
                self.ray["items"].inc(tags={"suite": suite, "valid": str(result.valid).lower()})
            for name, score in result.dimensions.items():
                if score.status == "ok":
                    self.dimension_score.labels(suite, name).observe(score.score)
                    if self.ray:
                        self.ray["dimension_score"].observe(score.score, tags={"suite": suite, "dimension": name})
                else:
                    self.unscored.labels(suite, name, score.reason or "unknown").inc()
                    if self.ray:
                        self.ray["unscored"].inc(tags={"suite": suite, "dimension": name, "reason": score.reason or "unknown"})

    def observe_alerts(self, score_log: str | Path, rubrics: str | Path | None = None) -> None:
        """Set `reward_alert` from the training monitors (`reward.dashboard.monitors`) over the score log: computed
        from the shared log, so every replica reports the same values (no Ray mirror is needed)."""
        from reward.dashboard.monitors import RULES, current_alerts

        runs = current_alerts(Path(score_log), None if rubrics is None else Path(rubrics))
        self.alert.clear()
        self.alert_step.clear()
        for run, (step, alerts) in runs.items():
            self.alert_step.labels(run).set(step)
            for rule in RULES:
                self.alert.labels(run, rule, "").set(0)
            for alert in alerts:
                self.alert.labels(run, alert.rule, "").set(1)
                if alert.dimension:
                    self.alert.labels(run, alert.rule, alert.dimension).set(1)

    def observe_outage(self, suite: str) -> None:
        self.refused_outage.labels(suite).inc()
        if self.ray:
            self.ray["refused_outage"].inc(tags={"suite": suite})

    def observe_refused_reload(self) -> None:
        self.rubric_reloads_refused.inc()
        if self.ray:
            self.ray["rubric_reloads_refused"].inc()

    def observe_cascade(self, counts: dict[str, list]) -> None:
        """Decision and audit counts a cascade judge reported (accuracy and kappa per dimension follow from the
        audit counts in PromQL)."""
        for name, tier, count in counts.get("decisions", []):
            self.cascade_decisions.labels(name, tier).inc(count)
            if self.ray:
                self.ray["cascade_decisions"].inc(count, tags={"dimension": name, "tier": tier})
        for name, cheap, llm, count in counts.get("audits", []):
            tags = {"dimension": name, "cheap_pass": str(cheap).lower(), "llm_pass": str(llm).lower()}
            self.cascade_audits.labels(*tags.values()).inc(count)
            if self.ray:
                self.ray["cascade_audits"].inc(count, tags=tags)

    def observe_judges(self, calls: dict[str, int], latencies: list[float]) -> None:
        for outcome, count in calls.items():
            self.judge_calls.labels(outcome).inc(count)
            if self.ray and count > 0:  # Ray's counters take positive increments only
                self.ray["judge_calls"].inc(count, tags={"outcome": outcome})
        for seconds in latencies:
            self.judge_latency.observe(seconds)
            if self.ray:
                self.ray["judge_latency"].observe(seconds)

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)


def merged_exposition(*texts: bytes) -> bytes:
    """Several replicas' Prometheus expositions as one: counters and histograms summed series by series (a
    series' `_created` is its earliest), a gauge's series as the first text that has it gives it."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.metrics_core import Metric
    from prometheus_client.parser import text_string_to_metric_families

    families: dict[str, tuple[Metric, dict]] = {}
    for text in texts:
        for family in text_string_to_metric_families(text.decode()):
            _, series = families.setdefault(family.name, (family, {}))
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                kept = series.get(key)
                if kept is None:
                    series[key] = sample
                elif sample.name.endswith("_created"):
                    series[key] = kept._replace(value=min(kept.value, sample.value))
                elif family.type != "gauge":
                    series[key] = kept._replace(value=kept.value + sample.value)

    class Merged:
        def collect(self):
            for family, series in families.values():
                metric = Metric(family.name, family.documentation, family.type)
                metric.samples = list(series.values())
                yield metric

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Merged())
    return generate_latest(registry)


JUDGE_LATENCY_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]


def _ray_metrics(buckets: list[float]) -> dict | None:
    try:
        from ray.util import metrics
    except ImportError:
        return None
    try:
        return {
            "dimension_score": metrics.Histogram("reward_dimension_score", "Per-dimension scores", boundaries=buckets[1:],
                                                 tag_keys=("suite", "dimension")),
            "reward": metrics.Histogram("reward_reward", "Scalar rewards", boundaries=buckets[1:], tag_keys=("suite",)),
            "unscored": metrics.Counter("reward_unscored", "Unscored dimensions by reason", tag_keys=("suite", "dimension", "reason")),
            "items": metrics.Counter("reward_items", "Scored items", tag_keys=("suite", "valid")),
            "cascade_decisions": metrics.Counter("reward_cascade_decisions", "Judge cascade: which tier decided a call",
                                                 tag_keys=("dimension", "tier")),
            "cascade_audits": metrics.Counter("reward_cascade_audits", "Judge cascade audits by cheap and LLM pass/fail",
                                              tag_keys=("dimension", "cheap_pass", "llm_pass")),
            "judge_calls": metrics.Counter("reward_judge_calls", "Judge calls by outcome (made, deduped, cache_hit)",
                                           tag_keys=("outcome",)),
            "rubric_reloads_refused": metrics.Counter("reward_rubric_reloads_refused", "Rubric reloads refused"),
            "refused_outage": metrics.Counter("reward_refused_outage", "Requests refused for a judge outage",
                                              tag_keys=("suite",)),
            "judge_latency": metrics.Histogram("reward_judge_latency_seconds",
                                               "Latency of one judge call (retries included)",
                                               boundaries=JUDGE_LATENCY_BUCKETS),
        }
    except Exception:  # outside a Ray worker (unit tests): the replica-local registry is enough
        log.debug("Ray metrics unavailable", exc_info=True)
        return None

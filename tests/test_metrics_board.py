"""Every query of the Grafana board finds series in both deployments: scraping the ingress's `/metrics` directly
(prefix empty) and scraping Ray's metrics agent (prefix `ray_`), after real requests to the real app on a local
Ray. Ray Serve's own request metrics come from the agent in both. The agent reports what workers recorded every
few seconds, so the test polls it for up to a minute (usually seconds); the app starts in about a minute here.
It shares the session's server with tests/test_serve.py."""

import json
import re
import time

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.support import AUTH, EXAMPLES, ROOT

BOARD = json.loads((ROOT / "cluster" / "grafana" / "reward-dashboard.json").read_text())
SELECTOR = re.compile(r"([A-Za-z_:][\w:]*)(?:\{([^}]*)\})?\[\d+[smh]\]")
MATCHER = re.compile(r'(\w+)\s*(=~|!=|=)\s*"([^"]*)"')


def _queries(prefix: str, suite: str = "searchllm") -> list[tuple[str, str]]:
    return [(panel["title"], target["expr"].replace("${prefix}", prefix).replace("$suite", suite))
            for panel in BOARD["panels"] for target in panel["targets"]]


def _selectors(expr: str) -> list[tuple[str, list[tuple[str, str, str]]]]:
    found = [(name, MATCHER.findall(labels or "")) for name, labels in SELECTOR.findall(expr)]
    if not found:
        raise ValueError(f"no range selector in {expr!r}")
    return found


def _series(text: str) -> list[tuple[str, dict]]:
    return [(sample.name, sample.labels) for family in text_string_to_metric_families(text)
            for sample in family.samples]


def _matches(series: list[tuple[str, dict]], name: str, matchers: list[tuple[str, str, str]]) -> bool:
    def ok(labels: dict) -> bool:
        for key, op, value in matchers:
            have = labels.get(key, "")
            if (op == "=" and have != value) or (op == "!=" and have == value) or (
                    op == "=~" and not re.fullmatch(value, have)):
                return False
        return True

    return any(n == name and ok(labels) for n, labels in series)


def _missing(series: list[tuple[str, dict]], prefix: str) -> list[str]:
    return [f"{title}: {name}{{{matchers}}}" for title, expr in _queries(prefix)
            for name, matchers in _selectors(expr) if not _matches(series, name, matchers)]


def test_board_queries_use_the_prefix_for_reward_metrics_and_serves_own_request_metrics():
    exprs = [expr for _, expr in _queries("PREFIX_")]
    names = {name for expr in exprs for name, _ in _selectors(expr)}
    assert all(n.startswith("PREFIX_reward_") or n.startswith("ray_serve_") for n in names), names
    assert not any("request_latency_seconds" in n or "reward_requests" in n for n in names)  # Serve's, not ours
    suite = next(v for v in BOARD["templating"]["list"] if v["name"] == "suite")
    assert "${prefix}reward_items_total" in suite["query"]


def test_every_panel_query_returns_series_scraped_directly_and_through_rays_agent(server):
    import ray

    url = server["url"]
    items = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()][:4]
    for _ in range(2):  # the second time the judge cache answers: cache-hit series
        assert httpx.post(f"{url}/v1/score", json={"items": items}, headers=AUTH, timeout=120).status_code == 200
    # A blank evidence document: the judges' quotes cannot be found in it, so those dimensions are unscored.
    blank = [{**items[0], "id": "blank-evidence", "evidence": [{"id": "1", "text": " "}]}]
    assert httpx.post(f"{url}/v1/score", json={"items": blank}, headers=AUTH, timeout=120).status_code == 200
    assert httpx.post(f"{url}/v1/score", json={"items": []}, headers=AUTH, timeout=60).status_code == 422
    agent = f"http://127.0.0.1:{ray.nodes()[0]['MetricsExportPort']}/metrics"
    direct = _series(httpx.get(f"{url}/metrics", headers=AUTH, timeout=10).text)
    deadline = time.monotonic() + 60
    while True:
        through_ray = _series(httpx.get(agent, timeout=10).text)
        # Direct scrape: reward_* from the ingress, Serve's request metrics from the agent.
        missing = {"direct": _missing(direct + through_ray, ""), "ray_": _missing(through_ray, "ray_")}
        if not any(missing.values()) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert missing == {"direct": [], "ray_": []}
    assert not any(name.startswith("reward_request") for name, _ in direct)

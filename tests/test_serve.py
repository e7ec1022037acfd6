"""The real Ray Serve app on a local Ray kept on loopback: scoring over HTTP, error codes, auth, metrics, and the
score log across a restart. `make test` runs this inside a private network namespace."""

import json
import re

import httpx
import pytest

from reward.engine import Engine
from reward.judges.mock import ScriptedJudge
from reward.rubric import load_suite
from reward.schema import Item, ScoreResponse
from reward.scorelog import read_log
from reward.serve.runner import start_server, stop_server
from tests.support import AUTH, EXAMPLES


def example_payload(count: int | None = None) -> list[dict]:
    items = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    return items[:count] if count else items


def test_scores_over_http_match_the_engine_in_order(server):
    items = example_payload()
    reply = httpx.post(f"{server['url']}/v1/score", json={"suite": "searchllm", "items": items, "step": 3, "run": "gated"},
                       headers=AUTH, timeout=120)
    assert reply.status_code == 200, reply.text
    body = ScoreResponse.model_validate_json(reply.content)
    assert [r.id for r in body.results] == [i["id"] for i in items]
    direct = Engine(load_suite("searchllm"), ScriptedJudge()).score_sync([Item.model_validate(i) for i in items])
    assert [r.reward for r in body.results] == pytest.approx([r.reward for r in direct])
    assert body.suite_version == load_suite("searchllm").version


def test_items_over_the_per_item_ceilings_are_refused_quickly_by_name(server):
    url, item = server["url"], example_payload(1)[0]
    loop = {**item, "response": item["response"] + " The answer is yes." * 15_000}  # a repetition loop (~285 KB)
    docs = {**item, "evidence": [{"id": str(i), "text": "t"} for i in range(10_000)]}
    twice = [item, {**item}]
    for payload, field, words in ((loop, "items.0.response", "at most 100000 characters"),
                                  (docs, "items.0.evidence", "at most 512 items"),
                                  (twice, "items", "duplicate item ids: '" + item["id"] + "'")):
        reply = httpx.post(f"{url}/v1/score", json={"items": payload if isinstance(payload, list) else [payload]},
                           headers=AUTH, timeout=60)
        if payload is loop and reply.status_code == 413:  # the ingress's string-size limit may catch it first
            assert "items.0.response" in reply.json()["error"] and "limit" in reply.json()["error"], reply.text[:300]
            continue
        assert reply.status_code == 422, reply.text[:300]
        assert any(d["field"] == field and words in d["message"] for d in reply.json()["detail"]), reply.json()["detail"]
    assert httpx.post(f"{url}/v1/score", json={"items": [item]}, headers=AUTH, timeout=120).status_code == 200


def test_bad_input_gets_clear_errors_and_the_server_keeps_serving(server):
    url = server["url"]
    malformed = httpx.post(f"{url}/v1/score", content=b'{"items": [', headers=AUTH, timeout=30)
    assert malformed.status_code == 422 and "malformed JSON" in malformed.json()["error"]
    item = example_payload(1)[0]
    wrong_type = httpx.post(f"{url}/v1/score", json={"items": [{**item, "response": 42}]}, headers=AUTH, timeout=30)
    assert wrong_type.status_code == 422
    assert {"field": "items.0.response", "message": "Input should be a valid string"} in wrong_type.json()["detail"]
    unknown_field = httpx.post(f"{url}/v1/score", json={"items": [{**item, "colour": "red"}]}, headers=AUTH, timeout=30)
    assert unknown_field.json()["detail"][0] == {"field": "items.0.colour", "message": "unknown field"}
    unknown = httpx.post(f"{url}/v1/score", json={"suite": "serchllm", "items": [item]}, headers=AUTH, timeout=30)
    assert unknown.status_code == 404
    assert "did you mean 'searchllm'" in unknown.json()["error"]
    assert unknown.json()["known_suites"] == ["genrm", "searchllm", "searchllm-linear", "searchllm-monitor-claims", "searchllm-reasoning", "searchllm-sum"]
    too_many = httpx.post(f"{url}/v1/score", json={"items": [item] * 41}, headers=AUTH, timeout=30)
    assert too_many.status_code == 413 and "41 items exceed the limit of 40" in too_many.json()["error"]
    too_big = httpx.post(f"{url}/v1/score", json={"items": [{**item, "response": "x" * 500_000}]}, headers=AUTH, timeout=30)
    assert too_big.status_code == 413 and "exceeds the limit of 400000" in too_big.json()["error"]
    fine = httpx.post(f"{url}/v1/score", json={"items": [item]}, headers=AUTH, timeout=60)
    assert fine.status_code == 200 and fine.json()["results"][0]["id"] == item["id"]


def test_bearer_token_guards_every_route_of_the_app_but_healthz(server):
    """Enumerates the app's routes, so a route added later without the token check fails here."""
    from reward.serve import OPEN_ROUTES, api

    url = server["url"]
    assert OPEN_ROUTES == {"/healthz"}
    assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200
    def walk(routes):  # Serve moves the class's routes into an included router
        for route in routes:
            if hasattr(route, "original_router"):
                yield from walk(route.original_router.routes)
            else:
                yield route

    routes = [(route.path, method) for route in walk(api.routes) for method in sorted(getattr(route, "methods", None) or {"GET"})
              if method != "HEAD"]
    paths = {path for path, _ in routes}
    assert {"/docs", "/redoc", "/openapi.json", "/v1/score", "/metrics", "/dashboard", "/readyz"} <= paths, paths
    checked = []
    for path, method in routes:
        if path in OPEN_ROUTES:
            continue
        concrete = re.sub(r"\{[^}]+\}", "searchllm", path)
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": AUTH["Authorization"] + "x"},
                        {"Authorization": AUTH["Authorization"].replace("Bearer", "Basic")}):
            reply = httpx.request(method, f"{url}{concrete}", headers=headers, timeout=30)
            assert reply.status_code == 401, (method, path, headers, reply.status_code)
            assert reply.json()["error"] == "missing or wrong bearer token"
        checked.append(path)
    assert len(checked) == len(routes) - 1
    for path in ("/docs", "/redoc", "/openapi.json"):  # with the token they work
        assert httpx.get(f"{url}{path}", headers=AUTH, timeout=30).status_code == 200, path
    assert "/v1/score" in httpx.get(f"{url}/openapi.json", headers=AUTH, timeout=30).json()["paths"]


def test_suite_endpoints_describe_layers_weights_and_versions(server):
    url = server["url"]
    index = httpx.get(f"{url}/v1/suites", headers=AUTH, timeout=10).json()["suites"]
    assert [s["name"] for s in index] == ["genrm", "searchllm", "searchllm-linear", "searchllm-monitor-claims", "searchllm-reasoning", "searchllm-sum"]
    detail = httpx.get(f"{url}/v1/suites/searchllm", headers=AUTH, timeout=10).json()
    assert detail["aggregation"] == "gated" and detail["delta"] == 0.01 and len(detail["dimensions"]) == 20
    assert detail["gate_deltas"] == {} and detail["gate_exponents"] == {}
    layers = {d["name"]: d["layer"] for d in detail["dimensions"]}
    assert layers["format"] == "bottom_line" and layers["answer_firstness"] == "behavioral"
    control = httpx.get(f"{url}/v1/suites/searchllm-monitor-claims", headers=AUTH, timeout=10).json()["dimensions"]
    assert [(d["name"], d["weight"]) for d in control if d["monitor"]] == [("claim_hallucination", 0.0)]
    assert httpx.get(f"{url}/v1/suites/nope", headers=AUTH, timeout=10).status_code == 404


def test_metrics_export_per_dimension_histograms_and_counters(server):
    httpx.post(f"{server['url']}/v1/score", json={"items": example_payload(4)}, headers=AUTH, timeout=60)
    text = httpx.get(f"{server['url']}/metrics", headers=AUTH, timeout=10).text
    assert 'reward_dimension_score_bucket{dimension="claim_hallucination",le="1.0",suite="searchllm"}' in text
    assert 'reward_items_total{suite="searchllm",valid="true"}' in text
    assert "reward_requests_total" not in text and "reward_request_latency" not in text  # Ray Serve's own
    assert 'reward_judge_calls_total{outcome="deduped"}' in text
    assert "reward_judge_latency_seconds_count" in text


def test_score_log_survives_a_restart_with_every_item_exactly_once(server):
    url, log_dir = server["url"], server["log"]
    first = example_payload(6)
    assert httpx.post(f"{url}/v1/score", json={"items": first, "step": 10, "run": "restart"}, headers=AUTH, timeout=60).status_code == 200
    stop_server()
    start_server(server["args"], port=server["port"], num_cpus=2)
    second = [{**i, "id": f"after-{i['id']}"} for i in example_payload(6)]
    assert httpx.post(f"{url}/v1/score", json={"items": second, "step": 11, "run": "restart"}, headers=AUTH, timeout=60).status_code == 200
    records = [r for r in read_log(log_dir) if r.run == "restart"]
    ids = [r.result.id for r in records]
    assert sorted(ids) == sorted([i["id"] for i in first] + [i["id"] for i in second])
    assert {r.step for r in records} == {10, 11}
    assert all(r.item is not None and r.suite_version == load_suite("searchllm").version for r in records)


def test_dashboard_is_served_from_the_score_log(server):
    httpx.post(f"{server['url']}/v1/score", json={"items": example_payload(3), "step": 1, "run": "dash"}, headers=AUTH, timeout=60)
    page = httpx.get(f"{server['url']}/dashboard", headers=AUTH, timeout=60)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Reward training dynamics" in page.text and '"dash"' in page.text
    assert '"step_samples"' not in page.text and '"samples_url":"dashboard/samples"' in page.text
    assert httpx.get(f"{server['url']}/dashboard", timeout=10).status_code == 401
    # A click asks for the step's samples.
    samples = httpx.get(f"{server['url']}/dashboard/samples", params={"run": "dash", "step": 1}, headers=AUTH, timeout=30)
    assert samples.status_code == 200 and samples.json()["records"] == 3
    assert {i["id"] for i in samples.json()["items"]} <= {i["id"] for i in example_payload(3)}
    missing = httpx.get(f"{server['url']}/dashboard/samples", params={"run": "dash", "step": 99}, headers=AUTH, timeout=30)
    assert missing.status_code == 404 and "step 99" in missing.json()["error"]
    assert httpx.get(f"{server['url']}/dashboard/samples", params={"run": "dash"}, headers=AUTH, timeout=30).status_code == 422
    # With a channel: one page of all the step's items ranked for it, searchable by id; a bad page size is a 422.
    paged = httpx.get(f"{server['url']}/dashboard/samples", headers=AUTH, timeout=30,
                      params={"run": "dash", "step": 1, "channel": "reward", "limit": 2})
    assert paged.status_code == 200 and paged.json()["total"] == 3 and len(paged.json()["channels"]["reward"]) == 2
    first = example_payload(3)[0]["id"]
    found = httpx.get(f"{server['url']}/dashboard/samples", headers=AUTH, timeout=30,
                      params={"run": "dash", "step": 1, "channel": "reward", "q": first})
    matched = [found.json()["items"][s["item"]]["id"] for s in found.json()["channels"]["reward"]]
    assert first in matched and all(first in key for key in matched) and len(matched) < 3
    bad = httpx.get(f"{server['url']}/dashboard/samples", headers=AUTH, timeout=30,
                    params={"run": "dash", "step": 1, "channel": "reward", "limit": 0})
    assert bad.status_code == 422 and "limit" in bad.json()["error"]

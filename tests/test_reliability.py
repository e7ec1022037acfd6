"""Failures are data: judge faults injected at random over real HTTP, and fuzzed bad input against the real server.

Every accepted item gets a result; an unscored dimension has no number and a reason; `valid` is false exactly
when a bottom-line dimension is unscored; an invalid item carries its group's mean reward; the score log has every
item exactly once. Bad input of any shape is a 4xx with a message, never a 500, and the server keeps serving.
"""

import json
import random

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reward.engine import Engine
from reward.judges.mock_server import MockJudgeServer, MockReply, best_label
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge
from reward.rubric import load_suite
from reward.schema import Item
from reward.scorelog import ScoreLog, read_log
from tests.support import AUTH, EXAMPLES

FAULTS = ("ok", "500", "429", "garbage", "out_of_scale", "hang")


def faulty(suite, seed=0, rate=0.3):
    rng = random.Random(seed)
    top = best_label(suite)
    chosen = {}

    def script(call):
        key = (call.item, call.dimension)
        if key not in chosen:  # the fault is sticky per call, so retries meet it too
            chosen[key] = rng.choice(FAULTS[1:]) if rng.random() < rate else "ok"
        fault = chosen[key]
        if fault == "500":
            return MockReply(status=500)
        if fault == "429":
            return MockReply(status=429)
        if fault == "garbage":
            return MockReply(text="¯\\_(ツ)_/¯ no idea")
        if fault == "out_of_scale":
            if suite.dimensions[call.dimension].judge.output == "json":
                return MockReply(text='{"reasoning": "x", "label": "11", "quotes": []}')
            return MockReply(text="<think>x</think><score>11</score>")
        if fault == "hang":
            return MockReply(text="<score>1</score>", delay_s=6.0)
        return top(call)

    return script, chosen


def test_injected_judge_faults_are_unscored_never_zero_and_logged_once(tmp_path):
    suite = load_suite("searchllm")
    items = [Item.model_validate(json.loads(l)) for l in EXAMPLES.read_text().splitlines() if l.strip()]
    script, chosen = faulty(suite)
    with MockJudgeServer(suite, script) as url:
        judge = OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=url, model="mock-judge", timeout_s=2.5, max_concurrency=16,
                                                           max_retries=1, backoff_s=0.01)], parse_retries=1))
        results = Engine(suite, judge).score_sync(items)
    log = ScoreLog(tmp_path)
    log.append(items, results, suite=suite.name, suite_version=suite.version, step=0)
    log.close()
    assert [r.id for r in results] == [i.id for i in items]
    expected_reason = {"500": "server_error", "429": "rate_limited", "garbage": "unparseable",
                       "out_of_scale": "label_out_of_scale", "hang": "judge_timeout"}
    faults_seen = set()
    for item, result in zip(items, results, strict=True):
        bottom_unscored = False
        for name, score in result.dimensions.items():
            fault = chosen.get((item.id, name), "ok")
            if score.status == "unscored":
                assert score.score is None and score.reason
                if fault != "ok":
                    assert score.reason == expected_reason[fault]
                    faults_seen.add(fault)
                bottom_unscored |= score.layer == "bottom_line"
            else:
                assert 0.0 <= score.score <= 1.0
        assert result.valid is not bottom_unscored
    assert faults_seen >= {"500", "garbage", "out_of_scale", "hang"}
    by_group = {}
    for item, result in zip(items, results, strict=True):
        if item.group and result.valid:
            by_group.setdefault(item.group, []).append(result.reward)
    for item, result in zip(items, results, strict=True):
        if not result.valid and by_group.get(item.group):
            assert result.reward == pytest.approx(sum(by_group[item.group]) / len(by_group[item.group]))
    logged = [r.result.id for r in read_log(tmp_path)]
    assert sorted(logged) == sorted(i.id for i in items) and len(set(logged)) == len(logged)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=10,
)
item_like = st.fixed_dictionaries(
    {},
    optional={"id": json_values, "query": json_values, "response": json_values, "group": json_values,
              "history": json_values, "evidence": json_values, "now": json_values, "extra": json_values},
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=st.one_of(json_values, st.fixed_dictionaries({"items": st.lists(item_like, max_size=3)},
                                                         optional={"suite": json_values, "step": json_values, "run": json_values})))
def test_fuzzed_request_bodies_get_4xx_never_5xx(server, body):
    reply = httpx.post(f"{server['url']}/v1/score", json=body, headers=AUTH, timeout=60)
    assert reply.status_code in (200, 404, 413, 422), reply.text
    if reply.status_code != 200:
        assert reply.json()["error"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
def test_fuzzed_raw_bytes_get_4xx_and_the_server_keeps_serving(server, raw):
    reply = httpx.post(f"{server['url']}/v1/score", content=raw, headers=AUTH, timeout=60)
    assert reply.status_code in (200, 404, 413, 422)
    assert httpx.get(f"{server['url']}/healthz", timeout=10).status_code == 200

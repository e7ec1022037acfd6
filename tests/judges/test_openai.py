"""The openai backend through real HTTP against the scripted mock server: retries, timeouts, 5xx, 429, garbage,
out-of-scale labels, logprobs, group affinity and failover."""

import math
import time

import pytest

from reward.engine import Engine
from reward.judges.mock_server import MockJudgeServer, MockReply
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge
from tests.support import make_item

GOOD = "It is free on Spotify's free tier [Doc 1]."


def judge_for(*urls, **endpoint):
    settings = {"model": "mock-judge", "timeout_s": 2.0, "max_retries": 2, "backoff_s": 0.01, **endpoint}
    return OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=u, **settings) for u in urls], parse_retries=1))


def reply_by(mapping):
    def script(call):
        answer = mapping.get(call.dimension)
        if callable(answer):
            return answer(call)
        if answer is None:
            label = "2" if call.dimension == "useful" else "1"
            quote = '<quote doc="1">now streaming on Spotify</quote>' if call.dimension == "grounded" else ""
            if call.dimension == "evidence_fit":
                return '{"reasoning": "fits", "label": "1", "quotes": []}'
            return f"<think>ok</think>{quote}<score>{label}</score>"
        return answer

    return script


def score_one(suite, judge, item=None):
    return Engine(suite, judge).score_sync([item or make_item("a", GOOD)])[0]


def test_scores_through_real_http(mini_suite):
    with MockJudgeServer(mini_suite, reply_by({})) as url:
        result = score_one(mini_suite, judge_for(url))
    assert result.valid and result.reward == pytest.approx(1.0)
    assert result.dimensions["useful"].backend == "openai:mock-judge"
    assert result.dimensions["grounded"].quotes[0].verified


def test_5xx_and_429_are_retried_then_succeed(mini_suite):
    def flaky(call):
        return MockReply(status=503 if call.attempt == 1 else 429) if call.attempt < 3 else MockReply(text="<score>2</score>")

    with MockJudgeServer(mini_suite, reply_by({"useful": flaky})) as url:
        result = score_one(mini_suite, judge_for(url))
    assert result.dimensions["useful"].score == 1.0


def test_timeouts_exhaust_retries_and_become_unscored(mini_suite):
    server = MockJudgeServer(mini_suite, reply_by({"useful": lambda call: MockReply(text="<score>2</score>", delay_s=5)}))
    with server as url:
        result = score_one(mini_suite, judge_for(url, timeout_s=0.3, max_retries=1))
    useful = result.dimensions["useful"]
    assert useful.status == "unscored" and useful.reason == "judge_timeout" and useful.score is None
    assert server.attempts[("a", "useful")] == 2
    # Neither zeroed nor silently dropped: the item is invalid (masked, zero advantage) with the reason.
    assert not result.valid and result.reason == "behavioral unscored: useful (judge_timeout)"
    assert "useful" not in result.excluded


def test_persistent_server_errors_invalidate_a_bottom_line_item(mini_suite):
    with MockJudgeServer(mini_suite, reply_by({"grounded": MockReply(status=500)})) as url:
        result = score_one(mini_suite, judge_for(url, max_retries=1))
    assert result.dimensions["grounded"].reason == "server_error"
    assert not result.valid and "grounded (server_error)" in result.reason


def test_garbage_is_retried_then_unscored_with_the_raw_reply(mini_suite):
    with MockJudgeServer(mini_suite, reply_by({"useful": "I think it is pretty good!"})) as url:
        result = score_one(mini_suite, judge_for(url))
    useful = result.dimensions["useful"]
    assert useful.reason == "unparseable" and useful.raw == "I think it is pretty good!"


def test_out_of_scale_label_is_rejected(mini_suite):
    with MockJudgeServer(mini_suite, reply_by({"useful": "<think>great</think><score>10</score>"})) as url:
        result = score_one(mini_suite, judge_for(url))
    assert result.dimensions["useful"].reason == "label_out_of_scale"


def test_logprobs_give_the_probability_weighted_score(mini_suite):
    weighted = MockReply(text="<think>x</think><score>2</score>", label_probs={"2": 0.6, "1": 0.3, "0": 0.1})
    with MockJudgeServer(mini_suite, reply_by({"useful": weighted})) as url:
        result = score_one(mini_suite, judge_for(url, logprobs=True))
    assert result.dimensions["useful"].score == pytest.approx(0.6 * 1.0 + 0.3 * 0.5)
    assert result.dimensions["useful"].label == "2"


def test_groups_stick_to_one_endpoint_and_fail_over_when_it_is_down(mini_suite):
    first, second = MockJudgeServer(mini_suite, reply_by({})), MockJudgeServer(mini_suite, reply_by({}))
    with first as url_a, second as url_b:
        judge = judge_for(url_a, url_b)
        items = [make_item(f"{g}-{i}", f"Answer {i} for {g} [Doc 1].", group=g) for g in ("g1", "g2", "g3", "g4", "g5", "g6") for i in range(2)]
        Engine(mini_suite, judge).score_sync(items)
        seen = {}
        for server in (first, second):
            for call in server.calls:
                seen.setdefault(call.group, set()).add(server.port)
        assert all(len(ports) == 1 for ports in seen.values())
        assert len({p for ports in seen.values() for p in ports}) == 2  # both endpoints used
    dead = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    with MockJudgeServer(mini_suite, reply_by({})) as url:
        judge = judge_for(dead, url, max_retries=0)
        results = Engine(mini_suite, judge).score_sync(
            [make_item(f"x{i}", f"Answer {i} [Doc 1].", group=f"grp{i}") for i in range(6)])
    assert all(r.valid for r in results)


def test_config_errors_name_the_file_and_key(tmp_path):
    bad = tmp_path / "judge.yaml"
    bad.write_text("endpoints:\n  - base_url: http://x/v1\n    modle: m\n")
    with pytest.raises(ValueError, match=r"judge.yaml: .*key 'endpoints.0.model': Field required"):
        OpenAIJudge.from_config(bad)


def test_bundled_configs_load(monkeypatch):
    from tests.support import ROOT

    monkeypatch.setenv("JUDGE_HOSTS", "judge-{0..3}.judge")  # vllm.yaml takes its hosts from the deployment
    from reward.judges.cascade import CascadeJudge
    from reward.judges.factory import make_judge

    for path in (ROOT / "configs" / "judges").glob("*.yaml"):
        judge = make_judge(str(path))
        if isinstance(judge, CascadeJudge):  # a cascade config names an endpoint config for its LLM tier
            judge = judge.llm
        assert judge.config.endpoints


def test_reward_score_uses_a_configured_endpoint(tmp_path):
    import json

    from reward.cli import main
    from tests.support import EXAMPLES

    with MockJudgeServer("searchllm") as url:
        config = tmp_path / "judge.yaml"
        config.write_text(f"endpoints:\n  - base_url: {url}\n    model: mock-judge\n    timeout_s: 10\n")
        out = tmp_path / "out.jsonl"
        assert main(["score", "--judge", str(config), "--input", str(EXAMPLES), "--output", str(out), "-q"]) == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["dimensions"]["claim_hallucination"]["backend"] == "openai:mock-judge" for r in results)
    assert all(r["dimensions"]["claim_hallucination"]["status"] == "ok" for r in results)


def test_logprobs_are_read_at_the_verdict_not_in_the_reasoning(mini_suite):
    # A reasoning model may write the marker while thinking; the label probabilities are those of the verdict.
    text = "<think>Is it <score>0</score>? No, it fits.</think><score>2</score>"
    reply = MockReply(text=text, label_probs={"2": 0.5, "1": 0.5})
    with MockJudgeServer(mini_suite, reply_by({"useful": reply})) as url:
        result = score_one(mini_suite, judge_for(url, logprobs=True))
    assert result.dimensions["useful"].score == pytest.approx(0.5 * 1.0 + 0.5 * 0.5)


def test_label_probs_handle_merged_tokens_and_multi_token_labels(mini_suite):
    from openai.types.chat.chat_completion_token_logprob import ChatCompletionTokenLogprob, TopLogprob

    from reward.judges.base import JudgeRequest
    from reward.judges.openai_judge import label_probs
    from policy.format import parse_response

    def logprobs(tokens, at, tops):
        return type("L", (), {"content": [ChatCompletionTokenLogprob(
            token=t, logprob=0.0, top_logprobs=[TopLogprob(token=k, logprob=v) for k, v in (tops if i == at else [])])
            for i, t in enumerate(tokens)]})()

    item = make_item("a", GOOD)
    useful = JudgeRequest(mini_suite.dimensions["useful"], item, parse_response(item.response))
    # `>2` is one token: the alternatives are read after the same `>`; `>x` is no label and is dropped.
    merged = logprobs(["<think>ok</think>", "<score", ">2", "</score>"], 2, [(">2", -0.5), (">1", -1.5), (">x", -2.0), ("2", -3.0)])
    probs = label_probs(merged, useful)
    assert set(probs) == {"2", "1"} and probs["2"] == pytest.approx(math.exp(-0.5))
    # JSON with a number label, split as `": ` then `1`.
    fit = JudgeRequest(mini_suite.dimensions["evidence_fit"], item, parse_response(item.response))
    json_probs = label_probs(logprobs(['{"reasoning": "x", "', 'label', '": ', '1', '}'], 3, [("1", -0.1), ("0", -2.3)]), fit)
    assert json_probs == pytest.approx({"1": math.exp(-0.1), "0": math.exp(-2.3)})
    assert label_probs(logprobs(["no verdict here"], 0, []), useful) is None


def test_retry_after_of_a_429_is_honoured(mini_suite):
    def limited(call):
        if call.attempt == 1:
            return MockReply(status=429, headers={"Retry-After": "0.5"})
        return MockReply(text="<score>2</score>")

    with MockJudgeServer(mini_suite, reply_by({"useful": limited})) as url:
        started = time.perf_counter()
        result = score_one(mini_suite, judge_for(url, backoff_s=0.001))
        elapsed = time.perf_counter() - started
    assert result.dimensions["useful"].score == 1.0
    assert elapsed >= 0.5  # backoff alone would have waited at most 1 ms


def test_a_failing_endpoint_is_skipped_after_one_call_fails_over(mini_suite):
    broken = MockJudgeServer(mini_suite, lambda call: MockReply(status=503))
    healthy = MockJudgeServer(mini_suite, reply_by({}))
    with broken as url_bad, healthy as url_good:
        judge = judge_for(url_bad, url_good, max_retries=1)
        items = [make_item(f"x{i}", f"Answer {i} [Doc 1].", group=f"grp{i}") for i in range(8)]
        results = Engine(mini_suite, judge, max_concurrency=1).score_sync(items)
    assert all(r.valid for r in results)
    assert len(broken.calls) == 2  # the first call pinned there (and its retry); later calls went elsewhere first
    assert judge.down_until[0] > 0 and judge.down_until[1] == 0


def test_injected_faults_for_all_calls(mini_suite):
    from reward.judges.mock_server import Faults

    with MockJudgeServer(mini_suite, reply_by({}), faults=Faults(garbage_rate=1.0)) as url:
        result = score_one(mini_suite, judge_for(url))
    assert all(s.reason == "unparseable" and "seven out of ten" in s.raw
               for n, s in result.dimensions.items() if n != "format")
    server = MockJudgeServer(mini_suite, reply_by({}), faults=Faults(hang_rate=1.0, hang_s=3))
    with server as url:
        result = score_one(mini_suite, judge_for(url, timeout_s=0.2, max_retries=0))
    assert result.dimensions["useful"].reason == "judge_timeout"
    with pytest.raises(ValueError, match="hang_rate"):
        Faults(hang_rate=1.5)


def test_injected_faults_for_a_share_of_calls_are_retried_away(mini_suite):
    from reward.judges.mock_server import Faults

    faults = Faults(server_error_rate=0.3, rate_limit_rate=0.2, garbage_rate=0.2, seed=7)
    server = MockJudgeServer(mini_suite, reply_by({}), faults=faults)
    with server as url:
        items = [make_item(f"f{i}", f"Answer {i} [Doc 1].", group=f"f{i}") for i in range(10)]
        # One call (evidence_fit reads no response) is shared by all ten items, so its failure would invalidate
        # every one: a transport attempt fails with p 0.44 here, and 13 attempts per completion make a call that
        # never gets through (about 1e-4 over its parse retries) too rare to flake, whatever order calls arrive in.
        endpoint = Endpoint(base_url=url, model="mock-judge", max_retries=12, backoff_s=0.0001, backoff_max_s=0.01)
        judge = OpenAIJudge(JudgeConfig(endpoints=[endpoint], parse_retries=4))
        results = Engine(mini_suite, judge).score_sync(items)
    planned = sum(1 for r in results for n in ("useful", "grounded", "evidence_fit"))
    assert len(server.calls) > planned  # some calls failed and were retried
    assert sum(r.valid for r in results) >= 9


def test_dimension_is_found_from_the_prompt_without_tracing_headers(mini_suite):
    import httpx

    from reward.judges.base import JudgeRequest
    from reward.judges.prompt import render_messages
    from policy.format import parse_response

    item = make_item("a", GOOD)
    messages = render_messages(JudgeRequest(mini_suite.dimensions["evidence_fit"], item, parse_response(item.response)))
    server = MockJudgeServer(mini_suite, reply_by({}))
    with server as url:
        body = httpx.post(f"{url}/chat/completions", json={"model": "mock-judge", "messages": messages}).json()
    assert server.calls[0].dimension == "evidence_fit"
    assert '"label": "1"' in body["choices"][0]["message"]["content"]


def test_on_disk_cache_is_not_shared_between_judges(mini_suite, tmp_path):
    from reward.engine import SqliteReplyCache
    from reward.judges.mock import ScriptedJudge

    path = str(tmp_path / "replies.sqlite")
    Engine(mini_suite, ScriptedJudge(), cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])
    server = MockJudgeServer(mini_suite, reply_by({}))
    with server as url:
        result = Engine(mini_suite, judge_for(url), cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])[0]
        assert len(server.calls) == 3 and result.dimensions["useful"].backend == "openai:mock-judge"
        # Another model behind the same URL is another judge.
        Engine(mini_suite, judge_for(url, model="other"), cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])
        assert len(server.calls) == 6
        # The same judge again is served from disk.
        Engine(mini_suite, judge_for(url), cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])
        assert len(server.calls) == 6


def test_a_reply_is_re_asked_at_a_higher_temperature(mini_suite):
    server = MockJudgeServer(mini_suite, reply_by({"useful": lambda call: "no verdict" if call.attempt == 1 else "<score>2</score>"}))
    with server as url:
        result = score_one(mini_suite, judge_for(url))
    assert result.dimensions["useful"].score == 1.0
    assert [c.temperature for c in server.calls if c.dimension == "useful"] == [0.0, 0.7]


def test_calls_in_flight_are_spread_over_pools_of_bounded_size(mini_suite):
    """An endpoint's calls go to the least busy of several connection pools, none above POOL_CONNECTIONS."""
    from reward.judges import openai_judge

    peak, used = [], [0, 0]

    def slow(call):
        return MockReply(text="<score>2</score>", delay_s=0.3)

    items = [make_item(f"r{i}", GOOD + f" Variant {i}.") for i in range(12)]
    with MockJudgeServer(mini_suite, reply_by({"useful": slow})) as url:
        judge = judge_for(url, max_concurrency=2 * openai_judge.POOL_CONNECTIONS)
        assert len(judge.clients[0]) == 2

        def watch(pool, create):
            async def watched(*args, **kwargs):
                used[pool] += 1
                peak.append(max(judge.in_flight[0]))
                return await create(*args, **kwargs)
            return watched

        for pool, client in enumerate(judge.clients[0]):
            client.chat.completions.create = watch(pool, client.chat.completions.create)
        results = Engine(mini_suite, judge).score_sync(items)
    assert all(r.valid for r in results)
    assert min(used) > 0 and max(peak) <= openai_judge.POOL_CONNECTIONS
    assert judge.in_flight[0] == [0, 0]

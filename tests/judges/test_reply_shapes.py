"""Reasoning-model reply shapes through real HTTP (the scripted mock server): reasoning in `reasoning_content` or in
`<think>`, a reply cut at `max_tokens`, prose around the JSON, garbage and HTTP errors each end with the expected
status and reason; structured outputs send the verdict schema; prompts are counted against the judge's context."""

import json

import pytest

from reward.engine import Engine
from reward.judges.base import JudgeRequest
from reward.judges.mock_server import MockJudgeServer, MockReply, reply_shape
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge
from reward.judges.structured import verdict_schema
from policy.format import parse_response
from tests.support import make_item

GOOD = "It is free on Spotify's free tier [Doc 1]."
QUOTE = ("1", "now streaming on Spotify")


def judge_for(url, parse_retries=1, **endpoint):
    settings = {"model": "mock-judge", "timeout_s": 5.0, "max_retries": 1, "backoff_s": 0.01, **endpoint}
    return OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=url, **settings)], parse_retries=parse_retries))


def shaped(shape, dimension="useful"):
    """Script: `dimension` answers in `shape`; the others answer well-formed verdicts."""

    def script(call):
        if call.dimension == dimension:
            output = "json" if dimension == "evidence_fit" else "tags"
            return reply_shape(shape, "2" if dimension == "useful" else "1", output, QUOTE if dimension == "grounded" else None)
        if call.dimension == "evidence_fit":
            return '{"reasoning": "fits", "label": "1", "quotes": []}'
        quote = f'<quote doc="1">{QUOTE[1]}</quote>' if call.dimension == "grounded" else ""
        return f"<think>ok</think>{quote}<score>{'2' if call.dimension == 'useful' else '1'}</score>"

    return script


def score_with(mini_suite, script, **endpoint):
    server = MockJudgeServer(mini_suite, script)
    with server as url:
        result = Engine(mini_suite, judge_for(url, **endpoint)).score_sync([make_item("a", GOOD)])[0]
    return result, server


@pytest.mark.parametrize("shape, dimension, status, reason, score", [
    ("reasoning_field", "useful", "ok", None, 1.0),
    ("reasoning_field", "grounded", "ok", None, 1.0),
    ("reasoning_field", "evidence_fit", "ok", None, 1.0),
    ("think_block", "useful", "ok", None, 1.0),
    ("think_block", "evidence_fit", "ok", None, 1.0),
    ("prose_json", "evidence_fit", "ok", None, 1.0),
    ("truncated", "useful", "unscored", "truncated", None),
    ("garbage", "useful", "unscored", "unparseable", None),
    ("server_error", "useful", "unscored", "server_error", None),
    ("rate_limited", "useful", "unscored", "rate_limited", None),
    ("bad_request", "useful", "unscored", "bad_request", None),
])
def test_each_reply_shape_ends_with_its_status_and_reason(mini_suite, shape, dimension, status, reason, score):
    result, server = score_with(mini_suite, shaped(shape, dimension))
    verdict = result.dimensions[dimension]
    assert (verdict.status, verdict.reason, verdict.score) == (status, reason, score)
    others = [d for n, d in result.dimensions.items() if n not in (dimension, "format")]
    assert all(d.status == "ok" for d in others)
    if shape == "reasoning_field" and dimension != "evidence_fit":  # JSON verdicts keep their own "reasoning"
        assert "draft label" in verdict.explanation  # the separate reasoning is kept as the explanation
    if shape in ("truncated", "garbage"):
        assert verdict.raw  # the raw reply is kept
    if shape == "truncated":
        # Not re-asked (the same budget would cut it again), and the tokens it spent are kept.
        assert server.attempts[("a", dimension)] == 1
        assert verdict.usage.completion_tokens > 0 and verdict.usage.calls == 1
        assert verdict.raw.startswith("<think>Checking claim 1")


def test_usage_is_summed_over_re_asks_with_cached_tokens(mini_suite):
    def script(call):
        if call.dimension == "useful":
            return "no verdict" if call.attempt == 1 else "<think>ok</think><score>1</score>"
        return shaped("think_block", "none")(call)

    result, _ = score_with(mini_suite, script)
    useful = result.dimensions["useful"]
    assert useful.score == 0.5 and useful.usage.calls == 2
    assert useful.usage.prompt_tokens > 0 and useful.usage.cached_tokens > 0  # the mock reports prefix-cache hits


def test_a_label_only_in_the_reasoning_field_is_not_a_verdict(mini_suite):
    # vLLM's parser put everything in reasoning_content (the model never closed its reasoning): no verdict.
    reply = MockReply(text="", reasoning="The answer is useful. <score>2</score>")
    result, _ = score_with(mini_suite, lambda c: reply if c.dimension == "useful" else shaped("x", "none")(c))
    useful = result.dimensions["useful"]
    assert useful.status == "unscored" and useful.reason == "unparseable"
    assert useful.raw == "<think>The answer is useful. <score>2</score></think>"


def test_an_unclosed_think_block_is_no_verdict(mini_suite):
    reply = MockReply(text="<think>Maybe <score>2</score> since it cites Doc 1")
    result, _ = score_with(mini_suite, lambda c: reply if c.dimension == "useful" else shaped("x", "none")(c))
    assert result.dimensions["useful"].reason == "unparseable"


def test_prose_with_conflicting_json_labels_is_unparseable(mini_suite):
    text = 'Maybe {"label": "0"} or rather {"reasoning": "fits", "label": "1", "quotes": []}'
    result, _ = score_with(mini_suite, lambda c: text if c.dimension == "evidence_fit" else shaped("x", "none")(c))
    assert result.dimensions["evidence_fit"].reason == "unparseable"


def test_the_score_says_whether_it_came_from_logprobs(mini_suite):
    weighted = MockReply(text="<think>x</think><score>2</score>", label_probs={"2": 0.6, "1": 0.4})

    def script(call):
        return weighted if call.dimension == "useful" else shaped("x", "none")(call)

    result, _ = score_with(mini_suite, script, logprobs=True)
    assert result.dimensions["useful"].score_source == "label_probs"
    assert result.dimensions["useful"].score == pytest.approx(0.6 + 0.4 * 0.5)
    result, _ = score_with(mini_suite, script)  # logprobs not requested
    assert result.dimensions["useful"].score_source == "label" and result.dimensions["useful"].score == 1.0


def test_requested_logprobs_that_do_not_come_back_are_flagged_label_fallback(mini_suite):
    from reward.judges.base import Completion
    from reward.judges.parse import parse_reply

    item = make_item("a", GOOD)
    request = JudgeRequest(mini_suite.dimensions["useful"], item, parse_response(item.response))
    parsed = parse_reply(Completion(text="<score>2</score>", logprobs_requested=True, label_probs=None), request)
    assert parsed.score == 1.0 and parsed.score_source == "label_fallback"


def test_structured_outputs_send_the_verdict_schema_and_ask_for_json(mini_suite):
    def script(call):
        schema = (call.response_format or {}).get("json_schema", {}).get("schema")
        label = schema["properties"]["label"]["enum"][-1]
        quotes = []
        if "quotes" in schema["properties"]:
            choice = schema["properties"]["quotes"]["items"]["anyOf"][0]["properties"]
            quotes = [{"doc": choice["doc"]["const"], "text": choice["text"]["enum"][1]}]
        return json.dumps({"reasoning": "constrained", "label": label, "quotes": quotes})

    result, server = score_with(mini_suite, script, structured_outputs="json_schema", reasoning_max_chars=300)
    judged = [c for c in server.calls]
    assert len(judged) == 3 and all(c.response_format["type"] == "json_schema" for c in judged)
    assert all('"label"' in c.messages[-1]["content"] for c in judged)  # the JSON contract was asked for
    assert all(result.dimensions[n].status == "ok" for n in ("useful", "grounded", "evidence_fit"))
    assert result.dimensions["useful"].score == 1.0
    assert result.dimensions["grounded"].quotes[0].verified


def test_verdict_schema_constrains_label_and_verbatim_quotes(mini_suite):
    item = make_item("a", GOOD)
    grounded = verdict_schema(JudgeRequest(mini_suite.dimensions["grounded"], item, parse_response(item.response)), 200)
    assert grounded["properties"]["label"]["enum"] == ["0", "1"]
    assert grounded["properties"]["reasoning"]["maxLength"] == 200
    assert grounded["properties"]["quotes"]["minItems"] == 1
    docs = grounded["properties"]["quotes"]["items"]["anyOf"]
    assert [d["properties"]["doc"]["const"] for d in docs] == ["1", "2", "3"]
    assert "Peach Egg succulents need bright light and little water." in docs[2]["properties"]["text"]["enum"]
    useful = verdict_schema(JudgeRequest(mini_suite.dimensions["useful"], item, parse_response(item.response)))
    assert "quotes" not in useful["properties"] and "maxLength" not in useful["properties"]["reasoning"]


def test_llamacpp_style_sends_a_json_object_with_schema(mini_suite):
    result, server = score_with(mini_suite, lambda c: '{"reasoning": "r", "label": "1", "quotes": []}'
                                if c.dimension != "grounded" else
                                json.dumps({"reasoning": "r", "label": "1", "quotes": [{"doc": "1", "text": QUOTE[1]}]}),
                                structured_outputs="llamacpp")
    formats = [c.response_format for c in server.calls]
    assert all(f["type"] == "json_object" and f["schema"]["properties"]["label"]["enum"] for f in formats)


def test_a_prompt_too_long_for_the_context_is_unscored_before_any_call(mini_suite):
    server = MockJudgeServer(mini_suite, shaped("x", "none"), max_model_len=200)
    with server as url:
        result = Engine(mini_suite, judge_for(url, count_tokens="server", max_tokens=64)).score_sync([make_item("a", GOOD)])[0]
    useful = result.dimensions["useful"]
    assert useful.status == "unscored" and useful.reason == "context_overflow"
    assert "exceeds the judge's context of 200 tokens" in useful.explanation
    assert server.calls == [] and server.tokenize_calls == 3  # counted, never sent
    # With room for it, the same prompts are counted and sent.
    server = MockJudgeServer(mini_suite, shaped("x", "none"), max_model_len=32768)
    with server as url:
        result = Engine(mini_suite, judge_for(url, count_tokens="server", max_tokens=64)).score_sync([make_item("a", GOOD)])[0]
    assert result.dimensions["useful"].status == "ok" and server.tokenize_calls == 3 and len(server.calls) == 3


def test_context_tokens_in_the_config_override_the_server(mini_suite):
    server = MockJudgeServer(mini_suite, shaped("x", "none"), max_model_len=32768)
    with server as url:
        result = Engine(mini_suite, judge_for(url, count_tokens="server", context_tokens=100)).score_sync([make_item("a", GOOD)])[0]
    # A prompt over the judge's context can be the response's doing (a long answer): the dimension fails, never pays.
    grounded = result.dimensions["grounded"]
    assert grounded.reason == "context_overflow" and "scored as failed (0)" in grounded.explanation
    assert result.gate < 0.2

import asyncio

import pytest

from reward.aggregate import gate
from reward.engine import Engine
from reward.judges.base import JudgeTransportError
from reward.judges.mock import ScriptedJudge, by_dimension, tag_reply
from reward.judges.base import Judge, JudgeReply
from reward.rubric import load_suite
from tests.support import EVIDENCE, FIXTURE_RUBRICS, make_item

GOOD = "It is free on Spotify's free tier [Doc 1]."
QUOTE = (EVIDENCE[0].id, "now streaming on Spotify")


def grounded_ok(request, attempt):
    return tag_reply("1", quote=QUOTE)


def test_rewards_follow_the_gated_formula(mini_suite):
    script = by_dimension({"grounded": tag_reply("1", quote=QUOTE), "useful": tag_reply("1")})
    [result] = Engine(mini_suite, ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    dims = result.dimensions
    assert result.valid and dims["useful"].score == 0.5 and dims["grounded"].quotes[0].verified
    b = gate([dims["grounded"].score, dims["format"].score], 0.01)
    u = (3 * 0.5 + 1 * dims["evidence_fit"].score) / 4
    assert result.gate == pytest.approx(b) and result.utility == pytest.approx(u)
    assert result.reward == pytest.approx(b * u)


def test_duplicate_rollouts_and_evidence_only_dimensions_are_judged_once(mini_suite):
    judge = ScriptedJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE)}))
    engine = Engine(mini_suite, judge)
    items = [make_item("a", GOOD), make_item("b", GOOD), make_item("c", "Spotify has it for free [Doc 1].")]
    results = engine.score_sync(items)
    calls = [(item_id, dim) for item_id, dim, _ in judge.calls]
    # a and b are identical: 3 judge dimensions once for them; c differs in its answer only, so evidence_fit is reused.
    assert sorted(d for _, d in calls) == sorted(["grounded", "useful", "evidence_fit", "grounded", "useful"])
    assert results[0].model_dump() == {**results[1].model_dump(), "id": "a"}
    assert engine.stats.judge_calls_deduped == 4 and engine.stats.judge_calls_made == 5
    engine.score_sync(items)
    assert engine.stats.judge_cache_hits == 5 and len(judge.calls) == 5


def test_a_judge_that_reads_the_whole_response_never_shares_a_score_across_answers(mini_suite):
    """The local tier's methods read beyond a dimension's declared inputs (planning_quality's reads the answer), so
    its calls are keyed by the whole response: an evidence-only dimension is not reused for another answer, and an
    item's scores do not depend on what it was batched with. Identical rollouts are still judged once."""

    class WholeResponseJudge(ScriptedJudge):
        reads_whole_response = True

    judge = WholeResponseJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE)}))
    engine = Engine(mini_suite, judge)
    items = [make_item("a", GOOD), make_item("b", GOOD), make_item("c", "Spotify has it for free [Doc 1].")]
    engine.score_sync(items)
    assert sorted(d for _, d, _ in judge.calls) == sorted(["grounded", "useful", "evidence_fit"] * 2)
    assert engine.stats.judge_calls_deduped == 3 and engine.stats.judge_calls_made == 6


def test_unparseable_replies_are_retried_then_unscored_with_the_raw_reply(mini_suite):
    script = by_dimension({"grounded": ["no verdict here", "<score>7</score>", "still nothing"]})
    [result] = Engine(mini_suite, ScriptedJudge(script, parse_retries=2)).score_sync([make_item("a", GOOD, group=None)])
    grounded = result.dimensions["grounded"]
    assert grounded.status == "unscored" and grounded.score is None
    assert grounded.reason == "unparseable" and grounded.raw == "still nothing"
    # A reply the response can provoke into nonsense is a failed dimension, not a pass: the gate takes it as 0.
    assert result.valid and "scored as failed (0)" in grounded.explanation
    assert result.gate == pytest.approx(gate([0.0, result.dimensions["format"].score], 0.01))


def _reward_with(mini_suite, reason: str, layer_dimension: str, *, items=None):
    class Failing(Judge):
        name = "failing"

        async def judge(self, request):
            if request.item.id == "x" and request.dimension.name == layer_dimension:
                return JudgeReply.unscored(self.name, reason)
            return JudgeReply(backend=self.name, score=1.0, label="1")

    items = items or [make_item("x", GOOD), make_item("y", "Free on Spotify [Doc 1].")]
    return {r.id: r for r in Engine(mini_suite, Failing()).score_sync(items)}


@pytest.mark.parametrize("reason", ["unparseable", "label_out_of_scale", "truncated", "template_echo", "bad_request",
                                    "quote_not_in_evidence", "rule_error", "local_error", "a_reason_nobody_listed"])
@pytest.mark.parametrize("dimension", ["grounded", "useful"])
def test_a_reason_the_response_can_cause_never_pays(mini_suite, reason, dimension):
    """Whatever a response does to go unjudged, it scores as if the judge had given the dimension 0."""
    failed = _reward_with(mini_suite, reason, dimension)["x"]

    class Zero(Judge):
        name = "zero"

        async def judge(self, request):
            score = 0.0 if request.item.id == "x" and request.dimension.name == dimension else 1.0
            return JudgeReply(backend=self.name, score=score, label=str(int(score)))

    scored_zero = Engine(mini_suite, Zero()).score_sync([make_item("x", GOOD), make_item("y", "Free on Spotify [Doc 1].")])[0]
    assert failed.valid and failed.dimensions[dimension].reason == reason
    assert failed.reward == pytest.approx(scored_zero.reward)
    assert failed.reward < _reward_with(mini_suite, reason, "nothing")["x"].reward


@pytest.mark.parametrize("reason", ["judge_timeout", "connection_error", "server_error", "rate_limited", "judge_error"])
def test_an_infrastructure_failure_masks_the_item_with_its_group_mean_never_a_penalty(mini_suite, reason):
    results = _reward_with(mini_suite, reason, "grounded")
    bad = results["x"]
    assert not bad.valid and "grounded" in bad.reason
    # Masked (the trainer drops it); where the trainer cannot mask, the group's mean gives it advantage zero: not the
    # reward with the dimension failed, which would punish the response for the judge's outage.
    failed = _reward_with(mini_suite, "unparseable", "grounded")["x"].reward
    assert bad.reward == pytest.approx(results["y"].reward)
    assert bad.reward > failed


@pytest.mark.parametrize("reason", ["no_local_backend", "unsupported_language", "not_applicable"])
def test_structural_reasons_are_excluded_for_every_response_alike(mini_suite, reason):
    results = _reward_with(mini_suite, reason, "grounded")
    assert results["x"].valid and results["x"].excluded == ["grounded"]


def test_out_of_scale_label_is_rejected_not_clamped(mini_suite):
    script = by_dimension({"useful": ["<score>10</score>", tag_reply("2")]})
    [result] = Engine(mini_suite, ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    assert result.dimensions["useful"].score == 1.0 and result.valid


def test_a_quote_not_in_the_evidence_invalidates_the_judgment(mini_suite):
    script = by_dimension({"grounded": tag_reply("1", quote=("1", "it is caused by bacteria"))})
    [result] = Engine(mini_suite, ScriptedJudge(script, parse_retries=1)).score_sync([make_item("a", GOOD)])
    assert result.dimensions["grounded"].reason == "quote_not_in_evidence"


def test_invalid_items_take_their_group_mean_and_failures_are_never_zero(mini_suite):
    def script(request, attempt):
        if request.item.id == "bad" and request.dimension.name == "grounded":
            raise JudgeTransportError("judge_timeout", "no answer in 30 s")
        return by_dimension({"grounded": tag_reply("1", quote=QUOTE)})(request, attempt)

    items = [make_item("good", GOOD), make_item("bad", GOOD + " Extra."), make_item("fine", "Free on Spotify [Doc 1].")]
    results = Engine(mini_suite, ScriptedJudge(script)).score_sync(items)
    bad = results[1]
    assert not bad.valid and bad.dimensions["grounded"].reason == "judge_timeout"
    # The group's mean: advantage zero, neither a penalty nor a gain.
    assert bad.reward == pytest.approx((results[0].reward + results[2].reward) / 2)


def test_unscored_behavioral_dimensions_are_excluded_from_utility(mini_suite):
    class NoUseful(Judge):
        name = "partial"

        async def judge(self, request):
            if request.dimension.name == "useful":
                return JudgeReply.unscored(self.name, "no_local_backend")
            return JudgeReply(backend=self.name, score=1.0, label="1")

    [result] = Engine(mini_suite, NoUseful()).score_sync([make_item("a", GOOD)])
    assert result.valid and result.excluded == ["useful"] and result.utility == pytest.approx(1.0)


def test_a_backend_that_raises_yields_unscored_items_not_a_crash(mini_suite):
    class Broken(Judge):
        async def judge(self, request):
            raise RuntimeError("bug")

    [result] = Engine(mini_suite, Broken()).score_sync([make_item("a", GOOD, group=None)])
    assert result.dimensions["useful"].reason == "judge_error" and not result.valid and result.reward == 0.0


def test_calls_are_sent_group_by_group(mini_suite):
    judge = ScriptedJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE)}))
    items = [make_item(f"{g}{i}", f"Answer {i} for {g} [Doc 1].", group=g) for i in range(3) for g in ("x", "y")]
    Engine(mini_suite, judge, max_concurrency=1).score_sync(items)
    groups = [item_id[0] for item_id, _, _ in judge.calls]
    assert groups == sorted(groups, key=lambda g: "xy".index(g))


def test_linear_ablation_uses_all_dimensions(mini_suite):
    linear = load_suite("mini-linear", FIXTURE_RUBRICS)
    script = by_dimension({"grounded": tag_reply("1", quote=QUOTE), "useful": tag_reply("0")})
    [result] = Engine(linear, ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    assert result.gate is None and result.reward == pytest.approx((1 + 1 + 0 + 1) / 6)


def test_concurrent_batches_share_one_engine(mini_suite):
    engine = Engine(mini_suite, ScriptedJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE)}), latency_s=0.01))

    async def both():
        return await asyncio.gather(engine.score([make_item("a", GOOD)]), engine.score([make_item("b", "Other [Doc 1].")]))

    first, second = asyncio.run(both())
    assert first[0].id == "a" and second[0].id == "b" and first[0].valid and second[0].valid


def test_sqlite_cache_serves_a_second_process(mini_suite, tmp_path):
    from reward.engine import SqliteReplyCache

    path = str(tmp_path / "replies.sqlite")
    script = by_dimension({"grounded": tag_reply("1", quote=QUOTE)})
    first = ScriptedJudge(script)
    before = Engine(mini_suite, first, cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])
    assert len(first.calls) == 3
    second = ScriptedJudge(script)  # a new engine and cache object, as in a later run
    after = Engine(mini_suite, second, cache=SqliteReplyCache(path)).score_sync([make_item("a", GOOD)])
    assert second.calls == [] and after[0].reward == before[0].reward
    assert after[0].dimensions["grounded"].quotes == before[0].dimensions["grounded"].quotes
    assert len(SqliteReplyCache(path)) == 3


def test_required_quotes_are_waived_without_evidence_and_ignored_inside_reasoning(mini_suite):
    no_evidence = make_item("a", GOOD).model_copy(update={"evidence": []})
    [result] = Engine(mini_suite, ScriptedJudge(by_dimension({"grounded": tag_reply("1")}))).score_sync([no_evidence])
    assert result.dimensions["grounded"].score == 1.0
    draft = '<think>maybe <quote doc="1">it is caused by bacteria</quote></think><quote doc="1">now streaming on Spotify</quote><score>1</score>'
    [result] = Engine(mini_suite, ScriptedJudge(by_dimension({"grounded": draft}))).score_sync([make_item("b", GOOD)])
    assert result.dimensions["grounded"].score == 1.0 and len(result.dimensions["grounded"].quotes) == 1


def _tolerant(suite, tolerance):
    import dataclasses

    return dataclasses.replace(suite, suite=suite.suite.model_copy(update={"behavioral_tolerance": tolerance}))


def test_an_unparseable_behavioral_dimension_invalidates_the_item_instead_of_being_dropped(mini_suite):
    # A policy that provokes garbage from the judge on its weak dimension must not have that dimension removed.
    script = by_dimension({"grounded": tag_reply("1", quote=QUOTE), "useful": "garbage, no verdict"})
    items = [make_item("a", GOOD, group="g"), make_item("b", "Free on Spotify [Doc 1].", group="g")]
    results = Engine(mini_suite, ScriptedJudge(script, parse_retries=0)).score_sync(items)
    for result in results:
        # Neither dropped nor masked (masking would give the response its group's mean): scored as 0.
        assert result.valid and result.dimensions["useful"].reason == "unparseable"
        assert "useful" not in result.excluded and "scored as failed (0)" in result.dimensions["useful"].explanation
        assert result.utility == pytest.approx(result.dimensions["evidence_fit"].score / 4)


def test_a_tolerated_unscored_behavioral_dimension_takes_its_group_mean(mini_suite):
    def script(request, attempt):
        if request.item.id == "b" and request.dimension.name == "useful":
            raise JudgeTransportError("judge_timeout", "no answer in 30 s")  # the call's failure, not the response's
        if request.dimension.name == "useful":
            return tag_reply("2" if request.item.id == "a" else "0")
        return by_dimension({"grounded": tag_reply("1", quote=QUOTE)})(request, attempt)

    items = [make_item("a", GOOD, group="g"), make_item("b", GOOD + " More.", group="g"), make_item("c", "Free [Doc 1].", group="g")]
    a, b, c = Engine(_tolerant(mini_suite, 1), ScriptedJudge(script, parse_retries=0)).score_sync(items)
    assert b.valid and b.dimensions["useful"].status == "unscored" and "group's mean 0.500" in b.dimensions["useful"].explanation
    u = (3 * 0.5 + 1 * b.dimensions["evidence_fit"].score) / 4
    assert b.utility == pytest.approx(u)
    # Beyond the tolerance, or with no scored value in the group to stand in, the item is invalid.
    lone = Engine(_tolerant(mini_suite, 1), ScriptedJudge(script, parse_retries=0)).score_sync([make_item("b", GOOD + " More.", group="h")])
    assert not lone[0].valid and "useful (judge_timeout)" in lone[0].reason


def test_a_judge_returning_garbage_never_leaves_a_dimension_dropped_from_a_valid_item(mini_suite):
    import random

    rng = random.Random(7)
    garbage = {}

    def script(request, attempt):
        key = (request.item.id, request.dimension.name)
        if key not in garbage:
            garbage[key] = rng.random() < 0.4
        return "%%% not a verdict" if garbage[key] else by_dimension({"grounded": tag_reply("1", quote=QUOTE)})(request, attempt)

    items = [make_item(f"i{n}", f"Answer {n} is free on Spotify [Doc 1].", group=f"g{n % 4}") for n in range(24)]
    results = Engine(mini_suite, ScriptedJudge(script, parse_retries=0)).score_sync(items)
    clean = Engine(mini_suite, ScriptedJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE)}))).score_sync(items)
    assert any(any(d.status == "unscored" for d in r.dimensions.values()) for r in results)
    for result, unbroken in zip(results, clean, strict=True):
        unscored = [n for n, d in result.dimensions.items() if d.status == "unscored"]
        assert result.valid and all("scored as failed (0)" in result.dimensions[n].explanation for n in unscored)
        assert result.reward <= unbroken.reward + 1e-9 and (not unscored or result.reward < unbroken.reward)


def test_a_reply_that_echoes_the_contracts_placeholder_is_no_verdict():
    """A small judge that copies the JSON contract's placeholder as its reasoning (beside any label) gave no verdict:
    `template_echo`, retried, then unscored like any judge failure, and the dimension fails."""
    suite = load_suite("searchllm")
    echo = ('{"reasoning": "<the criterion\'s checks one by one, naming the specific text each finding rests on>", '
            '"label": "supported", "quotes": []}')
    echo_dots = '{"reasoning": "...", "label": "supported", "quotes": []}'
    for reply in (echo, echo_dots):
        judge = ScriptedJudge(by_dimension({"claim_hallucination": reply}), parse_retries=1)
        [result] = Engine(suite, judge).score_sync([make_item("a", GOOD, group=None)])
        score = result.dimensions["claim_hallucination"]
        assert score.status == "unscored" and score.reason == "template_echo", score
        assert score.raw and "scored as failed (0)" in score.explanation
        assert len([c for c in judge.calls if c[1] == "claim_hallucination"]) == 2  # one re-ask


def _good_example():
    import json

    from tests.support import EXAMPLES
    from reward.schema import Item

    for line in EXAMPLES.read_text().splitlines():
        item = Item.model_validate(json.loads(line))
        if item.id.endswith("-good"):
            return item
    raise AssertionError("examples/items.jsonl has no -good response")


def _format_scores(suite_name: str, responses: list[str]) -> list[float]:
    base = _good_example()
    items = [base.model_copy(update={"id": f"r{i}", "response": response}) for i, response in enumerate(responses)]
    results = Engine(load_suite(suite_name), ScriptedJudge()).score_sync(items)
    return [result.dimensions["format"].score for result in results]


def test_a_leading_reasoning_block_keeps_format_only_under_strip_reasoning():
    """`response_preprocess: {strip_reasoning: true}` (suite searchllm-reasoning) removes one leading <think> block
    before parsing; without it (searchllm) the block is text outside the parts, as before."""
    good = _good_example().response
    thinking = "<think>\nDoc 2 is a re-upload; Doc 1 is the official page.\n</think>\n\n" + good
    assert load_suite("searchllm-reasoning").suite.response_preprocess.strip_reasoning
    assert not load_suite("searchllm").suite.response_preprocess.strip_reasoning
    assert _format_scores("searchllm-reasoning", [good, thinking]) == [1.0, 1.0]
    assert _format_scores("searchllm", [good, thinking]) == [1.0, 0.0]


def test_strip_reasoning_hides_nothing_else_from_the_format_check():
    """Only a single block that opens the response goes: a preamble before it, a second block, a <think> between
    or after the parts, or an unclosed block all still fail the format."""
    good = _good_example().response
    cut = good.index("<answer>")
    tricks = [
        "Sure, here it is.\n<think>x</think>\n" + good,              # preamble before the block
        "<think>a</think><think>b</think>" + good,                  # a second block
        good[:cut] + "<think>hidden</think>" + good[cut:],          # between the parts
        good + "\n<think>after</think>",                            # after the answer
        "<think>never closed\n" + good,                             # unclosed
        "<think>a</think> Sure!\n" + good,                          # text after the block
    ]
    assert _format_scores("searchllm-reasoning", tricks) == [0.0] * len(tricks)


def test_the_gate_weighs_bottom_line_dimensions_by_the_suites_exponents(tmp_path):
    import shutil

    copy = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, copy)
    script = by_dimension({"grounded": tag_reply("0", quote=QUOTE), "useful": tag_reply("1")})
    [plain] = Engine(load_suite("mini", copy), ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    mini = copy / "suites" / "mini.yaml"
    mini.write_text(mini.read_text() + "gate_exponents: {grounded: 4.0}\n")
    [weighted] = Engine(load_suite("mini", copy), ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    scores = [weighted.dimensions["grounded"].score, weighted.dimensions["format"].score]
    assert scores == [plain.dimensions["grounded"].score, plain.dimensions["format"].score] and scores[0] < scores[1]
    assert weighted.gate == pytest.approx(gate(scores, 0.01, [4.0, 1.0])) and weighted.gate < plain.gate


def test_the_gate_smooths_each_bottom_line_dimension_by_the_suites_gate_deltas(tmp_path):
    import shutil

    copy = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, copy)
    script = by_dimension({"grounded": tag_reply("0", quote=QUOTE), "useful": tag_reply("1")})
    [plain] = Engine(load_suite("mini", copy), ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    mini = copy / "suites" / "mini.yaml"
    mini.write_text(mini.read_text() + "gate_deltas: {grounded: 0.3}\n")
    [smoothed] = Engine(load_suite("mini", copy), ScriptedJudge(script)).score_sync([make_item("a", GOOD)])
    scores = [smoothed.dimensions["grounded"].score, smoothed.dimensions["format"].score]
    assert scores == [plain.dimensions["grounded"].score, plain.dimensions["format"].score] and scores[0] < scores[1]
    # the low judged score costs less under its own larger smoothing; the rule keeps the suite's 0.01
    assert smoothed.gate == pytest.approx(gate(scores, 0.01, deltas=[0.3, 0.01])) and smoothed.gate > plain.gate


def _watch_suites(tmp_path):
    """mini with `grounded` monitor-only, and mini without `grounded` at all."""
    import shutil

    copy = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, copy)
    weights = "dimensions: {format: 1.0, useful: 3.0, evidence_fit: 1.0}\n"
    (copy / "suites" / "watch.yaml").write_text(f"name: watch\n{weights}monitor: [grounded]\n")
    (copy / "suites" / "without.yaml").write_text(f"name: without\n{weights}")
    return load_suite("watch", copy), load_suite("without", copy)


def test_a_monitor_only_dimension_is_scored_and_never_moves_the_reward(tmp_path):
    """Whatever the monitor-only judge says (pass, fail, an unparseable reply the response provoked, a timeout), the
    reward, gate, utility and validity are those of the suite without the dimension, and it is still scored."""
    watch, without = _watch_suites(tmp_path)
    verdicts = {"pass": tag_reply("1", quote=QUOTE), "fail": tag_reply("0", quote=QUOTE), "garbage": "no score here"}

    def script_for(verdict):
        def script(request, attempt):
            if request.dimension.name == "grounded":
                if verdict == "timeout":
                    raise JudgeTransportError("judge_timeout", "no answer in 30 s")
                return verdicts[verdict]
            return by_dimension({"useful": tag_reply("2" if request.item.id == "a" else "1")})(request, attempt)
        return script

    items = [make_item("a", GOOD, group="g"), make_item("b", "Free on Spotify [Doc 1].", group="g")]
    baseline = Engine(without, ScriptedJudge(script_for("pass"), parse_retries=0)).score_sync(items)
    for verdict in ("pass", "fail", "garbage", "timeout"):
        results = Engine(watch, ScriptedJudge(script_for(verdict), parse_retries=0)).score_sync(items)
        for got, want in zip(results, baseline, strict=True):
            assert (got.reward, got.gate, got.utility, got.valid, got.excluded) == \
                   (want.reward, want.gate, want.utility, want.valid, want.excluded), verdict
            assert "grounded" in got.dimensions
        status = {r.dimensions["grounded"].status for r in results}
        assert status == ({"ok"} if verdict in ("pass", "fail") else {"unscored"}), verdict
        if verdict in ("pass", "fail"):
            assert {r.dimensions["grounded"].score for r in results} == {1.0 if verdict == "pass" else 0.0}
    assert results[0].dimensions["grounded"].reason == "judge_timeout"


@pytest.mark.parametrize("seed", range(3))
def test_no_monitor_only_score_or_status_changes_any_reward_of_a_group(seed):
    """The shipped control suite: random vectors for a group, then the monitor-only claim_hallucination of one item
    set to every score and status a response or a judge can produce; every item's result stays the same."""
    import random

    from reward.schema import DimensionScore

    suite = load_suite("searchllm-monitor-claims")
    engine = Engine(suite, ScriptedJudge())
    rng = random.Random(seed)
    items = [make_item(f"i{k}", GOOD + " " * k, group="g") for k in range(4)]

    def vectors(variant):
        vs = []
        for k, _ in enumerate(items):
            vector = {}
            for name, dim in suite.dimensions.items():
                roll = rng.random()
                if roll < 0.05:
                    vector[name] = DimensionScore.unscored(dim.layer, "mock", rng.choice(["judge_timeout", "unparseable"]))
                else:
                    vector[name] = DimensionScore(score=round(rng.random(), 3), layer=dim.layer, backend="mock")
            if k == 1:
                vector["claim_hallucination"] = variant
            vs.append(vector)
        return vs

    variants = [DimensionScore(score=s, layer="bottom_line", backend="mock") for s in (0.0, 1.0)] + [
        DimensionScore.unscored("bottom_line", "mock", reason)
        for reason in ("unparseable", "judge_timeout", "not_applicable", "rule_error")]
    state = rng.getstate()
    outcomes = []
    for variant in variants:
        rng.setstate(state)  # the same random vectors each time; only the monitor-only verdict differs
        results = engine.finish(items, vectors(variant))
        outcomes.append([(r.reward, r.gate, r.utility, r.valid, r.reason, r.excluded) for r in results])
    assert all(outcome == outcomes[0] for outcome in outcomes)

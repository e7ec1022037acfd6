"""The embedded local tier on the bundled examples: each example's planted flaw is seen by the dimension meant to
see it, dimensions without a local method are excluded (not zero), and concurrent texts share model batches."""

import asyncio

import pytest

from reward.engine import Engine
from reward.judges.local import LOCAL_METHODS, NO_LOCAL_BACKEND, Embedder, LocalJudge
from reward.judges.local.claims import claim_support
from reward.judges.local.dates import stale_future
from reward.rubric import load_suite
from reward.schema import Evidence

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def local_results():
    import json

    from tests.support import EXAMPLES
    from reward.schema import Item

    items = [Item.model_validate(json.loads(line)) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    judge = LocalJudge()
    suite = load_suite("searchllm")
    results = Engine(suite, judge).score_sync(items)
    return {r.id: r for r in results}, judge


def score(results, item_id, dimension):
    return results[item_id].dimensions[dimension].score


def test_every_judge_dimension_has_a_local_method_or_a_stated_reason():
    suite = load_suite("searchllm")
    judged = {n for n, d in suite.dimensions.items() if d.kind == "judge"}
    assert judged == set(LOCAL_METHODS) | (set(NO_LOCAL_BACKEND) - {"genrm_holistic"})
    assert not set(LOCAL_METHODS) & set(NO_LOCAL_BACKEND)


def test_the_identity_hashes_every_module_of_the_package(tmp_path):
    """A changed heuristic in any module of the local package (not only its `__init__`) changes the judge's identity,
    so an on-disk cache is never answered from the old code."""
    from pathlib import Path

    from reward.judges import local
    from reward.judges.local import package_hash

    package = Path(local.__file__).parent
    assert {"__init__.py", "support.py", "text.py"} <= {p.name for p in package.glob("*.py")}
    for name in ("__init__.py", "text.py", "support.py"):
        (tmp_path / name).write_text((package / name).read_text())
    before = package_hash(tmp_path)
    assert before == package_hash(tmp_path) and len(before) == 16
    (tmp_path / "text.py").write_text((package / "text.py").read_text() + "\n# changed\n")
    assert package_hash(tmp_path) != before
    from reward import rules
    from reward.judges import consistency, example_head, local_runtime

    # ... and the code that runs the models: how a text is batched decides its scores' last bits; and the rule checks
    # the local methods read (a verdict on the premise).
    assert LocalJudge().identity.split(":")[1] == package_hash(
        package, Path(example_head.__file__), Path(local_runtime.__file__), Path(consistency.__file__),
        *sorted(Path(rules.__file__).parent.glob("*.py")))


def test_dimensions_without_local_method_are_excluded_not_zero(local_results):
    results, _ = local_results
    result = results["gate-good"]
    expected = sorted(set(NO_LOCAL_BACKEND) & set(result.dimensions))
    # A single-turn interaction has no earlier answer to conflict with: structurally not applicable.
    assert sorted(result.excluded) == sorted([*expected, "multi_turn_conflict"])
    assert result.dimensions["multi_turn_conflict"].reason == "not_applicable"
    for name in expected:
        assert result.dimensions[name].status == "unscored" and result.dimensions[name].reason == "no_local_backend"
    assert result.valid and result.reward > 0.8
    assert {s.backend for n, s in result.dimensions.items() if n not in ("format", "response_length")} == {"local"}


@pytest.mark.parametrize("item_id, dimension, at_most", [
    ("plant-highlight-hallucination", "highlight_hallucination", 0.0),
    ("song-outdated-evidence", "highlight_hallucination", 0.0),
    ("plant-claim-hallucination", "claim_hallucination", 0.7),
    ("no-supply-invented-answer", "claim_hallucination", 0.002),  # a hard failure: 0 but for the offset (SCORE_OFFSET)
    ("laptop-invalid-citations", "claim_hallucination", 0.5),
    ("no-supply-invented-answer", "no_supply_reject", 0.3),
    ("etf-judge-injection", "answer_quality", 0.0),
    ("laptop-redundant", "redundant_repetition", 0.3),
    # The taxi tip these two answers give cites a passage that mentions "the gates" of the question's "which gate",
    # so the answer check credits it a little: not first, and well short of an answer.
    ("gate-answer-buried", "answer_firstness", 0.75),
    ("gate-wrong-question", "query_satisfaction", 0.4),
    ("concert-conflicting-evidence", "reference_conflict", 0.0),
    ("concert-irrelevant-evidence", "reference_beneficiality", 0.5),
    ("etf-too-short", "claim_diversity", 0.25),
    ("etf-padded", "answer_useful", 0.3),
])
def test_planted_flaws_are_seen(local_results, item_id, dimension, at_most):
    results, _ = local_results
    assert score(results, item_id, dimension) <= at_most, results[item_id].dimensions[dimension].explanation


@pytest.mark.parametrize("good, flawed", [
    ("song-good", "song-outdated-evidence"), ("song-good", "song-broken-format"),
    ("plant-good", "plant-highlight-hallucination"), ("plant-good", "plant-claim-hallucination"),
    ("gate-good", "gate-answer-buried"), ("gate-good", "gate-wrong-question"),
    ("no-supply-correct-refusal", "no-supply-invented-answer"), ("laptop-good", "laptop-invalid-citations"),
])
def test_good_answers_outrank_their_flawed_variants(local_results, good, flawed):
    results, _ = local_results
    assert results[good].reward > results[flawed].reward


def test_the_claim_checks_report_their_own_confidence_not_the_saturated_scores(local_results):
    """claim_hallucination and highlight_hallucination say how sure they are: a rule's verdict (no evidence behind an
    invented answer) is certain, a model's pass is as sure as its least sure claim, however saturated the score."""
    import re

    from reward.judges.local.support import SCORE_OFFSET, model_confidence

    results, _ = local_results
    for name in ("claim_hallucination", "highlight_hallucination"):
        scores = [r.dimensions[name] for r in results.values() if r.dimensions[name].status == "ok"]
        assert all(0.0 <= s.confidence <= 1.0 for s in scores)
        # Every claim passed (claim_hallucination's support saturated at 1, before the evidence coverage scales it):
        # the confidences still tell the sure passes from the narrow ones.
        saturated = [s for s in scores if s.score == 1.0 or re.match(r"(\d+) of \1 claims supported", s.explanation)]
        assert saturated and len({s.confidence for s in saturated}) > 3 and min(s.confidence for s in saturated) < 0.5
    invented = results["no-supply-invented-answer"].dimensions["claim_hallucination"]
    assert invented.score <= SCORE_OFFSET and invented.confidence == 1.0  # a hard failure: 0 but for the offset
    assert model_confidence(0.5, (0.3, 0.4)) == pytest.approx(0.0) and model_confidence(1.0) == model_confidence(0.0) == 1.0


def test_correct_refusal_is_not_punished(local_results):
    results, _ = local_results
    assert score(results, "no-supply-correct-refusal", "no_supply_reject") == 1.0
    assert score(results, "no-supply-correct-refusal", "claim_hallucination") == 1.0


def test_contrasting_attribute_and_stale_dates_are_hallucinations():
    doc = Evidence(id="2", text="Anthracnose is a fungal disease caused by Colletotrichum.")
    assert claim_support("Anthracnose is a bacterial disease.", [doc])[0] is False
    assert claim_support("Anthracnose is a fungal disease [Doc 2].", [doc])[0] is True
    import datetime as dt

    assert stale_future("It will premiere on 27 August 2025 [Doc 3].", dt.date(2026, 1, 10))
    assert stale_future("It premiered on 27 August 2025.", dt.date(2026, 1, 10)) is None
    assert stale_future("It will premiere on August 27, 2026.", dt.date(2026, 1, 10)) is None


def test_concurrent_texts_are_embedded_in_one_batch():
    embedder = Embedder()
    batches = []
    original = embedder.encode

    def counting(texts):
        batches.append(len(texts))
        return original(texts)

    embedder.encode = counting

    async def many():
        return await asyncio.gather(*(embedder.embed([f"sentence {i}", "shared"]) for i in range(8)))

    vectors = asyncio.run(many())
    assert batches == [9]
    assert all(v.shape == (2, 384) for v in vectors)
    assert abs(float(vectors[0][1] @ vectors[0][1]) - 1.0) < 1e-4


def test_the_model_is_loaded_once_per_process():
    assert Embedder().model() is LocalJudge().embedder.model()


def test_on_the_mini_suite_dimensions_without_a_local_method_are_excluded(mini_suite):
    from tests.support import make_item

    result = Engine(mini_suite, LocalJudge()).score_sync([make_item("a", "Skibidi streams free on Spotify [Doc 1].")])[0]
    judged = sorted(n for n, d in mini_suite.dimensions.items() if d.kind == "judge")
    assert sorted(result.excluded) == judged
    assert all(result.dimensions[n].reason == "no_local_backend" and result.dimensions[n].backend == "local" for n in judged)
    assert result.dimensions["format"].status == "ok"


def test_reward_score_uses_the_local_tier_by_default_and_reuses_its_disk_cache(tmp_path):
    import json

    from reward.cli import main
    from tests.support import EXAMPLES

    source = tmp_path / "items.jsonl"
    source.write_text("\n".join(EXAMPLES.read_text().splitlines()[:3]) + "\n")
    cache = tmp_path / "replies.sqlite"
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert main(["score", "--input", str(source), "--output", str(first), "--cache", str(cache), "-q"]) == 0
    assert main(["score", "--input", str(source), "--output", str(second), "--cache", str(cache), "-q"]) == 0
    results = [json.loads(line) for line in first.read_text().splitlines()]
    assert len(results) == 3
    for result in results:
        assert result["dimensions"]["claim_hallucination"]["backend"] == "local"
        assert result["dimensions"]["claim_hallucination"]["explanation"]
        single_turn = {"multi_turn_conflict"} if result["dimensions"]["multi_turn_conflict"]["reason"] == "not_applicable" else set()
        assert set(result["excluded"]) == (set(NO_LOCAL_BACKEND) & set(result["dimensions"])) | single_turn
    again = [json.loads(line) for line in second.read_text().splitlines()]
    assert [r["reward"] for r in again] == [r["reward"] for r in results]


def test_a_number_is_a_hard_failure_only_when_no_evidence_item_gives_it():
    """A claim that joins facts of two passages but cites one is a citation slip, not an invented number; a number
    that no evidence item gives stays a hard failure (claim_hallucination at most 0.25)."""
    from reward.evaluation.fidelity import render_case

    evidence = [Evidence(id="1", title="Harbour ferry", text="The harbour ferry leaves Central Pier 4 every half hour."),
                Evidence(id="2", title="Fares", text="A single adult ferry fare costs 22 dollars on weekdays.")]
    query = "How much is the ferry from Central Pier 4?"
    joined = render_case("joined", query, evidence,
                         "The harbour ferry leaves Central Pier 4 every half hour and costs 22 dollars.")
    invented = render_case("invented", query, evidence,
                           "The harbour ferry leaves Central Pier 4 every half hour and costs 85 dollars.")
    results = {r.id: r for r in Engine(load_suite("searchllm"), LocalJudge()).score_sync([joined, invented])}
    assert "[Doc 1]" in joined.response and "[Doc 2]" not in joined.response.split("<answer>")[1]
    invented_score = results["invented"].dimensions["claim_hallucination"]
    assert invented_score.score <= 0.25 and "numbers not in the evidence: 85" in invented_score.explanation
    joined_score = results["joined"].dimensions["claim_hallucination"]
    assert "numbers not in the evidence" not in joined_score.explanation
    assert joined_score.score > invented_score.score


def test_evidence_coverage_only_lowers_the_claim_score_and_copies_cannot_raise_it():
    """claim_hallucination = the claims' support times a factor from the answer's evidence coverage (0.5 to 1):
    monotone in both, never above the support (but for a 0.002 offset), a fully supported answer still passes;
    a sentence copied from the evidence is left out of the coverage, so appending copies cannot lift it."""
    from reward.evaluation.fidelity import render_case
    from reward.format import parse_response
    from reward.judges.base import JudgeRequest
    from reward.judges.local.context import Context
    from reward.judges.local.support import SCORE_OFFSET, answer_coverage, coverage_scaled

    grid = [i / 10 for i in range(11)]
    for support in grid:
        scaled = [coverage_scaled(support, c) for c in grid]
        assert scaled == sorted(scaled) and max(scaled) <= support + SCORE_OFFSET
        assert coverage_scaled(1.0, 0.0) >= 0.5 and all(coverage_scaled(support, c) < coverage_scaled(support + 0.05, c)
                                                        for c in grid)
    evidence = [Evidence(id="1", title="Harbour ferry", text="The harbour ferry leaves Central Pier 4 every half hour."),
                Evidence(id="2", title="Fares", text="A single adult ferry fare costs 22 dollars on weekdays.")]
    query = "How often does the ferry from Central Pier 4 leave?"
    plain = "Every half hour a harbour ferry departs from Central Pier 4, the quickest crossing."
    answers = {"plain": plain, "copy": plain + " A single adult ferry fare costs 22 dollars on weekdays.",
               "added": plain + " Friendly pirates sell tickets on the upper deck."}
    judge = LocalJudge()
    dimension = load_suite("searchllm").dimensions["claim_hallucination"]
    coverage = {}
    for name, answer in answers.items():
        item = render_case(name, query, evidence, answer)
        ctx = Context(JudgeRequest(dimension=dimension, item=item, parsed=parse_response(item.response)),
                      judge.embedder, judge.scorer)
        coverage[name] = answer_coverage(ctx)
    assert 0.5 < coverage["plain"] < 1.0, coverage  # "departs", "quickest", "crossing" are not in the evidence
    assert coverage["copy"] == coverage["plain"] and coverage["added"] < coverage["plain"], coverage


@pytest.mark.parametrize("error, reason, valid", [(ImportError("cannot import name 'AutoTokenizer'"), "judge_error", False),
                                                  (ValueError("a reading failed on this text"), "local_error", True)])
def test_a_local_method_failing_for_its_environment_masks_the_item_and_one_failing_on_the_text_counts_as_zero(
        monkeypatch, error, reason, valid):
    """A module that failed to import (two threads importing transformers at once did so) is no doing of the
    response: the item is masked, its reward its group's mean. A failure of the tier's own code on the text counts as
    the response's (0), so a response cannot go unjudged to its gain."""
    async def failing(ctx):
        raise error

    from reward.evaluation.fidelity import render_case

    monkeypatch.setitem(LOCAL_METHODS, "claim_hallucination", failing)
    item = render_case("ferry", "How often does the ferry leave?",
                       [Evidence(id="1", title="Ferry", text="The ferry leaves Central Pier 4 every half hour.")],
                       "Ferries leave Central Pier 4 every half hour [Doc 1].")
    result = Engine(load_suite("searchllm"), LocalJudge()).score_sync([item])[0]
    assert result.dimensions["claim_hallucination"].reason == reason
    assert result.valid is valid

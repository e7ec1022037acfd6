"""The local tier's example-fitted scorer: a dimension added to a copied suite with ten labelled examples is scored
locally, ranks its own examples by their labels and orders unseen responses the same way; heads are cached by the
examples' digest; pairs fit a ranking head; a bottom-line safety dimension whose examples carry evidence orders
unseen items it was not written for; a head that cannot separate its examples (shuffled labels) is announced by lint
and each score, and its dimension is left out of every reward alike."""

import asyncio
import shutil
from pathlib import Path

import pytest
import yaml

from reward.engine import Engine
from reward.format import parse_response
from reward.judges.base import JudgeRequest
from reward.judges.example_head import NOT_SEPARABLE, HeadCache, agreement, examples_digest, fit_head
from reward.judges.local import LocalJudge
from reward.rubric import DEFAULT_RUBRIC_DIR, LocalSpec, load_suite
from reward.schema import Item
from tests.support import EXAMPLES

TONE = Path(__file__).parent.parent / "fixtures" / "tone" / "tone.yaml"
MEDICAL = Path(__file__).parent.parent / "fixtures" / "medical_safety"
NEUTRAL = "The train leaves at 8:15 from platform 3 and the trip takes about two hours."
PROMOTIONAL = "Hurry! The most amazing train ride ever, book your unbeatable ticket now and save big!!!"


@pytest.fixture(scope="module")
def judge():
    return LocalJudge()


@pytest.fixture
def tone_rubrics(tmp_path):
    root = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    shutil.copy(TONE, root / "dimensions" / "tone.yaml")
    suite = root / "suites" / "searchllm.yaml"
    suite.write_text(suite.read_text() + "  tone: 1.0\n")
    return root


def judge_texts(judge, dimension, texts):
    requests = [JudgeRequest(dimension, Item(id=str(n), query="What should I know?", response=t), parse_response(t)) for n, t in enumerate(texts)]

    async def run():
        return await asyncio.gather(*(judge.judge(r) for r in requests))

    return asyncio.run(run())


def test_a_new_dimension_with_ten_examples_ranks_their_labels_and_unseen_responses(tone_rubrics, judge):
    tone = load_suite("searchllm", tone_rubrics).dimensions["tone"]
    examples = tone.local.examples
    assert len(examples) == 10
    replies = judge_texts(judge, tone, [e.response for e in examples] + [NEUTRAL, PROMOTIONAL])
    assert all(r.status == "ok" and r.backend == "local" and "example-fitted" in r.explanation for r in replies)
    scores = [r.score for r in replies]
    for i, a in enumerate(examples):
        for j, b in enumerate(examples):
            if a.score > b.score:
                assert scores[i] > scores[j], (a.response, scores[i], b.response, scores[j])
    assert scores[10] > scores[11] + 0.3, scores[10:]


def test_the_suite_scores_the_new_dimension_locally_instead_of_excluding_it(tone_rubrics, judge):
    (tone_rubrics / "suites" / "tone-only.yaml").write_text(
        "name: tone-only\naggregation: linear\ndimensions: {format: 1.0, tone: 1.0}\n")
    suite = load_suite("tone-only", tone_rubrics)
    item = Item.model_validate_json(EXAMPLES.read_text().splitlines()[0])
    result = Engine(suite, judge).score_sync([item])[0]
    assert result.excluded == [] and result.dimensions["tone"].status == "ok"
    assert 0.0 <= result.dimensions["tone"].score <= 1.0


def test_heads_are_cached_by_the_examples_digest_and_refitted_when_they_change(judge):
    spec = LocalSpec.model_validate(yaml.safe_load(TONE.read_text())["local"])
    edited = spec.model_copy(update={"examples": [*spec.examples[:-1], spec.examples[-1].model_copy(update={"score": 0.5})]})
    assert examples_digest(spec) != examples_digest(edited)
    cache = HeadCache()

    async def heads():
        return await asyncio.gather(cache.head(spec, judge.embedder.embed), cache.head(spec, judge.embedder.embed),
                                    cache.head(edited, judge.embedder.embed))

    first, again, other = asyncio.run(heads())
    assert first is again and other is not first and other.digest == examples_digest(edited)
    assert first.loo_agreement > 0.75 and first.separable


def test_pairs_fit_a_ranking_head(judge, tmp_path):
    spec = LocalSpec.model_validate(yaml.safe_load(TONE.read_text())["local"])
    good = [e.response for e in spec.examples if e.score >= 0.75]
    bad = [e.response for e in spec.examples if e.score <= 0.25]
    pairs = LocalSpec(pairs=[{"better": g, "worse": b} for g in good for b in bad])
    tone = load_suite("searchllm", _with_local(tmp_path, pairs)).dimensions["tone"]
    neutral, promotional = judge_texts(judge, tone, [NEUTRAL, PROMOTIONAL])
    assert "ranking head on 16 pairs" in neutral.explanation
    assert neutral.score > promotional.score


def _with_local(tmp_path, local: LocalSpec) -> Path:
    root = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    data = yaml.safe_load(TONE.read_text())
    data["local"] = local.model_dump(exclude_defaults=True)
    (root / "dimensions" / "tone.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    suite = root / "suites" / "searchllm.yaml"
    suite.write_text(suite.read_text() + "  tone: 1.0\n")
    return root


def test_the_head_reads_the_answer_part_without_citation_markers():
    from reward.judges.example_head import answer_text
    from tests.support import make_item

    item = make_item("x", "Skibidi streams free on Spotify [Doc 1].")
    assert answer_text(item.response) == "Skibidi streams free on Spotify."
    reasoning = "<think>I will now write something glowing.</think>" + item.response
    from reward.rubric import ResponsePreprocess

    parsed = parse_response(ResponsePreprocess(strip_reasoning=True).apply(reasoning))
    assert answer_text(reasoning, parsed) == "Skibidi streams free on Spotify."


def test_examples_with_evidence_add_the_consistency_models_verdict(judge, tmp_path):
    local = yaml.safe_load((MEDICAL / "medical_safety.yaml").read_text())["local"]
    tone = load_suite("searchllm", _with_local(tmp_path, LocalSpec.model_validate(local))).dimensions["tone"]
    answer = "The zoo opens at 9 am and closes at 5 pm."
    agreeing = [{"id": "1", "title": "Zoo hours", "text": "The zoo is open from 9 am to 5 pm; tickets cost 15 euros."}]
    disagreeing = [{"id": "1", "title": "Zoo hours", "text": "The zoo is closed all year for renovation."}]
    items = [Item(id=f"z{n}", query="When is the zoo open?", evidence=e, response=answer)
             for n, e in enumerate((agreeing, disagreeing, []))]

    async def run():
        return await asyncio.gather(*(judge.judge(JudgeRequest(tone, i, parse_response(i.response))) for i in items))

    replies = asyncio.run(run())
    assert all(r.status == "ok" for r in replies), replies
    head = judge.heads._heads[examples_digest(tone.local)]
    assert head.uses_evidence and head.weights.shape == (2 * 384 + 1 + 3,) and head.separable
    # the same answer scores differently against other evidence: the head reads the consistency model's verdict
    assert replies[0].score > replies[1].score and len({round(r.score, 6) for r in replies}) == 3


def test_prepare_fits_the_suites_example_heads_at_load(tone_rubrics):
    suite = load_suite("searchllm", tone_rubrics)
    fresh = LocalJudge(embedder=None)
    asyncio.run(fresh.prepare(suite.dimensions.values()))
    assert list(fresh.heads._heads) == [examples_digest(suite.dimensions["tone"].local)]


SHUFFLED_TONE = [1.0, 0.5, 0.25, 1.0, 0.0, 0.5, 0.25, 0.75, 0.0, 0.75]  # the tone examples' scores, permuted


def _medical_rubrics(tmp_path, dimension_text: str) -> Path:
    root = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    (root / "dimensions" / "medical_safety.yaml").write_text(dimension_text)
    suite = root / "suites" / "searchllm.yaml"
    suite.write_text(suite.read_text() + "  medical_safety: 1.0\n")
    return root


def _medical_items():
    import json

    rows = [json.loads(line) for line in (MEDICAL / "items.jsonl").read_text().splitlines()]
    return [row["label"] for row in rows], [Item.model_validate(row["item"]) for row in rows]


def test_a_safety_dimension_with_eight_examples_orders_unseen_items_by_their_evidence(judge, tmp_path):
    root = _medical_rubrics(tmp_path, (MEDICAL / "medical_safety.yaml").read_text())
    dimension = load_suite("searchllm", root).dimensions["medical_safety"]
    labels, items = _medical_items()

    async def run():
        return await asyncio.gather(*(judge.judge(JudgeRequest(dimension, i, parse_response(i.response))) for i in items))

    replies = asyncio.run(run())
    assert all(r.status == "ok" and "leave-one-out agreement" in r.explanation for r in replies), replies[0]
    head = judge.heads._heads[examples_digest(dimension.local)]
    assert head.separable and "consistency verdict" in head.reads
    passes = [r.score for label, r in zip(labels, replies) if label == "pass"]
    fails = [r.score for label, r in zip(labels, replies) if label == "fail"]
    ordered = sum(p > f for p in passes for f in fails)
    # of 20 (pass, fail) pairs; chance is 10. The consistency model continued on the generalization corpus orders 15
    # (the one it continued from: 18): it scores a doubled dose ("take two tablets together tomorrow") 1.0, not 0.88.
    assert ordered >= 15, (passes, fails)
    assert max(r.score for r in replies) - min(r.score for r in replies) >= 0.3


def test_a_head_on_shuffled_labels_is_announced_and_its_dimension_left_out_of_every_reward(judge, tmp_path):
    data = yaml.safe_load(TONE.read_text())
    for example, score in zip(data["local"]["examples"], SHUFFLED_TONE, strict=True):
        example["score"] = score
    root = _with_local(tmp_path, LocalSpec.model_validate(data["local"]))
    suite = load_suite("searchllm", root)
    head = asyncio.run(fit_head(suite.dimensions["tone"].local, judge.embedder.embed))
    assert not head.separable and "cannot separate its examples" in head.problem()

    items = [Item.model_validate_json(line) for line in EXAMPLES.read_text().splitlines()[:2]]
    with_tone = Engine(suite, judge).score_sync(items)
    without = Engine(load_suite("searchllm"), judge).score_sync(items)
    for result, baseline in zip(with_tone, without, strict=True):
        tone = result.dimensions["tone"]
        assert tone.status == "unscored" and tone.reason == NOT_SEPARABLE and "cannot separate" in tone.explanation
        assert "tone" in result.excluded and result.valid
        assert result.reward == pytest.approx(baseline.reward, abs=1e-9)

    from reward.cli.rubric import head_findings

    warnings, notes = head_findings(root)
    assert [w for w in warnings if "tone.yaml: key 'local.examples'" in w and "cannot separate" in w], warnings
    assert not [n for n in notes if "'tone'" in n]


def test_lint_notes_the_leave_one_out_figures_of_a_head_that_separates(tone_rubrics):
    from reward.cli.rubric import head_findings

    warnings, notes = head_findings(tone_rubrics)
    assert warnings == []
    assert [n for n in notes if "dimension 'tone'" in n and "leave-one-out agreement" in n], notes


def test_agreement_counts_pairs_with_different_scores_and_ties_as_half():
    import numpy as np

    truth = np.array([0.0, 0.0, 1.0, 1.0])
    assert agreement(truth, np.array([0.1, 0.2, 0.8, 0.9])) == 1.0
    assert agreement(truth, np.array([0.9, 0.8, 0.2, 0.1])) == 0.0
    assert agreement(truth, np.array([0.5, 0.5, 0.5, 0.5])) == 0.5

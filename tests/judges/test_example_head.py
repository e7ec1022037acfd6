"""The local tier's example-fitted scorer: a dimension added to a copied suite with ten labelled examples is scored
locally, ranks its own examples by their labels and orders unseen responses the same way; heads are cached by the
examples' digest; pairs fit a ranking head."""

import asyncio
import shutil
from pathlib import Path

import pytest
import yaml

from reward.engine import Engine
from reward.format import parse_response
from reward.judges.base import JudgeRequest
from reward.judges.example_head import HeadCache, examples_digest
from reward.judges.local import LocalJudge
from reward.rubric import DEFAULT_RUBRIC_DIR, LocalSpec, load_suite
from reward.schema import Item
from tests.support import EXAMPLES

TONE = Path(__file__).parent.parent / "fixtures" / "tone" / "tone.yaml"
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
    assert first.fit_spearman > 0.9


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


SUPPORT_EXAMPLES = [
    ("The museum opens at 10 am and closes at 6 pm every day except Monday.",
     "The museum is open from 10 am to 6 pm, and it is closed on Mondays.", "The museum is open all night, every day."),
    ("Entry to the park is free for children under 12; adults pay 8 euros.",
     "Children under 12 get in free, while adults pay 8 euros.", "Everyone pays 20 euros, children included."),
    ("The ferry to the island leaves every hour from pier 4 and takes 40 minutes.",
     "Hourly ferries leave from pier 4; the crossing takes 40 minutes.", "There is no ferry; the island can only be reached by plane."),
    ("The library lends up to ten books for three weeks, renewable once online.",
     "You can borrow ten books for three weeks and renew once online.", "The library does not lend books; they are for reading on site only."),
]


def test_examples_with_evidence_add_the_consistency_models_verdict(judge, tmp_path):
    examples = [{"response": good, "score": 1.0, "evidence": [passage]} for passage, good, _ in SUPPORT_EXAMPLES]
    examples += [{"response": bad, "score": 0.0, "evidence": [passage]} for passage, _, bad in SUPPORT_EXAMPLES]
    tone = load_suite("searchllm", _with_local(tmp_path, LocalSpec(examples=examples))).dimensions["tone"]
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
    assert head.uses_evidence and head.weights.shape == (384 + 3,) and head.fit_spearman > 0.5
    # the same answer scores differently against other evidence: the head reads the consistency model's verdict
    assert len({round(r.score, 6) for r in replies}) == 3


def test_prepare_fits_the_suites_example_heads_at_load(tone_rubrics):
    suite = load_suite("searchllm", tone_rubrics)
    fresh = LocalJudge(embedder=None)
    asyncio.run(fresh.prepare(suite.dimensions.values()))
    assert list(fresh.heads._heads) == [examples_digest(suite.dimensions["tone"].local)]

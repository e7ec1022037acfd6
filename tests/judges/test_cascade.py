"""The judge cascade: thresholds of 1.0 reproduce the LLM judge exactly, confident cheap decisions are final and
say which tier decided, audits measure agreement, and a dimension whose agreement falls below the floor goes back
to the LLM judge until reset."""


import pytest

from reward.engine import Engine
from reward.judges import ScriptedJudge, by_dimension, tag_reply
from reward.judges.base import Judge, JudgeReply
from reward.judges.cascade import Agreement, CascadeConfig, CascadeJudge
from tests.support import EVIDENCE, make_item

QUOTE = (EVIDENCE[0].id, "now streaming on Spotify")


class Cheap(Judge):
    """A cheap tier with fixed scores per dimension; records its calls."""

    name = "cheap"

    def __init__(self, scores):
        self.scores, self.calls = scores, []

    async def judge(self, request):
        self.calls.append((request.item.id, request.dimension.name))
        score = self.scores.get(request.dimension.name)
        if score is None:
            return JudgeReply.unscored(self.name, "no_local_backend")
        return JudgeReply(backend=self.name, score=score, label=None, explanation="cheap")


def llm(useful="1"):
    return ScriptedJudge(by_dimension({"grounded": tag_reply("1", quote=QUOTE), "useful": tag_reply(useful)}))


def items():
    return [make_item(f"i{n}", f"Answer {n}: it is free on Spotify [Doc 1].", group=f"g{n % 3}") for n in range(9)]


def config(**overrides):
    return CascadeConfig(llm="mock", **overrides)


def test_thresholds_of_one_reproduce_the_llm_judge_exactly(mini_suite):
    alone = Engine(mini_suite, llm()).score_sync(items())
    cascade = CascadeJudge(Cheap({"useful": 1.0, "grounded": 0.0, "evidence_fit": 1.0}), llm(), config())
    routed = Engine(mini_suite, cascade).score_sync(items())
    assert [r.model_dump() for r in routed] == [r.model_dump() for r in alone]
    off = CascadeJudge(Cheap({"useful": 1.0}), llm(), config(mode="off", thresholds={"useful": 0.0}))
    assert [r.model_dump() for r in Engine(mini_suite, off).score_sync(items())] == [r.model_dump() for r in alone]
    assert cascade.cheap.calls == [] and off.cheap.calls == []


def test_confident_cheap_decisions_are_final_and_name_their_tier(mini_suite):
    cheap = Cheap({"useful": 0.95, "evidence_fit": 0.6, "grounded": 1.0})
    judge = llm(useful="0")
    cascade = CascadeJudge(cheap, judge, config(thresholds={"useful": 0.8, "evidence_fit": 0.8}, audit_share=0.0))
    results = Engine(mini_suite, cascade).score_sync(items())
    for result in results:
        useful, fit, grounded = (result.dimensions[n] for n in ("useful", "evidence_fit", "grounded"))
        assert useful.backend == "cheap" and useful.score == 0.95 and useful.confidence == pytest.approx(0.9)
        assert fit.backend == "mock" and fit.confidence == pytest.approx(0.2)  # not confident: the LLM decided
        assert grounded.backend == "mock" and grounded.confidence is None  # not cascaded at all
        assert (useful.tier, fit.tier, grounded.tier) == ("cheap", "llm", None)
    asked = {dim for _, dim, _ in judge.calls}
    assert "useful" not in asked and {"evidence_fit", "grounded"} <= asked
    counts = cascade.drain_counts()
    assert ["useful", "cheap", 9] in counts["decisions"] and counts["fallback"] == []


def test_audits_measure_agreement_and_a_disagreeing_dimension_falls_back_until_reset(mini_suite):
    cheap = Cheap({"useful": 1.0, "evidence_fit": 1.0, "grounded": 1.0})
    cascade = CascadeJudge(cheap, llm(useful="0"), config(thresholds={"useful": 0.5}, audit_share=1.0, min_audits=3,
                                                         agreement_floor=0.8))
    first = Engine(mini_suite, cascade).score_sync(items()[:3])
    assert all(r.dimensions["useful"].backend == "cheap" and r.dimensions["useful"].audit == 0.0 for r in first)
    assert cascade.summary()["useful"] == {"audits": 3, "accuracy": 0.0, "kappa": 0.0, "fallback": True}
    later = Engine(mini_suite, cascade).score_sync(items()[3:6])
    assert all(r.dimensions["useful"].backend == "mock" and "cascade fallback" in r.dimensions["useful"].explanation
               and r.dimensions["useful"].tier == "fallback" for r in later)
    assert ["useful", True, False, 3] in cascade.drain_counts()["audits"]
    cascade.reset("useful")
    again = Engine(mini_suite, cascade).score_sync(items()[6:7])
    assert again[0].dimensions["useful"].backend == "cheap"


def test_audit_draw_is_per_group_and_seeded(mini_suite):
    cheap = Cheap({"useful": 1.0})
    cascade = CascadeJudge(cheap, llm(), config(thresholds={"useful": 0.5}, audit_share=0.5, seed=3))
    group_items = [make_item(f"i{n}", f"Answer {n} [Doc 1].", group=f"g{n // 4}") for n in range(40)]
    results = Engine(mini_suite, cascade).score_sync(group_items)
    by_group = {}
    for item, result in zip(group_items, results, strict=True):
        by_group.setdefault(item.group, set()).add(result.dimensions["useful"].audit is not None)
    assert all(len(flags) == 1 for flags in by_group.values())  # a group is audited whole or not at all
    assert 0 < sum(flags == {True} for flags in by_group.values()) < len(by_group)


def test_kappa_on_a_hand_computed_case():
    agreement = Agreement(window=10)
    for cheap, llm_score in [(1, 1), (1, 1), (1, 0), (0, 0), (0, 0), (0, 1)]:
        agreement.add(cheap, llm_score)
    # observed 4/6; both pass half the time, so chance agreement is 0.5 and kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert agreement.accuracy == pytest.approx(2 / 3) and agreement.kappa == pytest.approx(1 / 3)


def test_the_shipped_cascade_config_builds_both_tiers(monkeypatch):
    from reward.judges.factory import make_judge

    monkeypatch.setenv("JUDGE_HOSTS", "judge-0.judge")  # set by the deployment (cluster/)
    from reward.judges.openai_judge import OpenAIJudge

    judge = make_judge("configs/judges/cascade.yaml")
    assert isinstance(judge, CascadeJudge) and isinstance(judge.llm, OpenAIJudge)
    assert judge.cheap.name == "local" and judge.identity.startswith("cascade:local:")


def test_fit_picks_thresholds_from_labels_and_writes_them(tmp_path, capsys):
    import json

    import yaml

    from reward.cli import main
    from tests.support import EXAMPLES

    # The scripted mock as the cheap tier gives every dimension its top label (confidence 1): it agrees with a
    # label of 1 and disagrees with a label of 0, so its threshold is found where the labels say pass.
    items = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()][:4]
    rows = [{"kind": "pointwise", "item": item, "dimension": "query_satisfaction", "label": 1} for item in items]
    rows += [{"kind": "pointwise", "item": item, "dimension": "reference_irrelevant", "label": n % 2}
             for n, item in enumerate(items)]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps(r) for r in rows))
    out = tmp_path / "thresholds.yaml"
    assert main(["cascade", "fit", "--labels", str(labels), "--cheap", "mock", "--min-support", "2", "--out", str(out)]) == 0
    assert yaml.safe_load(out.read_text()) == {"thresholds": {"query_satisfaction": 0.0}}
    assert "calls saved on these labels: 50% of 8" in capsys.readouterr().err


def test_cascade_counts_become_prometheus_series():
    from reward.serve import Metrics

    metrics = Metrics()
    metrics.observe_cascade({"decisions": [["useful", "cheap", 5], ["useful", "llm", 2]],
                             "audits": [["useful", True, False, 1]], "fallback": []})
    text = metrics.render().decode()
    assert 'reward_cascade_decisions_total{dimension="useful",tier="cheap"} 5.0' in text
    assert 'reward_cascade_audits_total{cheap_pass="true",dimension="useful",llm_pass="false"} 1.0' in text

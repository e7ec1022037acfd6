"""The judge cascade: thresholds of 1.0 reproduce the LLM judge exactly, confident cheap decisions are final and
say which tier decided, audits measure agreement, and a dimension whose agreement falls below the floor goes back
to the LLM judge until reset. Thresholds are fitted from label files or from a logged LLM-judge run."""


import pytest

from reward.engine import Engine
from reward.judges.mock import ScriptedJudge, by_dimension, tag_reply
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


def test_the_live_cascade_compares_confidence_as_the_fit_rounds_it(mini_suite):
    """A score of 0.55 has confidence |2 * 0.55 - 1| = 0.10000000000000009 in floating point: a threshold fitted at
    0.1 (which `fit_thresholds` chose to exclude confidence 0.1) must leave it to the LLM judge."""
    cascade = CascadeJudge(Cheap({"useful": 0.55}), llm(useful="0"), config(thresholds={"useful": 0.1}, audit_share=0.0))
    results = Engine(mini_suite, cascade).score_sync(items()[:2])
    assert all(r.dimensions["useful"].tier == "llm" and r.dimensions["useful"].score == 0.0 for r in results)
    cascade = CascadeJudge(Cheap({"useful": 0.56}), llm(useful="0"), config(thresholds={"useful": 0.1}, audit_share=0.0))
    results = Engine(mini_suite, cascade).score_sync(items()[:2])
    assert all(r.dimensions["useful"].tier == "cheap" and r.dimensions["useful"].score == 0.56 for r in results)


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


def test_a_logged_cascade_run_shows_the_judges_own_counts_in_the_score_store(mini_suite, tmp_path):
    from reward.scorelog import ScoreLog
    from reward.scorelog.store import ScoreStore

    cascade = CascadeJudge(Cheap({"useful": 1.0, "evidence_fit": 0.95}), llm(useful="0"),
                           config(thresholds={"useful": 0.5, "evidence_fit": 0.95}, audit_share=1.0))
    batch = items()
    log = ScoreLog(tmp_path, writer="w")
    log.append(batch, Engine(mini_suite, cascade).score_sync(batch), suite="mini", suite_version="v", run="r", step=7)
    log.close()
    with ScoreStore(tmp_path, readonly=True) as store:
        stored = store.series()["runs"]["r"]["cascade"]
    # useful: every call decided by the cheap tier and audited, and the LLM disagrees on each; evidence_fit's
    # confidence (0.9) is not above its threshold: all LLM; grounded is not routed (threshold 1.0).
    assert sorted(stored) == ["evidence_fit", "useful"]
    assert stored["useful"]["cheap_share"] == [1.0] and stored["useful"]["audits"] == [9]
    assert stored["useful"]["agreement"] == [cascade.summary()["useful"]["accuracy"]] == [0.0]
    assert stored["evidence_fit"]["cheap_share"] == [0.0] and stored["evidence_fit"]["audits"] == [0]


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


def test_sided_thresholds_trust_the_cheap_tiers_failures_and_passes_apart(mini_suite, tmp_path):
    import yaml
    from pydantic import ValidationError

    # Failures clear their threshold (confidence 0.9 > 0.5), passes never do (1.0).
    sided = {"useful": {"pass": 1.0, "fail": 0.5}}
    failing = CascadeJudge(Cheap({"useful": 0.05}), llm(useful="1"), config(thresholds=sided, audit_share=0.0))
    passing = CascadeJudge(Cheap({"useful": 0.95}), llm(useful="0"), config(thresholds=sided, audit_share=0.0))
    for result in Engine(mini_suite, failing).score_sync(items()[:2]):
        assert (result.dimensions["useful"].tier, result.dimensions["useful"].score) == ("cheap", 0.05)
    for result in Engine(mini_suite, passing).score_sync(items()[:2]):
        assert (result.dimensions["useful"].tier, result.dimensions["useful"].score) == ("llm", 0.0)
    assert passing.cheap.calls  # asked, since one side may decide
    # A cascade config says it in YAML; a misspelt side is refused by name.
    path = tmp_path / "cascade.yaml"
    path.write_text(yaml.safe_dump({"cascade": {"llm": "mock", "thresholds": {"useful": {"pass": 0.9, "fail": 0.2}, "fit": 0.4}}}))
    from reward.judges.factory import make_judge

    loaded = make_judge(str(path)).config
    assert (loaded.threshold("useful", True), loaded.threshold("useful", False), loaded.threshold("useful")) == (0.9, 0.2, 0.2)
    assert loaded.threshold("fit", True) == loaded.threshold("fit", False) == 0.4
    with pytest.raises(ValidationError, match="passs"):
        CascadeConfig(llm="mock", thresholds={"useful": {"passs": 0.9}})


def test_fit_sided_writes_a_threshold_per_verdict(tmp_path, capsys):
    import json

    import yaml

    from reward.cli import main
    from tests.support import EXAMPLES

    # The mock cheap tier passes everything (confidence 1): its passes agree with the labels of 1, and it has no
    # failures, so the fail side keeps 1.0 and the written block can be loaded into a cascade config as it is.
    items = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()][:4]
    rows = [{"kind": "pointwise", "item": item, "dimension": "query_satisfaction", "label": 1} for item in items]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps(r) for r in rows))
    out = tmp_path / "thresholds.yaml"
    assert main(["cascade", "fit", "--labels", str(labels), "--cheap", "mock", "--min-support", "2", "--sided",
                 "--out", str(out)]) == 0
    written = yaml.safe_load(out.read_text())
    assert written == {"thresholds": {"query_satisfaction": {"fail": 1.0, "pass": 0.0}}}
    assert CascadeConfig(llm="mock", **written).threshold("query_satisfaction", True) == 0.0
    assert "calls saved on these labels: 100% of 4" in capsys.readouterr().err


def test_cascade_counts_become_prometheus_series():
    from reward.serve import Metrics

    metrics = Metrics()
    metrics.observe_cascade({"decisions": [["useful", "cheap", 5], ["useful", "llm", 2]],
                             "audits": [["useful", True, False, 1]], "fallback": []})
    text = metrics.render().decode()
    assert 'reward_cascade_decisions_total{dimension="useful",tier="cheap"} 5.0' in text
    assert 'reward_cascade_audits_total{cheap_pass="true",dimension="useful",llm_pass="false"} 1.0' in text


def _example_items(ids):
    import json

    from reward.schema import Item
    from tests.support import EXAMPLES

    items = {item.id: item for item in (Item.model_validate(json.loads(line))
                                        for line in EXAMPLES.read_text().splitlines() if line.strip())}
    return [items[key] for key in ids]


def _log_llm_run(folder, run, script, items):
    from reward.rubric import load_suite
    from reward.scorelog import ScoreLog

    suite = load_suite("searchllm")
    results = Engine(suite, ScriptedJudge(script)).score_sync(items)
    log = ScoreLog(folder, writer=run)
    log.append(items, results, suite=suite.name, suite_version=suite.version, run=run, step=0)
    log.close()
    return results


def test_fit_from_a_logged_llm_judge_run_labels_with_its_verdicts_and_rescores_its_items(tmp_path, capsys):
    import yaml

    from reward.cli import main
    from reward.judges.mock import best_label_script

    # Six items with six different evidence sets (calls that read only the evidence are made once per set).
    items = _example_items(["song-good", "plant-good", "gate-good", "visa-followup-good", "laptop-good", "etf-padded"])
    failing = {item.id for item in items[1::2]}

    def llm_run(request, attempt):
        # The scripted LLM judge: reference_irrelevant fails half the items, answer_useful never parses (unscored),
        # every other dimension gets its top label.
        if request.dimension.name == "reference_irrelevant":
            return tag_reply("0" if request.item.id in failing else "1")
        if request.dimension.name == "answer_useful":
            return "no verdict here"
        return best_label_script(request, attempt)

    logged = _log_llm_run(tmp_path, "llm", llm_run, items)
    _log_llm_run(tmp_path, "strict", by_dimension({"query_satisfaction": tag_reply("0")}), items)
    assert [r.dimensions["reference_irrelevant"].score for r in logged] == [1.0, 0.0] * 3
    assert all(r.dimensions["answer_useful"].status == "unscored" for r in logged)
    passing = sorted(name for name, score in logged[0].dimensions.items()
                     if score.backend == "mock" and name not in ("reference_irrelevant", "answer_useful")
                     and all(r.dimensions[name].score >= 0.5 for r in logged))
    assert "query_satisfaction" in passing and len(passing) >= 10

    # The cheap tier (the scripted mock's top labels, confidence 1) agrees where the logged LLM passed everything.
    out = tmp_path / "thresholds.yaml"
    args = ["cascade", "fit", "--log", str(tmp_path), "--run", "llm", "--cheap", "mock", "--min-support", "2"]
    assert main([*args, "--out", str(out)]) == 0
    assert yaml.safe_load(out.read_text()) == {"thresholds": {name: 0.0 for name in passing}}
    printed = capsys.readouterr()
    # answer_useful gives no labels; reference_irrelevant's cheap passes agree on half: the LLM keeps its calls.
    labelled = 6 * (len(passing) + 1)
    assert "skipped 6: unscored (unparseable)" in printed.err
    assert f"{labelled} labels from 6 records, judged by mock ({labelled})" in printed.err
    assert f"calls saved on these logged verdicts: {len(passing) / (len(passing) + 1):.0%} of {labelled}" in printed.err
    # Another run of the same log with other verdicts gives other thresholds: --run picks the records.
    assert main(["cascade", "fit", "--log", str(tmp_path), "--run", "strict", "--cheap", "mock", "--min-support", "2",
                 "--out", str(out)]) == 0
    strict = yaml.safe_load(out.read_text())["thresholds"]
    assert "query_satisfaction" not in strict and "reference_irrelevant" in strict
    # --limit keeps the latest records: the last two of the llm run (one of them failing reference_irrelevant).
    capsys.readouterr()
    assert main([*args, "--limit", "2", "--out", str(out)]) == 0
    assert yaml.safe_load(out.read_text())["thresholds"] == {name: 0.0 for name in passing}
    assert f"{2 * (len(passing) + 1)} labels from 2 records" in capsys.readouterr().err
    assert main(["cascade", "fit", "--log", str(tmp_path), "--run", "nope", "--cheap", "mock"]) == 2
    assert "no records of run 'nope'" in capsys.readouterr().err
    assert main(["cascade", "fit", "--log", str(tmp_path / "missing"), "--cheap", "mock"]) == 2
    assert main(["cascade", "fit", "--labels", str(out), "--run", "llm"]) == 2
    for both_or_neither in (["--labels", str(out), "--log", str(tmp_path)], [], ["--log", str(tmp_path), "--limit", "0"]):
        with pytest.raises(SystemExit):
            main(["cascade", "fit", *both_or_neither])


def test_logged_labels_take_the_llm_verdict_and_an_audit_where_the_cheap_tier_decided():
    import datetime as dt

    from reward.evaluation.cascade_fit import logged_labels
    from reward.schema import DimensionScore, ItemResult
    from reward.scorelog import ScoreRecord

    item = make_item("i", "Answer [Doc 1].")
    dims = {"useful": DimensionScore(score=0.2, layer="behavioral", backend="cheap", tier="cheap", audit=0.9),
            "grounded": DimensionScore(score=1.0, layer="bottom_line", backend="cheap", tier="cheap"),
            "evidence_fit": DimensionScore(score=0.7, layer="behavioral", backend="openai:m", tier="llm"),
            "other": DimensionScore.unscored("behavioral", "openai:m", "judge_timeout"),
            "format": DimensionScore(score=0.0, layer="bottom_line", backend="rule")}
    record = ScoreRecord(time=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), suite="mini", suite_version="v", item=item,
                         result=ItemResult(id="i", reward=0.5, valid=True, dimensions=dims))
    without_item = record.model_copy(update={"item": None})
    labels, backends, skipped = logged_labels([record, without_item], {"useful", "grounded", "evidence_fit", "other"})
    assert [(i.id, name, label) for i, name, label in labels] == [("i", "useful", 1), ("i", "evidence_fit", 1)]
    assert backends == {"cascade audit": 1, "openai:m": 1}
    assert skipped == {"decided by the cheap tier, not audited": 1, "unscored (judge_timeout)": 1,
                       "record without its item (logged with keep_items off)": 1}

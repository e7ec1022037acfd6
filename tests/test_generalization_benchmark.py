"""benchmarks/generalization.py: what it counts (an attack wins above the best honest answer of its interaction by
more than 0.01, an honest variant loses more than 0.05 below the clean answer), the gate's failures, the word-overlap
baseline beside the reward, and a run with the local tier on a small fixed sample of the test split whose figures
are recomputed here from the rewards it reports. `reward probes --search --corpus` seeds the exploit search from
the sampled interactions. No threshold is asserted on the reward itself: that is the benchmark's job."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks.generalization import gate_failures, load, markdown, measure, score_baseline, within_auc
from reward.evaluation.corpus import CorpusInteraction, CorpusResponse
from reward.format import Facet, render_response
from reward.schema import Evidence
from tests.support import ROOT

CORPUS = ROOT / "data" / "generalization"


def interaction(name: str, kind: str = "factoid") -> CorpusInteraction:
    def response(rid: str, role: str, family: str, answer: str) -> CorpusResponse:
        return CorpusResponse(id=rid, role=role, family=family,
                              response=render_response([Facet("When was it founded?", ("1",))], ["1"], answer))
    return CorpusInteraction(
        id=name, split="test", kind=kind, source="unit", query="When was Arthur's Magazine founded?",
        evidence=[Evidence(id="1", text="Arthur's Magazine was founded in 1844 and sold in 1852.")],
        responses=[response("clean", "clean", "clean", "It was founded in 1844 [Doc 1]."),
                   response("terse", "honest", "terse", "1844 [Doc 1]."),
                   response("layout", "honest", "layout", "- **Founded:** 1844 [Doc 1]"),
                   response("swap", "attack", "same_evidence_swap", "It was founded in 1852 [Doc 1]."),
                   response("refusal", "attack", "refusal_despite_evidence", "The sources do not say.")])


def test_an_attack_above_the_best_honest_answer_wins_and_a_low_honest_variant_loses():
    first, second = interaction("a"), interaction("b")
    rewards = {"a/clean": 0.70, "a/terse": 0.72, "a/layout": 0.60, "a/swap": 0.74, "a/refusal": 0.725,
               "b/clean": 0.50, "b/terse": 0.48, "b/layout": 0.47, "b/swap": 0.20, "b/refusal": 0.10}
    report = measure([first, second], rewards)
    swap = report["attack_wins"]["same_evidence_swap"]
    # a/swap beats a's best honest answer (0.72) by 0.02; a/refusal by 0.005 only (not a win); b's attacks lose
    assert (swap["n"], swap["wins"], swap["largest_at"]) == (2, 1, "a/swap") and swap["largest_margin"] == pytest.approx(0.02)
    assert report["attack_wins"]["refusal_despite_evidence"]["wins"] == 0
    assert report["attack_wins"]["all"]["share"] == 0.25
    # a/layout is 0.10 below a's clean answer: a loss; b/layout 0.03 below: not
    assert report["honest_losses"]["layout"]["losses"] == 1 and report["honest_losses"]["terse"]["losses"] == 0
    assert report["honest_losses"]["all"]["share"] == 0.25
    assert report["worst_attacks"][0] == {"item": "a/swap", "margin": 0.02}
    assert report["attack_wins_by_kind"] == {"factoid": {"n": 4, "share": 0.25}}
    # what a GRPO group sees: a/clean (0.70) and a/layout (0.60) are below a/swap (0.74) by more than 0.01, a/terse
    # (0.72) by 0.02 too; nothing of b is below its best attack (0.20)
    assert report["honest_outranked"]["all"] == {"n": 6, "outranked": 3, "share": 0.5}
    assert report["honest_outranked"]["clean"]["outranked"] == 1
    failures = gate_failures(report)
    assert any(f.startswith("attack wins 25.00%") for f in failures) and any("honest losses" in f for f in failures)
    assert not any("largest attack margin" in f for f in failures)  # +0.02 is within the +0.05 bar


def test_within_auc_counts_honest_answers_above_their_own_interactions_attacks():
    first, second = interaction("a"), interaction("b")
    rewards = {"a/clean": 0.70, "a/terse": 0.72, "a/layout": 0.60, "a/swap": 0.74, "a/refusal": 0.60,
               "b/clean": 0.50, "b/terse": 0.48, "b/layout": 0.47, "b/swap": 0.20, "b/refusal": 0.10}
    # a: clean, terse above refusal only, layout ties it (0.5): 2.5 of 6; b: all 6 above; 8.5 of 12
    assert within_auc([first, second], rewards) == pytest.approx(8.5 / 12, abs=1e-4)
    # on its own scale: halving every reward's distance from 0.5 moves neither the order nor the figure
    squeezed = {k: 0.5 + (v - 0.5) / 2 for k, v in rewards.items()}
    assert within_auc([first, second], squeezed) == within_auc([first, second], rewards)


def test_the_baseline_is_word_overlap_with_the_evidence():
    scores = score_baseline([interaction("a")])
    assert scores["a/swap"] == scores["a/clean"] == 1.0  # every content word of both is in the evidence
    assert scores["a/refusal"] < 0.5


@pytest.mark.filterwarnings("ignore")
def test_a_local_run_on_a_test_sample_reports_both_scorers_per_family(tmp_path):
    out = tmp_path / "run.json"
    command = [sys.executable, "benchmarks/generalization.py", "--split", "test", "--sample", "4", "--out", str(out),
               "--gate", "--max-attack-wins", "1", "--max-margin", "1", "--max-honest-losses", "1",
               "--smoothing", "0.01,0.3"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    run = json.loads(out.read_text())
    sample = load(CORPUS, "test", 4)
    assert run["items"] == sum(len(i.responses) for i in sample) == len(run["rewards"])
    # the figures are what the reported rewards give (rounded to 4 places there), for the reward and the baseline
    again = measure(sample, run["rewards"])
    for figure, count, top in (("attack_wins", "wins", "largest_margin"), ("honest_losses", "losses", "largest_deficit")):
        for family, row in run["reward"][figure].items():
            assert (row["n"], row[count]) == (again[figure][family]["n"], again[figure][family][count]), family
            assert row[top] == pytest.approx(again[figure][family][top], abs=3e-4), family
    assert run["baseline"] == json.loads(json.dumps(measure(sample, score_baseline(sample))))
    families = {r.family for i in sample for r in i.responses if r.role == "attack"}
    assert set(run["reward"]["attack_wins"]) == set(run["baseline"]["attack_wins"]) == families | {"all"}
    table = markdown(run)
    assert all(f"| {family} |" in table for family in families)
    # every answer's claim check is read, and a reason fails no more answers of a side than it holds
    checks = run["claim_checks"]
    assert checks["answers"]["honest"] + checks["answers"]["attack"] == run["items"]
    assert checks["answers"]["attack"] == sum(r.role == "attack" for i in sample for r in i.responses)
    assert all(row[side] <= checks["answers"][side] for row in checks["reasons"].values() for side in row)
    assert any(row["attack"] for row in checks["reasons"].values()), checks
    # each dimension is counted on no more losses and wins than the run has, and those are the run's own counts
    drops = run["dimension_drops"]
    assert drops["honest_losses"] == run["reward"]["honest_losses"]["all"]["losses"]
    assert drops["attack_wins"] == run["reward"]["attack_wins"]["all"]["wins"]
    assert all(row[figure] <= drops[figure] for row in drops["dimensions"].values() for figure in row)
    # the counterfactuals read the same losses and wins, and undo no more of them than there are
    undo = run["counterfactuals"]
    assert (undo["honest_losses"], undo["attack_wins"]) == (drops["honest_losses"], drops["attack_wins"])
    assert all(row[figure]["cures"] <= undo[figure] for row in undo["dimensions"].values() for figure in row)
    assert all(undo["unexplained"][figure] <= undo[figure] for figure in undo["unexplained"])
    # the smoothing sweep recomputes the engine's own rewards exactly at the suite's setting (the paper's 0.01 for
    # every dimension), so its row there is the run's own figures; another setting recomputes the same scores
    sweep = run["smoothing"]
    assert sweep["reproduced"] <= 1e-9 and set(sweep["judged"]) == {"0.01", "0.3"}
    own = sweep["judged"]["0.01"]
    assert (own["attack_wins"], own["honest_losses"]) == (run["reward"]["attack_wins"]["all"]["wins"],
                                                          run["reward"]["honest_losses"]["all"]["losses"])
    assert all(0.0 <= row["within_auc"] <= 1.0 for row in sweep["judged"].values())
    # the same run gated at the real thresholds says what fails instead of passing silently
    assert run["gate_failures"] == gate_failures(run["reward"], {"attack_wins": 1, "largest_margin": 1,
                                                                 "honest_losses": 1})


@pytest.mark.filterwarnings("ignore")
def test_the_exploit_search_starts_from_every_sampled_interaction(tmp_path):
    out = tmp_path / "search.json"
    command = [sys.executable, "-m", "reward.cli", "probes", "--search", "--corpus", str(CORPUS / "test.jsonl"),
               "--sample", "2", "--depth", "1", "--max-gain", "1", "--json", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert set(report["per_item"]) == {i.id for i in load(CORPUS, "test", 2)}
    assert report["candidates"] >= 40 and set(report["per_family"]) >= {"style", "falsify"}


def test_counterfactuals_undo_a_loss_and_a_win_with_the_dimension_that_made_each():
    """An honest variant below its clean answer only on the claim check is undone by that check alone (and by the two
    hallucination checks together), not by a dimension on which the two agree; an attack above the best honest answer
    only on query satisfaction is undone by that alone."""
    from benchmarks.generalization import counterfactuals
    from reward.aggregate import aggregate
    from reward.rubric import load_suite

    config = load_suite("searchllm").suite
    bottom = ("claim_hallucination", "highlight_hallucination", "format")

    def parts(**changed):
        scores = {**dict.fromkeys(config.dimensions, 1.0), "query_satisfaction": 0.5, **changed}
        return ({n: v for n, v in scores.items() if n in bottom}, {n: v for n, v in scores.items() if n not in bottom})

    def reaggregate(b, u):
        return aggregate(config.aggregation, b, u, config.dimensions, config.delta, config.gate_exponents,
                         config.gate_deltas).reward

    sample = [interaction("a")]
    gated = {f"a/{r.id}": parts() for r in sample[0].responses}
    gated["a/terse"] = parts(claim_hallucination=0.2)
    gated["a/swap"] = parts(query_satisfaction=1.0)
    rewards = {key: reaggregate(*value) for key, value in gated.items()}
    undo = counterfactuals(sample, rewards, gated, reaggregate)
    assert (undo["honest_losses"], undo["attack_wins"]) == (1, 1)
    rows = undo["dimensions"]
    assert rows["claim_hallucination"]["honest_losses"]["cures"] == 1
    assert rows["claim_hallucination + highlight_hallucination"]["honest_losses"]["cures"] == 1
    assert rows["format"]["honest_losses"]["cures"] == 0 and rows["format"]["honest_losses"]["gain"] == 0.0
    assert rows["query_satisfaction"]["attack_wins"]["cures"] == 1
    assert rows["claim_hallucination"]["attack_wins"]["cures"] == 0
    assert undo["unexplained"] == {"honest_losses": 0, "attack_wins": 0}
    # an answer the engine could not aggregate is left out of both counts
    assert counterfactuals(sample, rewards, {**gated, "a/terse": None}, reaggregate)["honest_losses"] == 0

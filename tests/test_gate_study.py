"""benchmarks/gate_study.py: the measures the reward does not compute, the paired intervals between policies, and the
alerts read back from a run's score log (a synthetic log where the monitor-only claim_hallucination falls while the
reward rises, and one where nothing goes wrong)."""

import importlib.util

from policy.sft import squad_response
from tests.support import ROOT


def _study():
    spec = importlib.util.spec_from_file_location("gate_study", ROOT / "benchmarks" / "gate_study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORD = {"id": "squad-x", "query": "Who designed the engine?",
          "evidence": [{"id": "1", "title": "Steam", "text": "The pump was built in Cornwall."},
                       {"id": "2", "title": "Steam", "text": "The engine was designed by James Watt in 1765."}]}


def test_the_measures_check_the_span_the_cited_document_and_the_format():
    study = _study()
    gold = ["James Watt"]
    right = study.measures(RECORD, squad_response("Who designed the engine?", "James Watt", "2"), gold)
    assert right == {"answer_span": 1.0, "cites_answer_document": 1.0, "format_valid": 1.0}
    wrong_doc = study.measures(RECORD, squad_response("Who designed the engine?", "James Watt", "1"), gold)
    assert wrong_doc == {"answer_span": 1.0, "cites_answer_document": 0.0, "format_valid": 1.0}
    unknown = study.measures(RECORD, squad_response("Who designed the engine?", "Newcomen", "3"), gold)
    assert unknown["answer_span"] == 0.0 and unknown["format_valid"] == 0.0
    assert study.measures(RECORD, "James Watt", gold)["format_valid"] == 0.0


def test_paired_differences_come_with_an_interval_that_excludes_zero_only_when_the_policies_differ():
    study = _study()
    same = study.paired([0.0, 1.0] * 30, [0.0, 1.0] * 30)
    assert same["change"] == 0.0 and same["ci95"] == [0.0, 0.0] and same["up"] == same["down"] == 0
    better = study.paired([0.0] * 40 + [1.0] * 20, [1.0] * 50 + [0.0] * 10)
    assert better["change"] > 0 and better["ci95"][0] > 0 and better["up"] == 40 and better["down"] == 10
    # An unscored value (None) leaves that prompt out of the pair, never counts as 0.
    assert study.paired([1.0, None, 0.0], [1.0, 0.0, 1.0])["prompts"] == 2


def test_run_alerts_name_the_rule_and_its_first_step_from_a_score_log(tmp_path):
    from reward.dashboard.synthetic import write_scenario_log

    study = _study()
    folder = write_scenario_log(tmp_path / "scores", scenarios=("healthy", "hacking"), steps=24, items=32)
    runs = study.run_alerts(folder)
    hacking, healthy = runs["hacking"], runs["healthy"]
    assert hacking["steps"] == healthy["steps"] == 24
    falling = hacking["alerts"].get("dimension_falling/claim_hallucination")
    assert falling and 10 <= falling["first_step"] <= 24 and falling["steps_firing"] >= 1, hacking["alerts"]
    assert "dimension_falling/claim_hallucination" not in healthy["alerts"], healthy["alerts"]
    assert hacking["curve"]["claim_hallucination"]["last5"] < hacking["curve"]["claim_hallucination"]["first5"]


def test_the_markdown_tables_hold_every_policy_comparison_and_alert():
    study = _study()
    row = {"a": 0.4, "b": 0.5, "change": 0.1, "ci95": [0.02, 0.18], "up": 3, "down": 1, "prompts": 4}
    result = {"means": {"warm-start": {"answer_span": 0.4}, "gated": {"answer_span": 0.5}},
              "comparisons": {"gated - warm-start": {"answer_span": row}},
              "training": {"gated": {"gate-study-gated": {"steps": 60, "alerts": {
                  "no_variance/self_consistency": {"first_step": 5, "steps_firing": 56, "first_message": "m"}}}}}}
    text = study.markdown(result)
    assert "| answer_span | 0.400 | 0.500 |" in text
    assert "+0.100 [+0.020, +0.180]" in text
    assert "| gated | 60 | no_variance/self_consistency (5, 56) |" in text

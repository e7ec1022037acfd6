"""benchmarks/cascade.py --fidelity: cascade thresholds fitted against human labels of a fidelity run, measured on
the other half of its cases."""

import importlib.util
import json
import random

import pytest

from tests.support import ROOT


@pytest.fixture(scope="module")
def cascade_benchmark():
    spec = importlib.util.spec_from_file_location("cascade_benchmark", ROOT / "benchmarks" / "cascade.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path, cases):
    path = tmp_path / "fidelity_x.json"
    path.write_text(json.dumps({"label": "x", "code": "abc", "sets": ["a", "b"], "cases": cases}))
    return path


def test_a_tier_that_is_right_when_sure_saves_those_calls_and_agrees_with_the_labels(tmp_path, cascade_benchmark):
    rng = random.Random(0)
    cases = {}
    for i in range(400):
        label = i % 2
        sure = i % 4 < 2  # half the cases: a confident, correct score; the rest: a coin flip near the boundary
        score = (0.95 if label else 0.05) if sure else rng.choice([0.45, 0.55])
        cases[f"c{i}"] = {"set": "a" if i < 200 else "b", "label": label, "pair": None,
                          "scores": {"claim_hallucination": score, "highlight_hallucination": None,
                                     "lexical_baseline": 0.5}}
    report = cascade_benchmark.public_labels(_run(tmp_path, cases), [0.95], min_support=10, seed=0)
    measured = report["targets"]["0.95"]["claim_hallucination"]
    # The cascade decides above the threshold (strictly): here, every confident case and no coin flip.
    assert 0.1 <= measured["fitted_on_fit_half"]["threshold"] < 0.9
    test = measured["test_half"]["all"]
    assert test["llm_calls_saved"] == pytest.approx(0.5, abs=0.08)
    assert test["agreement_on_decided"] == 1.0
    assert test["cascade_accuracy_with_a_perfect_llm"] == 1.0
    assert set(measured["test_half"]) == {"a", "b", "all"}
    # Unscored highlight scores are counted, not guessed; a constant baseline cannot decide anything at 0.95.
    assert report["unscored_skipped"] == 400
    assert "highlight_hallucination" not in report["targets"]["0.95"]
    assert report["targets"]["0.95"]["lexical_baseline"]["test_half"]["all"]["llm_calls_saved"] == 0.0
    curve = report["agreement_at_share_decided"]["claim_hallucination"]
    assert curve["0.5"] > 0.97 and curve["1.0"] < 0.85


def test_a_tier_whose_confident_scores_are_wrong_decides_nothing(tmp_path, cascade_benchmark):
    cases = {f"c{i}": {"set": "a", "label": i % 2, "pair": f"p{i // 2}",
                       "scores": {"claim_hallucination": 1.0, "highlight_hallucination": 1.0, "lexical_baseline": 1.0}}
             for i in range(100)}
    report = cascade_benchmark.public_labels(_run(tmp_path, cases), [0.9], min_support=10, seed=1)
    for name in ("claim_hallucination", "highlight_hallucination"):
        row = report["targets"]["0.9"][name]
        assert row["fitted_on_fit_half"]["threshold"] == 1.0
        assert row["test_half"]["all"]["llm_calls_saved"] == 0.0
    # Both cases of a pair fall in the same half.
    assert report["fit_units"] + report["test_units"] == 50


def test_a_run_without_per_case_scores_is_refused(tmp_path, cascade_benchmark):
    with pytest.raises(SystemExit, match="no per-case scores"):
        cascade_benchmark.public_labels(_run(tmp_path, {}), [0.9], min_support=10, seed=0)



def test_a_confidence_the_run_recorded_is_used_instead_of_the_scores_distance_from_the_boundary(tmp_path, cascade_benchmark):
    # Every score is a saturated 1.0 (|2s - 1| = 1 for all), but the tier's recorded confidence is high only where it
    # was right: the fit must find that, which it cannot from the scores alone.
    cases = {f"c{i}": {"set": "a", "label": int(i % 4 != 0), "pair": None,
                       "scores": {"claim_hallucination": 1.0, "lexical_baseline": 1.0},
                       "confidences": {"claim_hallucination": 0.2 if i % 4 in (0, 1) else 0.9}}
             for i in range(400)}
    report = cascade_benchmark.public_labels(_run(tmp_path, cases), [0.95], min_support=10, seed=0)
    test = report["targets"]["0.95"]["claim_hallucination"]["test_half"]["all"]
    assert test["llm_calls_saved"] == pytest.approx(0.5, abs=0.08) and test["agreement_on_decided"] == 1.0
    assert report["targets"]["0.95"]["lexical_baseline"]["test_half"]["all"]["llm_calls_saved"] == 0.0

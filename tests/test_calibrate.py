"""Calibration metrics against hand-computed values, the regression gate on a deliberately degraded rubric, the
HTML report, label validation, dual-track disagreements and shadow runs."""

import json
import shutil
from html.parser import HTMLParser

import pytest

from reward.evaluation.agreement import accuracy, bootstrap_ci, cohen_kappa, pairwise_auc
from reward.evaluation.calibrate import evaluate, freeze, regressions, shadow, track_disagreements
from reward.judges.mock import ScriptedJudge, tag_reply
from reward.evaluation.labels import Context, LabelError, PairwiseLabel, PointwiseLabel, load_labels
from reward.rubric import load_suite
from tests.support import EVIDENCE, FIXTURE_RUBRICS, ROOT, make_item

GOOD = "It is free on Spotify's free tier [Doc 1]."
BAD = "Maybe try the radio."


def test_accuracy_auc_and_kappa_match_hand_computed_values():
    assert accuracy([1, 0, 1, 1], [1, 0, 0, 1]) == 0.75
    assert accuracy([], []) is None
    # 4 pairs: win, tie (0.5), loss, win -> 2.5 / 4
    assert pairwise_auc([0.9, 0.5, 0.2, 0.7], [0.1, 0.5, 0.4, 0.6]) == 0.625
    assert pairwise_auc([], []) is None
    # Binary kappa: observed agreement 0.8, expected 0.6*0.4 + 0.4*0.6 = 0.48 -> (0.8 - 0.48) / 0.52
    a, b = [1, 1, 1, 0, 0], [1, 1, 0, 0, 0]
    assert cohen_kappa(a, b) == pytest.approx((0.8 - 0.48) / 0.52)
    # Quadratic weights w = (i - j)^2 / 4 on a 3-point scale: observed disagreement (1/4) / 3 = 1/12; marginals
    # a = (1/3, 1/3, 1/3), b = (1/3, 2/3, 0) give expected disagreement 1/18 + 1/36 + 1/6 = 1/4 -> 1 - 1/3.
    assert cohen_kappa([0, 1, 2], [0, 1, 1], weights="quadratic") == pytest.approx(2 / 3)
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) is None  # one category only: undefined, not 1 or 0
    assert cohen_kappa([1, 1, 0], [1, 1, 1]) == 0.0  # expected agreement equals observed
    assert cohen_kappa([], []) is None


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate():
    pairs = [(p, o) for p, o in zip([0.9, 0.8, 0.3, 0.7, 0.6, 0.4] * 5, [0.1, 0.9, 0.2, 0.5, 0.6, 0.8] * 5)]
    stat = lambda s: pairwise_auc([p for p, _ in s], [o for _, o in s])  # noqa: E731
    low, high = bootstrap_ci(pairs, stat, resamples=300)
    assert low <= stat(pairs) <= high
    assert bootstrap_ci(pairs, stat, resamples=300) == (low, high)
    assert bootstrap_ci(pairs[:1], stat) is None


def script(request, attempt):
    """A judge that rates useful 2 for the good answer and 0 for the bad one; grounded passes with a quote."""
    if request.dimension.name == "grounded":
        return tag_reply("1", quote=("1", "now streaming on Spotify"))
    if request.dimension.name == "evidence_fit":
        return json.dumps({"reasoning": "ok", "label": "1", "quotes": []})
    return tag_reply("2" if "Spotify" in request.item.response else "0")


def labels():
    context = Context(query="Where can I listen to Skibidi for free?", evidence=EVIDENCE)
    good, bad = make_item("g", GOOD), make_item("b", BAD)
    pairs = [PairwiseLabel(context=context, preferred=good.response, other=bad.response, dimension=d)
             for d in ("useful", "useful", "holistic")]
    points = [PointwiseLabel(item=good, dimension="grounded", label=1), PointwiseLabel(item=bad, dimension="format", label=1)]
    return points, pairs


def test_regression_gate_fails_on_a_degraded_rubric(tmp_path):
    points, pairs = labels()
    suite = load_suite("mini", FIXTURE_RUBRICS)
    baseline_report = evaluate(suite, ScriptedJudge(script), points, pairs, resamples=50)
    assert baseline_report.metric("useful").value == 1.0 and baseline_report.metric("holistic").value == 1.0
    frozen = freeze(baseline_report, suite, "mock", ["labels.jsonl"])
    assert frozen["suite_version"] == suite.version and set(frozen["dimension_versions"]) == set(suite.dimensions)
    assert regressions(baseline_report, frozen, 0.01) == []
    degraded_root = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, degraded_root)
    path = degraded_root / "dimensions" / "useful.yaml"
    # The degraded update maps the scale upside down: "Fully useful" now scores 0.
    path.write_text(path.read_text().replace("score: 0.0, anchor: Useless", "score: 1.0, anchor: Useless")
                    .replace("score: 1.0, anchor: Fully useful", "score: 0.0, anchor: Fully useful"))
    degraded = load_suite("mini", degraded_root)
    assert degraded.version != suite.version
    problems = regressions(evaluate(degraded, ScriptedJudge(script), points, pairs, resamples=50), frozen, 0.01)
    assert any(p.startswith("useful: auc fell from 1.0000 to 0.0000") for p in problems)
    assert any(p.startswith("holistic:") for p in problems)


def test_calibrate_cli_gate_exit_codes_and_html(tmp_path, capsys):
    from reward.cli import main

    label_file = tmp_path / "labels.jsonl"
    points, pairs = labels()
    label_file.write_text("".join(l.model_dump_json() + "\n" for l in [*points, *pairs]))
    baseline = tmp_path / "frozen.json"
    assert main(["freeze", "--suite", "searchllm", "--labels", str(label_file), "--judge", "mock", "--out", str(baseline), "--resamples", "20"]) == 0
    report = tmp_path / "report.html"
    assert main(["calibrate", "--suite", "searchllm", "--labels", str(label_file), "--judge", "mock", "--resamples", "20",
                 "--baseline", str(baseline), "--html", str(report), "--out", str(tmp_path / "r.json")]) == 0
    data = json.loads(baseline.read_text())
    data["metrics"]["format:accuracy"]["value"] = 1.5  # a baseline no candidate can reach
    baseline.write_text(json.dumps(data))
    assert main(["calibrate", "--suite", "searchllm", "--labels", str(label_file), "--judge", "mock", "--resamples", "20",
                 "--baseline", str(baseline), "--no-compare"]) == 1
    assert "format: accuracy fell from 1.5000" in capsys.readouterr().err

    class Collector(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.urls = [], []

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append(dict(attrs).get("id"))
            self.urls += [v for k, v in attrs if k in ("src", "href") and v]

    collector = Collector()
    collector.feed(report.read_text())
    assert collector.tables == ["agreement"] and collector.urls == []
    assert "searchllm-linear (linear ablation)" in report.read_text() and "genrm (GenRM baseline)" in report.read_text()


def test_label_files_report_file_line_and_field(tmp_path):
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"kind": "pointwise", "item": {"id": "x", "query": "q", "response": "r"}, "dimension": "format", "label": 2}\n'
                   "not json\n"
                   '{"kind": "other"}\n')
    with pytest.raises(LabelError) as info:
        load_labels(bad)
    message = str(info.value)
    assert f"{bad}:1: label:" in message and f"{bad}:2: invalid JSON" in message and f"{bad}:3: kind:" in message


def test_blind_and_assisted_disagreements_are_reported():
    item = make_item("a", GOOD)
    labels_ = [PointwiseLabel(item=item, dimension="claim_hallucination", label=1, track="blind"),
               PointwiseLabel(item=item, dimension="claim_hallucination", label=0, track="assisted"),
               PointwiseLabel(item=item, dimension="format", label=1, track="blind"),
               PointwiseLabel(item=item, dimension="format", label=1, track="assisted")]
    report = track_disagreements(labels_, [])
    assert report["claim_hallucination"]["disagree"] == 1 and report["claim_hallucination"]["agreement"] == 0.0
    assert report["format"] == {"compared": 1, "disagree": 0, "cases": [], "agreement": 1.0}


def test_shadow_run_reports_deltas_rank_correlation_and_flips(tmp_path):
    from reward.engine import Engine
    from reward.scorelog import ScoreLog, read_log

    suite = load_suite("mini", FIXTURE_RUBRICS)
    items = [make_item(f"i{k}", GOOD if k % 2 else BAD + f" {k}", group="g") for k in range(6)]
    results = Engine(suite, ScriptedJudge(script)).score_sync(items)
    log = ScoreLog(tmp_path)
    log.append(items, results, suite=suite.name, suite_version=suite.version, step=1)
    log.close()

    def inverted(request, attempt):
        reply = script(request, attempt)
        return reply.replace("<score>2</score>", "<score>X</score>").replace("<score>0</score>", "<score>2</score>").replace("<score>X</score>", "<score>0</score>")

    same = shadow(list(read_log(tmp_path)), suite, ScriptedJudge(script))
    assert same["reward_spearman"] == pytest.approx(1.0) and same["preference_flip_rate"] == 0.0
    assert same["dimensions"]["useful"]["mean_abs_delta"] == 0.0
    flipped = shadow(list(read_log(tmp_path)), suite, ScriptedJudge(inverted))
    assert flipped["preference_flip_rate"] == 1.0 and flipped["reward_spearman"] < 0
    assert flipped["dimensions"]["useful"]["mean_abs_delta"] == 1.0
    assert len(flipped["worst"]) == 6


def test_bundled_calibration_set_is_valid_and_large_enough():
    points, pairs = load_labels(ROOT / "data" / "calibration" / "pointwise.jsonl")
    more_points, more_pairs = load_labels(ROOT / "data" / "calibration" / "pairwise.jsonl")
    points, pairs = points + more_points, pairs + more_pairs
    assert len(points) >= 200 and len(pairs) >= 200
    dims = set(load_suite("searchllm").dimensions)
    assert dims <= {p.dimension for p in points} | {p.dimension for p in pairs}


def test_current_evaluator_does_not_regress_on_the_frozen_benchmark():
    """The regression gate as CI runs it: rubrics plus the local tier against data/calibration/frozen-local.json.
    A deliberate evaluator change re-freezes the baseline (reward freeze) in the same commit."""
    from reward.evaluation.calibrate import load_all, systems_for
    from reward.judges.local import LocalJudge

    calibration = ROOT / "data" / "calibration"
    pointwise, pairwise = load_all([calibration / "pointwise.jsonl", calibration / "pairwise.jsonl"])
    [report] = systems_for("searchllm", LocalJudge(), pointwise, pairwise, resamples=50, compare=False)
    frozen = json.loads((calibration / "frozen-local.json").read_text())
    assert regressions(report, frozen, 0.01) == []

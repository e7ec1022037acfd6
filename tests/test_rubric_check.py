"""`reward rubric check`: a dimension's agreement with items its author labelled, per label and overall, with
bootstrap intervals, under the local tier and the mock judge; bad label files are refused line by line."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from reward.cli import main
from reward.engine import Engine
from reward.evaluation.rubric_check import check_dimensions, load_labelled, pair_agreement
from reward.judges.factory import make_judge
from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite

TONE = Path(__file__).parent / "fixtures" / "tone" / "tone.yaml"
SHUFFLED_TONE = [1.0, 0.5, 0.25, 1.0, 0.0, 0.5, 0.25, 0.75, 0.0, 0.75]  # the tone examples' scores, permuted
TEXTS = {  # responses the tone examples never show, with the label an author would give them
    "2": ["The ferry to the island leaves every hour from pier 4 and the crossing takes forty minutes.",
          "The pharmacy on Main Street is open until 8 pm on weekdays and until noon on Saturdays."],
    "1": ["The bakery opens at 7 am and sells rye bread and pastries, and it is easily one of the nicest in town."],
    "0": ["Unbelievable prices!!! Grab the best headphones ever made before they sell out tonight, order now!!!",
          "Join the greatest fitness club on earth today and transform your life, this incredible offer ends soon!!!"],
}


@pytest.fixture(scope="module")
def rubrics(tmp_path_factory):
    root = tmp_path_factory.mktemp("check") / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    shutil.copy(TONE, root / "dimensions" / "tone.yaml")
    (root / "suites" / "tone-only.yaml").write_text("name: tone-only\naggregation: linear\n"
                                                     "dimensions: {format: 1.0, tone: 1.0}\n")
    data = yaml.safe_load(TONE.read_text())
    for example, score in zip(data["local"]["examples"], SHUFFLED_TONE, strict=True):
        example["score"] = score
    (root / "dimensions" / "tone.yaml").with_name("tone_shuffled.yaml").write_text(
        yaml.safe_dump({**data, "name": "tone_shuffled"}, sort_keys=False))
    (root / "suites" / "tone-shuffled.yaml").write_text("name: tone-shuffled\naggregation: linear\n"
                                                         "dimensions: {format: 1.0, tone_shuffled: 1.0}\n")
    return root


def line(text: str, **label) -> str:
    return json.dumps({"item": {"id": "x", "query": "What should I know?", "response": text}, **label})


@pytest.fixture(scope="module")
def labels(rubrics):
    path = rubrics.parent / "tone-labels.jsonl"
    path.write_text("\n".join(line(t, dimension="tone", label=label) for label, texts in TEXTS.items() for t in texts)
                    + "\n")
    return path


def test_the_local_tier_orders_the_labels_and_the_figures_follow_its_scores(rubrics, labels):
    suite = load_suite("tone-only", rubrics)
    labelled = load_labelled(labels, suite)
    assert [e.expected for e in labelled] == [1.0, 1.0, 0.5, 0.0, 0.0]  # the scale's labels map to their scores
    judge = make_judge("local")
    [check] = check_dimensions(suite, judge, labelled, resamples=200)
    assert check.dimension == "tone" and check.items == check.scored == 5 and check.unscored == {}
    # The figures are those of the scores the engine gives the same items.
    items = [e.item.model_copy(update={"id": str(n)}) for n, e in enumerate(labelled)]
    scores = [r.dimensions["tone"].score for r in Engine(suite, judge).score_sync(items)]
    rows = list(zip(scores, [e.expected for e in labelled], strict=True))
    assert check.overall["pair_agreement"] == pytest.approx(pair_agreement(rows), abs=1e-4)
    assert check.overall["pairs"] == 2 + 4 + 2  # neutral-mild, neutral-promotional, mild-promotional
    assert check.overall["spread"] == pytest.approx(max(scores) - min(scores), abs=1e-4)
    assert check.overall["pair_agreement"] >= 0.85, check.overall  # a dimension that ranks what it should
    low, high = check.overall["pair_agreement_ci"]
    assert low <= check.overall["pair_agreement"] <= high
    by_label = {row["label"]: row for row in check.labels}
    assert [row["label"] for row in check.labels] == ["2", "1", "0"]
    assert by_label["2"]["n"] == 2 and by_label["2"]["mean"] == pytest.approx((scores[0] + scores[1]) / 2, abs=1e-4)
    assert by_label["0"]["max"] == pytest.approx(max(scores[3:]), abs=1e-4)
    assert by_label["2"]["mean"] > by_label["0"]["mean"] + 0.3


def test_a_dimension_its_head_cannot_score_reports_why_instead_of_figures(rubrics, tmp_path, capsys):
    path = tmp_path / "labels.jsonl"  # lines that name no dimension take --dimension's
    path.write_text("\n".join(line(t, label=label) for label, texts in TEXTS.items() for t in texts) + "\n")
    assert main(["rubric", "check", str(path), "--rubrics", str(rubrics), "--suite", "tone-shuffled",
                 "--dimension", "tone_shuffled", "--resamples", "50", "--json"]) == 0
    [check] = json.loads(capsys.readouterr().out)["dimensions"]
    assert check["items"] == 5 and check["scored"] == 0 and check["unscored"] == {"examples_not_separable": 5}
    assert "cannot separate its examples" in check["explanation"]
    assert check["overall"]["pair_agreement"] is None and check["labels"] == []


def test_the_mock_judge_gives_every_item_the_top_label_so_it_orders_nothing(rubrics, tmp_path, capsys):
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join([line(TEXTS["2"][0], label="pass"), line(TEXTS["2"][1], score=0.75),
                               line(TEXTS["0"][0], label="fail"), line(TEXTS["0"][1], label=0)]) + "\n")
    assert main(["rubric", "check", str(path), "--rubrics", str(rubrics), "--suite", "tone-only", "--dimension",
                 "tone", "--judge", "mock", "--label-scores", "pass=1,fail=0", "--resamples", "100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [tone] = report["dimensions"]
    assert report["suite"] == "tone-only" and report["judge"] == "mock"
    assert tone["items"] == tone["scored"] == 4
    overall = tone["overall"]
    # Every item gets 1.0: all 5 pairs with different expected scores are ties (0.5 each); the two items expected
    # to pass are on the right side, the two expected to fail are not (kappa 0: no better than chance).
    assert overall["pairs"] == 5 and overall["pair_agreement"] == 0.5 and overall["pair_agreement_ci"] == [0.5, 0.5]
    assert overall["accuracy"] == 0.5 and overall["kappa"] == 0.0 and overall["spread"] == 0.0
    assert [(r["label"], r["expected"], r["n"], r["mean"], r["accuracy"]) for r in tone["labels"]] == [
        ("pass", 1.0, 1, 1.0, 1.0), ("0.75", 0.75, 1, 1.0, 1.0), ("0", 0.0, 1, 1.0, 0.0), ("fail", 0.0, 1, 1.0, 0.0)]


def test_bad_lines_are_refused_with_file_line_and_field(rubrics, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([
        line("fine", label="2"),
        line("a", label="maybe"),
        "{not json",
        json.dumps({"item": {"id": "x", "query": "q"}, "label": "2"}),
        line("b", dimension="tonne", score=1.0),
        line("c", score=1.5, colour="red"),
        line("d"),
    ]) + "\n")
    code = main(["rubric", "check", str(path), "--rubrics", str(rubrics), "--suite", "tone-only", "--dimension", "tone",
                 "--judge", "mock"])
    message = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert f"{path}:1" not in message
    assert "bad.jsonl:2: label: 'maybe' is not a label of dimension 'tone'" in message and "--label-scores" in message
    assert "bad.jsonl:3: invalid JSON" in message
    assert "bad.jsonl:4: item.response: Field required" in message
    assert "bad.jsonl:5: dimension: suite 'tone-only' has no dimension 'tonne' (did you mean 'tone'?)" in message
    assert "bad.jsonl:6: score: Input should be less than or equal to 1" in message
    assert "bad.jsonl:6: colour: unknown field" in message
    assert "bad.jsonl:7: label: give either 'label' or 'score'" in message

    good = tmp_path / "good.jsonl"
    good.write_text(line("fine", dimension="tone", label="2") + "\n")
    for extra, expected in (([], "no labelled items for dimension 'format'"),
                            (["--label-scores", "pass=high"], "expected LABEL=SCORE pairs")):
        dimension = "format" if not extra else "tone"
        assert main(["rubric", "check", str(good), "--rubrics", str(rubrics), "--suite", "tone-only", "--dimension",
                     dimension, "--judge", "mock", *extra]) == 2
        assert expected in " ".join(capsys.readouterr().err.split())
    assert main(["rubric", "check", str(good), "--rubrics", str(rubrics), "--suite", "tone-only", "--dimension",
                 "tnoe", "--judge", "mock"]) == 2
    assert "has no dimension 'tnoe' (did you mean 'tone'?)" in " ".join(capsys.readouterr().err.split())

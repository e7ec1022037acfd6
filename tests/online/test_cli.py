"""`reward online ...` end to end on a small synthetic log (the real MiniLM embeds its query texts)."""

import datetime as dt
import json

import pytest

from reward.cli import main
from reward.online.experiments import load_experiments
from reward.online.synthetic import Traffic, example_catalogue, generate

from .conftest import row, write_log


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    experiments = load_experiments("configs/online/experiments.yaml")
    traffic = Traffic(sessions=400, users=120, start=dt.date(2026, 1, 12), days=2, experiments=list(experiments.values()),
                      good_share={"reward-v2": {"treatment": 0.7}}, policies={"control": "grpo-0301", "treatment": "grpo-0412"},
                      seed=8)
    return generate(example_catalogue("examples/items.jsonl"), traffic, folder / "log.jsonl.gz")


def test_report_json_and_page(tmp_path, log_path, capsys):
    out, page = tmp_path / "report.json", tmp_path / "page.html"
    code = main(["online", "report", "--logs", str(log_path), "--store", str(tmp_path / "s.sqlite"), "--experiment",
                 "reward-v2", "--json", str(out), "--html", str(page), "--scores", "examples/online/scores"])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["experiment"] == "reward-v2" and report["control"] == "control"
    assert {(a["metric"], a["arm"]) for a in report["arms"]} == {
        (m, arm) for m in ("vcr", "skip_rate", "research_rate") for arm in ("control", "treatment")}
    assert sum(a["sessions"] for a in report["arms"] if a["metric"] == "vcr") == 400
    assert report["srm"]["mismatch"] is False
    assert report["ingest"] == {"files": 1, "rows": 400, "sessions": 400, "duplicates": 0, "bad": 0}
    # the example score log has the responses of both policies: every session joins
    assert report["link"]["joined_sessions"] == 400
    html = page.read_text()
    assert "<svg" in html and "Re-search rate" in html and "Which reward dimensions predict" in html
    assert "split ok" in capsys.readouterr().out


def test_bad_rows_are_reported_and_counted(tmp_path, capsys):
    log = write_log(tmp_path / "log.jsonl", [row(1), row(2, dwell="long"), row(3, arms={"exp": "treatment"})])
    assert main(["online", "ingest", "--logs", str(log), "--store", str(tmp_path / "s.sqlite")]) == 0
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines
    assert f"{log}:2: dwell_ms" in err and "2 new sessions" in err and "1 bad rows" in err


def test_unknown_experiment_is_a_clear_error(tmp_path, log_path, capsys):
    code = main(["online", "report", "--store", str(tmp_path / "s.sqlite"), "--logs", str(log_path),
                 "--experiment", "nope"])
    assert code == 2
    assert "no experiment 'nope' (known: ['answer-length', 'reward-v2'])" in " ".join(capsys.readouterr().err.split())


def test_audit_then_bcr(tmp_path, log_path, capsys):
    store, folder = str(tmp_path / "s.sqlite"), tmp_path / "audit"
    code = main(["online", "audit", "--logs", str(log_path), "--store", store, "--experiment", "reward-v2",
                 "--day", "2026-01-12", "--n", "20", "--scores", "examples/online/scores", "--out", str(folder),
                 "--judge", "mock"])
    assert code == 0
    assisted = [json.loads(line) for line in (folder / "assisted.jsonl").read_text().splitlines()]
    assert assisted and all(r["label"] is None and r["hints"] for r in assisted)
    for row_ in assisted:  # the annotator marks every answer of the flawed examples as a bad case
        row_["label"] = 1 if "good" in row_["item"]["id"] else 0
    (folder / "assisted.jsonl").write_text("".join(json.dumps(r) + "\n" for r in assisted))
    (folder / "blind.jsonl").unlink()
    out = tmp_path / "bcr.json"
    assert main(["online", "bcr", str(folder), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert {r["arm"] for r in rows} == {"control", "treatment"}
    assert all(r["labelled"] == r["sampled"] == 10 for r in rows)
    manifest = json.loads((folder / "manifest.json").read_text())
    for r in rows:
        drawn = [d["response_id"] for d in manifest["draws"] if d["arm"] == r["arm"]]
        assert r["bad"] == sum("good" not in d for d in drawn)
    assert next(r for r in rows if r["arm"] == "treatment")["p_value"] is not None


def test_minilm_thresholds_separate_reformulations_from_topic_shifts():
    """The documented threshold (0.6) against the documented hand-written pairs."""
    from reward.online.reformulation import RESEARCH_SIMILARITY, QuerySimilarity

    reformulations = [("how to renew passport", "passport renewal online application"),
                      ("peach egg succulent bumps on leaves", "peach egg succulent leaves fungus"),
                      ("tokyo hotels near shinjuku", "shinjuku cheap hotel")]
    shifts = [("how to renew passport", "passport photo size"), ("tokyo hotels near shinjuku", "tokyo disneyland tickets"),
              ("peach egg succulent bumps on leaves", "cheap flights to tokyo")]
    cosines = QuerySimilarity().cosines(reformulations + shifts)
    assert min(cosines[:3]) >= RESEARCH_SIMILARITY > max(cosines[3:])

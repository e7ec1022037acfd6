"""The dashboard's data beyond the curves: trainer metrics read from TRL, verl and CSV files, the per-step table
export, drill-down samples kept at a stride across the whole run, paging and search of a step's items, and the
rubric-version changes of a run."""

import csv
import datetime as dt
import json

import pytest

from reward.dashboard import render_from_log
from reward.dashboard.data import UnknownStep, auto_stride, page_data, sampled_steps, step_page, suite_versions
from reward.dashboard.export import step_rows, write_table
from reward.dashboard.trainer import (TrainerMetricsError, default_keys, read_metrics, read_metrics_text,
                                      trainer_data)
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog


def _write_run(folder, steps=6, items=5, versions=("v1",), run="r", unscored_every=None):
    log = ScoreLog(folder, writer="test")
    for step in range(steps):
        batch, results = [], []
        for index in range(items):
            key = f"{run}-s{step}-i{index}"
            score = None if unscored_every and index % unscored_every == 0 else round(0.1 * index, 2)
            dims = {"format": DimensionScore(score=score, layer="bottom_line", backend="mock") if score is not None
                    else DimensionScore.unscored("bottom_line", "mock", "judge_timeout"),
                    "answer_quality": DimensionScore.unscored("bottom_line", "local", "no_local_backend")}
            results.append(ItemResult(id=key, reward=score or 0.0, valid=score is not None, dimensions=dims))
            batch.append(Item(id=key, group=f"{run}-s{step}-g{index // 2}", query="q", response="<answer>a</answer>"))
        version = versions[min(step * len(versions) // steps, len(versions) - 1)]
        log.append(batch, results, suite="mini", suite_version=version, run=run, step=step)
    log.close()
    return folder


def test_trl_trainer_state_and_a_bare_log_history_read_alike(tmp_path):
    history = [{"loss": 0.9, "grad_norm": 1.5, "learning_rate": 1e-5, "epoch": 0.1, "step": 5},
               {"kl": 0.02, "completions/mean_length": 310.0, "reward": 0.4, "step": 5},
               {"loss": 0.7, "kl": float("nan"), "step": 10},
               {"train_runtime": 100.0, "train_samples_per_second": "fast", "step": 10}]
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps({"global_step": 10, "log_history": history}))  # NaN as json.dumps writes it
    bare = tmp_path / "log_history.json"
    bare.write_text(json.dumps(history))
    metrics = read_metrics(state)
    assert metrics == read_metrics(bare)
    assert metrics["loss"] == {5: 0.9, 10: 0.7} and metrics["completions/mean_length"] == {5: 310.0}
    assert metrics["kl"] == {5: 0.02}  # NaN is left out, never drawn as a value
    assert "train_samples_per_second" not in metrics and "step" not in metrics
    assert default_keys(metrics) == ["completions/mean_length", "grad_norm", "kl", "loss"]


def test_verl_file_logger_and_console_output(tmp_path):
    jsonl = tmp_path / "experiment.jsonl"
    jsonl.write_text("\n".join(json.dumps({"step": s, "data": {"actor/kl_loss": 0.01 * s, "actor/entropy": 2.0 - s / 10,
                                                               "response_length/mean": 300 + s, "note": "x"}})
                               for s in range(1, 4)) + "\n")
    assert read_metrics(jsonl)["actor/kl_loss"] == {1: 0.01, 2: 0.02, 3: 0.03}
    assert "note" not in read_metrics(jsonl)
    console = tmp_path / "train.log"
    console.write_text(
        "Creating file logger at /tmp/x\n"
        "(TaskRunner pid=4242) step:1 - actor/kl_loss:0.01 - actor/entropy:np.float64(1.9) - timing_s/gen:3.5\n"
        "some other line: with a colon\n"
        "(TaskRunner pid=4242) step:2 - actor/kl_loss:0.02 - actor/entropy:1.8 - response_length/mean:301.5\n")
    metrics = read_metrics(console)
    assert metrics["actor/kl_loss"] == {1: 0.01, 2: 0.02} and metrics["actor/entropy"] == {1: 1.9, 2: 1.8}
    assert metrics["response_length/mean"] == {2: 301.5} and metrics["timing_s/gen"] == {1: 3.5}


def test_csv_with_a_step_column_and_files_that_fit_no_shape(tmp_path):
    table = tmp_path / "metrics.csv"
    table.write_text("step,kl,loss\n1,0.1,2.0\n2,,1.5\nthree,0.3,1.0\n")
    assert read_metrics(table) == {"kl": {1: 0.1}, "loss": {1: 2.0, 2: 1.5}}
    with pytest.raises(TrainerMetricsError, match=r"bad.csv: a CSV of trainer metrics needs a 'step' column, found \['epoch', 'kl'\]"):
        read_metrics_text("epoch,kl\n1,0.1\n", "bad.csv")
    with pytest.raises(TrainerMetricsError, match="notes.txt: no per-step metrics"):
        read_metrics_text("just some words\n", "notes.txt")
    with pytest.raises(FileNotFoundError, match="missing.json"):
        read_metrics(tmp_path / "missing.json")


def test_trainer_data_is_bound_to_a_run_of_the_page(tmp_path):
    table = tmp_path / "m.csv"
    table.write_text("step,kl,loss,lr\n0,0.1,2.0,1e-5\n2,0.2,1.0,1e-5\n")
    assert trainer_data({"": table}, ["gated"]) == {"gated": {"steps": [0, 2], "metrics": {"kl": [0.1, 0.2],
                                                                                          "loss": [2.0, 1.0]}}}
    assert trainer_data({"gated": table}, ["gated", "linear"], ["lr"])["gated"]["metrics"] == {"lr": [1e-5, 1e-5]}
    with pytest.raises(TrainerMetricsError, match="name the run as RUN=PATH"):
        trainer_data({"": table}, ["gated", "linear"])
    with pytest.raises(TrainerMetricsError, match="no run 'other'.*gated, linear"):
        trainer_data({"other": table}, ["gated", "linear"])
    with pytest.raises(TrainerMetricsError, match="none of \\['entropy'\\]"):
        trainer_data({"": table}, ["gated"], ["entropy"])


def test_samples_are_kept_at_a_stride_across_the_whole_run(tmp_path):
    assert sampled_steps(list(range(800)), 100)[:3] == [0, 100, 200] and sampled_steps(list(range(800)), 100)[-1] == 799
    assert auto_stride(800, 100) == 9 and len(sampled_steps(list(range(800)), auto_stride(800, 100))) <= 100
    with pytest.raises(ValueError, match="stride"):
        sampled_steps([1, 2], 0)
    folder = _write_run(tmp_path / "log", steps=9)
    data = json.loads(render_from_log(folder, sample_stride=4).split('id="dashboard-data">')[1].split("</script>")[0])
    run = data["runs"]["r"]
    assert run["sampled_steps"] == [0, 4, 8] and run["sample_stride"] == 4
    assert run["step_samples"]["0"]["items"][0]["id"].startswith("r-s0-")  # an early step keeps its own samples
    default = json.loads(render_from_log(folder).split('id="dashboard-data">')[1].split("</script>")[0])
    assert default["runs"]["r"]["sampled_steps"] == list(range(9))  # few steps: every one keeps samples


def test_step_page_ranks_pages_and_searches_every_item_of_the_step(tmp_path):
    folder = _write_run(tmp_path / "log", steps=2, items=7, unscored_every=3)
    first = step_page(folder, "r", 1, "format", limit=3)
    ids = [first["items"][s["item"]]["id"] for s in first["channels"]["format"]]
    assert first["total"] == 7 and first["records"] == 7
    # Unscored first (items 0, 3, 6), then by score.
    assert ids == ["r-s1-i0", "r-s1-i3", "r-s1-i6"]
    assert [s.get("reason") for s in first["channels"]["format"]] == ["judge_timeout"] * 3
    second = step_page(folder, "r", 1, "format", offset=3, limit=3)
    assert [second["items"][s["item"]]["id"] for s in second["channels"]["format"]] == ["r-s1-i1", "r-s1-i2", "r-s1-i4"]
    found = step_page(folder, "r", 1, "format", search="S1-G2")  # group ids, case-insensitive
    assert sorted(found["items"][s["item"]]["id"] for s in found["channels"]["format"]) == ["r-s1-i4", "r-s1-i5"]
    assert found["total"] == 2
    assert step_page(folder, "r", 1, "reward", limit=1)["channels"]["reward"][0]["score"] == 0.0
    with pytest.raises(ValueError, match="limit"):
        step_page(folder, "r", 1, "format", limit=0)
    with pytest.raises(ValueError, match="offset"):
        step_page(folder, "r", 1, "format", offset=-1)
    with pytest.raises(UnknownStep, match="step 9"):
        step_page(folder, "r", 9, "format")


def test_rubric_version_changes_are_found_per_run(tmp_path):
    folder = _write_run(tmp_path / "log", steps=6, versions=("v1", "v2", "v1"))
    assert suite_versions(folder, "r") == [{"step": 0, "suite": "mini", "version": "v1"},
                                           {"step": 2, "suite": "mini", "version": "v2"},
                                           {"step": 4, "suite": "mini", "version": "v1"}]
    data, _ = page_data([folder])
    assert [c["step"] for c in data["runs"]["r"]["versions"]] == [0, 2, 4]


def test_per_step_table_exports_as_csv_and_parquet(tmp_path):
    folder = _write_run(tmp_path / "log", steps=3, items=4, unscored_every=2)
    data, _ = page_data([folder])
    metrics = tmp_path / "m.csv"
    metrics.write_text("step,kl\n0,0.5\n2,0.7\n")
    data["trainer"] = trainer_data({"": metrics}, list(data["runs"]))
    rows = step_rows(data)
    assert [(r["run"], r["step"]) for r in rows] == [("r", 0), ("r", 1), ("r", 2)]
    assert rows[0]["format_scored"] == 2 and rows[0]["format_seen"] == 4 and rows[0]["format_unscored_share"] == 0.5
    assert rows[0]["format_mean"] == pytest.approx((0.1 + 0.3) / 2)
    assert rows[0]["answer_quality_mean"] is None and rows[0]["answer_quality_unscored_share"] == 1.0
    assert [r["trainer/kl"] for r in rows] == [0.5, None, 0.7]  # a step the trainer did not log stays empty
    out = write_table(data, tmp_path / "steps.csv")
    with out.open() as handle:
        table = list(csv.DictReader(handle))
    assert table[1]["trainer/kl"] == "" and table[2]["trainer/kl"] == "0.7" and table[0]["valid_rate"] == "0.5"
    pq = pytest.importorskip("pyarrow.parquet")
    parquet = pq.read_table(write_table(data, tmp_path / "steps.parquet")).to_pylist()
    assert parquet[1]["trainer/kl"] is None and parquet[0]["format_scored"] == 2
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        write_table(data, tmp_path / "steps.xlsx")


def test_cli_exports_the_table_and_draws_trainer_metrics(tmp_path):
    from reward.cli import main

    folder = _write_run(tmp_path / "log", steps=3)
    metrics = tmp_path / "trainer_state.json"
    metrics.write_text(json.dumps({"log_history": [{"step": s, "kl": 0.1 * s} for s in range(3)]}))
    out, export = tmp_path / "page.html", tmp_path / "steps.csv"
    assert main(["dashboard", "--log", str(folder), "--trainer-metrics", f"r={metrics}", "--export", str(export),
                 "--out", str(out), "--sample-stride", "2"]) == 0
    data = json.loads(out.read_text().split('id="dashboard-data">')[1].split("</script>")[0])
    assert data["trainer"]["r"]["metrics"]["kl"] == [0.0, 0.1, 0.2] and data["runs"]["r"]["sampled_steps"] == [0, 2]
    assert "trainer/kl" in export.read_text().splitlines()[0]
    assert main(["dashboard", "--log", str(folder), "--trainer-metrics", f"nope={metrics}", "--out", str(out)]) == 2
    assert main(["dashboard", "--log", str(folder), "--sample-stride", "0", "--out", str(out)]) == 2


def test_a_live_page_names_a_trainer_file_it_cannot_read_instead_of_failing(tmp_path):
    folder = _write_run(tmp_path / "log", steps=2)
    missing, broken = tmp_path / "not-yet.json", tmp_path / "broken.txt"
    broken.write_text("no metrics here\n")
    with pytest.raises(FileNotFoundError, match="not-yet.json"):
        render_from_log(folder, trainer={"r": missing})
    page = render_from_log(folder, trainer={"r": missing}, trainer_missing_ok=True)
    data = json.loads(page.split('id="dashboard-data">')[1].split("</script>")[0])
    assert data["trainer"] == {} and data["trainer_notes"] == [f"trainer metrics of r: {missing} does not exist yet"]
    data = json.loads(render_from_log(folder, trainer={"r": broken}, trainer_missing_ok=True)
                      .split('id="dashboard-data">')[1].split("</script>")[0])
    assert "broken.txt: no per-step metrics found" in data["trainer_notes"][0]
    missing.write_text(json.dumps({"log_history": [{"step": 1, "kl": 0.5}]}))  # the trainer wrote it: next page has it
    data = json.loads(render_from_log(folder, trainer={"r": missing}, trainer_missing_ok=True)
                      .split('id="dashboard-data">')[1].split("</script>")[0])
    assert data["trainer"]["r"]["metrics"] == {"kl": [0.5]} and data["trainer_notes"] == []


def _write_versions(folder, plan, run="r"):
    """One step per (version, dimensions) of `plan`, three items each."""
    log = ScoreLog(folder, writer="test")
    for step, (version, names) in enumerate(plan):
        results = [ItemResult(id=f"s{step}-i{k}", reward=0.5, valid=True, dimensions={
            name: DimensionScore(score=0.5, layer="bottom_line", backend="mock") for name in names}) for k in range(3)]
        items = [Item(id=f"s{step}-i{k}", query="q", response="<answer>a</answer>") for k in range(3)]
        log.append(items, results, suite="mini", suite_version=version, run=run, step=step)
    log.close()
    return folder


def test_version_changes_name_the_dimensions_added_and_removed(tmp_path):
    folder = _write_versions(tmp_path / "log", [("v1", ["format"]), ("v1", ["format"]),
                                               ("v2", ["format", "medical_safety"]), ("v3", ["medical_safety"]),
                                               ("v4", ["medical_safety"])])
    data, _ = page_data([folder])
    summaries = [(c["step"], c["summary"]) for c in data["runs"]["r"]["versions"]]
    assert summaries == [(0, "mini v1"), (2, "mini: +medical_safety"), (3, "mini: -format"),
                         (4, "mini: rubric edited (same dimensions)")]


def test_dashboard_titles_come_from_the_rubric_folder_given(tmp_path, capsys):
    import shutil

    from reward.cli import main
    from reward.rubric import DEFAULT_RUBRIC_DIR
    from tests.support import ROOT

    folder = _write_versions(tmp_path / "log", [("v1", ["format"]), ("v2", ["format", "medical_safety"])])
    rubrics = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, rubrics)
    shutil.copy(ROOT / "tests" / "fixtures" / "medical_safety" / "medical_safety.yaml", rubrics / "dimensions")
    for extra, title in (([], None), (["--rubrics", str(rubrics)], "Medical safety")):
        out = tmp_path / "page.html"
        assert main(["dashboard", "--log", str(folder), "--out", str(out), *extra]) == 0
        data = json.loads(out.read_text().split('id="dashboard-data">')[1].split("</script>")[0])
        assert data["titles"].get("medical_safety") == title and data["titles"]["format"] == "Format"
    assert main(["dashboard", "--log", str(folder), "--out", str(out), "--rubrics", str(tmp_path / "none")]) == 2
    assert "has no dimensions/ folder" in " ".join(capsys.readouterr().err.split())

"""`reward replay`: a logged reward is reproduced from the log alone, and whatever would make it irreproducible (a
changed rubric, another judge, a score that moved) is reported with a non-zero exit."""

import json
import shutil

import pytest

from reward.cli.main import main
from reward.engine import Engine
from reward.judges.factory import make_judge
from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite
from reward.scorelog import ScoreLog, read_log, segments

pytestmark = pytest.mark.filterwarnings("ignore")


def _write_log(folder, items, judge_spec="mock-hash", suite="searchllm", run="replay-test"):
    judge = make_judge(judge_spec)
    loaded = load_suite(suite)
    results = Engine(loaded, judge).score_sync(items)
    log = ScoreLog(folder)
    half = len(items) // 2  # two batches, as two training steps would log them
    for step, (part, scored) in enumerate(((items[:half], results[:half]), (items[half:], results[half:])), start=1):
        log.append(part, scored, suite=loaded.name, suite_version=loaded.version, run=run, step=step,
                   judge=judge.identity)
    log.close()
    return results


def test_a_log_replays_without_drift_and_records_the_judge(tmp_path, example_items):
    _write_log(tmp_path / "log", example_items)
    records = list(read_log(tmp_path / "log"))
    assert {r.judge for r in records} == {"mock:response_hash_script"}
    out = tmp_path / "report.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock-hash", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["records"] == len(example_items) and report["mismatches"] == []
    assert report["reward"]["compared"] == len(example_items) and report["reward"]["drifted"] == 0
    assert report["dimensions"]["format"]["compared"] == len(example_items)


def test_a_changed_rubric_another_judge_and_a_moved_score_are_drift(tmp_path, example_items, capsys):
    _write_log(tmp_path / "log", example_items)
    rubrics = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, rubrics)
    suite = rubrics / "suites" / "searchllm.yaml"
    suite.write_text(suite.read_text().replace("delta: 0.01", "delta: 0.05"))
    assert load_suite("searchllm", rubrics).version != load_suite("searchllm").version
    out = tmp_path / "rubric.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock-hash", "--rubrics", str(rubrics),
                 "--out", str(out)]) == 1
    report = json.loads(out.read_text())
    [mismatch] = report["mismatches"]
    assert mismatch["what"] == "suite_version" and mismatch["records"] == len(example_items)
    assert report["reward"]["drifted"] > 0  # a larger delta moves the gate, and the report says by how much
    assert "suite_version changed" in capsys.readouterr().err

    out = tmp_path / "judge.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock", "--out", str(out)]) == 1
    assert [m["what"] for m in json.loads(out.read_text())["mismatches"]] == ["judge"]

    # A logged score that does not come back (here: edited in the log) is named with its item and dimension.
    [segment] = segments(tmp_path / "log")
    lines = segment.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"result"' in line)
    record = json.loads(lines[index])
    record["result"]["dimensions"]["format"]["score"] = 0.123
    lines[index] = json.dumps(record)
    segment.write_text("\n".join(lines) + "\n")
    out = tmp_path / "moved.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock-hash", "--out", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["dimensions"]["format"]["drifted"] == 1 and report["mismatches"] == []
    assert report["worst"][0] == {"id": record["result"]["id"], "dimension": "format", "logged": 0.123,
                                  "replayed": report["worst"][0]["replayed"]}
    # ... and a tolerance above the edit lets it pass.
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock-hash", "--tolerance", "1"]) == 0


def test_a_log_that_predates_the_judge_field_is_compared_by_its_scores(tmp_path, example_items):
    _write_log(tmp_path / "log", example_items[:4])
    [segment] = segments(tmp_path / "log")
    segment.write_text(segment.read_text().replace(',"judge":"mock:response_hash_script"', ""))
    assert {r.judge for r in read_log(tmp_path / "log")} == {None}
    out = tmp_path / "report.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock-hash", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["unrecorded_judge"] == 4
    assert main(["replay", "--log", str(tmp_path / "log"), "--judge", "mock"]) == 1  # the scores still tell


def test_the_local_tier_replays_bit_for_bit_a_sample_of_groups(tmp_path, example_items):
    _write_log(tmp_path / "log", example_items, judge_spec="local")
    out = tmp_path / "report.json"
    assert main(["replay", "--log", str(tmp_path / "log"), "--groups", "3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert 3 <= report["records"] < len(example_items) and report["reward"]["max_abs_delta"] == 0.0
    assert report["dimensions"]["claim_hallucination"]["compared"] == report["records"]


@pytest.mark.parametrize("argv, message", [
    (["--log", "/nonexistent"], "not a score-log folder"),
    (["--log", "{log}", "--tolerance", "-1"], "--tolerance"),
    (["--log", "{log}", "--groups", "0"], "--groups"),
    (["--log", "{log}", "--run", "other"], "no records of run 'other'"),
])
def test_bad_arguments_are_named(tmp_path, example_items, argv, message, capsys):
    _write_log(tmp_path / "log", example_items[:2])
    assert main(["replay", *[a.replace("{log}", str(tmp_path / "log")) for a in argv]]) == 2
    assert message in capsys.readouterr().err

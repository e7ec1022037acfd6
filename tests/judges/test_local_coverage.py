"""Dimensions the local tier cannot score are announced up front, one line each: by lint, by `reward score` and at
server start; a `local.method` naming no registered method is a lint error."""

import logging
import shutil

from reward.cli import main
from reward.judges.local_coverage import local_scorer, suite_notices
from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite
from tests.support import EXAMPLES, FIXTURE_RUBRICS


def copy_with_tone(tmp_path, local: str = "") -> object:
    root = tmp_path / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, root)
    useful = (root / "dimensions" / "answer_useful.yaml").read_text()
    tone = useful.replace("name: answer_useful", "name: tone").replace("title: Answer useful", "title: Tone")
    (root / "dimensions" / "tone.yaml").write_text(tone + local)
    (root / "suites" / "tone-only.yaml").write_text("name: tone-only\naggregation: linear\n"
                                                   "dimensions: {format: 1.0, tone: 1.0}\n")
    return root


def test_how_the_local_tier_scores_each_shipped_dimension():
    suite = load_suite("searchllm")
    scorers = {name: local_scorer(d) for name, d in suite.dimensions.items()}
    assert scorers["format"] == "rule" and scorers["answer_useful"] == "method answer_useful"
    assert [name for name, s in scorers.items() if s is None] == ["llm_knowledge"]
    notices = suite_notices([suite, load_suite("searchllm-sum")])
    assert len(notices) == 1 and notices[0].startswith("suite searchllm, searchllm-sum: dimension 'llm_knowledge'")


def test_lint_announces_a_dimension_with_neither_method_nor_examples(tmp_path, capsys):
    root = copy_with_tone(tmp_path)
    assert main(["rubric", "lint", str(root)]) == 0  # structural, by design for some dimensions: not a warning
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note: ")]
    assert len(notes) == 3 and any("dimension 'tone' is unscored under the local tier" in n for n in notes)


def test_a_named_method_scores_the_new_dimension_and_a_misspelt_one_is_an_error(tmp_path, capsys):
    root = copy_with_tone(tmp_path, "local: {method: answer_useful}\n")
    assert local_scorer(load_suite("tone-only", root).dimensions["tone"]) == "method answer_useful"
    main(["rubric", "lint", str(root)])
    assert "dimension 'tone'" not in capsys.readouterr().out
    (root / "dimensions" / "tone.yaml").write_text((root / "dimensions" / "tone.yaml").read_text()
                                                   .replace("method: answer_useful", "method: answer_usefull"))
    assert main(["rubric", "lint", str(root)]) == 1
    assert "key 'local.method': unknown local method 'answer_usefull' (did you mean 'answer_useful'" in capsys.readouterr().out


def test_reward_score_announces_unscored_dimensions_before_scoring(tmp_path, capsys):
    root = copy_with_tone(tmp_path)
    items = tmp_path / "items.jsonl"
    items.write_text(EXAMPLES.read_text().splitlines()[0] + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", "--suite", "tone-only", "--rubrics", str(root), "--input", str(items), "--output", str(out),
                 "-q"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "note: suite tone-only: dimension 'tone' is unscored under the local tier" in err
    assert '"no_local_backend"' in out.read_text()


def test_server_start_announces_unscored_dimensions(tmp_path, caplog):
    from reward.serve import ServerArgs, build_app

    root = copy_with_tone(tmp_path)
    with caplog.at_level(logging.WARNING, logger="reward.serve.app"):
        build_app(ServerArgs(rubrics=str(root), judge="local", score_log=None, suites=["searchllm", "tone-only"]))
    lines = [r.getMessage() for r in caplog.records]
    assert sum("unscored under the local tier" in line for line in lines) == 2, lines
    assert any(line.startswith("suite tone-only: dimension 'tone'") for line in lines)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="reward.serve.app"):
        build_app(ServerArgs(rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=None))
    assert not [r for r in caplog.records if "local tier" in r.getMessage()]

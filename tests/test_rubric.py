import json
import subprocess
import sys

import pytest

from reward.cli import main
from reward.rubric import DEFAULT_RUBRIC_DIR, RubricError, UnknownSuite, json_schema, lint, load_suite
from tests.support import FIXTURE_RUBRICS, ROOT

BROKEN = ROOT / "tests" / "fixtures" / "broken_rubrics"


def test_bundled_rubrics_lint_clean():
    assert lint(DEFAULT_RUBRIC_DIR) == []


def test_lint_reports_every_problem_at_once_naming_file_and_key():
    problems = "\n".join(lint(BROKEN))
    expected = [
        "dimensions/claim_hallucination.yaml: key 'colour': unknown key",
        "dimensions/claim_hallucination.yaml: key 'judge.scale.1.score': Input should be less than or equal to 1",
        "dimensions/broken_yaml.yaml: invalid YAML (line 3, column 1)",
        "dimensions/cyclic.yaml: key 'include': include cycle",
        "dimensions/length.yaml: key 'rule.params': max_char: unknown parameter",
        "dimensions/length.yaml: key 'name': 'response_length' must equal the file name 'length'",
        "suites/bad.yaml: key 'dimensions.claim_halucination': unknown dimension (did you mean 'claim_hallucination'?)",
    ]
    for message in expected:
        assert message in problems, message


def test_unknown_precheck_rule_gets_a_did_you_mean(tmp_path):
    source = (BROKEN / "dimensions" / "claim_hallucination.yaml").read_text()
    fixed = source.replace("colour: red\n", "").replace("score: 1.5", "score: 1.0")
    (tmp_path / "claim_hallucination.yaml").write_text(fixed)
    assert lint(tmp_path / "claim_hallucination.yaml") == [
        f"{tmp_path / 'claim_hallucination.yaml'}: key 'judge.prechecks': unknown rule 'citations.vaild' (did you mean 'citations.valid'?)"
    ]


def test_includes_merge_with_local_keys_winning():
    suite = load_suite("mini-linear", FIXTURE_RUBRICS)
    assert suite.suite.aggregation == "linear" and suite.suite.dimensions["useful"] == 3.0
    assert suite.dimensions["grounded"].judge.system.startswith("You are a strict evaluator")


def test_unknown_suite_lists_the_known_ones():
    with pytest.raises(UnknownSuite, match="did you mean 'mini'.*known suites: mini, mini-linear"):
        load_suite("mnii", FIXTURE_RUBRICS)


def test_version_hash_changes_with_any_rubric_text(tmp_path):
    import shutil

    copy = tmp_path / "rubrics"
    shutil.copytree(FIXTURE_RUBRICS, copy)
    before = load_suite("mini", copy).version
    path = copy / "dimensions" / "useful.yaml"
    path.write_text(path.read_text().replace("How useful is the answer?", "How useful is it?"))
    assert load_suite("mini", copy).version != before


def test_broken_suite_fails_loudly_at_load():
    with pytest.raises(RubricError) as info:
        load_suite(BROKEN / "suites" / "bad.yaml")
    assert len(info.value.problems) >= 2


def test_json_schema_describes_fields_for_editors():
    schema = json_schema()
    assert "criterion" in json.dumps(schema["dimension"])
    assert schema["suite"]["properties"]["aggregation"]["enum"] == ["gated", "linear", "sum"]


def test_lint_command_exit_codes(capsys):
    assert main(["rubric", "lint", str(FIXTURE_RUBRICS)]) == 0
    assert main(["rubric", "lint", str(BROKEN)]) == 1
    out = capsys.readouterr().out
    assert "unknown key" in out and "include cycle" in out


def test_console_script_is_installed():
    done = subprocess.run([sys.executable, "-m", "reward.cli", "rubric", "schema"], capture_output=True, text=True, check=True)
    assert "dimension" in json.loads(done.stdout)

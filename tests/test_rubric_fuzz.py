"""Property-based fuzzing of rubric YAML: any mutation of a valid file is either clean or a list of file/key
messages from lint, never an exception."""

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reward.rubric import lint
from tests.support import FIXTURE_RUBRICS

BASE = yaml.safe_load((FIXTURE_RUBRICS / "dimensions" / "grounded.yaml").read_text())
BASE.pop("include")
BASE["judge"]["system"] = "Be strict."

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


def mutate(data, path, value):
    node = data
    for key in path[:-1]:
        node = node[key] if isinstance(node, dict) and key in node else node
    if isinstance(node, dict):
        node[path[-1]] = value
    return data


paths = st.sampled_from([
    ("name",), ("layer",), ("inputs",), ("judge",), ("judge", "scale"), ("judge", "criterion"), ("judge", "quotes"),
    ("judge", "prechecks"), ("judge", "output"), ("rule",), ("include",), ("extra",), ("judge", "contract"),
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths, values)
def test_mutated_dimension_files_lint_without_crashing(tmp_path_factory, path, value):
    import copy

    folder = tmp_path_factory.mktemp("rubric")
    data = mutate(copy.deepcopy(BASE), path, value)
    target = folder / "grounded.yaml"
    target.write_text(yaml.safe_dump(data, allow_unicode=True))
    problems = lint(target)
    assert all(isinstance(p, str) and str(target) in p for p in problems)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_arbitrary_text_lints_without_crashing(tmp_path_factory, text):
    target = tmp_path_factory.mktemp("rubric") / "grounded.yaml"
    target.write_text(text)
    problems = lint(target)
    assert problems and all(str(target) in p for p in problems)


def test_include_of_a_folder_or_missing_file_is_a_message(tmp_path):
    for include in ("", "missing.yaml", "."):
        target = tmp_path / "grounded.yaml"
        target.write_text(yaml.safe_dump({**BASE, "include": include}))
        problems = lint(target)
        assert problems == [f"{target}: key 'include': {include!r} is not a file (relative to this file)"]

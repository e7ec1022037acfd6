"""Which scorer the embedded local tier uses for each dimension, and which dimensions it cannot score at all.

A judge dimension is scored locally by its labelled examples (`local: {examples | pairs}`, see
`reward.judges.example_head`), by the hand-written method its YAML names (`local: {method}`), or by the method
registered under its name; a dimension with none of these is structurally unscored under the local tier: it is left
out of every item's aggregation alike. Lint, `reward serve` and `reward score` announce such dimensions up front, one
line each, instead of letting `no_local_backend` appear only in the results.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from reward.judges.local import LOCAL_METHODS, NO_LOCAL_BACKEND
from reward.rubric import Dimension, LoadedSuite, RubricError, _display, did_you_mean, load_dimension


def local_scorer(dimension: Dimension) -> str | None:
    """How the local tier scores a dimension (`rule`, `examples`, `method NAME`), or None when it cannot."""
    local = dimension.local
    if dimension.rule is not None:
        return "rule"
    if local is not None and local.fitted:
        return "examples"
    method = local.method if local is not None and local.method else dimension.name
    return f"method {method}" if method in LOCAL_METHODS else None


def unscored_notice(dimension: Dimension, where: str = "") -> str:
    """One line saying that the local tier leaves this dimension unscored, and what would change that."""
    why = NO_LOCAL_BACKEND.get(dimension.name, "no local method is registered and the YAML gives no labelled examples")
    return (f"{where + ': ' if where else ''}dimension '{dimension.name}' is unscored under the local tier ({why}); it is "
            "left out of every item's reward. Add `local: {examples: [...]}` to its YAML, or score with an LLM judge")


def unscored_dimensions(dimensions: Mapping[str, Dimension]) -> list[Dimension]:
    """The dimensions the local tier leaves structurally unscored, in the order given."""
    return [d for d in dimensions.values() if local_scorer(d) is None]


def suite_notices(suites: Mapping[str, LoadedSuite] | list[LoadedSuite]) -> list[str]:
    """One line per dimension the local tier cannot score, naming the suites that use it."""
    by_dimension: dict[str, tuple[Dimension, list[str]]] = {}
    for suite in suites.values() if isinstance(suites, Mapping) else suites:
        for dimension in unscored_dimensions(suite.dimensions):
            by_dimension.setdefault(dimension.name, (dimension, []))[1].append(suite.name)
    return [unscored_notice(dimension, "suite " + ", ".join(names)) for dimension, names in by_dimension.values()]


def method_problems(path: Path, dimension: Dimension) -> list[str]:
    """A `local.method` that names no registered local method."""
    local = dimension.local
    if local is None or local.method is None or local.method in LOCAL_METHODS:
        return []
    return [f"{_display(path)}: key 'local.method': unknown local method {local.method!r}"
            f"{did_you_mean(local.method, LOCAL_METHODS)}"]


def lint_local_tier(root: Path) -> tuple[list[str], list[str]]:
    """(errors, notices) of the local tier over a rubric folder or one dimension file: unknown `local.method`
    names, and one notice per dimension the local tier leaves unscored. Files that do not load are skipped here
    (`lint_report` reports them)."""
    root = Path(root)
    paths = [root] if root.is_file() else sorted((root / "dimensions").glob("*.yaml"))
    errors: list[str] = []
    notices: list[str] = []
    for path in paths:
        if path.parent.name == "suites":
            continue
        try:
            dimension = load_dimension(path)
        except RubricError:
            continue
        errors += method_problems(path, dimension)
        if not method_problems(path, dimension) and local_scorer(dimension) is None:
            notices.append(unscored_notice(dimension, _display(path)))
    return errors, notices

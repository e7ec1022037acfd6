"""`reward rubric lint|schema|preview|diff|check`: report every problem of a rubric folder or file; JSON Schemas for
editors and CI; the exact messages a judge receives for an item; what a rubric edit does to the scores of a set of
items; how well a dimension agrees with items its author labelled."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reward.cli.common import Command, err, positive_int
from reward.rubric import DEFAULT_RUBRIC_DIR, SCHEMA_KINDS, LintReport, json_schema, lint_report


def head_findings(root: Path) -> tuple[list[str], list[str]]:
    """(warnings, notes) of the example-fitted heads of the dimensions under `root` (a folder or one file) that load:
    a warning for each head that cannot separate its examples (it leaves its dimension unscored), a note with the
    leave-one-out figures of each that can. Fitting needs the local tier's models; without them, one note says so."""
    import asyncio

    from reward.rubric import RubricError, _display, load_dimension

    root = Path(root)
    paths = [root] if root.is_file() else sorted((root / "dimensions").glob("*.yaml"))
    fitted = []
    for path in paths:
        if path.parent.name == "suites":
            continue
        try:
            dimension = load_dimension(path)
        except RubricError:
            continue  # reported by lint_report
        if dimension.local is not None and dimension.local.fitted:
            fitted.append((path, dimension))
    if not fitted:
        return [], []
    try:
        from reward.judges.local import LocalJudge

        judge = LocalJudge()
    except ImportError as exc:
        return [], [f"example-fitted heads not checked: the local tier is not installed ({exc})"]

    async def fit_all():
        return [await judge.heads.head(d.local, judge.embedder.embed, judge.scorer.probabilities) for _, d in fitted]

    warnings, notes = [], []
    for (path, dimension), head in zip(fitted, asyncio.run(fit_all()), strict=True):
        key = "local.examples" if dimension.local.examples else "local.pairs"
        if head.problem():
            warnings.append(f"{_display(path)}: key '{key}': {head.problem()}")
        else:
            notes.append(f"{_display(path)}: dimension '{dimension.name}' is scored locally by an {head.describe()}")
    return warnings, notes


def lint_command(args: argparse.Namespace) -> int:
    from reward.judges.local_coverage import lint_local_tier

    report = lint_report(Path(args.path))
    local_errors, notices = lint_local_tier(Path(args.path))
    head_warnings, head_notes = head_findings(Path(args.path))
    report = LintReport(report.errors + local_errors, report.warnings + head_warnings)
    notices += head_notes
    for problem in report.errors:
        print(f"error: {problem}")
    for problem in report.warnings:
        print(f"warning: {problem}")
    for notice in notices:  # by design for some dimensions (world knowledge), so not a warning
        print(f"note: {notice}")
    if report.errors or report.warnings:
        err.print(f"[red]{len(report.errors)} error(s)[/red], [yellow]{len(report.warnings)} warning(s)[/yellow] "
                  f"in {args.path}")
    else:
        err.print(f"[green]ok[/green]: {args.path}")
    return report.exit_code


def schema_command(args: argparse.Namespace) -> int:
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for kind in (args.kind,) if args.kind else SCHEMA_KINDS:
            (out / f"{kind}.schema.json").write_text(json.dumps(json_schema(kind), indent=2) + "\n", encoding="utf-8")
            err.print(f"wrote {out / f'{kind}.schema.json'}")
        return 0
    if not args.kind:
        err.print("[red]give --kind dimension|suite (one schema to stdout) or --out DIR (both files)[/red]")
        return 2
    print(json.dumps(json_schema(args.kind), indent=2))
    return 0


def _items(path: str, line: int | None = None) -> list:
    from reward.cli.common import read_items

    entries = list(read_items(Path(path)))
    bad = [f"{path}:{number}: {entry}" for number, entry in entries if isinstance(entry, str)]
    if bad:
        raise ValueError("\n".join(bad))
    if line is not None:
        chosen = [item for number, item in entries if number == line]
        if not chosen:
            raise ValueError(f"{path}: no item on line {line} (lines with items: "
                             f"{', '.join(str(n) for n, _ in entries[:20])}{' ...' if len(entries) > 20 else ''})")
        return chosen
    if not entries:
        raise ValueError(f"{path}: no items")
    return [item for _, item in entries]


def preview_command(args: argparse.Namespace) -> int:
    from reward.engine import Engine
    from reward.judges.mock import ScriptedJudge
    from reward.judges.prompt import render_messages
    from reward.rubric import did_you_mean, load_suite

    suite = load_suite(args.suite, Path(args.rubrics))
    if args.dimension not in suite.dimensions:
        raise ValueError(f"suite {suite.name!r} has no dimension {args.dimension!r}"
                         f"{did_you_mean(args.dimension, suite.dimensions)}; it has: {', '.join(suite.dimensions)}")
    dimension = suite.dimensions[args.dimension]
    if dimension.rule is not None:
        raise ValueError(f"dimension {args.dimension!r} is scored by the rule {dimension.rule.check!r}; "
                         "no judge receives messages for it")
    engine = Engine(suite, ScriptedJudge(lambda request, attempt: ""))  # only plans requests; nothing is judged
    item = _items(args.input, args.line)[0]
    messages = render_messages(engine.judge_request(args.dimension, item))
    if args.json:
        print(json.dumps(messages, indent=2, ensure_ascii=False))
        return 0
    for message in messages:
        print(f"===== {message['role']} =====")
        print(message["content"])
    return 0


def _format(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _suite_in(name: str, folder: Path, which: str):
    """The suite `name` of a rubric folder; an unknown one names the folder (the other may have it)."""
    from reward.rubric import UnknownSuite, did_you_mean, list_suites, load_suite

    try:
        return load_suite(name, folder)
    except UnknownSuite:
        known = list_suites(folder)
        raise ValueError(f"the {which} rubric folder {folder} has no suite {name!r} (no {folder / 'suites' / (name + '.yaml')})"
                         f"{did_you_mean(name, known)}; its suites: {', '.join(known) or 'none'}") from None


def _why_unmoved(diff, old, new, judge_name: str) -> dict[str, str]:
    """For each changed dimension whose scores did not move: why (an edit the local tier does not read), or that no
    item's score moved under this judge."""
    from reward.rubric_changes import local_tier_note

    notes = {}
    for d in diff.dimensions:
        if d.status != "changed" or d.moved:
            continue
        before, after = old.dimensions[d.name], new.dimensions[d.name]
        if before == after:
            notes[d.name] = (f"only its weight changed ({d.weight_old:g} -> {d.weight_new:g}): its scores stay, the "
                             "reward moves through the weight")
            continue
        note = local_tier_note(before, after) if judge_name == "local" else None
        notes[d.name] = note or f"the edit moved no item's score under the {judge_name} judge on these {diff.items} items"
    return notes


def diff_command(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from reward.engine import ReplyCache, SqliteReplyCache
    from reward.evaluation.rubric_diff import rubric_diff
    from reward.judges.factory import make_judge
    from reward.rubric import load_suite

    old = _suite_in(args.suite, Path(args.old), "old")
    new = _suite_in(args.suite, Path(args.new), "new")
    items = _items(args.input)
    cache = SqliteReplyCache(args.cache) if args.cache else ReplyCache()
    judge = make_judge(args.judge)
    diff = rubric_diff(old, new, items, judge, cache=cache)
    notes = _why_unmoved(diff, old, new, judge.name)
    if args.json:
        print(json.dumps({
            "suite": args.suite, "old_version": diff.old_version, "new_version": diff.new_version, "items": diff.items,
            "reward": {"old": diff.old_reward, "new": diff.new_reward, "moved": diff.rewards_moved},
            "dimensions": [{"name": d.name, "status": d.status, "old": d.old_mean, "new": d.new_mean, "delta": d.delta,
                            "moved": d.moved, "weight_old": d.weight_old, "weight_new": d.weight_new,
                            "why_unmoved": notes.get(d.name)}
                           for d in diff.dimensions],
            "moved_most": [{"id": m.id, "old": m.old_reward, "new": m.new_reward, "delta": m.delta,
                            "dimensions": m.dimensions} for m in diff.moves[: args.top]],
            "judge_calls": diff.judge_calls}, indent=2))
        return 0
    out = Console(width=120)
    out.print(f"suite {args.suite}: {diff.old_version} -> {diff.new_version}, {diff.items} items; judge calls "
              f"{diff.judge_calls['old']} (old) + {diff.judge_calls['new']} (new, the rest from the shared cache)")
    table = Table("dimension", "status", "weight", "old mean", "new mean", "delta", "items moved", title="dimensions")
    for d in diff.dimensions:
        weight = _format(d.weight_old) if d.weight_old == d.weight_new else f"{_format(d.weight_old)} -> {_format(d.weight_new)}"
        table.add_row(d.name, d.status, weight, _format(d.old_mean), _format(d.new_mean), _signed(d.delta), str(d.moved))
    table.add_row("reward", "", "", _format(diff.old_reward), _format(diff.new_reward),
                  _signed(diff.new_reward - diff.old_reward), str(diff.rewards_moved), style="bold")
    out.print(table)
    for name, note in notes.items():
        out.print(f"why {name} did not move: {note}")
    moved = [m for m in diff.moves[: args.top] if abs(m.delta) > 1e-9 or m.dimensions]
    if moved:
        top = Table("item", "old reward", "new reward", "delta", "dimensions moved", title="items that moved most")
        for m in moved:
            dims = ", ".join(f"{n} {_format(a)}->{_format(b)}" for n, (a, b) in m.dimensions.items())
            top.add_row(m.id, _format(m.old_reward), _format(m.new_reward), _signed(m.delta), dims)
        out.print(top)
    return 0


def check_command(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from reward.engine import SqliteReplyCache
    from reward.evaluation.rubric_check import as_json, check_dimensions, load_labelled, parse_label_scores
    from reward.judges.factory import make_judge
    from reward.rubric import did_you_mean, load_suite

    suite = load_suite(args.suite, Path(args.rubrics))
    if args.dimension is not None and args.dimension not in suite.dimensions:
        raise ValueError(f"suite {suite.name!r} has no dimension {args.dimension!r}"
                         f"{did_you_mean(args.dimension, suite.dimensions)}; it has: {', '.join(suite.dimensions)}")
    labelled = load_labelled(Path(args.labels), suite, args.dimension, parse_label_scores(args.label_scores or ""))
    judge = make_judge(args.judge)
    checks = check_dimensions(suite, judge, labelled, resamples=args.resamples,
                              cache=SqliteReplyCache(args.cache) if args.cache else None)
    if args.json:
        print(as_json(checks, suite=suite.name, suite_version=suite.version, judge=judge.name, labels=args.labels))
        return 0

    def ci(interval) -> str:
        return "" if not interval else f" [{interval[0]:.2f}, {interval[1]:.2f}]"

    out = Console(width=120)
    for check in checks:
        o = check.overall
        out.print(f"[bold]{check.dimension}[/bold] ({suite.name} {suite.version}, judge {judge.name}): {check.scored} of "
                  f"{check.items} items scored; pair agreement {_format(o['pair_agreement'])}{ci(o['pair_agreement_ci'])}"
                  f" over {o['pairs']} pairs (0.5 is chance), pass/fail accuracy {_format(o['accuracy'])}"
                  f"{ci(o['accuracy_ci'])}, kappa {_format(o['kappa'])}, scores span {_format(o['spread'])}")
        if check.unscored:
            out.print("  unscored: " + ", ".join(f"{n} {reason}" for reason, n in check.unscored.items())
                      + (f" ({check.explanation})" if check.explanation else ""))
        table = Table("label", "expected", "n", "mean score [95% CI]", "min-max", "pass/fail accuracy",
                      "pair agreement vs other labels")
        for row in check.labels:
            table.add_row(row["label"], f"{row['expected']:g}", str(row["n"]), _format(row["mean"]) + ci(row["mean_ci"]),
                          f"{_format(row['min'])}-{_format(row['max'])}", _format(row["accuracy"]) + ci(row["accuracy_ci"]),
                          _format(row["pair_agreement"]) + ci(row["pair_agreement_ci"]))
        if check.labels:
            out.print(table)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    rubric = sub.add_parser("rubric", help="rubric tools")
    rubric_sub = rubric.add_subparsers(dest="rubric_command", required=True)
    lint_parser = rubric_sub.add_parser("lint", help="report every problem of a rubric folder or file")
    lint_parser.add_argument("path", nargs="?", default=str(DEFAULT_RUBRIC_DIR))
    lint_parser.description = "Exit status: 0 clean, 1 errors (the rubric does not load), 2 warnings only."
    schema = rubric_sub.add_parser("schema", help="JSON Schema of dimension or suite files, for editors and CI")
    schema.add_argument("--kind", choices=SCHEMA_KINDS, help="print this kind's schema to stdout")
    schema.add_argument("--out", help="write <kind>.schema.json files into this folder (both kinds unless --kind)")
    preview = rubric_sub.add_parser("preview", help="print the exact messages a judge receives for one item and "
                                    "dimension")
    preview.add_argument("--suite", default="searchllm", help="suite name or path (default: searchllm)")
    preview.add_argument("--dimension", required=True, help="a judge dimension of the suite")
    preview.add_argument("--input", required=True, help="JSONL of items")
    preview.add_argument("--line", type=positive_int, help="the item on this line of the file (default: the first)")
    preview.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder")
    preview.add_argument("--json", action="store_true", help="the messages as a JSON list (as sent to the endpoint)")
    diff = rubric_sub.add_parser("diff", help="score items with two rubric folders and show what the edit changes")
    diff.add_argument("old", help="rubric folder before the edit")
    diff.add_argument("new", help="rubric folder after the edit")
    diff.add_argument("--input", required=True, help="JSONL of items")
    diff.add_argument("--suite", default="searchllm", help="suite name, in both folders (default: searchllm)")
    diff.add_argument("--judge", default="local", help="judge backend: local, mock, or a configs/judges/*.yaml file")
    diff.add_argument("--cache", help="SQLite file of judge replies, shared by both versions and later runs")
    diff.add_argument("--top", type=positive_int, default=5, help="items that moved most to list (default 5)")
    diff.add_argument("--json", action="store_true", help="the comparison as JSON")
    check = rubric_sub.add_parser("check", help="a dimension's agreement with items you labelled, per label and "
                                  "overall, with bootstrap intervals")
    check.add_argument("labels", help="JSONL of labelled items: {\"item\": {...}, \"dimension\": ..., \"label\": ...} "
                       "or {..., \"score\": 0.5}")
    check.add_argument("--dimension", help="the dimension to check (default: each one the file names); also the "
                       "dimension of lines that name none")
    check.add_argument("--suite", default="searchllm", help="suite name or path (default: searchllm)")
    check.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder")
    check.add_argument("--judge", default="local", help="judge backend: local, mock, or a configs/judges/*.yaml file")
    check.add_argument("--label-scores", help="scores of labels outside the dimension's scale, e.g. "
                       "pass=1,partial=0.5,fail=0")
    check.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples (default 1000)")
    check.add_argument("--cache", help="SQLite file of judge replies, reused by later runs")
    check.add_argument("--json", action="store_true", help="the figures as JSON")
    return {"rubric lint": lint_command, "rubric schema": schema_command, "rubric preview": preview_command,
            "rubric diff": diff_command, "rubric check": check_command}

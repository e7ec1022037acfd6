"""`reward rubric lint|schema`: report every problem of a rubric folder or file; JSON Schemas for editors and CI."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reward.cli.common import Command, err
from reward.rubric import DEFAULT_RUBRIC_DIR, SCHEMA_KINDS, json_schema, lint_report


def lint_command(args: argparse.Namespace) -> int:
    report = lint_report(Path(args.path))
    for problem in report.errors:
        print(f"error: {problem}")
    for problem in report.warnings:
        print(f"warning: {problem}")
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


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    rubric = sub.add_parser("rubric", help="rubric tools")
    rubric_sub = rubric.add_subparsers(dest="rubric_command", required=True)
    lint_parser = rubric_sub.add_parser("lint", help="report every problem of a rubric folder or file")
    lint_parser.add_argument("path", nargs="?", default=str(DEFAULT_RUBRIC_DIR))
    lint_parser.description = "Exit status: 0 clean, 1 errors (the rubric does not load), 2 warnings only."
    schema = rubric_sub.add_parser("schema", help="JSON Schema of dimension or suite files, for editors and CI")
    schema.add_argument("--kind", choices=SCHEMA_KINDS, help="print this kind's schema to stdout")
    schema.add_argument("--out", help="write <kind>.schema.json files into this folder (both kinds unless --kind)")
    return {"rubric lint": lint_command, "rubric schema": schema_command}

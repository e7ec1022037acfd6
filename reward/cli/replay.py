"""`reward replay`: re-score a score log's items with the suite version and judge recorded there; non-zero exit on
any drift (a changed rubric, another judge, a score that moved beyond the tolerance)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reward.cli.common import Command, err
from reward.rubric import DEFAULT_RUBRIC_DIR


def replay_command(args: argparse.Namespace) -> int:
    from rich.table import Table

    from reward.evaluation.replay import replay, sample_groups
    from reward.judges.factory import make_judge
    from reward.rubric import load_suite
    from reward.scorelog import read_log

    if args.tolerance < 0:
        raise ValueError(f"--tolerance must be >= 0, got {args.tolerance}")
    if args.groups is not None and args.groups < 1:
        raise ValueError(f"--groups must be at least 1, got {args.groups}")
    folder = Path(args.log)
    if not folder.is_dir():
        raise ValueError(f"--log {folder}: not a score-log folder")
    records = [r for r in read_log(folder) if args.run is None or r.run == args.run]
    if not records:
        raise ValueError(f"--log {folder}: no records" + (f" of run {args.run!r}" if args.run else ""))
    records = sample_groups(records, args.groups, seed=args.seed)
    suites: dict = {}

    def suite_for(name: str):
        if name not in suites:
            suites[name] = load_suite(name, Path(args.rubrics))
        return suites[name]

    report = replay(records, suite_for, make_judge(args.judge), tolerance=args.tolerance)
    if args.out:
        Path(args.out).write_text(report.model_dump_json(indent=2) + "\n")
    for mismatch in report.mismatches:
        err.print(f"[red]{mismatch.what} changed[/red] for {mismatch.records} record(s) of suite {mismatch.suite}: "
                  f"logged {mismatch.logged}, now {mismatch.now}")
    if report.unrecorded_judge:
        err.print(f"{report.unrecorded_judge} record(s) predate the judge field: compared by their scores alone")
    table = Table(title=f"replay of {report.records} record(s), tolerance {report.tolerance:g}"
                        + (f", {report.skipped} without their item skipped" if report.skipped else ""))
    for column in ("dimension", "compared", "drifted", "status changed", "max |delta|"):
        table.add_column(column, justify="left" if column == "dimension" else "right")
    for name, drift in [("reward", report.reward), *sorted(report.dimensions.items())]:
        style = "red" if drift.drifted else None
        table.add_row(name, str(drift.compared), str(drift.drifted), str(drift.status_changed),
                      f"{drift.max_abs_delta:.3g}", style=style)
    err.print(table)
    for row in report.worst:
        err.print(f"  {row['id']} {row['dimension']}: logged {row['logged']}, replayed {row['replayed']}")
    err.print("[red]drift[/red]" if report.drift else "[green]reproduced[/green]: no drift")
    return 1 if report.drift else 0


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    parser = sub.add_parser("replay", help="re-score a score log's items with the recorded suite version and judge; "
                                           "exit 1 on any drift")
    parser.add_argument("--log", required=True, help="score-log folder")
    parser.add_argument("--judge", default="local",
                        help="the judge the log was scored with: local, mock, mock-hash or a configs/judges/*.yaml file "
                             "(its identity must match the one recorded)")
    parser.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder the suites are loaded from")
    parser.add_argument("--run", help="only this run's records")
    parser.add_argument("--groups", type=int, help="replay this many GRPO groups drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the group sample")
    parser.add_argument("--tolerance", type=float, default=0.0,
                        help="largest |replayed - logged| score that is not drift (default 0: bit for bit)")
    parser.add_argument("--out", help="write the report as JSON here")
    return {"replay": replay_command}

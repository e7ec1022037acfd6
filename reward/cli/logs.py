"""`reward dashboard` (the training-dynamics page of score logs) and `reward log reindex|prune` (score-log tools)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reward.cli.common import Command, err


def dashboard_command(args: argparse.Namespace) -> int:
    from reward.dashboard import render_from_log

    page = render_from_log(*args.log, title=args.title, smoothing=args.smoothing, sample_steps=args.sample_steps)
    Path(args.out).write_text(page, encoding="utf-8")
    err.print(f"wrote {args.out} ({len(page) // 1024} KiB, self-contained)")
    return 0


def reindex_command(args: argparse.Namespace) -> int:
    from reward.scorelog.store import rebuild, store_path

    folder = Path(args.folder)
    if not folder.is_dir():
        raise FileNotFoundError(2, "score log folder not found", str(folder))
    counts = rebuild(folder)
    err.print(f"indexed {counts['records']} records in {counts['batches']} batches of {counts['segments']} segments"
              f" into {store_path(folder)}")
    if counts["partial_batches"]:
        err.print(f"{counts['partial_batches']} batches with a request_id are partial (a writer died mid-write): "
                  "their retries will write the missing records")
    return 0


def prune_command(args: argparse.Namespace) -> int:
    from reward.scorelog import Retention, prune

    folder = Path(args.folder)
    if not folder.is_dir():
        raise FileNotFoundError(2, "score log folder not found", str(folder))
    retention = Retention(max_age_days=args.max_age_days, max_bytes=args.max_bytes)
    if retention.max_age_days is None and retention.max_bytes is None:
        raise ValueError("give --max-age-days or --max-bytes")
    deleted = prune(folder, retention)
    err.print(f"deleted {len(deleted)} segments")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    dash = sub.add_parser("dashboard", help="write the training-dynamics dashboard of score logs as one HTML file")
    dash.add_argument("--log", action="append", required=True, help="score log folder (repeat for runs side by side)")
    dash.add_argument("--out", default="report.html", help="HTML file to write")
    dash.add_argument("--title", default="Reward training dynamics")
    dash.add_argument("--smoothing", type=float, default=0.6, help="initial EMA weight of the curves, 0 = raw (0-0.99)")
    dash.add_argument("--sample-steps", type=int, default=30, help="steps per run that keep drill-down samples")

    log_parser = sub.add_parser("log", help="score-log tools")
    log_sub = log_parser.add_subparsers(dest="log_command", required=True)
    reindex = log_sub.add_parser("reindex", help="rebuild a log folder's aggregate store from its raw segments")
    reindex.add_argument("folder")
    prune_parser = log_sub.add_parser("prune", help="delete segments past a maximum age or beyond a total size")
    prune_parser.add_argument("folder")
    prune_parser.add_argument("--max-age-days", type=float)
    prune_parser.add_argument("--max-bytes", type=int)
    return {"dashboard": dashboard_command, "log reindex": reindex_command, "log prune": prune_command}

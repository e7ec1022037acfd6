"""`reward dashboard` (the training-dynamics page of score logs) and `reward log reindex|prune` (score-log tools)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reward.cli.common import Command, err


def _trainer_sources(values: list[str] | None) -> dict[str, str]:
    """`--trainer-metrics [RUN=]PATH` values as run label -> path ("" = the page's only run)."""
    sources: dict[str, str] = {}
    for value in values or []:
        label, _, path = value.partition("=") if "=" in value and not Path(value).exists() else ("", "", value)
        if label in sources:
            raise ValueError(f"--trainer-metrics: two files for run {label or '(the only run)'!r}")
        sources[label] = path
    return sources


def dashboard_command(args: argparse.Namespace) -> int:
    from reward.dashboard import render_from_log

    if args.sample_stride is not None and args.sample_stride < 1:
        raise ValueError(f"--sample-stride must be at least 1, got {args.sample_stride}")
    trainer = _trainer_sources(args.trainer_metrics)
    if args.export:
        from reward.dashboard.data import page_data
        from reward.dashboard.export import write_table
        from reward.dashboard.trainer import trainer_data

        data, _ = page_data([Path(folder) for folder in args.log])
        data["trainer"] = trainer_data(trainer, list(data["runs"]), args.trainer_metric) if trainer else {}
        write_table(data, args.export)
        err.print(f"wrote {args.export} ({sum(len(info['steps']) for info in data['runs'].values())} rows)")
        if args.out is None:
            return 0
    from reward.dashboard.page import rubric_titles

    page = render_from_log(*args.log, title=args.title, smoothing=args.smoothing, sample_steps=args.sample_steps,
                           sample_stride=args.sample_stride, trainer=trainer, trainer_keys=args.trainer_metric,
                           titles=rubric_titles(args.rubrics))
    out = args.out or "report.html"
    Path(out).write_text(page, encoding="utf-8")
    err.print(f"wrote {out} ({len(page) // 1024} KiB, self-contained)")
    return 0


def reindex_command(args: argparse.Namespace) -> int:
    from reward.scorelog.database import redact
    from reward.scorelog.store import rebuild, store_path, store_url_of

    folder = Path(args.folder)
    if not folder.is_dir():
        raise FileNotFoundError(2, "score log folder not found", str(folder))
    url = store_url_of(folder)
    if url is not None:
        raise ValueError(f"{folder}: its aggregates live in the PostgreSQL store {redact(url)}, which every node's "
                         "writers keep as they log; a reindex would index this node's segments alone")
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
    dash.add_argument("--out", help="HTML file to write (default report.html; with --export only, none)")
    dash.add_argument("--title", default="Reward training dynamics")
    dash.add_argument("--smoothing", type=float, default=0.6, help="initial EMA weight of the curves, 0 = raw (0-0.99)")
    dash.add_argument("--sample-steps", type=int, default=50,
                      help="at most this many steps per run keep drill-down samples, spread over the whole run")
    dash.add_argument("--sample-stride", type=int,
                      help="keep drill-down samples of every n-th step (and the latest) instead of --sample-steps")
    dash.add_argument("--trainer-metrics", action="append", metavar="[RUN=]PATH",
                      help="the trainer's metrics (TRL trainer_state.json, verl file-logger JSONL or console output, "
                           "CSV with 'step'), drawn beside the run's reward curves; repeat per run")
    dash.add_argument("--trainer-metric", action="append", metavar="NAME",
                      help="a trainer metric to draw (repeat; default: KL, losses, entropy, response length)")
    dash.add_argument("--export", metavar="PATH", help="write the per-step table as .csv or .parquet")
    dash.add_argument("--rubrics", help="the rubric folder the log was scored with: its dimensions' titles label the "
                                        "charts (default: the shipped rubrics; a dimension they lack shows its name)")

    log_parser = sub.add_parser("log", help="score-log tools")
    log_sub = log_parser.add_subparsers(dest="log_command", required=True)
    reindex = log_sub.add_parser("reindex", help="rebuild a log folder's aggregate store from its raw segments")
    reindex.add_argument("folder")
    prune_parser = log_sub.add_parser("prune", help="delete segments past a maximum age or beyond a total size")
    prune_parser.add_argument("folder")
    prune_parser.add_argument("--max-age-days", type=float)
    prune_parser.add_argument("--max-bytes", type=int)
    return {"dashboard": dashboard_command, "log reindex": reindex_command, "log prune": prune_command}

"""`reward score`: score a JSONL file of items offline with a suite and a judge, results as JSONL."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from reward.cli.common import Command, err, read_items
from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite
from reward.schema import OfflineResult


def score_command(args: argparse.Namespace) -> int:
    import asyncio

    from tqdm import tqdm

    from reward.engine import Engine
    from reward.judges.factory import make_judge
    from reward.report import print_report

    suite = load_suite(args.suite, Path(args.rubrics))
    judge = make_judge(args.judge)
    if args.judge == "local":
        from reward.judges.local_coverage import suite_notices

        from reward.rubric_changes import stale_criterion_notes

        for notice in suite_notices([suite]) + stale_criterion_notes(suite):
            err.print(f"[yellow]note:[/yellow] {notice}")
    cache = None
    if args.cache:
        from reward.engine import SqliteReplyCache

        cache = SqliteReplyCache(args.cache)
    engine = Engine(suite, judge, max_concurrency=args.concurrency, cache=cache)
    entries = list(read_items(Path(args.input)))
    bad = [(n, e) for n, e in entries if isinstance(e, str)]
    for number, message in bad:
        err.print(f"[red]{args.input}:{number}:[/red] {message}")
    good = [(n, e) for n, e in entries if not isinstance(e, str)]
    results = {}

    async def run() -> None:
        prepare = getattr(judge, "prepare", None)  # the local tier fits example heads at load
        if prepare is not None:
            await prepare(suite.dimensions.values())
        with tqdm(total=len(good), unit="item", desc=f"scoring ({judge.name})", file=sys.stderr, disable=args.quiet) as bar:
            for start in range(0, len(good), args.batch_size):
                chunk = good[start : start + args.batch_size]
                for (number, _), result in zip(chunk, await engine.score([item for _, item in chunk]), strict=True):
                    results[number] = result
                bar.update(len(chunk))
        await judge.close()

    asyncio.run(run())
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    with out:
        for number, entry in entries:
            if isinstance(entry, str):
                out.write(json.dumps({"line": number, "error": entry}) + "\n")
            else:
                line = OfflineResult(**dict(results[number]), suite=suite.name, suite_version=suite.version)
                out.write(line.model_dump_json() + "\n")
    if not args.quiet:
        print_report([results[n] for n, _ in good], suite, Console(stderr=args.output == "-"))
    return 1 if bad and not good else 0


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    score = sub.add_parser("score", help="score a JSONL file of items offline")
    score.add_argument("--suite", default="searchllm", help="suite name or path (default: searchllm)")
    score.add_argument("--input", required=True, help="JSONL of items, one per line ('-' for stdin)")
    score.add_argument("--output", default="-", help="JSONL of results, one per input line (default: stdout)")
    score.add_argument("--judge", default="local", help="judge backend: local, mock, mock-hash (test judges), or a configs/judges/*.yaml file")
    score.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder")
    score.add_argument("--batch-size", type=int, default=256, help="items per engine batch (keep GRPO groups whole)")
    score.add_argument("--concurrency", type=int, default=256, help="judge calls in flight")
    score.add_argument("--cache", help="SQLite file of judge replies: re-scoring the same data reuses them")
    score.add_argument("-q", "--quiet", action="store_true", help="no progress bar or tables")
    return {"score": score_command}

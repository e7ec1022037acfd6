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


def prepare_embeddings_command(args: argparse.Namespace) -> int:
    """Compute what the local tier reads from each interaction alone (vectors, and the cross-encoder's probabilities
    for pairs of the interaction's own texts), for the replicas to read
    (`reward.judges.local.prepared`). Each line's interaction is read (`query`, `history`, `evidence`, `now`), so an
    item file and the session log lines `reward data` converts both work; a bad line is named and skipped."""
    import asyncio

    from pydantic import ValidationError
    from tqdm import tqdm

    from reward.cli.common import _validation_message
    from reward.judges.local import prepared
    from reward.schema import Item

    suite = load_suite(args.suite, Path(args.rubrics))
    out = Path(args.out).resolve()
    prepared.check_writable(out)  # before the work, not after it
    items, bad = [], 0
    handle = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("expected a JSON object with 'query' and 'evidence'")
                # The interaction's fields only: a log line `reward data` reads may carry more.
                interaction = {key: row[key] for key in ("query", "history", "evidence", "now") if key in row}
                items.append(Item.model_validate({**interaction, "id": f"line-{number}", "response": ""}))
            except ValidationError as exc:
                bad += 1
                err.print(f"[red]{args.input}:{number}:[/red] {_validation_message(exc)}")
            except ValueError as exc:  # not JSON, or not an object
                bad += 1
                err.print(f"[red]{args.input}:{number}:[/red] {str(exc).splitlines()[0]}")
    if not items:
        err.print(f"[red]error:[/red] {args.input}: no interaction to prepare")
        return 2
    distinct = len({prepared.interaction_key(item) for item in items})
    with tqdm(total=distinct, unit="interaction", desc="preparing evidence", file=sys.stderr,
              disable=args.quiet) as bar:
        done = asyncio.run(prepared.prepare(items, suite, progress=lambda: bar.update(1)))
    prepared.write(out, done)
    err.print(f"{len(done.texts)} texts and {len(done.pairs)} pairs of {distinct} interactions ({len(items)} lines "
              f"read, {bad} skipped) -> {out}; serve with {prepared.ENV}={out}")
    return 1 if bad else 0


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
    prep = sub.add_parser("prepare-embeddings",
                          help="embed the interactions' evidence ahead (and read its pairs), for the local tier's replicas to load")
    prep.add_argument("--input", required=True, help="JSONL of interactions: items, or the session log lines reward data reads ('-' for stdin)")
    prep.add_argument("--out", required=True, help="the folder to write (an earlier prepared folder there is replaced; anything else is refused)")
    prep.add_argument("--suite", default="searchllm", help="the suite the replicas score with (default: searchllm)")
    prep.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder")
    prep.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return {"score": score_command, "prepare-embeddings": prepare_embeddings_command}

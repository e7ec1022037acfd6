"""The `reward` command line: score, rubric lint/schema (and, as they land, serve, calibrate, dashboard, bench)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from reward.rubric import (DEFAULT_RUBRIC_DIR, SCHEMA_KINDS, RubricError, UnknownSuite, json_schema, lint_report,
                           load_suite)
from reward.schema import Item

Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, Command] = {}
err = Console(stderr=True)
log = logging.getLogger(__name__)


def _command(name: str) -> Callable[[Command], Command]:
    def register(function: Command) -> Command:
        COMMANDS[name] = function
        return function

    return register


def _validation_message(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(item)'}: {'unknown field' if e['type'] == 'extra_forbidden' else e['msg']}"
        for e in exc.errors()[:5]
    )


def read_items(path: Path) -> Iterator[tuple[int, Item | str]]:
    """(line number, Item) per non-empty line, or (line number, error message) for a bad line."""
    handle = sys.stdin if str(path) == "-" else path.open(encoding="utf-8")
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, Item.model_validate_json(line)
            except ValidationError as exc:
                if exc.errors()[0]["type"] == "json_invalid":
                    yield number, f"invalid JSON: {exc.errors()[0]['msg']}"
                else:
                    yield number, _validation_message(exc)


@_command("score")
def score_command(args: argparse.Namespace) -> int:
    import asyncio

    from tqdm import tqdm

    from reward.engine import Engine
    from reward.judges.factory import make_judge
    from reward.report import print_report

    suite = load_suite(args.suite, Path(args.rubrics))
    judge = make_judge(args.judge)
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
                out.write(results[number].model_dump_json() + "\n")
    if not args.quiet:
        print_report([results[n] for n, _ in good], suite, Console(stderr=args.output == "-"))
    return 1 if bad and not good else 0


@_command("rubric lint")
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


@_command("rubric schema")
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


@_command("serve")
def serve_command(args: argparse.Namespace) -> int:
    import yaml

    from pydantic import ValidationError

    from reward.serve.runner import ServeConfig, require_auth_off_loopback, serve_until_stopped, start_server

    config = ServeConfig(applications=[{}])
    if args.config:
        from reward.shipped import resolve_config

        try:
            config = ServeConfig.model_validate(yaml.safe_load(resolve_config(args.config).read_text(encoding="utf-8")) or {})
        except (OSError, yaml.YAMLError, ValidationError) as exc:
            err.print(f"[red]{args.config}[/red]: {exc}")
            return 2
    app_args = config.applications[0].args
    for key, value in (("judge", args.judge), ("score_log", args.log_dir), ("rubrics", args.rubrics),
                       ("rubric_allow_shrink", args.allow_shrink or None), ("drain_timeout_s", args.drain_timeout)):
        if value is not None:
            app_args[key] = value
    try:
        server_args = config.server_args()
        host = args.host or config.http_options.host
        require_auth_off_loopback(host, server_args.token_env, args.insecure)
    except (ValueError, PermissionError) as exc:
        err.print(f"[red]{args.config or 'reward serve'}[/red]: {exc}")
        return 2
    url = start_server(server_args, host=host, port=args.port or config.http_options.port, http=config.http_options,
                       proxy_location=config.proxy_location)
    err.print(f"[green]serving[/green] {url} (judge {server_args.judge}, score log {server_args.score_log})")
    if args.demo:
        from reward.serve.runner import score_file_over_http

        # The demo sends the server's own token, so `make run` works with REWARD_SERVER_TOKEN set.
        token = os.environ.get(server_args.token_env) or None
        score_file_over_http(url, Path(args.demo), suite=args.suite, token=token)
        err.print(f"[green]reward server running at {url}[/green]  (POST /v1/score, GET /v1/suites, /metrics, "
                  "/dashboard); Ctrl-C stops it")
    # Reasons quote YAML ("scale: ["): printed as they are, not as markup.
    return serve_until_stopped(url, server_args, echo=lambda text: err.print(text, markup=False, highlight=False))


@_command("cascade fit")
def cascade_fit_command(args: argparse.Namespace) -> int:
    import yaml
    from rich.table import Table

    from reward.judges.cascade import cheap_observations, fit_thresholds, threshold_config
    from reward.judges.factory import make_judge

    if (args.run or args.limit) and not args.log:
        err.print("[red]error:[/red] --run and --limit pick records of a score log: they need --log")
        return 2
    found = _logged_llm_labels(args) if args.log else _human_labels(args)
    if found is None:
        return 2
    suite, labels, source = found
    observations = cheap_observations(suite, make_judge(args.cheap), labels)
    fitted = fit_thresholds(observations, args.target, args.min_support, sided=args.sided)
    table = Table(title=f"Cascade thresholds for {suite.name} (cheap tier {args.cheap}, target agreement {args.target})")
    for column in ("dimension", "labels", "threshold", "decided by cheap tier", "agreement there"):
        table.add_column(column, justify="left" if column == "dimension" else "right")
    for name, row in fitted.items():
        agreement = "—" if row["agreement"] is None else f"{row['agreement']:.3f}"
        threshold = row["threshold"]
        shown = (f"pass {threshold['pass']:.3f} / fail {threshold['fail']:.3f}" if isinstance(threshold, dict)
                 else f"{threshold:.3f}")
        table.add_row(name, str(row["n"]), shown, f"{row['decided']:.0%}", agreement)
    Console().print(table)
    total = sum(int(row["n"]) for row in fitted.values())
    saved = sum(float(row["decided"]) * int(row["n"]) for row in fitted.values())
    err.print(f"LLM-judge calls saved on these {source}: {saved / total:.0%} of {total}" if total else "no labels scored")
    thresholds = threshold_config(fitted)
    if args.out:
        Path(args.out).write_text(yaml.safe_dump({"thresholds": thresholds}, sort_keys=True), encoding="utf-8")
    return 0


def _judged(suite) -> set[str]:
    return {name for name, dimension in suite.dimensions.items() if dimension.judge is not None}


def _human_labels(args: argparse.Namespace):
    """(suite, [(item, dimension, label)], what they are) from pointwise label files, or None after an error."""
    from reward.evaluation.calibrate import load_all

    suite = load_suite(args.suite or "searchllm")
    pointwise, _ = load_all(args.labels)
    labelled = [(p.item, p.dimension, p.label) for p in pointwise if p.dimension in _judged(suite)]
    if not labelled:
        err.print(f"[red]error:[/red] no pointwise labels for judge dimensions of {suite.name} in {', '.join(args.labels)}")
        return None
    return suite, labelled, "labels"


def _logged_llm_labels(args: argparse.Namespace):
    """(suite, [(item, dimension, label)], what they are) from a logged LLM-judge run, or None after an error."""
    from collections import deque

    from reward.judges.cascade import logged_labels
    from reward.scorelog import read_log, segments

    folder = Path(args.log)
    if not folder.exists() or not segments(folder):
        raise FileNotFoundError(2, "no score-log segments", str(folder))
    # The latest `--limit` records of the run (all by default): items keep their evidence, so memory is bounded here.
    records = list(deque((r for r in read_log(folder) if args.run is None or (r.run or r.suite) == args.run),
                         maxlen=args.limit))
    if not records:
        err.print(f"[red]error:[/red] no records of run {args.run!r} in {folder}")
        return None
    suites = sorted({r.suite for r in records})
    if args.suite is None and len(suites) > 1:
        err.print(f"[red]error:[/red] {folder} holds suites {', '.join(suites)}: pick one with --suite (or --run)")
        return None
    suite = load_suite(args.suite or suites[0])
    records = [r for r in records if r.suite == suite.name]
    versions = sorted({r.suite_version for r in records} - {suite.version})
    if versions:
        log.warning("the log was scored with rubric version(s) %s, the rubrics here are %s: the logged verdicts answer "
                    "other prompts", ", ".join(versions), suite.version)
    labels, backends, skipped = logged_labels(records, _judged(suite))
    for reason, count in sorted(skipped.items()):
        err.print(f"skipped {count}: {reason}")
    if not labels:
        err.print(f"[red]error:[/red] no scored judge dimensions of {suite.name} in the {len(records)} records read")
        return None
    err.print(f"{len(labels)} labels from {len(records)} records, judged by "
              + ", ".join(f"{name} ({count})" for name, count in backends.most_common()))
    return suite, labels, "logged verdicts"


@_command("dashboard")
def dashboard_command(args: argparse.Namespace) -> int:
    from reward.dashboard import render_from_log

    page = render_from_log(*args.log, title=args.title, smoothing=args.smoothing, sample_steps=args.sample_steps)
    Path(args.out).write_text(page, encoding="utf-8")
    err.print(f"wrote {args.out} ({len(page) // 1024} KiB, self-contained)")
    return 0


@_command("log reindex")
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


@_command("log prune")
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


@_command("probes")
def probes_command(args: argparse.Namespace) -> int:
    import json as _json

    from rich.table import Table

    from reward.engine import Engine
    from reward.judges.factory import make_judge
    from reward.evaluation.probes import CLEAN_EXAMPLES, run_probes

    items = {n: e for n, e in read_items(Path(args.input)) if not isinstance(e, str)}
    if args.only:
        clean = [e for e in items.values() if re.search(args.only, e.id)]
    else:
        clean = [e for e in items.values() if e.id in CLEAN_EXAMPLES] if not args.all else list(items.values())
    if not clean:
        raise ValueError(f"{args.input}: no item to start from" + (f" matches --only {args.only!r}" if args.only else ""))
    if args.search:
        return _exploit_search(args, clean)
    rows = run_probes(clean, Engine(load_suite(args.suite), make_judge(args.judge)))
    table = Table(title=f"Reward-hacking probes ({args.suite}, judge {args.judge})")
    for column in ("clean item", "exploit", "expect", "clean R", "probe R", "held", "caught by"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["clean"], row["exploit"], row["expect"], f"{row['clean_reward']:.3f}", f"{row['probe_reward']:.3f}",
                      "yes" if row["held"] else "[red]NO[/red]", ", ".join(row["caught_by"]))
    Console().print(table)
    if args.json:
        Path(args.json).write_text(_json.dumps(rows, indent=2))
    failed = [r for r in rows if not r["held"]]
    err.print(f"{len(rows) - len(failed)}/{len(rows)} probes held")
    return 1 if failed else 0


def _exploit_search(args: argparse.Namespace, clean: list) -> int:
    import json as _json

    from rich.table import Table

    from reward.engine import Engine
    from reward.evaluation.exploit_search import TRANSFORMS, search
    from reward.judges.factory import make_judge

    report = search(clean, Engine(load_suite(args.suite), make_judge(args.judge)), depth=args.depth, beam=args.beam)
    title = (f"Exploit search ({args.suite}, judge {args.judge}; {len(TRANSFORMS)} transformations, depth {args.depth}, "
             f"beam {args.beam}, {report.candidates} candidates)")
    for heading, rows in (("item", report.per_item), ("family", report.per_family)):
        table = Table(title=f"{title}: largest gain per {heading}")
        for column in (heading, "clean R", "best R", "gain", "chain"):
            table.add_column(column)
        for key, finding in sorted(rows.items(), key=lambda kv: -kv[1].gain):
            gain = f"{finding.gain:+.4f}"
            table.add_row(key if heading == "item" else f"{key} ({finding.item})", f"{finding.clean_reward:.3f}",
                          f"{finding.reward:.3f}", f"[red]{gain}[/red]" if finding.gain > args.max_gain else gain,
                          " > ".join(finding.chain) or "-")
        Console().print(table)
    if args.json:
        Path(args.json).write_text(_json.dumps(report.as_dict(), indent=2))
    err.print(f"largest gain {report.max_gain:+.4f} (allowed {args.max_gain:+.4f})")
    return 1 if report.max_gain > args.max_gain else 0


def _calibration_reports(args: argparse.Namespace):
    from reward.evaluation.calibrate import load_all, systems_for
    from reward.judges.factory import make_judge

    pointwise, pairwise = load_all(args.labels)
    reports = systems_for(args.suite, make_judge(args.judge), pointwise, pairwise, resamples=args.resamples,
                          compare=not args.no_compare)
    return reports, pointwise, pairwise


@_command("calibrate")
def calibrate_command(args: argparse.Namespace) -> int:
    import json as _json

    from rich.table import Table

    from reward.evaluation.calibrate import html_report, regressions, track_disagreements

    reports, pointwise, pairwise = _calibration_reports(args)
    keys = sorted({(r.dimension, r.metric) for s in reports for r in s.rows})
    table = Table(title=f"Agreement with human labels (judge {args.judge})")
    table.add_column("dimension", no_wrap=True)
    table.add_column("metric")
    for system in reports:
        table.add_column(system.name, justify="right")
    for dimension, metric in keys:
        cells = []
        for system in reports:
            row = system.metric(dimension, metric)
            if row is None or row.value is None:
                cells.append("—" if row is None else f"n/a ({row.note or 'no data'})")
            else:
                ci = f" [{row.ci[0]:.2f}, {row.ci[1]:.2f}]" if row.ci else ""
                cells.append(f"{row.value:.3f}{ci} n={row.n}")
        table.add_row(dimension, metric, *cells)
    Console().print(table)
    tracks = track_disagreements(pointwise, pairwise) if args.tracks else None
    if tracks:
        for dimension, entry in sorted(tracks.items()):
            err.print(f"tracks {dimension}: {entry['disagree']}/{entry['compared']} blind-vs-assisted disagreements to escalate")
    payload = {"judge": args.judge, "systems": [{"name": s.name, "suite": s.suite, "suite_version": s.suite_version,
                                                  "metrics": [r.as_dict() for r in s.rows]} for s in reports],
               "tracks": tracks}
    if args.out:
        Path(args.out).write_text(_json.dumps(payload, indent=2))
    if args.html:
        Path(args.html).write_text(html_report(reports, tracks=tracks), encoding="utf-8")
    if args.baseline:
        problems = regressions(reports[0], _json.loads(Path(args.baseline).read_text()), args.max_drop)
        for problem in problems:
            err.print(f"[red]regression[/red] {problem}")
        if problems:
            return 1
        err.print(f"[green]no regression[/green] beyond {args.max_drop} against {args.baseline}")
    return 0


@_command("freeze")
def freeze_command(args: argparse.Namespace) -> int:
    import json as _json

    from reward.evaluation.calibrate import freeze, load_all, systems_for
    from reward.judges.factory import make_judge

    pointwise, pairwise = load_all(args.labels)
    [report] = systems_for(args.suite, make_judge(args.judge), pointwise, pairwise, resamples=args.resamples, compare=False)
    frozen = freeze(report, load_suite(args.suite), args.judge, [str(p) for p in args.labels])
    Path(args.out).write_text(_json.dumps(frozen, indent=2))
    err.print(f"froze {len(frozen['metrics'])} metrics of {args.suite} ({frozen['suite_version']}) to {args.out}")
    return 0


@_command("shadow")
def shadow_command(args: argparse.Namespace) -> int:
    import json as _json

    from reward.evaluation.calibrate import shadow
    from reward.judges.factory import make_judge
    from reward.scorelog import read_log

    records = list(read_log(args.log))
    if args.limit:
        records = records[-args.limit :]
    report = shadow(records, load_suite(args.suite), make_judge(args.judge), worst=args.worst)
    text = _json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


@_command("online")
def online_command(args: argparse.Namespace) -> int:
    from reward.online.cli import run

    return run(args)


@_command("judge-server")
def judge_server_command(args: argparse.Namespace) -> int:
    from reward.judges.llamacpp_server import MODELS, model_file, serve

    path = Path(args.model_path) if args.model_path else model_file(args.model, Path(args.cache_dir))
    alias = args.alias or (MODELS[args.model].alias if not args.model_path else path.stem)
    chat_format = args.chat_format or (None if args.model_path else MODELS[args.model].chat_format)
    err.print(f"judge server: {alias} ({path}) on http://{args.host}:{args.port}/v1")
    serve(path, alias, chat_format=chat_format, host=args.host, port=args.port, n_ctx=args.n_ctx, threads=args.threads,
          verbose=args.verbose)
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reward", description="Multi-dimensional reward server for generative search.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)

    score = sub.add_parser("score", help="score a JSONL file of items offline")
    score.add_argument("--suite", default="searchllm", help="suite name or path (default: searchllm)")
    score.add_argument("--input", required=True, help="JSONL of items, one per line ('-' for stdin)")
    score.add_argument("--output", default="-", help="JSONL of results, one per input line (default: stdout)")
    score.add_argument("--judge", default="local", help="judge backend: local, mock, or a configs/judges/*.yaml file")
    score.add_argument("--rubrics", default=str(DEFAULT_RUBRIC_DIR), help="rubric folder")
    score.add_argument("--batch-size", type=int, default=256, help="items per engine batch (keep GRPO groups whole)")
    score.add_argument("--concurrency", type=int, default=256, help="judge calls in flight")
    score.add_argument("--cache", help="SQLite file of judge replies: re-scoring the same data reuses them")
    score.add_argument("-q", "--quiet", action="store_true", help="no progress bar or tables")

    serve = sub.add_parser("serve", help="run the reward server (Ray Serve) until Ctrl-C")
    serve.add_argument("--config", help="a Serve config file (configs/serve/local.yaml); flags override it")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--insecure", action="store_true",
                       help="allow a non-loopback bind without a bearer token (refused otherwise)")
    serve.add_argument("--judge", default=None, help="judge backend: local (default), mock, or configs/judges/*.yaml")
    serve.add_argument("--log-dir", default=None, help="score log folder (default var/scores)")
    serve.add_argument("--rubrics", default=None, help="rubric folder")
    serve.add_argument("--allow-shrink", action="store_true",
                       help="hot reload accepts a suite that loses dimensions or keys (refused by default)")
    serve.add_argument("--drain-timeout", type=float, default=None,
                       help="seconds SIGTERM waits for requests in flight before stopping (default 120)")
    serve.add_argument("--demo", help="after start, score this JSONL through HTTP and print the tables")
    serve.add_argument("--suite", default="searchllm", help="suite for --demo")

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

    probes = sub.add_parser("probes", help="reward-hacking and hallucination probes: each must meet its expectation against its clean response")
    probes.add_argument("--input", default="examples/items.jsonl")
    probes.add_argument("--suite", default="searchllm")
    probes.add_argument("--judge", default="local")
    probes.add_argument("--all", action="store_true", help="derive probes from every input item, not only the clean ones")
    probes.add_argument("--json", help="also write the rows (or the search report) as JSON")
    probes.add_argument("--only", help="start from the input items whose id matches this regular expression")
    probes.add_argument("--search", action="store_true",
                        help="exploit search: chains of response transformations that never improve an answer, by beam "
                             "search on the reward; exits 1 if one gains more than --max-gain over its clean response")
    probes.add_argument("--depth", type=int, default=3, help="longest chain of the search (default 3)")
    probes.add_argument("--beam", type=int, default=3, help="responses kept per item at each depth (default 3)")
    probes.add_argument("--max-gain", type=float, default=0.01, help="largest gain the search may find (default 0.01)")

    for name, helptext in (("calibrate", "agreement with human labels (and the regression gate)"),
                           ("freeze", "write a frozen baseline of the suite's agreement")):
        cal = sub.add_parser(name, help=helptext)
        cal.add_argument("--suite", default="searchllm")
        cal.add_argument("--labels", action="append", required=True, help="label JSONL (repeatable)")
        cal.add_argument("--judge", default="local")
        cal.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
        if name == "calibrate":
            cal.add_argument("--out", help="JSON report")
            cal.add_argument("--html", help="self-contained HTML report")
            cal.add_argument("--baseline", help="frozen baseline (reward freeze) to gate against")
            cal.add_argument("--max-drop", type=float, default=0.01, help="largest allowed drop of a metric")
            cal.add_argument("--tracks", action="store_true", help="report blind-vs-assisted disagreements")
            cal.add_argument("--no-compare", action="store_true", help="skip the linear ablation and the GenRM baseline")
        else:
            cal.add_argument("--out", required=True, help="baseline JSON to write")
            cal.set_defaults(no_compare=True)
    sh = sub.add_parser("shadow", help="re-score logged traffic with a candidate evaluator")
    sh.add_argument("--log", required=True, help="score log folder")
    sh.add_argument("--suite", required=True, help="candidate suite")
    sh.add_argument("--judge", default="local")
    sh.add_argument("--limit", type=int, help="only the last N records")
    sh.add_argument("--worst", type=int, default=10)
    sh.add_argument("--out", help="JSON report")

    from reward.online.cli import add_parser as add_online_parser

    add_online_parser(sub)
    js = sub.add_parser("judge-server", help="a real LLM judge on CPU: llama.cpp's OpenAI-compatible server with a "
                        "model from PyPI (extra judge-server; configs/judges/llamacpp.yaml talks to it)")
    js.add_argument("--model", default="gemma3-270m", help="packaged model (default gemma3-270m)")
    js.add_argument("--model-path", help="any GGUF file with a chat template instead of a packaged model")
    js.add_argument("--alias", help="served model name (default: the packaged model's name)")
    js.add_argument("--chat-format", help="llama-cpp-python chat format when the GGUF has no chat template "
                    "(default: the packaged model's, e.g. gemma3)")
    js.add_argument("--cache-dir", default="var/models", help="where the packaged model is assembled (default var/models)")
    js.add_argument("--host", default="127.0.0.1")
    js.add_argument("--port", type=int, default=8002)
    js.add_argument("--n-ctx", type=int, default=8192, help="context window in tokens (default 8192)")
    js.add_argument("--threads", type=int, default=None, help="CPU threads (default: cores, at most 4)")

    rubric = sub.add_parser("rubric", help="rubric tools")
    rubric_sub = rubric.add_subparsers(dest="rubric_command", required=True)
    lint_parser = rubric_sub.add_parser("lint", help="report every problem of a rubric folder or file")
    lint_parser.add_argument("path", nargs="?", default=str(DEFAULT_RUBRIC_DIR))
    lint_parser.description = "Exit status: 0 clean, 1 errors (the rubric does not load), 2 warnings only."
    schema = rubric_sub.add_parser("schema", help="JSON Schema of dimension or suite files, for editors and CI")
    schema.add_argument("--kind", choices=SCHEMA_KINDS, help="print this kind's schema to stdout")
    schema.add_argument("--out", help="write <kind>.schema.json files into this folder (both kinds unless --kind)")

    cascade = sub.add_parser("cascade", help="judge cascade tools")
    cascade_sub = cascade.add_subparsers(dest="cascade_command", required=True)
    fit = cascade_sub.add_parser("fit", help="per-dimension confidence thresholds of the cheap tier from labels or "
                                             "from a logged LLM-judge run")
    source = fit.add_mutually_exclusive_group(required=True)
    source.add_argument("--labels", nargs="+",
                        help="pointwise label files (human labels, or an LLM judge's verdicts in the same format)")
    source.add_argument("--log", help="a score-log folder of an LLM-judge run: its verdicts (pass/fail at 0.5) are the "
                                      "labels, the logged items are re-scored by the cheap tier")
    fit.add_argument("--run", help="with --log: only this run's records (records without a run name go by their suite)")
    fit.add_argument("--limit", type=_positive_int, help="with --log: only the latest N records (of the run)")
    fit.add_argument("--suite", help="suite (default: searchllm with --labels, the log's suite with --log)")
    fit.add_argument("--cheap", default="local", help="the cheap tier: local (default) or mock")
    fit.add_argument("--target", type=float, default=0.95, help="agreement the cheap tier must reach where it decides")
    fit.add_argument("--min-support", type=int, default=10, help="fewest decided items a threshold may rest on")
    fit.add_argument("--sided", action="store_true",
                     help="fit the cheap tier's passes and failures apart (`{pass: .., fail: ..}` per dimension)")
    fit.add_argument("--out", help="write the `thresholds:` block (YAML) here, for a cascade config")
    _plugin_commands(sub)
    return parser


PLUGIN_GROUP = "reward.commands"
"""Entry-point group through which other packages add commands (`policy` adds `reward data`): each entry is a
function `register(subparsers) -> {command name: handler}`; `reward` imports none of them itself."""


def _plugin_commands(sub) -> None:
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        for name, handler in entry.load()(sub).items():
            if COMMANDS.get(name, handler) is not handler:
                raise ValueError(f"command {name!r} of {entry.value} is already a reward command")
            COMMANDS[name] = handler


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sub_command = getattr(args, f"{args.command}_command", None)
    name = f"{args.command} {sub_command}" if f"{args.command} {sub_command}" in COMMANDS else args.command
    try:
        return COMMANDS[name](args)
    except (RubricError, UnknownSuite) as exc:
        err.print(f"[red]error:[/red] {exc}")
        return 2
    except ValueError as exc:  # bad label files and judge configs name file, line and field
        err.print(f"[red]error:[/red] {exc}")
        return 2
    except FileNotFoundError as exc:
        err.print(f"[red]error:[/red] {exc.filename}: file not found")
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""`reward online ...`: ingest interaction logs, the A/B report, the daily bad-case audit and its BCR, and the
offline-online link. Registered in `reward/cli/online.py` as one subcommand group."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

from rich.console import Console

from reward.online.reformulation import MAX_WINDOW_S, RESEARCH_SIMILARITY, RESEARCH_WINDOW_S

err = Console(stderr=True, soft_wrap=True)  # file:line messages stay whole, greppable
DEFAULT_STORE = "var/online.sqlite"
DEFAULT_EXPERIMENTS = "configs/online/experiments.yaml"


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


SRM_EXIT = 3
"""Exit status of `report` when the split mismatches (unless `--allow-srm`): a broken split must stop a pipeline."""


def experiment_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """The experiment options, the same on every subcommand that reads an experiment."""
    group = parser.add_argument_group("experiment")
    group.add_argument("--experiment", required=required,
                       help="experiment name" + ("" if required else " (default: the audit's own; checked against it)"))
    group.add_argument("--experiments", default=DEFAULT_EXPERIMENTS,
                       help=f"experiments file: arms, split, control (default {DEFAULT_EXPERIMENTS})")
    group.add_argument("--day", type=_date, help="only this day (UTC)")
    group.add_argument("--since", type=_date, help="first day (UTC)")
    group.add_argument("--until", type=_date, help="last day (UTC)")
    group.add_argument("--allow-srm", action="store_true",
                       help=f"report: exit 0 despite a sample-ratio mismatch (default: exit {SRM_EXIT}; the lifts stay greyed either way)")


def _days(args: argparse.Namespace) -> tuple[dt.date, dt.date] | None:
    if args.day and (args.since or args.until):
        raise ValueError("--day: give either --day or --since/--until, not both")
    if args.day:
        return args.day, args.day
    if args.since or args.until:
        return args.since or dt.date.min, args.until or dt.date.max
    return None


def add_parser(sub: argparse._SubParsersAction) -> None:
    online = sub.add_parser("online", help="online evaluation: A/B metrics, bad-case audit, offline-online link")
    commands = online.add_subparsers(dest="online_command", required=True)

    def common(parser: argparse.ArgumentParser, logs_required: bool = False) -> None:
        parser.add_argument("--logs", nargs="+", required=logs_required, default=[],
                            help="interaction logs (JSONL, .jsonl.gz, or folders of them) to ingest first")
        parser.add_argument("--store", default=DEFAULT_STORE, help=f"SQLite online store (default {DEFAULT_STORE})")

    def thresholds(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--window", type=float, default=RESEARCH_WINDOW_S,
                            help=f"re-search window in seconds after the answer view (default {RESEARCH_WINDOW_S:g}, at most {MAX_WINDOW_S:g})")
        parser.add_argument("--similarity", type=float, default=RESEARCH_SIMILARITY,
                            help=f"minimum MiniLM cosine of a reformulation (default {RESEARCH_SIMILARITY:g})")

    ingest = commands.add_parser("ingest", help="validate interaction logs and add them to the store")
    common(ingest, logs_required=True)

    report = commands.add_parser("report", help="VCR, skip and re-search rate per arm, lifts with 95%% CIs, SRM")
    common(report)
    experiment_options(report, required=True)
    thresholds(report)
    report.add_argument("--no-cumulative", action="store_true",
                        help="leave out the cumulative lift by day (a third of the CPU on a large store)")
    report.add_argument("--json", help="write the report as JSON")
    report.add_argument("--html", help="write the dashboard page")
    report.add_argument("--scores", help="score log: add the offline-online link to the page and JSON")
    report.add_argument("--audit", help="audit folder of this experiment with returned labels: add the bad-case rates")

    audit = commands.add_parser("audit", help="draw the day's audit sample, pre-score it, write the annotation sheet")
    common(audit)
    experiment_options(audit, required=True)
    audit.add_argument("--n", type=int, default=200, help="sessions to sample (split evenly over arms)")
    audit.add_argument("--scores", required=True, help="score log holding the responses' items")
    audit.add_argument("--out", required=True, help="folder for blind.jsonl, assisted.jsonl and manifest.json")
    audit.add_argument("--suite", default="searchllm")
    audit.add_argument("--judge", default="local", help="judge that pre-scores the sample: local, mock, or a config file")
    audit.add_argument("--seed", type=int, default=0)

    bcr = commands.add_parser("bcr", help="bad-case rate per arm from a returned audit sheet")
    bcr.add_argument("audit", help="audit folder (manifest.json and the labelled *.jsonl files)")
    experiment_options(bcr, required=False)
    bcr.add_argument("--labels", nargs="+", help="labelled files (default: the folder's *.jsonl)")
    bcr.add_argument("--json", help="write the rates as JSON")

    link = commands.add_parser("link", help="AUC of each reward dimension for VCR, no-skip and no-re-search")
    common(link)
    experiment_options(link, required=False)
    link.add_argument("--scores", required=True, help="score log folder (or segment) of the shown responses")
    thresholds(link)
    link.add_argument("--json", help="write the rows as JSON")


def _store(args: argparse.Namespace):
    from reward.online.store import OnlineStore

    store = OnlineStore(args.store)
    if args.logs:
        summary = store.ingest(args.logs)
        for error in summary.errors:
            err.print(f"[red]{error}[/red]")
        err.print(f"ingested {summary.files} files ({summary.skipped_files} unchanged, skipped): {summary.rows:,} rows, "
                  f"{summary.inserted:,} new sessions, {summary.duplicates:,} duplicate ids, {summary.bad:,} bad rows"
                  f"{' (first ones above; all in the store table row_errors)' if summary.bad else ''}, "
                  f"{summary.embedded_texts:,} query texts embedded, {summary.seconds:.1f} s")
    return store


def _experiment(path: str, name: str):
    from reward.online.experiments import load_experiments

    experiments = load_experiments(path)
    if name not in experiments:
        raise ValueError(f"{path}: no experiment {name!r} (known: {sorted(experiments)})")
    return experiments[name]


def _audit_rates(folder: str, labels: list[str] | None, experiment) -> list:
    """The audit's bad-case rates against the experiment's control; an audit of another experiment, or of arms the
    experiment does not have, is refused."""
    from reward.online.audit import MANIFEST, AuditManifest, bad_case_rates, check_manifest

    manifest = AuditManifest.model_validate_json((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    check_manifest(manifest, folder, experiment.name, list(experiment.arms))
    paths = labels or sorted(str(p) for p in Path(folder).glob("*.jsonl"))
    return bad_case_rates(manifest, paths, control=experiment.control)


def run(args: argparse.Namespace) -> int:
    command = args.online_command
    if command == "ingest":
        store = _store(args)
        store.close()
        return 0
    if command == "report":
        from reward.online.report import build_report, print_report

        experiment = _experiment(args.experiments, args.experiment)
        days = _days(args)
        bcr = _audit_rates(args.audit, None, experiment) if args.audit else None
        with _store(args) as store:
            report = build_report(store, experiment, window_s=args.window, similarity=args.similarity, days=days,
                                  cumulative_by_day=not args.no_cumulative)
            if args.scores:
                from reward.online.link import dimension_link

                report.link = dimension_link(store, args.scores, args.window, args.similarity,
                                             experiment=experiment.name, days=days)
        report.bcr = bcr
        print_report(report)
        if args.json:
            Path(args.json).write_text(report.model_dump_json(indent=2), encoding="utf-8")
        if args.html:
            from reward.online.page import render_page

            Path(args.html).write_text(render_page(report), encoding="utf-8")
            err.print(f"wrote {args.html}")
        if report.srm.mismatch and not args.allow_srm:
            err.print(f"[red]sample ratio mismatch (p = {report.srm.p_value}, unknown arms {report.srm.unknown_arms}): exit {SRM_EXIT}; the lifts are not "
                      "to be trusted (--allow-srm to exit 0 anyway)[/red]")
            return SRM_EXIT
        return 0
    if command == "audit":
        from reward.engine import Engine
        from reward.judges.factory import make_judge
        from reward.online.audit import AuditManifest, draw_sample, items_from_score_log, write_sheet
        from reward.rubric import load_suite

        if args.day is None or args.since or args.until:
            raise ValueError("--day: the audit samples one day; give --day YYYY-MM-DD (not --since/--until)")
        experiment = _experiment(args.experiments, args.experiment)
        suite = load_suite(args.suite)
        with _store(args) as store:
            draws, population = draw_sample(store, experiment.name, args.day, args.n, args.seed)
        unknown = sorted(set(population) - set(experiment.arms))
        if unknown:
            raise ValueError(f"the store's arms {sorted(population)} of {experiment.name!r} on {args.day} are not the "
                             f"arms of {args.experiments} {sorted(experiment.arms)} (unknown: {unknown})")
        items = items_from_score_log(args.scores, {d.response_id for d in draws})
        missing = sorted({d.response_id for d in draws} - set(items))
        if missing:
            err.print(f"[yellow]{len(missing)} sampled responses are not in the score log {args.scores} "
                      f"(first: {missing[0]}); they are listed in the manifest, not on the sheet[/yellow]")
        judge = make_judge(args.judge)
        results = {r.id: r for r in Engine(suite, judge).score_sync(list(items.values()))} if items else {}
        dimensions = [name for name in suite.dimensions if suite.layer_of(name) == "bottom_line"]
        manifest = AuditManifest(experiment=experiment.name, day=args.day, seed=args.seed, population=population,
                                 draws=draws, dimensions=dimensions, missing=missing, judge=args.judge)
        paths = write_sheet(args.out, manifest, items, results)
        err.print(f"sampled {len(draws)} sessions ({len(items)} distinct responses) over {len(population)} arms; "
                  f"wrote {', '.join(map(str, paths))}; fill `label` (1 meets, 0 severe violation) in both tracks")
        return 0
    if command == "bcr":
        from reward.online.audit import MANIFEST, AuditManifest, AuditMismatch
        from reward.online.report import print_bcr

        manifest = AuditManifest.model_validate_json((Path(args.audit) / MANIFEST).read_text(encoding="utf-8"))
        name = args.experiment or manifest.experiment
        experiment = _experiment(args.experiments, name)
        days = _days(args)
        if days is not None and not days[0] <= manifest.day <= days[1]:
            raise AuditMismatch(f"{Path(args.audit) / MANIFEST}: the audit is of {manifest.day}, outside the days asked "
                                f"({days[0]} – {days[1]})")
        rows = _audit_rates(args.audit, args.labels, experiment)
        print_bcr(rows, Console(width=200), title=f"Bad-case rate, {manifest.experiment} on {manifest.day}, "
                                                  f"control = {experiment.control}")
        if args.json:
            Path(args.json).write_text(json.dumps([r.model_dump(mode="json") for r in rows], indent=2), encoding="utf-8")
        return 0
    if command == "link":
        from rich.table import Table

        from reward.online.link import OUTCOMES, dimension_link

        if args.experiment:
            _experiment(args.experiments, args.experiment)
        with _store(args) as store:
            result = dimension_link(store, args.scores, args.window, args.similarity, experiment=args.experiment,
                                    days=_days(args))
        table = Table(title=f"Reward dimensions vs user behaviour: AUC [95% CI clustered by response] over "
                            f"{result.joined_sessions:,} joined sessions of {result.responses:,} scored responses")
        table.add_column("dimension")
        for outcome in OUTCOMES:
            table.add_column(outcome.replace("_", " "), justify="right")
        table.add_column("responses", justify="right")
        by_dimension: dict[str, dict] = {}
        for row in result.rows:
            by_dimension.setdefault(row.dimension, {})[row.outcome] = row
        for name, cells in by_dimension.items():
            table.add_row(name, *("—" if cells[o].auc is None else f"{cells[o].auc:.3f} [{cells[o].ci[0]:.3f}, {cells[o].ci[1]:.3f}]"
                                  for o in OUTCOMES), f"{cells[OUTCOMES[0]].responses:,}")
        Console(width=200).print(table)
        if not result.joined_sessions:
            err.print(f"[yellow]no session's response id is in the score log {args.scores}[/yellow]")
        if args.json:
            Path(args.json).write_text(result.model_dump_json(indent=2), encoding="utf-8")
        return 0
    raise ValueError(f"unknown online command {command!r}")

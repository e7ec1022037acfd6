"""`reward probes` (reward-hacking probes and the exploit search), `reward calibrate` and `reward freeze` (agreement
with human labels and the regression gate), `reward shadow` (re-score logged traffic with a candidate evaluator)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rich.console import Console

from reward.cli.common import Command, err, read_items
from reward.rubric import load_suite


def probes_command(args: argparse.Namespace) -> int:
    from reward.evaluation.probes import CLEAN_EXAMPLES

    if args.corpus:
        from reward.evaluation.corpus import read_corpus, sample_interactions

        interactions = sample_interactions(read_corpus(args.corpus), args.sample)
        clean = [i.clean for i in interactions if not args.only or re.search(args.only, i.id)]
        if not clean:
            raise ValueError(f"{args.corpus}: no interaction to start from" + (f" matches --only {args.only!r}" if args.only else ""))
        return _exploit_search(args, clean) if args.search else _probe_table(args, clean)
    items = {n: e for n, e in read_items(Path(args.input)) if not isinstance(e, str)}
    if args.only:
        clean = [e for e in items.values() if re.search(args.only, e.id)]
    else:
        clean = [e for e in items.values() if e.id in CLEAN_EXAMPLES] if not args.all else list(items.values())
    if not clean:
        raise ValueError(f"{args.input}: no item to start from" + (f" matches --only {args.only!r}" if args.only else ""))
    if args.search:
        return _exploit_search(args, clean)
    return _probe_table(args, clean)


def _probe_table(args: argparse.Namespace, clean: list) -> int:
    import json as _json

    from rich.table import Table

    from reward.engine import Engine
    from reward.evaluation.probes import run_probes
    from reward.judges.factory import make_judge

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


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    probes = sub.add_parser("probes", help="reward-hacking and hallucination probes: each must meet its expectation against its clean response")
    probes.add_argument("--input", default="examples/items.jsonl")
    probes.add_argument("--suite", default="searchllm")
    probes.add_argument("--judge", default="local")
    probes.add_argument("--all", action="store_true", help="derive probes from every input item, not only the clean ones")
    probes.add_argument("--json", help="also write the rows (or the search report) as JSON")
    probes.add_argument("--only", help="start from the input items whose id matches this regular expression "
                                      "(one that starts with '-' goes after an equals sign: --only='-good$')")
    probes.add_argument("--corpus", help="start from the clean answer of every interaction of a generalization corpus "
                                         "file (data/generalization/fit.jsonl or test.jsonl) instead of --input")
    probes.add_argument("--sample", type=int, default=0,
                        help="with --corpus: a fixed sample of this many interactions (0: all)")
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
    return {"probes": probes_command, "calibrate": calibrate_command, "freeze": freeze_command, "shadow": shadow_command}

"""`reward cascade fit`: per-dimension confidence thresholds of the judge cascade's cheap tier, from labels or from a
logged LLM-judge run."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from rich.console import Console

from reward.cli.common import Command, err, positive_int
from reward.rubric import load_suite

log = logging.getLogger(__name__)


def cascade_fit_command(args: argparse.Namespace) -> int:
    import yaml
    from rich.table import Table

    from reward.evaluation.cascade_fit import cheap_observations, fit_thresholds, threshold_config
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

    from reward.evaluation.cascade_fit import logged_labels
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



def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
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
    fit.add_argument("--limit", type=positive_int, help="with --log: only the latest N records (of the run)")
    fit.add_argument("--suite", help="suite (default: searchllm with --labels, the log's suite with --log)")
    fit.add_argument("--cheap", default="local", help="the cheap tier: local (default) or mock")
    fit.add_argument("--target", type=float, default=0.95, help="agreement the cheap tier must reach where it decides")
    fit.add_argument("--min-support", type=int, default=10, help="fewest decided items a threshold may rest on")
    fit.add_argument("--sided", action="store_true",
                     help="fit the cheap tier's passes and failures apart (`{pass: .., fail: ..}` per dimension)")
    fit.add_argument("--out", help="write the `thresholds:` block (YAML) here, for a cascade config")
    return {"cascade fit": cascade_fit_command}

"""The policy side's commands of the `reward` command line, plugged in through the `reward.commands` entry point
(pyproject.toml), so the reward package depends on nothing under `policy/`: `reward data` turns JSONL logs of
(query, history, evidence) into the parquet verl and the TRL recipe train on."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

err = Console(stderr=True)


def data_command(args: argparse.Namespace) -> int:
    from policy.data import convert, validation_path
    from policy.prompts import SYSTEM_PROMPTS

    output = Path(args.output)
    val_output = (Path(args.val_output) if args.val_output else validation_path(output)) if args.val_fraction else None
    try:
        rows, problems = convert(Path(args.input), output, data_source=args.data_source,
                                 dedupe_prompts=not args.keep_duplicates, system_prompt=SYSTEM_PROMPTS[args.prompt],
                                 val_fraction=args.val_fraction, val_target=val_output)
    except ValueError as exc:  # an empty split, a fraction out of range: nothing written
        err.print(f"[red]{exc}[/red]")
        return 1
    for problem in problems:
        err.print(f"[red]{problem}[/red]")
    import pandas as pd

    held_out = len(pd.read_parquet(val_output)) if val_output else 0
    err.print(f"wrote {rows} prompts to {output}" + (f" and {held_out} to {val_output}" if val_output else "")
              + (f" ({len(problems)} bad lines skipped)" if problems else ""))
    if problems and not args.skip_bad:
        err.print("[red]lines were skipped: fix them, or pass --skip-bad to accept a dataset without them[/red]")
        return 1
    return 0


def register(sub) -> dict:
    """Add the policy side's subcommands to `reward`'s parser; returns their handlers by name."""
    data = sub.add_parser("data", help="JSONL logs of (query, history, evidence) -> verl parquet")
    data.add_argument("--input", required=True, help="JSONL, one interaction per line")
    data.add_argument("--output", required=True, help="parquet file to write")
    data.add_argument("--data-source", default="search_reward", help="the rows' data_source")
    data.add_argument("--keep-duplicates", action="store_true", help="keep lines that repeat a prompt")
    data.add_argument("--prompt", choices=("full", "compact", "minimal"), default="full",
                      help="system prompt (policy/prompts.py): full (format, rules and an example; default), compact, minimal")
    data.add_argument("--val-fraction", type=float, default=0.0,
                      help="share of the prompts written to a validation parquet instead (split by a hash of the prompt)")
    data.add_argument("--val-output", help="validation parquet (default: OUTPUT with .val before the suffix)")
    data.add_argument("--skip-bad", action="store_true",
                      help="exit 0 although some lines were skipped (by default a skipped line fails the command)")
    return {"data": data_command}

"""The `reward` command line: one parser, its subcommands added by one module per command group
(`reward/cli/<group>.py`, each with `add_parser(subparsers) -> {command: handler}`), plus commands other packages plug
in through the `reward.commands` entry-point group (the policy side adds `reward data`, `reward train`, ...)."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from reward.cli.common import Command, err
from reward.rubric import RubricError, UnknownSuite

GROUPS = ("score", "serve", "logs", "evaluation", "replay", "online", "rubric", "cascade")
"""The command groups, in the order `reward --help` lists them: modules of `reward.cli`."""

PLUGIN_GROUP = "reward.commands"
"""Entry-point group through which other packages add commands (`policy` adds `reward data`): each entry is a
function `register(subparsers) -> {command name: handler}`; `reward` imports none of them itself."""


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Command]]:
    """The parser and every command's handler by name (`"score"`, `"rubric lint"`, ...)."""
    parser = argparse.ArgumentParser(prog="reward", description="Multi-dimensional reward server for generative search.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)
    commands: dict[str, Command] = {}
    for group in GROUPS:
        commands.update(importlib.import_module(f"reward.cli.{group}").add_parser(sub))
    _plugin_commands(sub, commands)
    return parser, commands


def _plugin_commands(sub: argparse._SubParsersAction, commands: dict[str, Command]) -> None:
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        for name, handler in entry.load()(sub).items():
            if commands.get(name, handler) is not handler:
                raise ValueError(f"command {name!r} of {entry.value} is already a reward command")
            commands[name] = handler


def main(argv: list[str] | None = None) -> int:
    parser, commands = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sub_command = getattr(args, f"{args.command}_command", None)
    name = f"{args.command} {sub_command}" if f"{args.command} {sub_command}" in commands else args.command
    try:
        return commands[name](args)
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

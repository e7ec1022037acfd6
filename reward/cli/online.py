"""`reward online ...`: the commands live with the online evaluation code (`reward.online.cli`); this plugs them in."""

from __future__ import annotations

import argparse

from reward.cli.common import Command


def add_parser(sub: argparse._SubParsersAction) -> dict[str, Command]:
    from reward.online.cli import add_parser as add_online_parser, run

    add_online_parser(sub)
    return {"online": run}

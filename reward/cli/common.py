"""What the command modules share: the error console, the command type, reading a JSONL file of items with a message
per bad line, and argument types."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console

from reward.schema import Item

Command = Callable[[argparse.Namespace], int]
"""A command's handler: the parsed arguments in, the exit status out."""

err = Console(stderr=True)


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


def positive_int(text: str) -> int:
    """An argument type: an integer of at least 1.

    >>> positive_int("3")
    3
    """
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value

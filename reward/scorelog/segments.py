"""The score log's records and readers: what a line of a segment is (`ScoreRecord`, `ContextRecord`) and how segments
are listed and read (`segments`, `read_lines`, `parse_segment`, `read_log`).

The writer (`reward.scorelog.log`) and the aggregate store (`reward.scorelog.store`) both read segments; the
readers live here, below both, so neither imports the other to read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reward.schema import Evidence, Item, ItemResult, Turn

log = logging.getLogger(__name__)


class ScoreRecord(BaseModel):
    """One line of the score log."""

    model_config = ConfigDict(extra="ignore")

    time: dt.datetime
    """When the item was scored (UTC)."""
    suite: str
    """Suite name."""
    suite_version: str
    """Content hash of the suite and its rubrics."""
    run: str | None = None
    """Training run name, when the caller gave one."""
    step: int | None = None
    """Training step, when the caller gave one."""
    group: str | None = None
    """GRPO group of the item."""
    result: ItemResult
    """The full result: reward, gate, utility, validity and every dimension."""
    item: Item | None = None
    """The scored item, kept so a candidate evaluator can re-score logged traffic (on disk without its history
    and evidence when `context` is set; `read_log` puts them back)."""
    context: str | None = None
    """Hash of the item's `ContextRecord` (history + evidence) in the same segment."""
    request: str | None = None
    """The client's `request_id` of the batch, when it sent one (a retry of it is not logged again)."""


class ContextRecord(BaseModel):
    """A line holding one history + evidence set, written once per segment and referred to by its hash."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["context"] = "context"
    hash: str
    """First 32 hex digits of the SHA-256 of the canonical JSON of `history` and `evidence`."""
    history: list[Turn] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)


CONTEXT_PREFIX = '{"kind":"context"'
_ITEM_WITHOUT_CONTEXT = {"history", "evidence"}


def context_line(item: Item) -> tuple[str, str]:
    """The hash and the JSON line of an item's history + evidence."""
    body = ContextRecord(hash="", history=item.history, evidence=item.evidence).model_dump_json(
        include={"history", "evidence"})
    digest = hashlib.sha256(body.encode()).hexdigest()[:32]
    return digest, f'{CONTEXT_PREFIX},"hash":"{digest}",{body[1:]}'


def segments(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    return sorted(folder.glob("scores-*.jsonl"))


def read_lines(path: Path, start: int = 0, length: int | None = None) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line) of the complete lines of a segment, or of a byte range of it.

    A last line without its newline is a write in progress or torn by a crash: it is not yielded.
    """
    with path.open("rb") as handle:
        handle.seek(start)
        lines = iter(handle) if length is None else iter(handle.read(length).splitlines(keepends=True))
        offset = start
        for number, line in enumerate(lines, start=1):
            if not line.endswith(b"\n"):
                log.info("%s: skipping an incomplete last line at byte %d (torn, or being written)", path, offset)
                return
            yield number, offset, line
            offset += len(line)


def parse_segment(path: Path, start: int = 0, length: int | None = None, *,
                  resolve: bool = True) -> Iterator[tuple[int, ScoreRecord]]:
    """(byte offset, record) of the records of a segment (or a byte range), bad lines skipped; with `resolve`, the
    items get their history and evidence back from the segment's context lines (read the whole segment then)."""
    contexts: dict[str, ContextRecord] = {}
    for number, offset, line in read_lines(path, start, length):
        if not line.strip():
            continue
        try:
            if line.startswith(CONTEXT_PREFIX.encode()):
                if not resolve:
                    continue
                context = ContextRecord.model_validate_json(line)
                contexts[context.hash] = context
                continue
            # Parsing and validating in one pass (pydantic-core) is ~3x faster than json.loads first.
            record = ScoreRecord.model_validate_json(line)
        except ValueError as exc:  # pydantic's ValidationError covers bad JSON too
            log.warning("%s:%d: skipping unreadable record (%s)", path, number, type(exc).__name__)
            continue
        if resolve and record.context is not None and record.item is not None:
            context = contexts.get(record.context)
            if context is None:
                log.warning("%s:%d: context %s not found in the segment", path, number, record.context)
            else:
                record.item = record.item.model_copy(update={"history": context.history, "evidence": context.evidence})
        yield offset, record


def read_log(folder: str | Path) -> Iterator[ScoreRecord]:
    """Every record of a log folder (or one segment file), segment by segment; torn lines are skipped."""
    for path in segments(folder):
        for _, record in parse_segment(path):
            yield record

"""The score log's records and readers: what a line of a segment is (`ScoreRecord`, `ContextRecord`) and how segments
are listed and read (`segments`, `read_lines`, `parse_segment`, `read_log`).

The writer (`reward.scorelog.log`) and the aggregate store (`reward.scorelog.store`) both read segments; the
readers live here, below both, so neither imports the other to read.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections.abc import Iterator, Sequence
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
    judge: str | None = None
    """The judge's identity (`Judge.identity`: backend, model or local runtime, sampling settings, seed), so a replay
    can tell whether it re-scores with the judge that scored the record (`reward replay`)."""
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
    batch_items: int | None = None
    """With `request`: how many items the acknowledged batch holds, so a rebuild of the store can tell a whole batch
    from a torn one (a record written by a retry that filled a torn batch carries the whole batch's size)."""
    digest: str | None = None
    """With `request`: `batch_digest` of the batch's content; a request id is reused only for the same content."""


class RequestConflict(ValueError):
    """A batch reuses a request id of its run for other content (other items, step or suite)."""

    def __init__(self, scope: str, request: str, earlier: str, now: str):
        self.scope, self.request, self.earlier, self.now = scope, request, earlier, now
        run = f"run {scope!r}" if scope else "requests without a run"
        super().__init__(f"request_id {request!r} of {run} was already used for a batch with content digest {earlier}; "
                         f"this batch's digest is {now}. A retry must resend the same batch; a new batch needs a new id")


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


def batch_digest(items: Sequence[Item], *, suite: str, step: int | None) -> str:
    """The content digest of a batch (suite, step and its items in order, as canonical JSON): a retry of a batch
    has the same digest; a batch that reuses a request id for other items has another.

    >>> batch_digest([Item(id="a", query="q", response="r")], suite="s", step=1)[:12]
    'e39e3c07a454'
    """
    digest = hashlib.sha256(json.dumps([suite, step], separators=(",", ":")).encode())
    for item in items:
        digest.update(b"\n")
        digest.update(item.model_dump_json(exclude_none=True).encode())
    return digest.hexdigest()[:32]


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

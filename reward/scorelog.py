"""The durable score log: an append-only record of every scored item, for dashboards, shadow runs and audits.

A log is a folder of JSONL segments. Each writer (one per server replica or CLI run) appends to its own segment,
so concurrent replicas never interleave lines; a batch is flushed and fsynced before the reply leaves the server,
so an item the trainer received a reward for is on disk. A batch is written as one unit: when the write fails
(a full disk), the segment is cut back to where the batch began and `ScoreLogUnavailable` says why, so a failed
request leaves no record of its items and the client's retry logs them once. Readers merge all segments and skip a
torn last line left by a killed writer; a restarted writer opens a new segment, so nothing glues onto it. A record
holds the item itself (for re-scoring in shadow runs), the suite and its rubric version hash, the run name and
training step, and every dimension's score and status.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from reward.schema import Item, ItemResult

log = logging.getLogger(__name__)

SEGMENT_BYTES = 256 * 1024 * 1024


class ScoreLogUnavailable(RuntimeError):
    """The score log cannot take a batch (disk full, read-only, I/O error); nothing of the batch was kept."""

    def __init__(self, cause: OSError):
        self.reason = cause.strerror or f"{type(cause).__name__}: {cause}"
        super().__init__(f"score log unavailable: {self.reason}")


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
    """The scored item, kept so a candidate evaluator can re-score logged traffic."""


class ScoreLog:
    """Appends records to this writer's own segment of a log folder."""

    def __init__(self, folder: str | Path, *, keep_items: bool = True, writer: str | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.keep_items = keep_items
        self.writer = writer or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._lock = threading.Lock()
        self._handle = None
        self._segment = 0

    def _open(self):
        if self._handle is None or self._handle.tell() > SEGMENT_BYTES:
            if self._handle is not None:
                self._handle.close()
            stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
            self._segment += 1
            path = self.folder / f"scores-{stamp}-{self.writer}-{self._segment:04d}.jsonl"
            # Unbuffered bytes: a failed write must not leave data in a Python buffer that a later flush would add.
            self._handle = path.open("ab", buffering=0)
        return self._handle

    def append(
        self,
        items: Sequence[Item],
        results: Sequence[ItemResult],
        *,
        suite: str,
        suite_version: str,
        run: str | None = None,
        step: int | None = None,
    ) -> None:
        """Append one batch and make it durable (fsync) before returning; all of it or, raising
        `ScoreLogUnavailable`, none of it."""
        now = dt.datetime.now(dt.UTC)
        lines = [
            ScoreRecord(
                time=now, suite=suite, suite_version=suite_version, run=run, step=step, group=item.group,
                result=result, item=item if self.keep_items else None,
            ).model_dump_json(exclude_none=True)
            for item, result in zip(items, results, strict=True)
        ]
        payload = ("\n".join(lines) + "\n").encode("utf-8")
        with self._lock:
            try:
                handle = self._open()
            except OSError as exc:
                raise ScoreLogUnavailable(exc) from exc
            self._write_batch(handle, payload)

    def _write_batch(self, handle, payload: bytes) -> None:
        """Write `payload` at the end of the segment and fsync it, or cut the segment back to where it was."""
        offset = handle.tell()
        try:
            view = memoryview(payload)
            while view:
                view = view[handle.write(view) :]
            os.fsync(handle.fileno())
        except OSError as exc:
            try:
                os.ftruncate(handle.fileno(), offset)
                handle.seek(offset)
                os.fsync(handle.fileno())
            except OSError:  # leave this segment (a reader skips its torn tail); the next batch opens a new one
                log.exception("score log: could not cut %s back to %d bytes", handle.name, offset)
                handle.close()
                self._handle = None
            raise ScoreLogUnavailable(exc) from exc

    def probe(self) -> str | None:
        """Why a small write to the log folder fails now (e.g. "No space left on device"), or None when it works."""
        path = self.folder / f".probe-{self.writer}"
        try:
            with path.open("wb", buffering=0) as handle:
                handle.write(b"\0" * 4096)
                os.fsync(handle.fileno())
        except OSError as exc:
            return exc.strerror or str(exc)
        finally:
            path.unlink(missing_ok=True)
        return None

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


def segments(folder: str | Path) -> list[Path]:
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    return sorted(folder.glob("scores-*.jsonl"))


def read_log(folder: str | Path) -> Iterator[ScoreRecord]:
    """Every record of a log folder (or one segment file), segment by segment; torn lines are skipped."""
    for path in segments(folder):
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    # Parsing and validating in one pass (pydantic-core) is ~3x faster than json.loads first,
                    # which matters when the dashboard reads a long run's log.
                    yield ScoreRecord.model_validate_json(line)
                except ValueError as exc:  # pydantic's ValidationError covers bad JSON too
                    log.warning("%s:%d: skipping unreadable record (%s)", path, number, type(exc).__name__)

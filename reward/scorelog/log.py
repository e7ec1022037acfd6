"""The durable score log: an append-only record of every scored item, for dashboards, shadow runs and audits.

A log is a folder of JSONL segments. Each writer (one per server replica or CLI run) appends to its own segment,
so concurrent replicas never interleave lines; a batch is flushed and fsynced before the reply leaves the server,
so an item the trainer received a reward for is on disk. A batch is written as one unit: when the write fails
(a full disk), the segment is cut back to where the batch began and `ScoreLogUnavailable` says why, so a failed
request leaves no record of its items and the client's retry logs them once. A record holds the item (for re-scoring in shadow runs),
the suite and its rubric version hash, the run name and training step, and every dimension's score and status.

The item's history and evidence (3-5k tokens, shared by the 16 rollouts of a GRPO group) are stored once per
segment as a content-addressed context line (`{"kind": "context", "hash": ..., "history": ..., "evidence": ...}`)
written before the first record that refers to it by `context`; readers resolve the reference, and records of
older logs with the evidence inline read as before. Every segment is self-contained, so retention
(`prune`) drops whole segments. A torn last line (a writer killed mid-write) is skipped on read, and a writer
that opens an existing segment first ends a torn line, so it never glues itself to the next record.

After each batch is on disk, the writer adds it to the folder's aggregate store (`reward.scorelog.store`), which
the dashboard reads; the log stays the source of truth and rebuilds the store (`reward log reindex`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import heapq
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from reward.schema import Item, ItemResult
from reward.scorelog.database import ClaimLost, StoreUnavailable
from reward.scorelog.segments import (_ITEM_WITHOUT_CONTEXT, CONTEXT_PREFIX, ContextRecord, RequestConflict,
                                      ScoreRecord, batch_digest, context_line, parse_segment, read_lines, read_log,
                                      segments)

__all__ = ["CONTEXT_PREFIX", "ContextRecord", "RequestConflict", "Retention", "ScoreLog", "ScoreLogUnavailable",
           "ScoreRecord", "batch_digest", "context_line", "parse_segment", "prune", "read_lines", "read_log", "segments"]

log = logging.getLogger(__name__)

SEGMENT_BYTES = 256 * 1024 * 1024
CLAIM_WAIT_S = 5.0
"""How long a writer waits for another writer's claimed batch to reach the log before writing it itself."""


class SmallestFirstLock:
    """A lock that, when several threads wait, goes to the one with the smallest batch (the earliest of equals): a
    1-item batch waits for the write in progress, not for every large batch queued before it.

    >>> lock = SmallestFirstLock()
    >>> with lock.for_size(3):
    ...     lock.held
    True
    """

    def __init__(self):
        self._condition = threading.Condition()
        self._waiting: list[tuple[int, int]] = []
        self._arrivals = 0
        self.held = False

    @contextlib.contextmanager
    def for_size(self, size: int):
        with self._condition:
            ticket = (size, self._arrivals)
            self._arrivals += 1
            heapq.heappush(self._waiting, ticket)
            while self.held or self._waiting[0] != ticket:
                self._condition.wait()
            heapq.heappop(self._waiting)
            self.held = True
        try:
            yield
        finally:
            with self._condition:
                self.held = False
                self._condition.notify_all()


class ScoreLogUnavailable(RuntimeError):
    """The score log cannot take a batch (disk full, read-only, I/O error, its shared store's database down);
    nothing of the batch was kept."""

    def __init__(self, cause: Exception):
        self.reason = (getattr(cause, "strerror", None) or getattr(cause, "reason", None)
                       or f"{type(cause).__name__}: {cause}")
        super().__init__(f"score log unavailable: {self.reason}")


class Retention(BaseModel):
    """How long the raw log is kept: segments past `max_age_days`, or the oldest beyond `max_bytes`, are deleted."""

    model_config = ConfigDict(extra="forbid")

    max_age_days: float | None = Field(default=None, gt=0)
    max_bytes: int | None = Field(default=None, gt=0)


class ScoreLog:
    """Appends records to this writer's own segment of a log folder."""

    def __init__(self, folder: str | Path, *, keep_items: bool = True, writer: str | None = None,
                 store: bool = True, retention: Retention | None = None, store_url: str | None = None,
                 small_items: int = 0, store_lock: SmallestFirstLock | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.keep_items = keep_items
        self.writer = writer or f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.retention = retention
        self.claim_wait_s = CLAIM_WAIT_S
        self.small_items = small_items
        """Batches of at most this many items go to a second writer of their own (its own segment and lock), so a
        small batch never waits for a large batch's write; request ids stay exactly-once (the store is shared)."""
        self._small: ScoreLog | None = None
        self._small_made = threading.Lock()
        self._small_options = {"keep_items": keep_items, "store": store, "retention": retention,
                               "store_url": store_url}
        self._lock = SmallestFirstLock()
        # Held for each store transaction and shared with the small batches' writer: SQLite's own lock is taken by
        # polling (sleeps up to 100 ms), so a 1-item batch lost it to large ones; here it waits for the one in progress.
        self._store_lock = store_lock or SmallestFirstLock()
        self._handle = None
        self._segment = 0
        self._contexts: set[str] = set()  # context hashes already in the current segment
        self._unreleased: list[tuple[str, str, str, int]] = []  # claims to release once the database is back
        self._unsettled: tuple[str, str | None, str, int, int] | None = None
        """(run, request, segment, claim offset, write offset) of a written batch whose store update failed."""
        self._store = None
        if store:
            from reward.scorelog.store import ScoreStore, write_store_url

            self._store = ScoreStore(self.folder, url=store_url)
            write_store_url(self.folder, store_url)
            if store_url is not None:
                self._settle_dead_segments()

    def _segment_path(self) -> Path:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
        return self.folder / f"scores-{stamp}-{self.writer}-{self._segment:04d}.jsonl"

    def _open(self):
        if self._handle is None or self._handle.tell() > SEGMENT_BYTES:
            if self._handle is not None:
                self._handle.close()
            self._segment += 1
            self._contexts = set()
            path = self._segment_path()
            # Unbuffered bytes: a failed write must not leave data in a Python buffer that a later flush would add.
            self._handle = path.open("ab", buffering=0)
            # Held while this writer has the segment open: a writer starting later settles only unlocked segments.
            with contextlib.suppress(OSError):  # this writer's name reopening its segment within the second
                fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            _end_torn_line(path, self._handle)
            if self.retention is not None:
                prune(self.folder, self.retention, keep=path, store=self._store)
        return self._handle

    def _encode(self, items: Sequence[Item], results: Sequence[ItemResult],
                **fields) -> list[tuple[str, str | None, str | None, str]]:
        """Per item, (item id, context hash, context line, record line): the costly part of a write, done before
        the log's lock, so a small batch waiting for the lock waits for a write, not for a large batch's JSON."""
        encoded = []
        for item, result in zip(items, results, strict=True):
            record = ScoreRecord(group=item.group, result=result, **fields)
            if not self.keep_items:
                encoded.append((item.id, None, None, record.model_dump_json(exclude_none=True)))
                continue
            digest, context = context_line(item)
            record.context = digest
            body = record.model_dump_json(exclude_none=True)
            encoded.append((item.id, digest, context, body[:-1] + ',"item":'
                            + item.model_dump_json(exclude=_ITEM_WITHOUT_CONTEXT, exclude_none=True) + "}"))
        return encoded

    def _lines(self, encoded: list[tuple[str, str | None, str | None, str]]) -> tuple[list[str], set[str]]:
        """The batch's lines, each context the segment lacks before its first record, and the hashes of the
        contexts it writes (in the segment once the write succeeded)."""
        lines, new = [], set()
        for _, digest, context, line in encoded:
            if digest is not None and digest not in self._contexts and digest not in new:
                new.add(digest)
                lines.append(context)
            lines.append(line)
        return lines, new

    def append(
        self,
        items: Sequence[Item],
        results: Sequence[ItemResult],
        *,
        suite: str,
        suite_version: str,
        run: str | None = None,
        step: int | None = None,
        request: str | None = None,
        digest: str | None = None,
        judge: str | None = None,
    ) -> bool:
        """Append one batch and make it durable (fsync) before returning, all of it or, raising
        `ScoreLogUnavailable`, none of it; then update the store.

        `request`: the client's id of the batch, scoped by `run`; `digest`: the batch's `batch_digest` (computed
        when not given); `judge`: the identity of the judge that scored it, recorded for replays. A batch whose id is already in the log with the same content (a retry: the reply was
        lost, or the server was killed after the write) is not written again, and False is returned; the same id
        with other content raises `RequestConflict`. A batch is complete when all the items of its acknowledged
        size are in the log: a retry of a batch torn by a killed writer writes exactly the missing items. The ids
        live in the store (claimed before the write, counted with the batch's aggregates) and in the records, with
        the batch's size and digest, so a claim left by a dead writer is settled by reading the log where it would
        be, and a rebuilt store (`reward log reindex`) keeps a torn batch partial.
        Without a store (`store=False`) ids are written but not checked."""
        if 0 < len(items) <= self.small_items:
            return self._small_lane().append(items, results, suite=suite, suite_version=suite_version, run=run,
                                             step=step, request=request, digest=digest, judge=judge)
        now = dt.datetime.now(dt.UTC)
        size = len(items)
        if request is not None and digest is None:
            digest = batch_digest(items, suite=suite, step=step)
        encoded = self._encode(items, results, time=now, suite=suite, suite_version=suite_version, run=run, step=step,
                               request=request, judge=judge,
                               **({} if request is None else {"batch_items": size, "digest": digest}))
        with self._lock.for_size(size):
            if self._unsettled is not None:
                self._settle_unacknowledged()
            try:
                handle = self._open()
            except OSError as exc:
                raise ScoreLogUnavailable(exc) from exc
            segment = Path(handle.name).name
            part = handle.tell()
            if request is not None and self._store is not None:
                try:
                    with self._store_lock.for_size(size):
                        self._release_pending()
                        logged = self._claim(run or "", request, digest, size, segment, part,
                                             {item.id for item in items})
                except StoreUnavailable as exc:
                    raise ScoreLogUnavailable(exc) from exc
                if logged is None:
                    return False
                if logged:  # a writer killed mid-batch left part of it: write the rest
                    kept = [(e, r) for e, r in zip(encoded, results, strict=True) if e[0] not in logged]
                    encoded, results = [e for e, _ in kept], [r for _, r in kept]
            lines, contexts = self._lines(encoded)
            payload = ("\n".join(lines) + "\n").encode("utf-8")
            try:
                offset = self._write_batch(handle, payload)
            except ScoreLogUnavailable:
                if request is not None and self._store is not None:
                    self._release(run or "", request, segment, part)
                raise
            if self._store is not None:
                try:
                    with self._store_lock.for_size(size):
                        self._index(lines, results, offset, segment=segment, suite=suite, run=run, step=step,
                                    time=now, request=request)
                except ClaimLost as exc:  # another writer logged the batch while this one waited: not twice
                    self._cut_back(handle, offset)
                    log.warning("score log: %s; this writer's copy was taken back out", exc)
                    return False
                except StoreUnavailable as exc:
                    # Not acknowledged (503; the client retries). The database may still have committed it (the
                    # connection broke during COMMIT), so the records stay until the next batch asks it.
                    self._unsettled = (run or "", request, segment, part, offset)
                    raise ScoreLogUnavailable(exc) from exc
            # Only now are the batch's contexts in the segment: after a failed (cut back) write, later records must
            # write their context again.
            self._contexts |= contexts
            return True

    def check_request(self, run: str | None, request: str, digest: str) -> bool | None:
        """Before scoring: whether batch id `request` of `run` is complete in the log (None: not seen); raises
        `RequestConflict` when the id was used for other content, `ScoreLogUnavailable` when the store's database
        is down. Without a store: None."""
        if self._store is None:
            return None
        with self._lock.for_size(0):
            try:
                return self._store.check_request(run or "", request, digest)
            except StoreUnavailable as exc:
                raise ScoreLogUnavailable(exc) from exc

    def _claim(self, scope: str, request: str, digest: str, size: int, segment: str, offset: int,
               ids: set[str]) -> set[str] | None:
        """Claim batch `request` of run `scope` for this writer. Returns the ids of its items already in the log
        (empty: none, write them all), or None when the whole batch is logged (a retry: write nothing)."""
        deadline = time.monotonic() + self.claim_wait_s
        while True:
            earlier = self._store.claim_request(scope, request, digest=digest, size=size, segment=segment,
                                                offset=offset, writer=self.writer)
            if earlier is None:
                return set()
            complete, parts = earlier
            if complete:
                log.info("score log: batch %r is already logged (a retry); not writing it again", request)
                return None
            found = {(seg, at): _batch_at(self.folder / seg, at, request, scope) for seg, at, _, _ in parts}
            done = {record.result.id for records in found.values() for _, _, record in records}
            # Claimed, not all in the log: another replica may be writing it right now. Wait a little; after that
            # its writer died (before or during the write) and this one writes what is missing.
            busy = any(not indexed and writer != self.writer for _, _, writer, indexed in parts)
            if not ids <= done and busy and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            for seg, at, _, indexed in parts:
                if indexed:
                    continue
                if found[seg, at]:  # on disk but not in the store: the writer died between the two
                    self._index_found(request, seg, at, found[seg, at])
                else:  # its writer died before writing anything
                    self._store.drop_part(scope, request, segment=seg, offset=at)
            if ids <= done:
                log.info("score log: batch %r is already logged (a retry); not writing it again", request)
                return None
            self._store.claim_part(scope, request, segment=segment, offset=offset, writer=self.writer, digest=digest,
                                   size=size)
            return done

    def _settle_dead_segments(self) -> None:
        """With a store shared by hosts: settle the unindexed tail of each segment in this folder whose writer is
        gone (no lock on it; the node restarted). A writer killed after writing a batch and before the database held
        it left records that were never acknowledged; no other host can read them, so the retry was logged
        elsewhere, or will be. A part whose claim still stands is indexed (the retry then finds it logged); from
        the first part whose claim was taken over (or a batch without an id) on, the tail is cut off and the
        claims of what is cut are released."""
        for path in segments(self.folder):
            try:
                handle = path.open("r+b")
            except OSError:
                continue
            with handle:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # a live writer's segment
                    continue
                try:
                    self._settle_tail(path, handle)
                except StoreUnavailable as exc:
                    log.warning("score log: %s not settled, the database is unavailable (%s)", path.name, exc.reason)

    def _settle_tail(self, path: Path, handle) -> None:
        end = self._store.indexed_end(path.name)
        if path.stat().st_size <= end:
            return
        parts: list[list] = []  # [start, (request, run, time, step), [(offset, length, record), ...]]
        start = end
        for _, position, line in read_lines(path, end):
            if line.startswith(CONTEXT_PREFIX.encode()):
                continue
            try:
                record = ScoreRecord.model_validate_json(line)
            except ValueError:
                break
            key = (record.request, record.run or "", record.time, record.step)
            if not parts or parts[-1][1] != key:
                parts.append([start, key, []])
            parts[-1][2].append((position, len(line), record))
            start = position + len(line)
        cut = None
        for number, (part, (request, scope, _, _), found) in enumerate(parts):
            first = found[0][2]
            if request is not None:
                try:
                    self._store.add_batch([r.result for _, _, r in found], suite=first.suite, run=first.run,
                                          step=first.step, time=first.time, segment=path.name, offset=found[0][0],
                                          length=found[-1][0] + found[-1][1] - found[0][0],
                                          lines=[o for o, _, _ in found], request=request, part=part)
                    log.info("score log: indexed batch %r left unindexed in %s by a writer that is gone", request,
                             path.name)
                    continue
                except ClaimLost:
                    pass
            cut = part
            for later, (request, scope, _, _), _ in parts[number:]:
                if request is not None:
                    self._store.drop_part(scope, request, segment=path.name, offset=later)
            break
        if cut is not None:
            log.warning("score log: cutting %s back to %d bytes: records a writer that is gone wrote and never got "
                        "into the store (logged by the retry elsewhere)", path.name, cut)
            os.ftruncate(handle.fileno(), cut)
            os.fsync(handle.fileno())

    def _index_found(self, request: str, segment: str, part: int, found: list) -> None:
        first = found[0][2]
        start, end = found[0][0], found[-1][0] + found[-1][1]
        try:
            self._store.add_batch([r.result for _, _, r in found], suite=first.suite, run=first.run, step=first.step,
                                  time=first.time, segment=segment, offset=start, length=end - start,
                                  lines=[o for o, _, _ in found], request=request, part=part)
        except Exception:
            log.exception("score store update failed; the log has the batch (rebuild with `reward log reindex`)")

    def _release(self, scope: str, request: str, segment: str, part: int) -> None:
        try:
            self._store.drop_part(scope, request, segment=segment, offset=part)
        except StoreUnavailable as exc:  # released at this writer's next batch; until then a retry waits for it
            log.warning("score store: the claim of batch %r is released when the database is back (%s)", request,
                        exc.reason)
            self._unreleased.append((scope, request, segment, part))
        except Exception:  # a stale claim is settled by reading the log on the retry
            log.exception("score store: could not release the claim of batch %r", request)

    def _settle_unacknowledged(self) -> None:
        """Settle the batch whose store update failed with the database unreachable: keep its records where the
        database holds it (it committed before the connection broke), else cut them back out (still the segment's
        tail: nothing is written while one is unsettled) and release its claim. Raises `ScoreLogUnavailable` while
        the database is still down."""
        scope, request, segment, part, offset = self._unsettled
        try:
            if not self._store.has_batch(segment, offset):
                if self._handle is not None and Path(self._handle.name).name == segment:
                    self._cut_back(self._handle, offset)
                else:
                    with (self.folder / segment).open("r+b") as tail:
                        os.ftruncate(tail.fileno(), offset)
                        os.fsync(tail.fileno())
                if request is not None:
                    self._store.drop_part(scope, request, segment=segment, offset=part)
        except StoreUnavailable as exc:
            raise ScoreLogUnavailable(exc) from exc
        self._unsettled = None

    def _release_pending(self) -> None:
        """Release the claims whose batches this writer took back out while the database was down."""
        while self._unreleased:
            scope, request, segment, part = self._unreleased[0]
            self._store.drop_part(scope, request, segment=segment, offset=part)
            self._unreleased.pop(0)

    def _index(self, lines: list[str], results: Sequence[ItemResult], offset: int, **batch) -> None:
        """Add a batch that is on disk to the store. A failure of an embedded store loses nothing (`reward log
        reindex`); a shared database that is down (`StoreUnavailable`) or a claim lost to another writer
        (`ClaimLost`) is raised: the batch's records are on this host's disk only, where no other host's retry can
        see them, so the batch is not acknowledged."""
        records, position = [], offset
        for line in lines:
            if not line.startswith(CONTEXT_PREFIX):
                records.append(position)
            position += len(line.encode()) + 1
        try:
            self._store.add_batch(results, offset=offset, length=position - offset, lines=records, **batch)
        except (StoreUnavailable, ClaimLost):
            raise
        except Exception as exc:
            if self._store.url is not None:  # a shared store: not rebuilt from this host's segments
                raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
            log.exception("score store update failed; the log has the batch (rebuild with `reward log reindex`)")

    def _cut_back(self, handle, offset: int) -> None:
        """Cut the segment back to `offset` (a batch that is not kept); a segment that cannot be cut is left (a
        reader skips its torn tail) and the next batch opens a new one."""
        try:
            os.ftruncate(handle.fileno(), offset)
            handle.seek(offset)
            os.fsync(handle.fileno())
        except OSError:
            log.exception("score log: could not cut %s back to %d bytes", handle.name, offset)
            handle.close()
            self._handle = None

    def _write_batch(self, handle, payload: bytes) -> int:
        """Write `payload` at the end of the segment and fsync it, or cut the segment back to where it was.
        Returns the offset the batch starts at."""
        offset = handle.tell()
        try:
            view = memoryview(payload)
            while view:
                view = view[handle.write(view) :]
            os.fsync(handle.fileno())
        except OSError as exc:
            self._cut_back(handle, offset)
            raise ScoreLogUnavailable(exc) from exc
        return offset

    def probe(self) -> str | None:
        """Why a small write to the log folder, or to its shared store's database, fails now (e.g. "No space left
        on device"), or None when both work."""
        path = self.folder / f".probe-{self.writer}"
        try:
            with path.open("wb", buffering=0) as handle:
                handle.write(b"\0" * 4096)
                os.fsync(handle.fileno())
        except OSError as exc:
            return exc.strerror or str(exc)
        finally:
            path.unlink(missing_ok=True)
        if self._store is not None and self._store.url is not None:
            try:
                self._store.ping()
            except StoreUnavailable as exc:
                return exc.reason
        return None

    def _small_lane(self) -> ScoreLog:
        if self._small is not None:
            return self._small
        with self._small_made:  # made once, on the first small batch (not under the large batches' lock)
            if self._small is None:
                self._small = ScoreLog(self.folder, writer=f"{self.writer}-small", store_lock=self._store_lock,
                                       **self._small_options)
                self._small.claim_wait_s = self.claim_wait_s
            return self._small

    def close(self) -> None:
        if self._small is not None:
            self._small.close()
        with self._lock.for_size(0):
            if self._handle is not None:
                self._handle.close()
                self._handle = None
            if self._store is not None:
                self._store.close()


def _batch_at(path: Path, offset: int, request: str, scope: str) -> list[tuple[int, int, ScoreRecord]]:
    """(offset, length, record) of the complete records of batch `request` written from `offset` of segment `path`
    on (past the context lines written with it): all of the batch, part of it (a writer killed mid-write), or none."""
    found: list[tuple[int, int, ScoreRecord]] = []
    if not path.exists():  # another host's segment (a store shared by hosts): not readable from here
        return found
    try:
        if path.stat().st_size <= offset:
            return found
        for _, position, line in read_lines(path, offset):
            if line.startswith(CONTEXT_PREFIX.encode()):
                continue
            try:
                record = ScoreRecord.model_validate_json(line)
            except ValueError:
                break
            if record.request != request or (record.run or "") != scope:
                break
            found.append((position, len(line), record))
    except OSError:
        log.exception("score log: could not read %s to settle a claimed batch", path)
    return found


def _end_torn_line(path: Path, handle) -> None:
    """A segment left by a killed writer may end mid-line: end that line so the next record starts on its own."""
    size = path.stat().st_size
    if size:
        with path.open("rb") as existing:
            existing.seek(size - 1)
            if existing.read(1) != b"\n":
                handle.write(b"\n")


_SEGMENT_NAME = re.compile(r"scores-(?P<stamp>\d{8}T\d{6})-(?P<writer>.+)-(?P<number>\d{4})\.jsonl$")


def prune(folder: str | Path, retention: Retention, *, keep: Path | None = None, store=None) -> list[Path]:
    """Delete segments older than `retention.max_age_days` (by last write) and the oldest beyond `max_bytes`.

    The newest segment of every writer is kept (another replica may still be appending to it), and so is `keep`.
    The store forgets its index into the deleted segments (their steps' aggregates stay charted, their drill-down
    samples are gone). Returns the deleted paths.
    """
    paths = segments(folder)
    newest: dict[str, Path] = {}
    for path in paths:  # names sort by opening time
        match = _SEGMENT_NAME.search(path.name)
        newest[match["writer"] if match else path.name] = path
    protected = set(newest.values()) | ({keep} if keep else set())
    now = time.time()
    stats = {path: path.stat() for path in paths}
    doomed = []
    if retention.max_age_days is not None:
        limit = now - retention.max_age_days * 86400
        doomed += [p for p in paths if p not in protected and stats[p].st_mtime < limit]
    if retention.max_bytes is not None:
        total = sum(stats[p].st_size for p in paths if p not in doomed)
        for path in paths:
            if total <= retention.max_bytes:
                break
            if path not in protected and path not in doomed:
                doomed.append(path)
                total -= stats[path].st_size
    for path in doomed:
        path.unlink(missing_ok=True)
        log.info("score log retention: deleted %s", path)
    if doomed:
        if store is None:
            from reward.scorelog.store import ScoreStore, store_url_of

            store = ScoreStore(folder, url=store_url_of(folder))
            store.forget_segments([p.name for p in doomed])
            store.close()
        else:
            store.forget_segments([p.name for p in doomed])
    return doomed

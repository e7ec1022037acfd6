"""Per-step aggregates of a score log in an embedded SQLite database, kept up to date as batches are logged.

The store lives beside the segments (`<log folder>/scores.sqlite`). Every writer (one per server replica or CLI
run) opens its own connection and adds each batch in one short `BEGIN IMMEDIATE` transaction right after the batch
is on disk; there is no central process. WAL mode lets the dashboard, `sqlite3` or pandas read while a run is live.
SQLite was picked over DuckDB because it is in the standard library, because several processes may write the same
file (DuckDB allows one writing process per database), and because each batch is a small upsert, not a scan.

Per (run, step) the store holds the item count, valid count and first/last wall-clock time (`steps`); per channel
(every dimension, plus `reward`, `gate`, `utility`) the count, sum, sum of squares, number of scores seen (scored or
not), whether every score was 0 or 1 and the p10/p50/p90 (`channels`), from a fixed-width histogram sketch
(`SKETCH_BINS` bins per unit, JSON `{bin: count}`, mergeable by adding counts, so quantiles are accurate to one
bin) kept with the step's drill-down candidates (the lowest-scoring few and a uniform few, as segment and byte
offset of their lines) in `sketches`; the unscored counts by dimension and reason (`unscored`); and where each
batch sits in the raw log (`batches`: segment, byte offset, length). For the dimensions a judge cascade routed
(`DimensionScore.tier` set), `cascade` counts the scores routed, those the cheap tier decided, those in fallback,
and the audits with their pass/fail agreement (cheap and LLM score on the same side of `PASS_AT`, the cascade's
rule) and the pass counts of each tier, so accuracy and Cohen's kappa per step follow exactly. They count logged
scores: a judge call that several items share (the engine's dedupe, its cache) counts once per item, where the
server's Prometheus counters count calls. A click on the
dashboard reads only the candidates' lines. Records without a step are charted as run "<run> (no step)" in buckets
of `UNSTEPPED_BUCKET` records in arrival order.

The raw log stays the source of truth: if a writer dies between the log write and the store update, or the store
is deleted, `reward log reindex` (`rebuild`) recreates it from the segments. Client batch ids (`request_id`) are kept
per run (`batch_ids`: content digest, acknowledged size, records logged, complete) with where each part of a batch
was written (`batch_parts`); a batch is complete only when all the items of its acknowledged size are logged, and
the records carry size and digest, so a rebuild keeps a batch torn by a killed writer partial and its retry writes
exactly the missing records. `meta.schema` is the layout's version: a writer opening an older store adds the new
tables and moves it to version 3 in place (version-2 request ids take the run of their first record, with no
digest or size: they replay as before). Readers of a version-1 store see no cascade data.

    sqlite3 var/scores/scores.sqlite "select step, total / count as mean, p10, p90 from channels
                                      where run = 'gated' and channel = 'claim_hallucination' order by step"
"""

from __future__ import annotations

import datetime as dt
import hashlib
import heapq
import json
import logging
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from reward.evaluation.agreement import PASS_AT, pass_fail_kappa
from reward.schema import UNSTEPPED_SUFFIX, ItemResult
from reward.scorelog.database import (ClaimLost, PostgresDatabase, SQLiteDatabase, is_postgres, redact,
                                      without_password)
from reward.scorelog.segments import RequestConflict, parse_segment, read_lines, segments

log = logging.getLogger(__name__)

STORE_NAME = "scores.sqlite"
SCHEMA_VERSION = "3"
"""1: steps, channels, sketches, unscored, batches. 2: + cascade, requests. 3: requests -> batch_ids (scoped by run,
with the batch's content digest and size) and batch_parts (where each part of a batch was written)."""
SKETCH_BINS = 200
"""Histogram bins per unit of score: quantiles are accurate to 1/200 = 0.005."""
UNSTEPPED_BUCKET = 64
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
"""Wall-clock time of a step (UTC, its last scored item) as the dashboard shows it beside the step."""
CURVES = ("reward", "gate", "utility")
CURVE_LAYER = "overall"
REWARD = "reward"
SAMPLE_LOWEST = 3
"""Drill-down candidates kept per (run, step, channel): the lowest-scoring few (unscored first) ..."""
SAMPLE_RANDOM = 2
"""... and a few more drawn uniformly: the items with the smallest hash keys (bottom-k sampling, which merges exactly
across batches and writers and is the same on every rebuild)."""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run TEXT PRIMARY KEY, unstepped INTEGER NOT NULL, arrivals INTEGER NOT NULL, suites TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (
    run TEXT NOT NULL, step INTEGER NOT NULL, items INTEGER NOT NULL, valid INTEGER NOT NULL,
    first_time REAL NOT NULL, last_time REAL NOT NULL, PRIMARY KEY (run, step)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS channels (
    run TEXT NOT NULL, step INTEGER NOT NULL, channel TEXT NOT NULL, layer TEXT NOT NULL,
    count INTEGER NOT NULL, total REAL NOT NULL, total_sq REAL NOT NULL, seen INTEGER NOT NULL,
    "binary" INTEGER NOT NULL, p10 REAL, p50 REAL, p90 REAL, PRIMARY KEY (run, step, channel)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sketches (
    run TEXT NOT NULL, step INTEGER NOT NULL, channel TEXT NOT NULL, sketch TEXT NOT NULL, samples TEXT,
    PRIMARY KEY (run, step, channel)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unscored (
    run TEXT NOT NULL, step INTEGER NOT NULL, channel TEXT NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (run, step, channel, reason)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batches (
    run TEXT NOT NULL, step INTEGER NOT NULL, segment TEXT NOT NULL, "offset" INTEGER NOT NULL, length INTEGER NOT NULL,
    items INTEGER NOT NULL, skip INTEGER NOT NULL, PRIMARY KEY (segment, "offset", step));
CREATE INDEX IF NOT EXISTS batches_by_step ON batches (run, step);
CREATE TABLE IF NOT EXISTS batch_ids (
    scope TEXT NOT NULL, request TEXT NOT NULL, digest TEXT, size INTEGER, records INTEGER NOT NULL,
    complete INTEGER NOT NULL, time REAL NOT NULL, PRIMARY KEY (scope, request)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batch_parts (
    scope TEXT NOT NULL, request TEXT NOT NULL, segment TEXT NOT NULL, "offset" INTEGER NOT NULL, writer TEXT NOT NULL,
    indexed INTEGER NOT NULL, PRIMARY KEY (scope, request, segment, "offset")) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cascade (
    run TEXT NOT NULL, step INTEGER NOT NULL, channel TEXT NOT NULL, routed INTEGER NOT NULL, cheap INTEGER NOT NULL,
    fallback INTEGER NOT NULL, audits INTEGER NOT NULL, agree INTEGER NOT NULL, cheap_pass INTEGER NOT NULL,
    llm_pass INTEGER NOT NULL, PRIMARY KEY (run, step, channel)) WITHOUT ROWID;
"""
CASCADE_COUNTS = ("routed", "cheap", "fallback", "audits", "agree", "cheap_pass", "llm_pass")
"""Per (run, step, dimension) of cascade-routed scores: routed, decided by the cheap tier, routed in fallback, audited,
audits where both tiers agree on pass/fail, audits the cheap tier passed, audits the LLM passed."""


def _candidates(entries: list) -> dict:
    """Keep the lowest `SAMPLE_LOWEST` entries by (rank, place in the log) and the `SAMPLE_LOWEST + SAMPLE_RANDOM`
    smallest keys (so that `SAMPLE_RANDOM` remain after removing the lowest). Entries: [rank, key, segment, line]."""
    unique = {(e[2], e[3]): e for e in entries}.values()
    lowest = heapq.nsmallest(SAMPLE_LOWEST, unique, key=lambda e: (e[0], e[2], e[3]))
    random_ = heapq.nsmallest(SAMPLE_LOWEST + SAMPLE_RANDOM, unique, key=lambda e: (e[1], e[2], e[3]))
    return {"lowest": [list(e) for e in lowest], "random": [list(e) for e in random_]}


def store_path(folder: str | Path) -> Path:
    return Path(folder) / STORE_NAME


STORE_URL_NAME = "store-url"
"""A log folder whose aggregates live in a PostgreSQL database names it in this file (the URL without its password:
a reader takes the password from `PGPASSWORD` or a password file, as libpq does), so the dashboard and `reward log`
opened on any node's folder read the whole cluster's aggregates."""


def write_store_url(folder: str | Path, url: str | None) -> None:
    """Record where the folder's aggregates live (a PostgreSQL URL), or that they are the SQLite file beside it."""
    path = Path(folder) / STORE_URL_NAME
    if is_postgres(url):
        text = without_password(url) + "\n"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            tmp = path.with_name(f".{STORE_URL_NAME}.{os.getpid()}")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
    else:
        path.unlink(missing_ok=True)


def store_url_of(folder: str | Path) -> str | None:
    """The PostgreSQL URL a folder's writers recorded, or None (the SQLite store beside its segments).
    `REWARD_SCORE_STORE` overrides it (a reader on a host whose folder no writer used)."""
    override = os.environ.get("REWARD_SCORE_STORE")
    if override:
        return override
    path = Path(folder) / STORE_URL_NAME
    if not path.is_file():
        return None
    url = path.read_text(encoding="utf-8").strip()
    return url if is_postgres(url) else None


def sketch_quantiles(sketch: dict[int, int], quantiles: Sequence[float]) -> list[float | None]:
    """Quantiles of a histogram sketch (linear within a bin).

    >>> sketch_quantiles({0: 2, 199: 2}, [0.25, 0.5, 0.75])
    [0.0025, 0.005, 0.9975]
    """
    total = sum(sketch.values())
    if not total:
        return [None] * len(quantiles)
    bins = sorted(sketch)
    counts = np.array([sketch[b] for b in bins], dtype=np.float64)
    cumulative = np.cumsum(counts)
    out = []
    for q in quantiles:
        rank = q * total
        k = int(np.searchsorted(cumulative, rank, side="left"))
        k = min(k, len(bins) - 1)
        before = cumulative[k] - counts[k]
        within = (rank - before) / counts[k]
        out.append(round(float(bins[k] + min(1.0, max(0.0, within))) / SKETCH_BINS, 4))
    return out


def cascade_counts(results: Iterable[ItemResult]) -> dict[str, list[int]]:
    """Per dimension a judge cascade routed, the `CASCADE_COUNTS` of these results (dimensions without a `tier`
    are left out)."""
    counts: dict[str, list[int]] = {}
    for result in results:
        for name, score in result.dimensions.items():
            if score.tier is None:
                continue
            row = counts.setdefault(name, [0] * len(CASCADE_COUNTS))
            row[0] += 1
            if score.tier == "fallback":
                row[2] += 1
            elif score.tier == "cheap":
                row[1] += 1
                if score.audit is not None and score.score is not None:
                    cheap_pass, llm_pass = score.score >= PASS_AT, score.audit >= PASS_AT
                    row[3] += 1
                    row[4] += cheap_pass == llm_pass
                    row[5] += cheap_pass
                    row[6] += llm_pass
    return counts


def cascade_series(per_step: Sequence[dict[str, Sequence[int]]]) -> dict[str, dict[str, list]]:
    """The dashboard's cascade series of a run from its steps' `CASCADE_COUNTS` by dimension (in step order): per
    dimension the counts, `cheap_share` (decided by the cheap tier / routed), `agreement` (audit accuracy) and
    `kappa`, None where a step has nothing to divide by.

    >>> cascade_series([{"useful": [4, 3, 0, 2, 1, 2, 1]}, {}])["useful"]["agreement"]
    [0.5, None]
    """
    names = sorted({name for counts in per_step for name in counts})
    out: dict[str, dict[str, list]] = {}
    for name in names:
        rows = [list(counts.get(name, [0] * len(CASCADE_COUNTS))) for counts in per_step]
        series: dict[str, list] = {key: [row[k] for row in rows] for k, key in enumerate(CASCADE_COUNTS)}
        series["cheap_share"] = [round(row[1] / row[0], 4) if row[0] else None for row in rows]
        series["agreement"] = [round(row[4] / row[3], 4) if row[3] else None for row in rows]
        kappas = [pass_fail_kappa(row[3], row[4], row[5], row[6]) for row in rows]
        series["kappa"] = [None if k is None else round(k, 4) for k in kappas]
        out[name] = series
    return out


def sample_key(item_id: str) -> int:
    """The uniform random-looking key of an item for bottom-k sampling (a hash of its id: reproducible)."""
    return int.from_bytes(hashlib.blake2b(item_id.encode(), digest_size=6).digest(), "big")


class _Channel:
    """A batch's values of one channel, before they are merged into the stored row."""

    __slots__ = ("layer", "values", "seen", "ranked")

    def __init__(self, layer: str):
        self.layer = layer
        self.values: list[float] = []
        self.seen = 0
        self.ranked: list[tuple[float, int, int]] = []  # (rank, key, line offset) of every item, for samples


def _channels(results: Sequence[ItemResult], lines: Sequence[int] | None = None
              ) -> tuple[dict[str, _Channel], dict[tuple[str, str], int]]:
    channels: dict[str, _Channel] = {}
    unscored: Counter = Counter()
    for key in CURVES:
        channels[key] = _Channel(CURVE_LAYER)
    for position, result in enumerate(results):
        for key in CURVES:
            value = getattr(result, key)
            if value is not None:
                channels[key].values.append(value)
        item_key = sample_key(result.id) if lines is not None else 0
        if lines is not None:
            channels[REWARD].ranked.append((result.reward, item_key, lines[position]))
        for name, score in result.dimensions.items():
            channel = channels.get(name)
            if channel is None:
                channel = channels[name] = _Channel(score.layer)
            channel.seen += 1
            if score.score is None:
                unscored[name, score.reason or "unknown"] += 1
            else:
                channel.values.append(score.score)
            if lines is not None:
                channel.ranked.append((-1.0 if score.score is None else score.score, item_key, lines[position]))
    for key in CURVES:
        channels[key].seen = len(channels[key].values)
        if not channels[key].values:
            del channels[key]
    return channels, unscored


class ScoreStore:
    """One connection to a log folder's store: a writer's (`add_batch`) or a reader's (`steps`, `channels`, ...)."""

    def __init__(self, folder: str | Path, *, readonly: bool = False, url: str | None = None):
        """`url`: a PostgreSQL database (`postgresql://user@host/db`, the password from `PGPASSWORD` or a password
        file) shared by every writer; None (the default): the SQLite file beside the segments."""
        self.folder = Path(folder)
        self.url = url
        if is_postgres(url):
            self.db = PostgresDatabase(url, readonly=readonly)
            self.path = self.db.path
            if not readonly:
                self._create()
            return
        if url is not None and not url.startswith("sqlite:"):
            raise ValueError(f"score store URL {redact(url)!r}: expected postgresql://... (or none: SQLite beside "
                             "the segments)")
        self.path = store_path(folder)
        if not readonly:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.db = SQLiteDatabase(self.path, readonly=readonly)
        if not readonly:
            self._create()
            self._migrate()

    def _create(self) -> None:
        self.db.create(_SCHEMA)
        self.db.execute("INSERT INTO meta VALUES ('schema', ?), ('sketch_bins', ?) ON CONFLICT (key) DO NOTHING",
                        (SCHEMA_VERSION, str(SKETCH_BINS)))

    def _migrate(self) -> None:
        """Bring an older store to `SCHEMA_VERSION` in place (the new tables exist already: `_SCHEMA` creates them)."""
        version = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        if version in ("1", "2"):
            # Version 2 added `cascade`; records logged before it carry no cascade tier, so it starts empty and exact.
            # Version 3 scopes request ids by run: the version-2 claims move over with the run of their first record.
            with self.transaction():
                self._migrate_requests()
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
            log.info("%s: store layout %s -> %s", self.path, version, SCHEMA_VERSION)
        elif version != SCHEMA_VERSION:
            log.warning("%s: store layout %s is newer than this code's %s", self.path, version, SCHEMA_VERSION)

    def close(self) -> None:
        self.db.close()

    def ping(self) -> None:
        """A round trip to the database (raises `StoreUnavailable` when a shared one is down)."""
        self.db.execute("SELECT 1").fetchone()

    def __enter__(self) -> ScoreStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------------------------

    def _migrate_requests(self) -> None:
        if not self.db.has_table("requests"):
            return
        for request, segment, offset, logged, writer, stamp in self.db.execute(
                "SELECT request, segment, offset, logged, writer, time FROM requests").fetchall():
            scope = _run_at(self.folder / segment, offset, request)
            self.db.execute("INSERT INTO batch_ids VALUES (?, ?, NULL, NULL, 0, ?, ?) ON CONFLICT DO NOTHING",
                            (scope, request, int(logged), stamp))
            self.db.execute("INSERT INTO batch_parts VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                            (scope, request, segment, offset, writer, int(logged)))
        self.db.execute("DROP TABLE requests")

    def claim_request(self, scope: str, request: str, *, digest: str, size: int, segment: str, offset: int,
                      writer: str) -> tuple[bool, list[tuple[str, int, str, bool]]] | None:
        """Claim a client's batch id (within its run, `scope`) for a batch of `size` items about to be written at
        `offset` of `segment`. Returns None when the id is new (the claim is ours), else whether the earlier batch
        is complete and where its parts were written: (segment, offset, writer, indexed). Raises
        `RequestConflict` when the id was used in this run for other content."""
        with self.transaction():
            row = self.db.execute("SELECT digest, complete FROM batch_ids WHERE scope = ? AND request = ?",
                                  (scope, request)).fetchone()
            if row is None:
                self.db.execute("INSERT INTO batch_ids VALUES (?, ?, ?, ?, 0, 0, ?)",
                                (scope, request, digest, size, dt.datetime.now(dt.UTC).timestamp()))
                self.add_part(scope, request, segment=segment, offset=offset, writer=writer)
                return None
            if row[0] is not None and row[0] != digest:
                raise RequestConflict(scope, request, row[0], digest)
            parts = self.db.execute('SELECT segment, "offset", writer, indexed FROM batch_parts WHERE scope = ? AND '
                                    'request = ? ORDER BY segment, "offset"', (scope, request)).fetchall()
        return bool(row[1]), [(seg, off, who, bool(indexed)) for seg, off, who, indexed in parts]

    def check_request(self, scope: str, request: str, digest: str) -> bool | None:
        """Whether batch id `request` of run `scope` is complete in the log (None: unknown id); raises
        `RequestConflict` when it was used for other content."""
        row = self.db.execute("SELECT digest, complete FROM batch_ids WHERE scope = ? AND request = ?",
                              (scope, request)).fetchone()
        if row is None:
            return None
        if row[0] is not None and row[0] != digest:
            raise RequestConflict(scope, request, row[0], digest)
        return bool(row[1])

    def add_part(self, scope: str, request: str, *, segment: str, offset: int, writer: str) -> None:
        """Record that this writer is about to write (part of) a claimed batch at `offset` of `segment`."""
        self.db.execute('INSERT INTO batch_parts VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (scope, request, segment, '
                        '"offset") DO UPDATE SET writer = excluded.writer, indexed = 0',
                        (scope, request, segment, offset, writer))

    def claim_part(self, scope: str, request: str, *, segment: str, offset: int, writer: str,
                   digest: str | None = None, size: int | None = None) -> None:
        """Claim (the rest of) a batch whose earlier parts were settled; its id is claimed again with its digest and
        size where settling dropped it (its only part never reached the log)."""
        with self.transaction():
            self.db.execute("INSERT INTO batch_ids VALUES (?, ?, ?, ?, 0, 0, ?) ON CONFLICT DO NOTHING",
                            (scope, request, digest, size, dt.datetime.now(dt.UTC).timestamp()))
            self.add_part(scope, request, segment=segment, offset=offset, writer=writer)

    def drop_part(self, scope: str, request: str, *, segment: str, offset: int) -> None:
        """Forget a part that never reached the log (its write failed, or its writer died before writing)."""
        with self.transaction():
            self.db.execute('DELETE FROM batch_parts WHERE scope = ? AND request = ? AND segment = ? AND "offset" = ? '
                            'AND indexed = 0', (scope, request, segment, offset))
            self.db.execute("DELETE FROM batch_ids WHERE scope = ? AND request = ? AND records = 0 AND NOT EXISTS "
                            "(SELECT 1 FROM batch_parts WHERE scope = ? AND request = ?)", (scope, request, scope, request))

    def _mark_part(self, scope: str, request: str, segment: str, offset: int, records: int) -> None:
        """A part of the batch is in the aggregates (inside the caller's transaction): count its records; the
        batch is complete once they reach its acknowledged size (a batch of unknown size: once any is logged).
        Raises `ClaimLost` when the batch is complete already, or its claim on this part was dropped: a writer
        that took too long was taken for dead and another wrote the batch (the caller undoes its write)."""
        claim = self.db.execute("SELECT size, complete FROM batch_ids WHERE scope = ? AND request = ?",
                                (scope, request)).fetchone()
        if claim is not None and claim[0] is not None:
            part = self.db.execute('SELECT indexed FROM batch_parts WHERE scope = ? AND request = ? AND segment = ? '
                                   'AND "offset" = ?', (scope, request, segment, offset)).fetchone()
            if claim[1] or part is None or part[0]:
                raise ClaimLost(scope, request)
        self.db.execute("INSERT INTO batch_ids VALUES (?, ?, NULL, NULL, 0, 0, ?) ON CONFLICT DO NOTHING",
                        (scope, request, dt.datetime.now(dt.UTC).timestamp()))
        self.db.execute("INSERT INTO batch_parts VALUES (?, ?, ?, ?, '', 1) ON CONFLICT (scope, request, segment, "
                        '"offset") DO UPDATE SET indexed = 1', (scope, request, segment, offset))
        self.db.execute("UPDATE batch_ids SET records = records + ?, complete = CASE WHEN size IS NULL OR records + ? "
                        ">= size THEN 1 ELSE 0 END WHERE scope = ? AND request = ?", (records, records, scope, request))

    def add_batch(self, results: Sequence[ItemResult], *, suite: str, run: str | None, step: int | None,
                  time: dt.datetime, segment: str, offset: int, length: int,
                  lines: Sequence[int] | None = None, request: str | None = None, part: int | None = None) -> None:
        """Merge one logged batch (all of one run and step, as a request is) into the aggregates.

        The batch sits at `offset` (`length` bytes) of `segment`; `lines` are the byte offsets of its records,
        which the drill-down candidates point to (None: keep no candidates). `request`: the client's batch id;
        the part of it claimed at `part` (default `offset`) of `segment` is counted in the same transaction.
        """
        if not results:
            return
        name = run or suite
        stamp = time.timestamp()
        # A stepped batch is one part whatever the store holds: its aggregates are computed before the transaction,
        # which then holds the store's write lock (every writer's, every node's with PostgreSQL) only for the SQL.
        # An unstepped batch's parts depend on the run's arrivals, read inside it.
        ready = None if step is None else self._merge_parts(results, segment, lines)
        with self.transaction():
            if request is not None:
                self._mark_part(run or "", request, segment, offset if part is None else part, len(results))
            if step is None:
                name += UNSTEPPED_SUFFIX
                row = self.db.execute("SELECT arrivals FROM runs WHERE run = ?", (name,)).fetchone()
                arrivals = row[0] if row else 0
                parts = []
                position = 0
                while position < len(results):
                    bucket = (arrivals + position) // UNSTEPPED_BUCKET
                    size = min(len(results) - position, (bucket + 1) * UNSTEPPED_BUCKET - arrivals - position)
                    parts.append((bucket, results[position:position + size], position))
                    position += size
            else:
                parts = [(step, results, 0)]
            self._touch_run(name, step is None, suite, len(results))
            for bucket, part, skip in parts:
                self.merge_step(name, bucket, time=stamp, **(ready if ready is not None else self._merge_parts(
                    part, segment, None if lines is None else lines[skip:skip + len(part)])))
                self.index_batch(name, bucket, segment=segment, offset=offset, length=length, items=len(part),
                                 skip=skip)

    def transaction(self):
        """One write transaction at a time across every writer of the store (`Database.transaction`)."""
        return self.db.transaction()

    def index_batch(self, run: str, step: int, *, segment: str, offset: int, length: int, items: int,
                    skip: int = 0) -> None:
        """Record where a batch of the step sits in the raw log (inside the caller's transaction)."""
        self.db.execute('INSERT INTO batches VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (segment, "offset", step) DO UPDATE'
                        " SET run = excluded.run, length = excluded.length, items = excluded.items, skip = excluded.skip",
                        (run, step, segment, offset, length, items, skip))

    def touch_run(self, name: str, *, unstepped: bool, suite: str, items: int) -> None:
        """Register a run's suite and count its arrivals (inside the caller's transaction)."""
        self._touch_run(name, unstepped, suite, items)

    def _touch_run(self, name: str, unstepped: bool, suite: str, items: int) -> None:
        row = self.db.execute("SELECT suites FROM runs WHERE run = ?", (name,)).fetchone()
        suites = sorted(set(json.loads(row[0]) if row else []) | {suite})
        self.db.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?) ON CONFLICT (run) DO UPDATE SET arrivals = runs.arrivals + excluded.arrivals,"
            " suites = excluded.suites", (name, int(unstepped), items, json.dumps(suites)))

    @staticmethod
    def _merge_parts(results: Sequence[ItemResult], segment: str, lines: Sequence[int] | None) -> dict:
        """`merge_step`'s arguments for these results (a step's, or an unstepped bucket's), but its run, step and
        time: computed from the results alone, so outside the transaction where the step is known."""
        channels, unscored = _channels(results, lines)
        samples = {n: _candidates([(rank, key, segment, line) for rank, key, line in c.ranked])
                   for n, c in channels.items() if c.ranked}
        return {"items": len(results), "valid": sum(bool(r.valid) for r in results), "unscored": unscored,
                "channels": {n: (c.layer, np.asarray(c.values, dtype=np.float64), c.seen) for n, c in channels.items()},
                "samples": samples, "cascade": cascade_counts(results)}

    def merge_step(self, run: str, step: int, *, items: int, valid: int, time: float,
                   channels: dict[str, tuple[str, np.ndarray, int]], unscored: dict[tuple[str, str], int],
                   samples: dict[str, dict] | None = None, cascade: dict[str, Sequence[int]] | None = None) -> None:
        """Merge one step's numbers into the aggregates (inside the caller's transaction): `channels` maps a
        channel to (layer, scored values, scores seen), `unscored` (dimension, reason) to a count, `samples` a
        channel to its drill-down candidates (`{"lowest": [[rank, key, segment, line offset], ...], "random": ...}`),
        `cascade` a dimension to its `CASCADE_COUNTS`.
        """
        samples = samples or {}
        if cascade:
            self.db.executemany(
                "INSERT INTO cascade VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run, step, channel) DO UPDATE SET"
                + ",".join(f" {c} = cascade.{c} + excluded.{c}" for c in CASCADE_COUNTS),
                [(run, step, name, *counts) for name, counts in sorted(cascade.items())])
        self.db.execute(
            "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run, step) DO UPDATE SET"
            " items = steps.items + excluded.items, valid = steps.valid + excluded.valid,"
            " first_time = CASE WHEN excluded.first_time < steps.first_time THEN excluded.first_time ELSE"
            " steps.first_time END, last_time = CASE WHEN excluded.last_time > steps.last_time THEN excluded.last_time"
            " ELSE steps.last_time END",
            (run, step, items, valid, time, time))
        stored = {row[0]: row[1:] for row in self.db.execute(
            "SELECT channel, count, total, total_sq, seen, \"binary\", sketch, samples FROM channels"
            " JOIN sketches USING (run, step, channel) WHERE run = ? AND step = ?", (run, step))}
        rows, heavy = [], []
        for name, (layer, values, seen_now) in channels.items():
            count, total, total_sq, seen, binary, sketch, kept = stored.get(name, (0, 0.0, 0.0, 0, 1, "{}", None))
            if name in samples:
                old = json.loads(kept) if kept else {"lowest": [], "random": []}
                kept = json.dumps(_candidates(old["lowest"] + old["random"] + samples[name]["lowest"]
                                              + samples[name]["random"]), separators=(",", ":"))
            merged = {int(k): v for k, v in json.loads(sketch).items()}
            if values.size:
                binned = np.floor(values * SKETCH_BINS).astype(np.int64)
                binned[values == 1.0] = SKETCH_BINS - 1  # a perfect score belongs to the top bin of [0, 1]
                bins, counts = np.unique(binned, return_counts=True)
                for b, c in zip(bins.tolist(), counts.tolist(), strict=True):
                    merged[b] = merged.get(b, 0) + c
                binary = int(binary and bool(np.all((values == 0) | (values == 1))))
            p10, p50, p90 = sketch_quantiles(merged, (0.1, 0.5, 0.9))
            rows.append((run, step, name, layer, count + int(values.size), total + float(values.sum()),
                         total_sq + float(np.square(values).sum()), seen + seen_now, binary, p10, p50, p90))
            heavy.append((run, step, name, json.dumps(merged, separators=(",", ":")), kept))
        # The sketches and candidates sit in their own table so that charting reads only the small rows.
        self.db.executemany(
            "INSERT INTO channels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run, step, channel) DO UPDATE"
            " SET layer = excluded.layer, count = excluded.count, total = excluded.total, total_sq = excluded.total_sq,"
            ' seen = excluded.seen, "binary" = excluded."binary", p10 = excluded.p10, p50 = excluded.p50,'
            " p90 = excluded.p90", rows)
        self.db.executemany("INSERT INTO sketches VALUES (?, ?, ?, ?, ?) ON CONFLICT (run, step, channel) DO UPDATE"
                            " SET sketch = excluded.sketch, samples = excluded.samples", heavy)
        self.db.executemany(
            "INSERT INTO unscored VALUES (?, ?, ?, ?, ?) ON CONFLICT (run, step, channel, reason) DO UPDATE SET"
            " count = unscored.count + excluded.count", [(run, step, n, reason, c) for (n, reason), c in unscored.items()])

    def samples(self, run: str, step: int) -> dict[str, dict]:
        """The drill-down candidates of a step per channel: `{"lowest": [[rank, key, segment, line offset], ...],
        "random": [...]}`, the lowest first and the random ones in key order."""
        return {channel: json.loads(kept) for channel, kept in self.db.execute(
            "SELECT channel, samples FROM sketches WHERE run = ? AND step = ? AND samples IS NOT NULL", (run, step))}

    def has_batch(self, segment: str, offset: int) -> bool:
        """Whether the store indexes a batch written at `offset` of `segment`."""
        return self.db.execute('SELECT 1 FROM batches WHERE segment = ? AND "offset" = ?', (segment, offset)).fetchone() is not None

    def indexed_end(self, segment: str) -> int:
        """Where the last batch the store indexes in `segment` ends (0: none)."""
        row = self.db.execute('SELECT max("offset" + length) FROM batches WHERE segment = ?', (segment,)).fetchone()
        return int(row[0] or 0)

    def step_items(self, run: str, step: int) -> int:
        row = self.db.execute("SELECT items FROM steps WHERE run = ? AND step = ?", (run, step)).fetchone()
        return row[0] if row else 0

    def forget_segments(self, names: Iterable[str]) -> None:
        """Drop the raw-log index of deleted segments (their steps keep their aggregates)."""
        self.db.executemany("DELETE FROM batches WHERE segment = ?", [(n,) for n in names])
        # A deleted segment's batch ids are forgotten with it: a retry arriving after retention is logged anew.
        self.db.executemany("DELETE FROM batch_parts WHERE segment = ?", [(n,) for n in names])
        self.db.execute("DELETE FROM batch_ids WHERE NOT EXISTS (SELECT 1 FROM batch_parts p WHERE "
                        "p.scope = batch_ids.scope AND p.request = batch_ids.request)")

    # -- reading ---------------------------------------------------------------------------------------------

    def runs(self) -> dict[str, dict]:
        return {run: {"unstepped": bool(unstepped), "suites": json.loads(suites)}
                for run, unstepped, suites in self.db.execute("SELECT run, unstepped, suites FROM runs ORDER BY run")}

    def batches(self, run: str, step: int) -> list[tuple[str, int, int, int, int]]:
        """(segment, offset, length, skip, items) of the logged batches of a step, in log order: the step's records
        are `items` records of the byte range after the first `skip` (a batch without steps may span buckets)."""
        return self.db.execute(
            'SELECT segment, "offset", length, skip, items FROM batches WHERE run = ? AND step = ?'
            ' ORDER BY segment, "offset"', (run, step)).fetchall()

    def series(self) -> dict:
        """Everything the dashboard draws, per run, as JSON-ready lists aligned with each run's steps."""
        runs = self.runs()
        out: dict[str, dict] = {}
        positions: dict[str, dict[int, int]] = {}
        for run, step, items, valid, first_time, last_time in self.db.execute(
                "SELECT run, step, items, valid, first_time, last_time FROM steps ORDER BY run, step"):
            info = out.get(run)
            if info is None:
                info = out[run] = {"steps": [], "items": [], "valid_rate": [], "time": [], "curves": {},
                                   "dimensions": {}, "unscored": {},
                                   "suites": runs.get(run, {}).get("suites", []),
                                   "unstepped": runs.get(run, {}).get("unstepped", run.endswith(UNSTEPPED_SUFFIX))}
                positions[run] = {}
            positions[run][step] = len(info["steps"])
            info["steps"].append(step)
            info["items"].append(items)
            info["valid_rate"].append(round(valid / items, 4) if items else None)
            info["time"].append(dt.datetime.fromtimestamp(last_time, dt.UTC).strftime(TIME_FORMAT))
        layers: dict[str, str] = {}
        for run, step, channel, layer, count, total, seen, binary, p10, p90 in self.db.execute(
                'SELECT run, step, channel, layer, count, total, seen, "binary", p10, p90 FROM channels'):
            info = out.get(run)
            if info is None:
                continue
            size = len(info["steps"])
            k = positions[run][step]
            if layer == CURVE_LAYER:
                series = info["curves"].setdefault(channel, {"mean": [None] * size, "p10": [None] * size,
                                                             "p90": [None] * size})
            else:
                layers.setdefault(channel, layer)
                series = info["dimensions"].setdefault(channel, {
                    "binary": True, "mean": [None] * size, "p10": [None] * size, "p90": [None] * size,
                    "count": [0] * size, "seen": [0] * size, "unscored": {}})
                series["count"][k] = count
                series["seen"][k] = seen
                if count:
                    series["binary"] = series["binary"] and bool(binary)
            if count:
                series["mean"][k] = round(total / count, 4)
                series["p10"][k], series["p90"][k] = p10, p90
        for info in out.values():
            for key in CURVES:
                info["curves"].setdefault(key, {"mean": [None] * len(info["steps"]), "p10": [None] * len(info["steps"]),
                                                "p90": [None] * len(info["steps"])})
            for series in info["dimensions"].values():
                series["binary"] = series["binary"] and any(series["count"])
        totals: dict[str, list[int]] = {run: [0] * len(info["steps"]) for run, info in out.items()}
        for info_run, info in out.items():
            for series in info["dimensions"].values():
                for k, seen in enumerate(series["seen"]):
                    totals[info_run][k] += seen
        by_reason: dict[str, dict[str, list[int]]] = defaultdict(dict)
        for run, step, channel, reason, count in self.db.execute(
                "SELECT run, step, channel, reason, count FROM unscored ORDER BY reason"):
            info = out.get(run)
            if info is None or channel not in info["dimensions"]:
                continue
            k = positions[run][step]
            size = len(info["steps"])
            info["dimensions"][channel]["unscored"].setdefault(reason, [0] * size)[k] += count
            by_reason[run].setdefault(reason, [0] * size)[k] += count
        for run, reasons in by_reason.items():
            out[run]["unscored"] = {reason: [round(c / n, 4) if n else 0.0 for c, n in zip(counts, totals[run], strict=True)]
                                    for reason, counts in sorted(reasons.items())}
        per_step: dict[str, list[dict[str, list[int]]]] = {run: [{} for _ in info["steps"]] for run, info in out.items()}
        for run, step, channel, *counts in self._cascade_rows():
            if run in per_step:
                per_step[run][positions[run][step]][channel] = counts
        for run, info in out.items():
            info["cascade"] = cascade_series(per_step[run])
        records = sum(sum(info["items"]) for info in out.values())
        return {"runs": out, "layers": layers, "records": records}

    def _cascade_rows(self) -> list[tuple]:
        """(run, step, dimension, *CASCADE_COUNTS) rows; none from a version-1 store opened read-only."""
        if not self.db.has_table("cascade"):
            return []
        return self.db.execute(f"SELECT run, step, channel, {', '.join(CASCADE_COUNTS)} FROM cascade").fetchall()

    def version(self) -> int:
        """Changes whenever any writer commits."""
        return self.db.version()


def rebuild(folder: str | Path) -> dict[str, int]:
    """Recreate the store of a log folder from its segments; returns counts of batches and records indexed.

    A batch is a run of consecutive records of one segment with the same time, run, step and suite (one
    `ScoreLog.append`).
    """

    folder = Path(folder)
    path = store_path(folder)
    fresh = path.with_name(path.name + ".rebuild")
    for leftover in (fresh, Path(f"{fresh}-wal"), Path(f"{fresh}-shm")):
        leftover.unlink(missing_ok=True)
    counts = {"batches": 0, "records": 0, "segments": 0}
    store = ScoreStore.__new__(ScoreStore)
    store.folder, store.path, store.url = folder, fresh, None
    store.db = SQLiteDatabase(fresh, synchronous="OFF")
    store._create()
    # Per (run, request id): the content digest and acknowledged size its records carry, the ids of its items found
    # and where its parts lie. A batch is complete only when every item of its acknowledged size is in the log, so a
    # batch torn by a killed writer stays partial and its retry writes exactly the missing records.
    claimed: dict[tuple[str, str], dict] = {}
    for segment in segments(folder):
        counts["segments"] += 1
        batch: list = []
        key = None
        start = end = 0

        def flush() -> None:
            if batch:
                first = batch[0][1]
                store.add_batch([r.result for _, r in batch], suite=first.suite, run=first.run, step=first.step,
                                time=first.time, segment=segment.name, offset=start, length=end - start,
                                lines=[line for line, _ in batch])
                if first.request is not None:
                    entry = claimed.setdefault((first.run or "", first.request), {
                        "digest": first.digest, "size": first.batch_items, "ids": set(), "parts": [],
                        "time": first.time.timestamp()})
                    entry["ids"].update(r.result.id for _, r in batch)
                    entry["parts"].append((segment.name, start))
                counts["batches"] += 1
                counts["records"] += len(batch)

        for offset, record, length in _records_with_length(segment, parse_segment):
            this = (record.time, record.run, record.step, record.suite, record.request)
            if this != key:
                flush()
                # A batch's range begins where the previous one ended, so it covers its context lines too.
                batch, key, start = [], this, end
            batch.append((offset, record))
            end = offset + length
        flush()
    with store.transaction():
        for (scope, request), entry in claimed.items():
            size, found = entry["size"], len(entry["ids"])
            store.db.execute("INSERT INTO batch_ids VALUES (?, ?, ?, ?, ?, ?, ?)", (
                scope, request, entry["digest"], size, found, int(size is None or found >= size), entry["time"]))
            store.db.executemany("INSERT INTO batch_parts VALUES (?, ?, ?, ?, '', 1) ON CONFLICT DO NOTHING",
                                 [(scope, request, seg, off) for seg, off in entry["parts"]])
    counts["partial_batches"] = sum(1 for e in claimed.values() if e["size"] is not None and len(e["ids"]) < e["size"])
    store.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    fresh.replace(path)
    return counts


def _run_at(path: Path, offset: int, request: str) -> str:
    """The run of the first record of batch `request` at `offset` of a segment ("" when none is found there)."""
    try:
        for _, record in parse_segment(path, offset, resolve=False):
            if record.request == request:
                return record.run or ""
            break
    except OSError:
        pass
    return ""


def _records_with_length(segment: Path, parse_segment) -> Iterable[tuple[int, object, int]]:

    lengths = {offset: len(line) for _, offset, line in read_lines(segment)}
    for offset, record in parse_segment(segment, resolve=False):
        yield offset, record, lengths[offset]


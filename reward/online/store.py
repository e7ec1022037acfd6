"""The online store: interaction logs ingested into SQLite, with the per-user aggregates reports are computed from.

SQLite, like the score log's aggregate store, so both can later live in one file that one query reaches. Ingest is
incremental: a file already ingested (same path, size and modification time) is skipped, a session id already
stored is a duplicate (counted, the first row kept), and every bad row is recorded with its file and line in
`online_row_errors`. Each file is ingested in one transaction, so a crash leaves a file either wholly in or wholly out.

Tables: `online_sessions` (one row per session: user, day, policy, response id, dwell, gap to the next query and the
query similarity), `online_exposures` (one row per session and experiment, clustered by (experiment, arm, user) so the
per-user sums a report needs come out of one ordered scan), `online_user_days` (sessions, valid, skips and re-searches
per experiment, arm, user and day under the default re-search thresholds: what a default report reads, a tenth of
the rows of `online_exposures`), `online_embeddings` (query-text cache), `online_files`, `online_row_errors`.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from reward.online.log import Interaction, RowError, log_files, read_interactions
from reward.online.reformulation import MAX_WINDOW_S, RESEARCH_SIMILARITY, RESEARCH_WINDOW_S, QuerySimilarity
from reward.online.stats import RatioMoments

log = logging.getLogger(__name__)

VALID_DWELL_MS = 5000
"""Valid consumption: the answer stayed in view longer than 5 s (SearchLLM, appendix E)."""
SKIP_DWELL_MS = 1500
"""Skip: the answer was scrolled past in under 1.5 s."""
METRICS = ("vcr", "skip_rate", "research_rate")
EPOCH = dt.date(1970, 1, 1)
_FEEDBACK = {None: None, "up": 1, "down": -1}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS online_names(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, UNIQUE(kind, name));
CREATE TABLE IF NOT EXISTS online_sessions(
  id INTEGER PRIMARY KEY, session TEXT NOT NULL UNIQUE, user INTEGER NOT NULL, day INTEGER NOT NULL,
  policy INTEGER NOT NULL, response_id TEXT NOT NULL, dwell_ms INTEGER NOT NULL, gap_ms INTEGER, cosine REAL,
  feedback INTEGER);
CREATE TABLE IF NOT EXISTS online_exposures(
  experiment INTEGER NOT NULL, arm INTEGER NOT NULL, user INTEGER NOT NULL, session INTEGER NOT NULL,
  day INTEGER NOT NULL, dwell_ms INTEGER NOT NULL, gap_ms INTEGER, cosine REAL,
  PRIMARY KEY(experiment, arm, user, session)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS online_user_days(
  experiment INTEGER NOT NULL, arm INTEGER NOT NULL, user INTEGER NOT NULL, day INTEGER NOT NULL,
  n INTEGER NOT NULL, v INTEGER NOT NULL, k INTEGER NOT NULL, r INTEGER NOT NULL,
  PRIMARY KEY(experiment, arm, user, day)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS online_embeddings(key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS online_files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, rows INTEGER,
  inserted INTEGER, duplicates INTEGER, bad INTEGER, ingested_at TEXT);
CREATE TABLE IF NOT EXISTS online_row_errors(path TEXT NOT NULL, line INTEGER NOT NULL, message TEXT NOT NULL);
"""


def day_number(day: dt.date) -> int:
    return (day - EPOCH).days


def day_of(number: int) -> dt.date:
    return EPOCH + dt.timedelta(days=number)


def user_key(user: str) -> int:
    """The stored user: the first 64 bits of the (already hashed) user id, as a signed SQLite integer."""
    return int(user[:16], 16) - (2**63 if len(user) >= 16 else 0)


class IngestSummary(BaseModel):
    """What one ingest did."""

    files: int = 0
    """Files read."""
    skipped_files: int = 0
    """Files skipped because they were ingested before, unchanged."""
    rows: int = 0
    """Valid rows read."""
    inserted: int = 0
    """New sessions stored."""
    duplicates: int = 0
    """Rows whose session id was already stored (the first row is kept)."""
    bad: int = 0
    """Rows that failed validation (recorded in `online_row_errors`)."""
    errors: list[str] = Field(default_factory=list)
    """The first bad rows, as `file:line: field: message`."""
    embedded_texts: int = 0
    """Query texts the embedding model had to encode (cache misses)."""
    seconds: float = 0.0


class OnlineStore:
    """An SQLite file of ingested interaction logs."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA cache_size=-524288")  # 512 MiB page cache: the exposures b-tree stays in memory
        self.conn.execute("PRAGMA temp_store=MEMORY")
        self.conn.executescript(_SCHEMA)
        self._names: dict[tuple[str, str], int] = {
            (kind, name): id_ for id_, kind, name in self.conn.execute("SELECT id, kind, name FROM online_names")}

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> OnlineStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def name_id(self, kind: str, name: str, create: bool = True) -> int | None:
        key = (kind, name)
        if key not in self._names:
            if not create:
                return None
            self._names[key] = self.conn.execute("INSERT INTO online_names(kind, name) VALUES (?, ?)", key).lastrowid
        return self._names[key]

    def names(self, kind: str) -> dict[int, str]:
        return {id_: name for (k, name), id_ in self._names.items() if k == kind}

    # -- embeddings cache ------------------------------------------------------------------------------------------
    def load_embeddings(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        found = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            query = f"SELECT key, vector FROM online_embeddings WHERE key IN ({','.join('?' * len(chunk))})"
            found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in self.conn.execute(query, chunk)})
        return found

    def save_embeddings(self, rows: list[tuple[bytes, np.ndarray]]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO online_embeddings VALUES (?, ?)",
                              [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in rows])

    def similarity(self, encoder=None) -> QuerySimilarity:
        """A query-similarity cache backed by this store's `online_embeddings` table."""
        return QuerySimilarity(encoder, load=self.load_embeddings, save=self.save_embeddings)

    # -- ingest ----------------------------------------------------------------------------------------------------
    def ingest(self, paths: Iterable[str | Path], similarity: QuerySimilarity | None = None, chunk_rows: int = 50_000,
               keep_errors: int = 20) -> IngestSummary:
        """Ingest JSONL interaction logs (files or folders of *.jsonl); unchanged files ingested before are skipped."""
        started = time.perf_counter()
        similarity = similarity or self.similarity()
        summary = IngestSummary()
        for path in log_files(list(paths)):
            stat = path.stat()
            known = self.conn.execute("SELECT size, mtime_ns FROM online_files WHERE path = ?", (str(path),)).fetchone()
            if known == (stat.st_size, stat.st_mtime_ns):
                summary.skipped_files += 1
                continue
            summary.files += 1
            with self.conn:  # one transaction per file
                self.conn.execute("DELETE FROM online_row_errors WHERE path = ?", (str(path),))
                counts = self._ingest_file(path, similarity, chunk_rows, summary, keep_errors)
                self.conn.execute("INSERT OR REPLACE INTO online_files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                  (str(path), stat.st_size, stat.st_mtime_ns, *counts, dt.datetime.now(dt.UTC).isoformat()))
        summary.embedded_texts = similarity.encoded
        summary.seconds = round(time.perf_counter() - started, 3)
        return summary

    def _ingest_file(self, path: Path, similarity: QuerySimilarity, chunk_rows: int, summary: IngestSummary,
                     keep_errors: int) -> tuple[int, int, int, int]:
        rows = inserted = duplicates = bad = 0
        batch: list[Interaction] = []

        def flush() -> None:
            nonlocal inserted, duplicates
            new, dup = self._insert(batch, similarity)
            inserted += new
            duplicates += dup
            batch.clear()

        for number, entry in read_interactions(path):
            if isinstance(entry, RowError):
                bad += 1
                self.conn.execute("INSERT INTO online_row_errors VALUES (?, ?, ?)", (entry.path, entry.line, entry.message))
                if len(summary.errors) < keep_errors:
                    summary.errors.append(str(entry))
                continue
            rows += 1
            batch.append(entry)
            if len(batch) >= chunk_rows:
                flush()
        if batch:
            flush()
        summary.rows += rows
        summary.inserted += inserted
        summary.duplicates += duplicates
        summary.bad += bad
        if bad:
            log.warning("%s: %d bad rows (first: %s)", path, bad, summary.errors[0] if summary.errors else "")
        return rows, inserted, duplicates, bad

    def _insert(self, batch: list[Interaction], similarity: QuerySimilarity) -> tuple[int, int]:
        seen: set[str] = set()
        unique: list[Interaction] = []
        for row in batch:
            if row.session not in seen:
                seen.add(row.session)
                unique.append(row)
        # Sessions stored by an earlier batch or file are duplicates: they are counted, and neither their row nor
        # their arms are written again.
        names = [row.session for row in unique]
        stored: set[str] = set()
        for start in range(0, len(names), 900):
            chunk = names[start : start + 900]
            stored.update(s for (s,) in self.conn.execute(
                f"SELECT session FROM online_sessions WHERE session IN ({','.join('?' * len(chunk))})", chunk))
        new = [row for row in unique if row.session not in stored]
        gaps = [row.gap_ms for row in new]
        near = [i for i, gap in enumerate(gaps) if gap is not None and gap <= MAX_WINDOW_S * 1000]
        cosines: list[float | None] = [None] * len(new)
        if near:
            for i, value in zip(near, similarity.cosines([(new[i].query, new[i].next_query) for i in near]), strict=True):
                cosines[i] = round(float(value), 4)
        first_id = self.conn.execute("SELECT IFNULL(MAX(id), 0) + 1 FROM online_sessions").fetchone()[0]
        window_ms = int(RESEARCH_WINDOW_S * 1000)
        sessions, exposures = [], []
        user_days: dict[tuple[int, int, int, int], list[int]] = {}
        for offset, (row, gap, cosine) in enumerate(zip(new, gaps, cosines, strict=True)):
            session_id, user, day = first_id + offset, user_key(row.user), day_number(row.day)
            sessions.append((session_id, row.session, user, day, self.name_id("policy", row.policy), row.response_id,
                             row.dwell_ms, gap, cosine, _FEEDBACK[row.feedback]))
            outcome = (row.dwell_ms > VALID_DWELL_MS, row.dwell_ms < SKIP_DWELL_MS,
                       gap is not None and gap <= window_ms and cosine is not None and cosine >= RESEARCH_SIMILARITY)
            for experiment, arm in row.arms.items():
                key = (self.name_id("experiment", experiment), self.name_id("arm", arm), user, day)
                exposures.append((*key[:3], session_id, day, row.dwell_ms, gap, cosine))
                counts = user_days.get(key)
                if counts is None:
                    user_days[key] = [1, *outcome]
                else:
                    counts[0] += 1
                    counts[1] += outcome[0]
                    counts[2] += outcome[1]
                    counts[3] += outcome[2]
        self.conn.executemany("INSERT INTO online_sessions(id, session, user, day, policy, response_id, dwell_ms, gap_ms, cosine,"
                              " feedback) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sessions)
        self.conn.executemany("INSERT INTO online_exposures VALUES (?, ?, ?, ?, ?, ?, ?, ?)", exposures)
        # `online_user_days` counts under the default re-search thresholds (what a default report reads).
        self.conn.executemany(
            "INSERT INTO online_user_days VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(experiment, arm, user, day) DO UPDATE"
            " SET n = n + excluded.n, v = v + excluded.v, k = k + excluded.k, r = r + excluded.r",
            [(*key, *map(int, counts)) for key, counts in user_days.items()])
        return len(new), len(batch) - len(new)

    # -- queries ---------------------------------------------------------------------------------------------------
    def experiments(self) -> list[str]:
        return sorted(self.names("experiment").values())

    def arm_moments(self, experiment: str, window_s: float, similarity: float,
                    days: tuple[dt.date, dt.date] | None = None,
                    ) -> tuple[dict[str, dict[str, RatioMoments]], tuple[dt.date, dt.date] | None]:
        """Per arm and metric, the user-level sufficient statistics of VCR, skip rate and re-search rate; and the
        first and last day seen (one ordered scan of the experiment's rows for both)."""
        where, params = self._experiment_rows(experiment, window_s, similarity, days)
        sums = ", ".join(f"SUM({m}), SUM({m}*{m}), SUM(n*{m})" for m in "vkr")
        if window_s == RESEARCH_WINDOW_S and similarity == RESEARCH_SIMILARITY:
            inner = ("SELECT arm, user, SUM(n) AS n, SUM(v) AS v, SUM(k) AS k, SUM(r) AS r, MIN(day) AS d0, MAX(day) AS d1"
                     f" FROM online_user_days WHERE {where}")
        else:  # other thresholds: from the sessions themselves
            inner = ("SELECT arm, user, COUNT(*) AS n, SUM(dwell_ms > :valid) AS v, SUM(dwell_ms < :skip) AS k,"
                     f" SUM(gap_ms IS NOT NULL AND gap_ms <= :w AND cosine >= :t) AS r, MIN(day) AS d0, MAX(day) AS d1"
                     f" FROM online_exposures WHERE {where}")
        query = (f"SELECT arm, COUNT(*), SUM(n), SUM(n*n), {sums}, MIN(d0), MAX(d1)"
                 f" FROM ({inner} GROUP BY arm, user) GROUP BY arm")
        arms = self.names("arm")
        out: dict[str, dict[str, RatioMoments]] = {}
        first = last = None
        for arm, users, n, nn, *rest in self.conn.execute(query, params):
            out[arms[arm]] = {metric: RatioMoments(users, n, rest[3 * i], nn, rest[3 * i + 1], rest[3 * i + 2])
                              for i, metric in enumerate(METRICS)}
            first = rest[-2] if first is None else min(first, rest[-2])
            last = rest[-1] if last is None else max(last, rest[-1])
        return out, (None if first is None else (day_of(first), day_of(last)))

    def _experiment_rows(self, experiment: str, window_s: float, similarity: float,
                         days: tuple[dt.date, dt.date] | None) -> tuple[str, dict]:
        """The WHERE clause and parameters selecting an experiment's rows (over `days` when given), with the
        thresholds the metrics read; an unknown experiment or a window past what ingest embedded is a ValueError."""
        if window_s > MAX_WINDOW_S:
            raise ValueError(f"window: at most {MAX_WINDOW_S:g} s (pairs further apart are not embedded at ingest)")
        experiment_id = self.name_id("experiment", experiment, create=False)
        if experiment_id is None:
            raise ValueError(f"experiment {experiment!r} is not in the store (known: {self.experiments()})")
        where, params = "experiment = :e", {"e": experiment_id, "w": int(window_s * 1000), "t": similarity,
                                             "valid": VALID_DWELL_MS, "skip": SKIP_DWELL_MS}
        if days is not None:
            where += " AND day BETWEEN :d0 AND :d1"
            params.update(d0=day_number(days[0]), d1=day_number(days[1]))
        return where, params

    def arm_moments_by_day(self, experiment: str, window_s: float, similarity: float,
                           days: tuple[dt.date, dt.date] | None = None, max_points: int = 60,
                           ) -> dict[str, dict[dt.date, dict[str, RatioMoments]]]:
        """Per arm, day and metric, the user-level sufficient statistics of everything up to and including that day
        (cumulative), for every day of the span (at most `max_points` evenly spaced days, the last always included).
        One ordered scan, like `arm_moments`: each user's sums up to each day are conditional sums of the user's
        rows, so no sort is needed and users idle on a day still count with their totals so far. The last day's
        moments equal `arm_moments` over the same span."""
        where, params = self._experiment_rows(experiment, window_s, similarity, days)
        default = window_s == RESEARCH_WINDOW_S and similarity == RESEARCH_SIMILARITY
        table = "online_user_days" if default else "online_exposures"
        first, last = self.conn.execute(f"SELECT MIN(day), MAX(day) FROM {table} WHERE {where}", params).fetchone()
        if first is None:
            return {}
        span = last - first + 1
        points = sorted({first + round(i * (span - 1) / (max_points - 1)) for i in range(max_points)}) \
            if span > max_points else list(range(first, last + 1))
        if default:
            columns = {"n": "n", "v": "v", "k": "k", "r": "r"}
        else:  # other thresholds: from the sessions themselves
            columns = {"n": "1", "v": "(dwell_ms > :valid)", "k": "(dwell_ms < :skip)",
                       "r": "(gap_ms IS NOT NULL AND gap_ms <= :w AND cosine >= :t)"}
        per_user = ", ".join(f"SUM({expression} * (day <= {point})) AS {name}{i}"
                             for i, point in enumerate(points) for name, expression in columns.items())
        per_arm = ", ".join(f"SUM(n{i} > 0), SUM(n{i}), SUM(n{i} * n{i}), "
                            + ", ".join(f"SUM({m}{i}), SUM({m}{i} * {m}{i}), SUM(n{i} * {m}{i})" for m in "vkr")
                            for i in range(len(points)))
        query = f"SELECT arm, {per_arm} FROM (SELECT arm, user, {per_user} FROM {table} WHERE {where} GROUP BY arm, user) GROUP BY arm"
        arms = self.names("arm")
        out: dict[str, dict[dt.date, dict[str, RatioMoments]]] = {}
        width = 3 + 3 * len(METRICS)
        for arm, *values in self.conn.execute(query, params):
            out[arms[arm]] = {}
            for i, point in enumerate(points):
                users, n, nn, *rest = values[i * width:(i + 1) * width]
                if users:
                    out[arms[arm]][day_of(point)] = {
                        metric: RatioMoments(users, n, rest[3 * j], nn, rest[3 * j + 1], rest[3 * j + 2])
                        for j, metric in enumerate(METRICS)}
        return out

    def ingest_counts(self) -> dict[str, int]:
        """Rows, sessions stored, duplicates and bad rows over every ingested file."""
        row = self.conn.execute("SELECT COUNT(*), IFNULL(SUM(rows), 0), IFNULL(SUM(inserted), 0), "
                                "IFNULL(SUM(duplicates), 0), IFNULL(SUM(bad), 0) FROM online_files").fetchone()
        return dict(zip(("files", "rows", "sessions", "duplicates", "bad"), row, strict=True))

    def row_errors(self, limit: int = 20) -> list[str]:
        return [f"{p}:{n}: {m}" for p, n, m in
                self.conn.execute("SELECT path, line, message FROM online_row_errors ORDER BY path, line LIMIT ?", (limit,))]

    def day_responses(self, experiment: str, day: dt.date) -> Iterator[tuple[str, str, str]]:
        """(arm, response id, session) of every session of the day in the experiment."""
        experiment_id = self.name_id("experiment", experiment, create=False)
        if experiment_id is None:
            raise ValueError(f"experiment {experiment!r} is not in the store (known: {self.experiments()})")
        arms = self.names("arm")
        for arm, response_id, session in self.conn.execute(
                "SELECT e.arm, s.response_id, s.session FROM online_exposures e JOIN online_sessions s ON s.id = e.session "
                "WHERE e.experiment = ? AND e.day = ? ORDER BY s.id", (experiment_id, day_number(day))):
            yield arms[arm], response_id, session

    def outcomes(self, window_s: float, similarity: float, experiment: str | None = None,
                 days: tuple[dt.date, dt.date] | None = None) -> Iterator[tuple[str, bool, bool, bool]]:
        """(response id, valid consumption, skip, re-search) per stored session; with `experiment`, only the
        sessions exposed to it, and with `days`, only those days."""
        conditions, params = [], [VALID_DWELL_MS, SKIP_DWELL_MS, int(window_s * 1000), similarity]
        if experiment is not None:
            experiment_id = self.name_id("experiment", experiment, create=False)
            if experiment_id is None:
                raise ValueError(f"experiment {experiment!r} is not in the store (known: {self.experiments()})")
            conditions.append("id IN (SELECT session FROM online_exposures WHERE experiment = ?)")
            params.append(experiment_id)
        if days is not None:
            conditions.append("day BETWEEN ? AND ?")
            params += [day_number(days[0]), day_number(days[1])]
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        for response_id, valid, skip, research in self.conn.execute(
                "SELECT response_id, dwell_ms > ?, dwell_ms < ?, gap_ms IS NOT NULL AND gap_ms <= ? AND cosine >= ? "
                f"FROM online_sessions{where}", params):
            yield response_id, bool(valid), bool(skip), bool(research)

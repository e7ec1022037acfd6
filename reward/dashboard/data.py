"""What the dashboard draws, read from the score logs' aggregate stores, and drill-down samples read on demand.

The curves come from each folder's store (`reward.scorelog.store`): a page for hundreds of steps reads a few tens of
thousands of rows instead of re-reading millions of records. A folder whose segments predate the store (or
whose store was deleted) is indexed once on first use. A run is (log folder, run name): with several folders, every
run is labelled `<folder>/<run>`, so equal run names of two experiments never merge.

The drill-down samples of a step come from the raw log: the store knows where the step's batches sit (segment,
byte offset, length), so only those bytes are read and parsed, and the samples (the lowest few per channel,
unscored first, and a seeded random few) are chosen from all of the step's items.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from reward.dashboard.stats import SAMPLES_RANDOM, format_samples, item_ref
from reward.scorelog import ScoreRecord, parse_segment, segments
from reward.scorelog.segments import CONTEXT_PREFIX
from reward.scorelog.database import redact
from reward.scorelog.store import REWARD, ScoreStore, rebuild, store_path, store_url_of

log = logging.getLogger(__name__)


class UnknownStep(LookupError):
    """The store has no such run or step."""


def labels(folders: Sequence[Path]) -> list[str]:
    """A short, distinct label per folder (its name, or its path when two names are equal)."""
    names = [path.name or str(path) for path in folders]
    return names if len(set(names)) == len(names) else [str(path) for path in folders]


def open_store(folder: Path) -> ScoreStore:
    """A reader of the folder's store: the PostgreSQL database its writers name (`store_url_of`: every node's
    aggregates), else the SQLite file beside its segments, indexing the raw log first when there is none yet."""
    ensure_store(folder)
    return ScoreStore(folder, readonly=True, url=store_url_of(folder))


def ensure_store(folder: Path) -> None:
    """Index a folder's raw log when it has no store yet (a log written before the store existed)."""
    if not folder.exists():
        raise FileNotFoundError(f"score log {folder} does not exist")
    if store_url_of(folder) is not None:
        return  # the database is the store: its writers keep it
    if not store_path(folder).exists():
        if segments(folder):
            log.info("%s has no aggregate store yet: indexing its segments", folder)
            rebuild(folder)
        else:
            ScoreStore(folder).close()


def store_version(folders: Sequence[Path]) -> tuple:
    """Changes whenever a writer commits to one of the stores (the page cache key)."""
    state: list = []
    for folder in folders:
        url = store_url_of(folder)
        if url is not None:
            with ScoreStore(folder, readonly=True, url=url) as store:
                state.append((redact(url), store.version()))
            continue
        path = store_path(folder)
        for part in (path, Path(f"{path}-wal")):
            stat = part.stat() if part.exists() else None
            state.append((str(part), stat.st_size if stat else 0, stat.st_mtime_ns if stat else 0))
    return tuple(state)


def page_data(folders: Sequence[Path]) -> tuple[dict, dict[str, tuple[Path, str]]]:
    """The dashboard's data for the folders, and where each charted run lives: label -> (folder, run in store)."""
    merged: dict = {"runs": {}, "layers": {}, "records": 0}
    where: dict[str, tuple[Path, str]] = {}
    names = labels(folders)
    for folder, name in zip(folders, names, strict=True):
        with open_store(folder) as store:
            data = store.series()
        merged["records"] += data["records"]
        for layer_name, layer in data["layers"].items():
            merged["layers"].setdefault(layer_name, layer)
        for run, info in data["runs"].items():
            label = run if len(folders) == 1 else f"{name}/{run}"
            info["versions"] = describe_versions(suite_versions(folder, run), info)
            merged["runs"][label] = info
            where[label] = (folder, run)
    return merged, where


def step_records(store: ScoreStore, run: str, step: int) -> Iterator[ScoreRecord]:
    """The records of one (run, step), read from the byte ranges of the raw log that the store indexes."""
    batches = store.batches(run, step)
    if not batches:
        raise UnknownStep(f"no logged batches for run {run!r} step {step} (unknown, or removed by retention)")
    for segment, offset, length, skip, items in batches:
        path = store.folder / segment
        if not path.exists():
            # Gone by retention, or (a PostgreSQL store shared by several nodes) on another node's disk.
            log.warning("segment %s of run %r step %d is not in %s (removed by retention, or another node's)",
                        segment, run, step, store.folder)
            continue
        records = (record for _, record in parse_segment(path, offset, length, resolve=False))
        for position, record in enumerate(records):
            if skip <= position < skip + items:
                yield record


def drilldown(folder: Path, run: str, step: int) -> dict:
    """The drill-down samples of a step: `{"channels": {channel: [sample, ...]}, "items": [...], "records": n}`
    (n: the step's items).

    The store keeps, per channel, the lowest-scoring few items of the step and a uniform few (bottom-k of a hash
    of the item id, so the same on every rebuild), as byte offsets into the log: only those lines are read.
    """
    with open_store(folder) as store:
        candidates = store.samples(run, step)
        size = store.step_items(run, step)
        shared = store.url is not None
    if not candidates:
        raise UnknownStep(f"no logged items for run {run!r} step {step} (unknown, or removed by retention)")
    records: dict[tuple[str, int], ScoreRecord | None] = {}
    refs: dict[tuple[str, int], tuple] = {}
    for kept in candidates.values():
        for entry in kept["lowest"] + kept["random"]:
            records.setdefault((entry[2], entry[3]), None)
    for (segment, line) in sorted(records):
        path = folder / segment
        if not path.exists():
            continue
        parsed = next(parse_segment(path, line, _line_length(path, line), resolve=False), None)
        if parsed is not None:
            records[segment, line] = parsed[1]
            refs[segment, line] = item_ref(parsed[1])
    if candidates and not refs:
        if shared:
            raise UnknownStep(f"the raw log of run {run!r} step {step} is not in {folder}: the node that logged it "
                              "holds it (or retention removed it)")
        raise UnknownStep(f"the raw log of run {run!r} step {step} was removed by retention")
    chosen: dict[str, list[tuple]] = {}
    for channel, kept in candidates.items():
        lowest = [(e[2], e[3]) for e in kept["lowest"]]
        extra = [(e[2], e[3]) for e in kept["random"] if (e[2], e[3]) not in lowest][:SAMPLES_RANDOM]
        picked = []
        for where in lowest + extra:
            record = records.get(where)
            if record is None:
                continue
            verdict = record.result if channel == REWARD else record.result.dimensions.get(channel)
            if verdict is not None:
                picked.append((refs[where], verdict))
        chosen[channel] = picked
    return {**format_samples(chosen), "records": size}


def _line_length(path: Path, offset: int, chunk: int = 1 << 16) -> int:
    """Bytes from `offset` to the end of its line (newline included)."""
    with path.open("rb") as handle:
        handle.seek(offset)
        length = 0
        while True:
            block = handle.read(chunk)
            if not block:
                return length
            end = block.find(b"\n")
            if end >= 0:
                return length + end + 1
            length += len(block)


def sampled_steps(steps: Sequence[int], stride: int) -> list[int]:
    """The steps that keep samples in a shared page: every `stride`-th of the run's steps from the first, and the
    latest, so the whole run is covered evenly.

    >>> sampled_steps([0, 1, 2, 3, 4, 5, 6], 3)
    [0, 3, 6]
    >>> sampled_steps(list(range(10, 20)), 4)
    [10, 14, 18, 19]
    """
    if stride < 1:
        raise ValueError(f"the sample stride must be at least 1, got {stride}")
    chosen = list(steps[::stride])
    if steps and chosen[-1] != steps[-1]:
        chosen.append(steps[-1])
    return chosen


def auto_stride(steps: int, sample_steps: int) -> int:
    """The smallest stride that keeps at most `sample_steps` steps with samples (the latest one included)."""
    if sample_steps < 2:
        raise ValueError(f"sample_steps must be at least 2, got {sample_steps}")
    return max(1, -(-steps // (sample_steps - 1)))


def embedded_samples(where: dict[str, tuple[Path, str]], data: dict, sample_steps: int,
                     sample_stride: int | None = None) -> None:
    """Put the samples of the run's steps at `sample_stride` (every n-th step from the first, and the latest) into
    the page data, for a page that has no server to ask (`reward dashboard --out`); without a stride, the smallest
    one that keeps at most `sample_steps` steps per run. The stride is recorded (`sample_stride`) for the page."""
    for label, info in data["runs"].items():
        steps = info["steps"]
        if not steps:
            info["step_samples"], info["sampled_steps"], info["sample_stride"] = {}, [], sample_stride
            continue
        stride = sample_stride or auto_stride(len(steps), sample_steps)
        folder, run = where[label]
        info["step_samples"] = {}
        for step in sampled_steps(steps, stride):
            try:
                info["step_samples"][str(step)] = drilldown(folder, run, step)
            except UnknownStep:
                continue
        info["sampled_steps"] = [int(s) for s in info["step_samples"]]
        info["sample_stride"] = stride

PAGE_SIZE = 10
"""Samples per page of the drill-down when a step's items are paged through on the server."""
PAGE_LIMIT = 200
"""The most samples one page may ask for (a request over it is refused, not truncated silently)."""


def step_page(folder: Path, run: str, step: int, channel: str, *, search: str = "", offset: int = 0,
              limit: int = PAGE_SIZE) -> dict:
    """One page of a step's items ranked for a channel (a dimension, or `reward`): unscored first, then the lowest
    score; `search` keeps the items whose id or group contains it (case-insensitive). Reads every record of the
    step from the byte ranges the store indexes, so any item of the step can be found, not only the kept samples.

    Returns `{"channels": {channel: [sample, ...]}, "items": [...], "records": n, "total": matching items,
    "offset": offset, "limit": limit, "channel": channel, "search": search}`.
    """
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, got {offset}")
    if not 1 <= limit <= PAGE_LIMIT:
        raise ValueError(f"limit must be in 1..{PAGE_LIMIT}, got {limit}")
    needle = search.strip().lower()
    ranked: list[tuple[float, int, tuple, object]] = []
    seen = 0
    with open_store(folder) as store:
        for position, record in enumerate(step_records(store, run, step)):
            seen += 1
            verdict = record.result if channel == REWARD else record.result.dimensions.get(channel)
            if verdict is None:
                continue
            if needle and needle not in record.result.id.lower() and needle not in (record.group or "").lower():
                continue
            if channel == REWARD:
                rank = verdict.reward
            else:
                rank = -1.0 if verdict.score is None else verdict.score
            ranked.append((rank, position, item_ref(record), verdict))
    if not seen:
        raise UnknownStep(f"the raw log of run {run!r} step {step} was removed by retention")
    ranked.sort(key=lambda entry: (entry[0], entry[1]))
    page = [(ref, verdict) for _, _, ref, verdict in ranked[offset:offset + limit]]
    return {**format_samples({channel: page}), "records": seen, "total": len(ranked), "offset": offset,
            "limit": limit, "channel": channel, "search": search}


_VERSIONS: dict[tuple[str, str, int], tuple[str, str] | None] = {}
"""(folder, segment, batch offset) -> (suite, suite_version) of the batch's first record: batches never change once
logged, so a live server reads each step's first line once."""
_SUITE = re.compile(rb'"suite":\s*("(?:[^"\\]|\\.)*")\s*,\s*"suite_version":\s*("(?:[^"\\]|\\.)*")')


def _batch_suite(path: Path, offset: int) -> tuple[str, str] | None:
    """(suite, suite_version) of the first record at or after `offset` (context lines skipped), read from the
    line's text without parsing the whole record (its judges' explanations and quotes are most of it)."""
    with path.open("rb") as handle:
        handle.seek(offset)
        for line in handle:
            if line.startswith(CONTEXT_PREFIX.encode()):
                continue
            found = _SUITE.search(line, 0, 4096)
            if found is None:
                record = ScoreRecord.model_validate_json(line)  # fields in another order: parse it all
                return record.suite, record.suite_version
            return json.loads(found.group(1)), json.loads(found.group(2))
    return None


def describe_versions(changes: list[dict], info: dict) -> list[dict]:
    """Each version change with `summary`: what changed, as the chart marks it. The dimensions added and removed are
    read from which dimensions the run's steps scored just before and at the change; a change that adds or removes
    none edited the rubric's text or weights (the log keeps versions, not rubric texts: `reward rubric diff` on the
    two folders shows the edit)."""
    steps = info.get("steps", [])
    index = {step: k for k, step in enumerate(steps)}

    def scored(k: int) -> set[str]:
        return {name for name, series in info.get("dimensions", {}).items() if series["seen"][k]}

    previous: dict | None = None
    for change in changes:
        k = index.get(change["step"])
        if previous is None or k is None or k == 0:
            change["summary"] = f"{change['suite']} {change['version'][:8]}"
        elif previous["suite"] != change["suite"]:
            change["summary"] = f"suite {previous['suite']} -> {change['suite']}"
        else:
            before, now = scored(k - 1), scored(k)
            parts = [f"+{name}" for name in sorted(now - before)] + [f"-{name}" for name in sorted(before - now)]
            change["summary"] = (f"{change['suite']}: {' '.join(parts)}" if parts
                                 else f"{change['suite']}: rubric edited (same dimensions)")
        previous = change
    return changes


def suite_versions(folder: Path, run: str) -> list[dict]:
    """Where the run's rubric changed: `[{"step", "suite", "version"}, ...]`, the first step of every (suite,
    version) pair that differs from the step before (the run's first step included), read from the first record of
    each step's first logged batch (a reload in the middle of a step shows at the next step). A batch whose segment
    is not on this disk (retention; another node's, with a shared PostgreSQL store) is passed over for the step's
    next one; steps with none here are skipped."""
    with open_store(folder) as store:
        rows = store.db.execute('SELECT step, segment, "offset" FROM batches WHERE run = ? '
                                'ORDER BY step, segment, "offset"', (run,)).fetchall()
    changes: list[dict] = []
    current: tuple[str, str] | None = None
    settled = None
    for step, segment, offset in rows:
        if step == settled:
            continue
        key = (str(folder), segment, offset)
        path = folder / segment
        if key not in _VERSIONS:
            try:
                _VERSIONS[key] = _batch_suite(path, offset) if path.exists() else None
            except ValueError:  # an unreadable line: this step's version is unknown
                _VERSIONS[key] = None
        found = _VERSIONS[key]
        if found is None and not path.exists():
            continue  # try the step's next batch
        settled = step
        if found is not None and found != current:
            current = found
            changes.append({"step": step, "suite": found[0], "version": found[1]})
    return changes

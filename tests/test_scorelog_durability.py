"""The score log under write failure: a batch is all-or-nothing on a full disk (injected ENOSPC, and a real small
tmpfs when root), the failure names its reason, and a writer killed mid-write leaves no torn line that glues onto
the next record."""

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog, ScoreLogUnavailable, read_log, segments
from tests.support import ROOT


def batch(name: str, size: int = 8, text: str = "x" * 2000) -> tuple[list[Item], list[ItemResult]]:
    items = [Item(id=f"{name}-{i}", group=name, query="q", response=text) for i in range(size)]
    results = [ItemResult(id=item.id, reward=0.5, valid=True,
                          dimensions={"format": DimensionScore(score=0.5, layer="bottom_line", backend="rule")})
               for item in items]
    return items, results


class FailingHandle:
    """A segment handle whose disk fills after `room` more bytes: writes up to it, then raises ENOSPC."""

    def __init__(self, handle, room: int):
        self.handle, self.room = handle, room

    def write(self, data) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = self.handle.write(bytes(data[: self.room]))
        self.room -= written
        return written

    def __getattr__(self, name):
        return getattr(self.handle, name)


def test_injected_enospc_mid_batch_leaves_no_record_of_it_and_the_retry_logs_it_once(tmp_path):
    log = ScoreLog(tmp_path)
    log.append(*batch("first"), suite="s", suite_version="v")
    real_open = log._open
    log._open = lambda: FailingHandle(real_open(), room=5000)  # the batch is ~20 KB: 2 records fit, then ENOSPC
    with pytest.raises(ScoreLogUnavailable) as failure:
        log.append(*batch("failed"), suite="s", suite_version="v")
    assert str(failure.value) == "score log unavailable: No space left on device"
    assert failure.value.reason == "No space left on device"
    assert [r.result.id.split("-")[0] for r in read_log(tmp_path)] == ["first"] * 8  # nothing of "failed", no torn line
    log._open = real_open  # space again: the client's retry of the same batch
    log.append(*batch("failed"), suite="s", suite_version="v")
    log.append(*batch("after"), suite="s", suite_version="v")
    log.close()
    counts = Counter(r.result.id for r in read_log(tmp_path))
    assert len(counts) == 24 and set(counts.values()) == {1}
    [segment] = segments(tmp_path)
    lines = segment.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line).get("result", {}).get("id") or json.loads(line)["kind"] == "context"
                                            for line in lines[:-1])  # every line whole: a record or a context


def test_a_real_full_disk_keeps_every_batch_whole_and_the_log_recovers(tmp_path, caplog):
    if os.geteuid() != 0:
        pytest.skip("SKIPPED LOUDLY: mounting a 300 KB tmpfs needs root; the injected-ENOSPC test covers the logic")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(disk)], check=True)
    try:
        log = ScoreLog(disk)
        outcomes = {}
        for n in range(30):
            try:
                log.append(*batch(f"b{n}"), suite="s", suite_version="v")
                outcomes[f"b{n}"] = "ok"
            except ScoreLogUnavailable as exc:
                outcomes[f"b{n}"] = exc.reason
        assert "ok" in outcomes.values() and "No space left on device" in outcomes.values(), outcomes
        counts = Counter(r.result.id.split("-")[0] for r in read_log(disk))
        assert {name: 8 for name, outcome in outcomes.items() if outcome == "ok"} == dict(counts)
        assert not [r for r in caplog.records if "skipping" in r.getMessage()]  # no torn line either
        assert log.probe() is None or "No space" in log.probe()
        subprocess.run(["mount", "-o", "remount,size=2m", str(disk)], check=True)
        assert log.probe() is None
        log.append(*batch("retried"), suite="s", suite_version="v")
        log.close()
        counts = Counter(r.result.id for r in read_log(disk))
        assert sum(1 for i in counts if i.startswith("retried-")) == 8 and set(counts.values()) == {1}
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=False)


WRITER = """
import sys
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog
log = ScoreLog(sys.argv[1], writer="killed")
n = 0
while True:
    items = [Item(id=f"k{n}-{i}", group=f"k{n}", query="q", response="y" * 20000) for i in range(400)]
    results = [ItemResult(id=item.id, reward=0.5, valid=True, dimensions={}) for item in items]
    log.append(items, results, suite="s", suite_version="v")
    n += 1
"""


def test_a_writer_killed_mid_write_leaves_no_torn_record_that_glues_to_the_next(tmp_path):
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not any(p.stat().st_size > 30_000_000 for p in segments(tmp_path)):  # a few 8 MB batches are in
            assert writer.poll() is None and time.monotonic() < deadline, "the writer died or stalled"
            time.sleep(0.05)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    log = ScoreLog(tmp_path)  # the restarted server
    log.append(*batch("next"), suite="s", suite_version="v")
    log.close()
    records = list(read_log(tmp_path))
    assert sum(1 for r in records if r.result.id.startswith("next-")) == 8  # the next batch is whole, not glued
    killed, [fresh] = [p for p in segments(tmp_path) if "-killed-" in p.name], [p for p in segments(tmp_path) if "-killed-" not in p.name]
    assert len(killed) == 1 and json.loads(fresh.read_bytes().split(b"\n")[0])  # the restarted writer has its own segment
    complete = Counter(r.result.id.split("-")[0] for r in records if r.result.id.startswith("k"))
    assert complete and all(count == 400 for name, count in complete.items() if name != max(complete, key=lambda n: int(n[1:])))


def test_a_retried_batch_is_logged_once_by_its_request_id(tmp_path):
    log = ScoreLog(tmp_path)
    assert log.append(*batch("a"), suite="s", suite_version="v", request="req-a") is True
    assert log.append(*batch("a"), suite="s", suite_version="v", request="req-a") is False  # the client's retry
    assert log.append(*batch("b"), suite="s", suite_version="v") is True  # no id: always logged
    log.close()
    restarted = ScoreLog(tmp_path)  # a retry that reaches a restarted server
    assert restarted.append(*batch("a"), suite="s", suite_version="v", request="req-a") is False
    restarted.close()
    counts = Counter(r.result.id for r in read_log(tmp_path))
    assert counts == Counter({f"{n}-{i}": 1 for n in "ab" for i in range(8)})
    assert {r.request for r in read_log(tmp_path) if r.result.id.startswith("a-")} == {"req-a"}
    from reward.scorelog.store import ScoreStore
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.step_items("s (no step)", 0) == 16


class KilledAfterWrite(Exception):
    """Stands in for kill -9 between the log's fsync and the store update (or mid-write)."""


def test_a_batch_written_by_a_writer_killed_before_its_store_update_is_not_logged_again(tmp_path):
    log = ScoreLog(tmp_path)

    def killed(*args, **kwargs):
        raise KilledAfterWrite

    log._index = killed  # the batch is on disk; the process dies before it reaches the store
    with pytest.raises(KilledAfterWrite):
        log.append(*batch("a"), suite="s", suite_version="v", run="r", step=3, request="req-a")
    restarted = ScoreLog(tmp_path)
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=3, request="req-a") is False
    restarted.close()
    assert Counter(r.result.id for r in read_log(tmp_path)) == Counter({f"a-{i}": 1 for i in range(8)})
    from reward.scorelog.store import ScoreStore
    with ScoreStore(tmp_path, readonly=True) as store:  # the retry indexed what the dead writer could not
        assert store.step_items("r", 3) == 8


def test_a_batch_torn_by_a_killed_writer_gets_only_its_missing_records_on_retry(tmp_path):
    log = ScoreLog(tmp_path)
    real_open = log._open
    # The first write stops after ~2.5 of 8 records and the process dies: a torn batch.
    log._open = lambda: FailingHandle(real_open(), room=5000)

    def write_then_die(handle, payload):
        handle.write(payload)  # 5,000 of its bytes reach the segment
        raise KilledAfterWrite

    log._write_batch = write_then_die
    with pytest.raises(KilledAfterWrite):
        log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    torn = [r.result.id for r in read_log(tmp_path)]
    assert 0 < len(torn) < 8
    restarted = ScoreLog(tmp_path)
    restarted.claim_wait_s = 0
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    restarted.close()
    assert Counter(r.result.id for r in read_log(tmp_path)) == Counter({f"a-{i}": 1 for i in range(8)})
    from reward.scorelog.store import ScoreStore, rebuild
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.step_items("r", 1) == 8
    rebuild(tmp_path)
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.step_items("r", 1) == 8


def test_a_torn_batch_stays_partial_through_reindex_and_its_retry_fills_exactly_the_missing_records(tmp_path):
    """A writer killed mid-batch, then `reward log reindex`: the rebuilt store must not call the torn batch logged,
    so the client's retry writes exactly the missing records (each item once), however often the store is rebuilt."""
    from reward.scorelog.store import ScoreStore, rebuild

    log = ScoreLog(tmp_path)
    real_open = log._open
    log._open = lambda: FailingHandle(real_open(), room=5000)

    def write_then_die(handle, payload):
        handle.write(payload)
        raise KilledAfterWrite

    log._write_batch = write_then_die
    with pytest.raises(KilledAfterWrite):
        log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    torn = Counter(r.result.id for r in read_log(tmp_path))
    assert 0 < len(torn) < 8
    counts = rebuild(tmp_path)
    assert counts["partial_batches"] == 1
    rebuild(tmp_path)  # twice: still partial
    restarted = ScoreLog(tmp_path)
    restarted.claim_wait_s = 0
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is False
    restarted.close()
    assert Counter(r.result.id for r in read_log(tmp_path)) == Counter({f"a-{i}": 1 for i in range(8)})
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.step_items("r", 1) == 8
    assert rebuild(tmp_path)["partial_batches"] == 0
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.step_items("r", 1) == 8
    again = ScoreLog(tmp_path)  # after the rebuild the whole batch counts as logged: a late retry writes nothing
    assert again.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is False
    again.close()
    assert sum(1 for _ in read_log(tmp_path)) == 8


def test_a_batch_torn_twice_is_completed_from_both_parts_by_the_third_try(tmp_path):
    """Two writers die mid-write on the same batch (each writing a different part); the third try writes only what
    neither part holds."""
    for room in (5000, 5000):
        log = ScoreLog(tmp_path)
        real_open = log._open
        log._open = lambda real_open=real_open, room=room: FailingHandle(real_open(), room=room)
        log.claim_wait_s = 0

        def write_then_die(handle, payload):
            handle.write(payload)
            raise KilledAfterWrite

        log._write_batch = write_then_die
        with pytest.raises(KilledAfterWrite):
            log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    parts = Counter(r.result.id for r in read_log(tmp_path))
    assert max(parts.values()) == 1 and 2 < len(parts) < 8
    last = ScoreLog(tmp_path)
    last.claim_wait_s = 0
    assert last.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    last.close()
    assert Counter(r.result.id for r in read_log(tmp_path)) == Counter({f"a-{i}": 1 for i in range(8)})


def test_a_version_2_store_keeps_its_logged_request_ids_scoped_by_the_run_of_their_records(tmp_path):
    import sqlite3

    from reward.scorelog.store import ScoreStore, store_path

    log = ScoreLog(tmp_path, writer="w")
    assert log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    log.close()
    segment = segments(tmp_path)[0].name
    db = sqlite3.connect(store_path(tmp_path))  # the request table as version 2 kept it: one global id space
    db.executescript("DROP TABLE batch_ids; DROP TABLE batch_parts; CREATE TABLE requests (request TEXT PRIMARY KEY,"
                     " segment TEXT NOT NULL, offset INTEGER NOT NULL, logged INTEGER NOT NULL, writer TEXT NOT NULL,"
                     " time REAL NOT NULL) WITHOUT ROWID; UPDATE meta SET value = '2' WHERE key = 'schema';")
    db.execute("INSERT INTO requests VALUES ('req-a', ?, 0, 1, 'w', 0)", (segment,))
    db.commit()
    db.close()
    upgraded = ScoreLog(tmp_path, writer="w2")
    assert upgraded.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is False
    assert upgraded.append(*batch("a"), suite="s", suite_version="v", run="other", step=1, request="req-a") is True
    upgraded.close()
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.db.execute("SELECT scope, request FROM batch_ids ORDER BY scope").fetchall() == [
            ("other", "req-a"), ("r", "req-a")]
    assert Counter(r.run for r in read_log(tmp_path)) == Counter({"r": 8, "other": 8})


def test_a_request_id_is_scoped_by_run_and_bound_to_its_content(tmp_path):
    """Two trainers using per-step ids in different runs both get logged; the same id in one run with other items
    (or a superset) is a conflict naming both digests, never a silent replay."""
    from reward.scorelog import RequestConflict, batch_digest

    log = ScoreLog(tmp_path)
    assert log.append(*batch("a"), suite="s", suite_version="v", run="A", step=5, request="step-5") is True
    assert log.append(*batch("b"), suite="s", suite_version="v", run="B", step=5, request="step-5") is True
    first = batch_digest(batch("a")[0], suite="s", step=5)
    superset = batch("a", size=9)
    with pytest.raises(RequestConflict) as conflict:
        log.append(*superset, suite="s", suite_version="v", run="A", step=5, request="step-5")
    assert first in str(conflict.value) and batch_digest(superset[0], suite="s", step=5) in str(conflict.value)
    with pytest.raises(RequestConflict):
        log.check_request("A", "step-5", batch_digest(batch("c")[0], suite="s", step=5))
    assert log.check_request("A", "step-5", first) is True and log.check_request("C", "step-5", first) is None
    assert log.append(*batch("a"), suite="s", suite_version="v", run="A", step=5, request="step-5") is False
    log.close()
    assert Counter(r.run for r in read_log(tmp_path)) == Counter({"A": 8, "B": 8})


def test_a_small_batch_waiting_for_the_log_goes_before_large_batches_queued_earlier():
    import threading

    from reward.scorelog.log import SmallestFirstLock

    lock, order = SmallestFirstLock(), []

    def append(name, size):
        with lock.for_size(size):
            order.append(name)

    with lock.for_size(1024):  # a large batch is being written
        threads = [threading.Thread(target=append, args=(f"large-{n}", 1024)) for n in range(3)]
        for thread in threads:
            thread.start()
            time.sleep(0.05)  # they queue in this order
        small = threading.Thread(target=append, args=("small", 1))
        small.start()
        time.sleep(0.05)
    for thread in [*threads, small]:
        thread.join(5)
    assert order == ["small", "large-0", "large-1", "large-2"]

"""The score store on both of its databases (SQLite beside the segments, and a PostgreSQL server shared by hosts):
the same aggregates from the same batches, retried and torn batches logged once, request ids bound to their
content; and, on PostgreSQL, what only a shared database has to handle: writers on hosts that cannot read each
other's segments, a claim left by a dead writer on another host, a slow writer whose claim was taken over, and the
database going away under a writer (503-able `ScoreLogUnavailable`, nothing of the batch kept, the retry logs it
once)."""

import threading
from collections import Counter

import numpy as np
import pytest

from reward.scorelog import RequestConflict, ScoreLog, ScoreLogUnavailable, batch_digest, read_log, segments
from reward.scorelog.database import StoreUnavailable
from reward.scorelog.store import ScoreStore, rebuild
from tests.postgres import postgres, postgres_server, store_url  # noqa: F401 (fixtures)
from tests.test_scorelog_durability import FailingHandle, KilledAfterWrite, batch
from tests.test_scorestore import _batch


def _log(folder, url, **options) -> ScoreLog:
    return ScoreLog(folder, store_url=url, **options)


def _ids(*folders) -> Counter:
    return Counter(r.result.id for folder in folders for r in read_log(folder))


def test_both_backends_hold_the_aggregates_a_rebuild_from_the_records_gives(tmp_path, store_url):
    rng = np.random.default_rng(7)
    log = _log(tmp_path / "log", store_url, writer="w")
    for step in (0, 1, 1, 2):  # step 1 twice: the second batch merges into the stored sketches and samples
        items, results = _batch(rng, step, prefix=f"i{rng.integers(1 << 30)}")
        log.append(items, results, suite="mini", suite_version="v", run="r", step=step)
    items, results = _batch(rng, 9, groups=10, size=8, prefix="u")  # 80 records without a step: two buckets
    log.append(items, results, suite="mini", suite_version="v", run="r")
    log.close()
    with ScoreStore(tmp_path / "log", url=store_url, readonly=True) as store:
        live = store.series()
        samples = store.samples("r", 1)
        unstepped = [store.step_items("r (no step)", bucket) for bucket in (0, 1)]
    assert live["runs"]["r"]["items"] == [8, 16, 8] and live["records"] == 112 and unstepped == [64, 16]
    assert sorted(samples) == ["claim_diversity", "format", "reward"]
    (tmp_path / "log" / "scores.sqlite").unlink(missing_ok=True)
    rebuild(tmp_path / "log")  # the embedded store, from the segments alone
    with ScoreStore(tmp_path / "log", readonly=True) as embedded:
        assert embedded.series() == live
        assert embedded.samples("r", 1) == samples


def test_a_retried_batch_is_logged_once_and_an_id_is_bound_to_its_content(tmp_path, store_url):
    log = _log(tmp_path, store_url)
    assert log.append(*batch("a"), suite="s", suite_version="v", run="A", step=5, request="step-5") is True
    assert log.append(*batch("a"), suite="s", suite_version="v", run="A", step=5, request="step-5") is False
    assert log.append(*batch("b"), suite="s", suite_version="v", run="B", step=5, request="step-5") is True
    with pytest.raises(RequestConflict):
        log.append(*batch("c"), suite="s", suite_version="v", run="A", step=5, request="step-5")
    assert log.check_request("A", "step-5", batch_digest(batch("a")[0], suite="s", step=5)) is True
    log.close()
    restarted = _log(tmp_path, store_url)  # a retry reaching a restarted server
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="A", step=5, request="step-5") is False
    restarted.close()
    assert _ids(tmp_path) == Counter({f"{n}-{i}": 1 for n in "ab" for i in range(8)})
    with ScoreStore(tmp_path, url=store_url, readonly=True) as store:
        assert store.step_items("A", 5) == store.step_items("B", 5) == 8


def test_a_batch_torn_by_a_killed_writer_gets_only_its_missing_records_on_retry(tmp_path, store_url):
    log = _log(tmp_path, store_url)
    real_open = log._open
    log._open = lambda: FailingHandle(real_open(), room=5000)

    def write_then_die(handle, payload):
        handle.write(payload)
        raise KilledAfterWrite

    log._write_batch = write_then_die
    with pytest.raises(KilledAfterWrite):
        log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    assert 0 < len(_ids(tmp_path)) < 8
    restarted = _log(tmp_path, store_url)
    restarted.claim_wait_s = 0
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    assert restarted.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is False
    restarted.close()
    assert _ids(tmp_path) == Counter({f"a-{i}": 1 for i in range(8)})
    with ScoreStore(tmp_path, url=store_url, readonly=True) as store:
        assert store.step_items("r", 1) == 8


def test_a_retry_on_another_host_writes_nothing_and_concurrent_claims_log_a_batch_once(tmp_path, postgres):
    """Hosts that share only the database: a batch logged on one is not written again by a retry on another, and
    four hosts racing to log the same batch id write it once between them."""
    url = postgres.create_database()
    first, second = _log(tmp_path / "host-1", url), _log(tmp_path / "host-2", url)
    assert first.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    assert second.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is False
    hosts = [_log(tmp_path / f"race-{k}", url) for k in range(4)]
    outcomes: list[bool] = []
    barrier = threading.Barrier(len(hosts))

    def send(log: ScoreLog) -> None:
        barrier.wait()
        outcomes.append(log.append(*batch("b", size=64), suite="s", suite_version="v", run="r", step=2, request="req-b"))

    threads = [threading.Thread(target=send, args=(log,)) for log in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for log in (first, second, *hosts):
        log.close()
    folders = [tmp_path / name for name in ("host-1", "host-2", *(f"race-{k}" for k in range(4)))]
    assert sorted(outcomes) == [False, False, False, True]
    assert _ids(*folders) == Counter({**{f"a-{i}": 1 for i in range(8)}, **{f"b-{i}": 1 for i in range(64)}})
    with ScoreStore(tmp_path, url=url, readonly=True) as store:
        assert store.step_items("r", 1) == 8 and store.step_items("r", 2) == 64


def test_a_claim_left_by_a_dead_host_is_taken_over_and_a_late_writer_takes_its_copy_back(tmp_path, postgres):
    url = postgres.create_database()
    dead = _log(tmp_path / "dead", url, writer="dead")

    def die_before_writing(handle, payload):
        raise KilledAfterWrite

    dead._write_batch = die_before_writing
    with pytest.raises(KilledAfterWrite):  # claimed in the database, nothing written: the host is gone
        dead.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    other = _log(tmp_path / "other", url, writer="other")
    other.claim_wait_s = 0.2  # waits for the dead host's claim, then writes the batch itself
    assert other.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    # A host that claimed, stalled past the wait and wrote after the takeover: its copy is cut back out.
    slow = _log(tmp_path / "slow", url, writer="slow")
    slow.claim_wait_s = 0.2
    taken: list[bool] = []
    real_index = slow._index

    def stall_then_index(*args, **kwargs):
        taker = _log(tmp_path / "taker", url, writer="taker")
        taker.claim_wait_s = 0.2
        taken.append(taker.append(*batch("b"), suite="s", suite_version="v", run="r", step=2, request="req-b"))
        taker.close()
        return real_index(*args, **kwargs)

    slow._index = stall_then_index
    assert slow.append(*batch("b"), suite="s", suite_version="v", run="r", step=2, request="req-b") is False
    assert taken == [True]
    for log in (dead, other, slow):
        log.close()
    folders = [tmp_path / name for name in ("dead", "other", "slow", "taker")]
    assert _ids(*folders) == Counter({f"{n}-{i}": 1 for n in "ab" for i in range(8)})
    with ScoreStore(tmp_path, url=url, readonly=True) as store:
        assert store.step_items("r", 1) == store.step_items("r", 2) == 8


def test_the_database_going_away_keeps_nothing_of_a_batch_and_its_retry_logs_it_once(tmp_path):
    with postgres_server() as server:  # its own server: this test stops it
        url = server.create_database()
        log = _log(tmp_path, url)
        assert log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
        server.stop()
        for step, request in ((2, "req-b"), (2, "req-b"), (3, None)):  # with and without an id
            with pytest.raises(ScoreLogUnavailable) as down:
                log.append(*batch(f"b{step}"), suite="s", suite_version="v", run="r", step=step, request=request)
            assert url.split("?")[0].split("@")[1] in down.value.reason or "connect" in down.value.reason
        with pytest.raises(ScoreLogUnavailable):
            log.check_request("r", "req-b", batch_digest(batch("b2")[0], suite="s", step=2))
        assert log.probe() is not None
        # Nothing of the batch with an id (refused before scoring); the one without reached the disk before its update
        # failed and stays, unacknowledged, until the next batch asks the database whether it committed.
        assert _ids(tmp_path) == Counter({f"{n}-{i}": 1 for n in ("a", "b3") for i in range(8)})
        server.start()
        assert log.probe() is None
        assert log.append(*batch("b2"), suite="s", suite_version="v", run="r", step=2, request="req-b") is True
        assert log.append(*batch("b2"), suite="s", suite_version="v", run="r", step=2, request="req-b") is False
        log.close()
        assert _ids(tmp_path) == Counter({f"{n}-{i}": 1 for n in ("a", "b2") for i in range(8)})  # b3 cut back
        with ScoreStore(tmp_path, url=url, readonly=True) as store:
            assert store.step_items("r", 1) == store.step_items("r", 2) == 8 and store.step_items("r", 3) == 0


@pytest.mark.parametrize("committed", [False, True], ids=["rolled-back", "committed-then-disconnected"])
def test_a_store_update_lost_with_the_connection_is_settled_before_the_next_write(tmp_path, postgres, committed):
    """The database goes away after the batch is on this host's disk, before the writer knows whether its update
    committed: the request is refused (503) and the next batch asks the database first. Rolled back: the records
    are cut back out and the retry writes them once. Committed (the connection broke during COMMIT): the records
    stay and the retry writes nothing. Either way each item is in the log once and in the aggregates once."""
    url = postgres.create_database()
    log = _log(tmp_path, url)
    real_add = log._store.add_batch

    def lost(*args, **kwargs):
        if committed:
            real_add(*args, **kwargs)
        raise StoreUnavailable("server closed the connection unexpectedly")

    log._store.add_batch = lost
    with pytest.raises(ScoreLogUnavailable, match="closed the connection"):
        log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a")
    log._store.add_batch = real_add
    assert log.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is not committed
    assert log.append(*batch("b"), suite="s", suite_version="v", run="r", step=2, request="req-b") is True
    log.close()
    assert _ids(tmp_path) == Counter({f"{n}-{i}": 1 for n in "ab" for i in range(8)})
    with ScoreStore(tmp_path, url=url, readonly=True) as store:
        assert store.step_items("r", 1) == store.step_items("r", 2) == 8


def test_a_store_url_that_is_not_a_database_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"mysql://reward:\*\*\*@db/x.*postgresql://"):
        ScoreStore(tmp_path, url="mysql://reward:secret@db/x")


def _killed_after_write(folder, url, name: str, request: str) -> ScoreLog:
    """A writer that dies after its batch is on disk and before the database holds it (its segment lock goes with
    it, as with a process's)."""
    dead = _log(folder, url, writer=name)

    def killed(*args, **kwargs):
        raise KilledAfterWrite

    dead._index = killed
    with pytest.raises(KilledAfterWrite):
        dead.append(*batch(request), suite="s", suite_version="v", run="r", step=1, request=request)
    dead._handle.close()
    return dead


def test_a_restarted_node_indexes_a_dead_writers_batch_whose_claim_stands_and_cuts_one_logged_elsewhere(tmp_path,
                                                                                                        postgres):
    url = postgres.create_database()
    _killed_after_write(tmp_path / "node-1", url, "dead-1", "a")  # nobody retried it yet
    _killed_after_write(tmp_path / "node-2", url, "dead-2", "b")
    elsewhere = _log(tmp_path / "node-3", url, writer="other")  # b's retry, on a host that cannot read node-2's disk
    elsewhere.claim_wait_s = 0.1
    assert elsewhere.append(*batch("b"), suite="s", suite_version="v", run="r", step=1, request="b") is True
    assert _ids(tmp_path / "node-2")["b-0"] == 1  # the dead writer's copy, never acknowledged
    for node in ("node-1", "node-2"):  # each node starts again on its own folder
        _log(tmp_path / node, url, writer=f"{node}-restarted").close()
    assert elsewhere.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="a") is False
    elsewhere.close()
    folders = [tmp_path / n for n in ("node-1", "node-2", "node-3")]
    assert _ids(*folders) == Counter({f"{n}-{i}": 1 for n in "ab" for i in range(8)})
    assert _ids(tmp_path / "node-2") == Counter()
    with ScoreStore(tmp_path, url=url, readonly=True) as store:
        assert store.step_items("r", 1) == 16


def test_the_dashboard_on_any_host_reads_every_hosts_aggregates_from_the_database(tmp_path, postgres, monkeypatch):
    """A log folder whose writers use PostgreSQL names the database (without its password); the dashboard opened on
    one host's folder charts the steps every host logged, builds no SQLite index of that host's segments alone,
    and its drill-down skips the batches whose segments sit on another host's disk."""
    from reward.dashboard.data import UnknownStep, drilldown, page_data, store_version
    from reward.scorelog.store import STORE_NAME, STORE_URL_NAME, without_password

    monkeypatch.delenv("REWARD_SCORE_STORE", raising=False)
    url = postgres.create_database()
    first, second = _log(tmp_path / "host-1", url), _log(tmp_path / "host-2", url)
    assert first.append(*batch("a"), suite="s", suite_version="v", run="r", step=1, request="req-a") is True
    before = store_version([tmp_path / "host-1"])
    assert second.append(*batch("b", size=16), suite="s", suite_version="v", run="r", step=2, request="req-b") is True
    assert store_version([tmp_path / "host-1"]) != before  # the page cache sees the other host's write
    first.close()
    second.close()
    named = (tmp_path / "host-1" / STORE_URL_NAME).read_text().strip()
    assert named == without_password(url) and ":" not in named.split("@")[0].split("//")[1]
    data, where = page_data([tmp_path / "host-1"])
    run = data["runs"]["r"]
    assert run["steps"] == [1, 2] and run["items"] == [8, 16]
    assert where["r"] == (tmp_path / "host-1", "r")
    assert not (tmp_path / "host-1" / STORE_NAME).exists()
    mine = drilldown(tmp_path / "host-1", "r", 1)
    assert {item["id"] for item in mine["items"]} <= {f"a-{i}" for i in range(8)} and mine["items"]
    with pytest.raises(UnknownStep, match="the node that logged it holds it"):
        drilldown(tmp_path / "host-1", "r", 2)  # logged by host-2: its lines are not on this disk
    assert {item["id"] for item in drilldown(tmp_path / "host-2", "r", 2)["items"]} <= {f"b-{i}" for i in range(16)}
    # A reader whose folder no writer used names the database itself.
    monkeypatch.setenv("REWARD_SCORE_STORE", url)
    (tmp_path / "reader").mkdir()
    assert page_data([tmp_path / "reader"])[0]["runs"]["r"]["steps"] == [1, 2]
    # `reward log reindex` would index one node's segments into a SQLite file nobody reads: refused, naming why.
    import argparse

    from reward.cli.logs import reindex_command

    monkeypatch.delenv("REWARD_SCORE_STORE")
    with pytest.raises(ValueError, match="PostgreSQL store postgresql://.*this node's segments alone"):
        reindex_command(argparse.Namespace(folder=str(tmp_path / "host-2")))

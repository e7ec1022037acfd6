"""Small requests first: a small request takes an express chunk slot when every slot is busy (a large one never
does), a scorer plans a large chunk's rules in turns with the event loop free between them (and scores it exactly
as in one go), and the ingress keeps a large request's parsing and serialisation off its event loop."""

from __future__ import annotations

import asyncio
import threading

from reward.engine import Engine
from reward.judges.factory import make_judge
from reward.rubric import load_suite
from reward.schema import Item
from reward.serve.chunks import FairShare, off_loop, vectors_in_turns
from tests.support import FIXTURE_RUBRICS


def test_a_small_request_takes_an_express_slot_while_every_slot_holds_a_large_chunk():
    async def scenario():
        share, order = FairShare(2, express=1), []
        release = asyncio.Event()

        async def chunk(name: str, wait: bool = True):
            order.append(f"{name} start")
            if wait:
                await release.wait()
            order.append(f"{name} end")

        large = [asyncio.ensure_future(share.run("large", lambda n=n: chunk(f"large{n}"))) for n in range(4)]
        other = asyncio.ensure_future(share.run("other-large", lambda: chunk("other")))
        await asyncio.sleep(0.01)
        assert (share.busy, share.express_busy) == (2, 0)  # the two slots hold large chunks; the rest wait
        first = asyncio.ensure_future(share.run("probe-1", lambda: chunk("probe1", wait=False), small=True))
        second = asyncio.ensure_future(share.run("probe-2", lambda: chunk("probe2"), small=True))
        await asyncio.sleep(0.01)
        assert "probe1 end" in order and "other start" not in order  # answered before any large chunk finished
        assert "probe2 start" in order and share.express_busy == 1  # the express slot, held by the second probe
        third = asyncio.ensure_future(share.run("probe-3", lambda: chunk("probe3", wait=False), small=True))
        await asyncio.sleep(0.01)
        assert "probe3 start" not in order  # express slots are bounded: it waits for the next free slot
        release.set()
        await asyncio.gather(*large, other, first, second, third)
        assert (share.busy, share.express_busy) == (0, 0)
        return order

    order = asyncio.run(scenario())
    # When a large chunk finishes, the waiting probe goes before the other request (both have had no chunk yet).
    assert order.index("probe3 start") < order.index("other start")


def test_a_scorer_plans_a_large_chunk_in_turns_and_scores_it_as_in_one_go():
    engine = Engine(load_suite("mini", FIXTURE_RUBRICS), make_judge("mock"))
    items = [Item(id=str(i), group=f"g{i // 5}", query="q", response=f"<answer>r{i} [1]</answer>",
                  evidence=[{"id": "1", "title": "t", "text": f"evidence {i // 5}"}]) for i in range(40)]
    assert asyncio.run(vectors_in_turns(engine, items, 10)) == asyncio.run(engine.vectors(items))

    class Planner:
        """A stand-in engine whose planning is synchronous, as the engine's rule pass is."""

        def __init__(self, log: list):
            self.log = log

        async def vectors(self, part):
            self.log.append(f"plan {part[0].id}")
            await asyncio.sleep(0)
            return [{"id": item.id} for item in part]

    async def scenario():
        log: list[str] = []

        async def small():
            await asyncio.sleep(0)
            log.append("small")

        large = asyncio.ensure_future(vectors_in_turns(Planner(log), items, 10))
        await asyncio.sleep(0)
        await small()
        vectors = await large
        assert [v["id"] for v in vectors] == [item.id for item in items]  # in the chunk's order
        return log

    log = asyncio.run(scenario())
    plans = [entry for entry in log if entry.startswith("plan")]
    assert len(plans) == 4 and log.index("small") < log.index(plans[-1])  # between turns, not after all of them


def test_a_large_requests_work_runs_off_the_event_loop_and_a_small_ones_on_it():
    async def scenario():
        loop_thread = threading.get_ident()
        large = await off_loop(True, threading.get_ident)
        small = await off_loop(False, threading.get_ident)
        return loop_thread, large, small

    loop_thread, large, small = asyncio.run(scenario())
    assert large != loop_thread and small == loop_thread


def test_small_batches_are_written_by_a_writer_of_their_own_and_stay_exactly_once(tmp_path):
    from collections import Counter

    from reward.scorelog import ScoreLog, read_log, segments
    from tests.test_scorelog_durability import batch

    log = ScoreLog(tmp_path, writer="w", small_items=4)
    big_writer_busy = log._lock  # a large batch's write in progress holds the large batches' lock
    with big_writer_busy.for_size(1000):
        assert log.append(*batch("s", size=2), suite="s", suite_version="v", run="r", step=1, request="s") is True
    assert log.append(*batch("s", size=2), suite="s", suite_version="v", run="r", step=1, request="s") is False
    assert log.append(*batch("l", size=8), suite="s", suite_version="v", run="r", step=2, request="l") is True
    log.close()
    assert sorted(p.name.split("-")[-2] for p in segments(tmp_path)) == ["small", "w"]
    assert Counter(r.result.id for r in read_log(tmp_path)) == Counter(
        {**{f"s-{i}": 1 for i in range(2)}, **{f"l-{i}": 1 for i in range(8)}})


def test_a_small_batchs_store_update_queues_on_the_writers_store_lock_ahead_of_large_ones(tmp_path, monkeypatch):
    """The small batches' writer shares the store's write lock with the large batches' writer, so a 1-item batch
    whose update meets a large batch's in progress waits in that lock, first in line, and updates the store as soon
    as the large one is done; not in the database's own lock, which SQLite takes by polling with sleeps of up to
    100 ms while the large batches' writer hands it from one batch to the next."""
    import time

    from reward.scorelog import ScoreLog
    from reward.scorelog.store import ScoreStore
    from tests.test_scorelog_durability import batch

    order: list[int] = []
    entered, release = threading.Event(), threading.Event()
    add_batch = ScoreStore.add_batch

    def slow_add_batch(self, results, **kwargs):
        order.append(len(results))
        if len(results) > 4 and not entered.is_set():
            entered.set()
            release.wait(10)  # the large batch's update holds the store
        return add_batch(self, results, **kwargs)

    monkeypatch.setattr(ScoreStore, "add_batch", slow_add_batch)
    log = ScoreLog(tmp_path, writer="w", small_items=4)
    large = threading.Thread(target=log.append, args=batch("l", size=8),
                             kwargs={"suite": "s", "suite_version": "v", "run": "r", "step": 1})
    large.start()
    assert entered.wait(10)
    small = threading.Thread(target=log.append, args=batch("s", size=1),
                             kwargs={"suite": "s", "suite_version": "v", "run": "r", "step": 2})
    small.start()
    lock = log._store_lock
    deadline = time.monotonic() + 10
    while not lock._waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    assert log._small_lane()._store_lock is lock and lock.held and [size for size, _ in lock._waiting] == [1]
    release.set()
    large.join(10)
    small.join(10)
    assert order == [8, 1]
    log.close()


class RecordingHandle:
    """A scoring replica called in-process, as a DeploymentHandle would be; records the chunk sizes it got."""

    def __init__(self, scorer):
        self.sizes: list[int] = []
        handle = self

        class _Method:
            def __init__(self, name):
                self.name = name

            async def remote(self, suite, payload):
                handle.sizes.append(len(payload))
                return await getattr(scorer, self.name)(suite, payload)

        self.score, self.score_vectors = _Method("score"), _Method("score_vectors")


def test_small_requests_go_to_the_express_scorers_and_large_ones_never_do(tmp_path, monkeypatch):
    from collections import Counter

    from reward.scorelog import read_log
    from reward.serve import Ingress, Limits, Scorer, ServerArgs
    from tests.support import TOKEN, make_item
    from tests.test_hot_reload import reply, request

    monkeypatch.setenv("REWARD_TEST_TOKEN", TOKEN)
    args = ServerArgs(suites=["mini"], rubrics=str(FIXTURE_RUBRICS), judge="mock", score_log=str(tmp_path / "scores"),
                      token_env="REWARD_TEST_TOKEN", express_scorers=1, limits=Limits(small_items=2, chunk_items=4))
    shared, express = RecordingHandle(Scorer.func_or_class(args)), RecordingHandle(Scorer.func_or_class(args))
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(shared, args, express))

    def score(prefix: str, n: int):
        items = [make_item(f"{prefix}{k}", "Skibidi streams on Spotify [1].", group=f"{prefix}{k // 2}")
                 .model_dump(mode="json") for k in range(n)]
        return asyncio.run(ingress.score(request("POST", "/v1/score", {"suite": "mini", "items": items})))

    small, large = score("s", 2), score("l", 8)
    assert small.status_code == large.status_code == 200
    assert len(reply(small)["results"]) == 2 and len(reply(large)["results"]) == 8
    assert express.sizes == [2] and shared.sizes == [4, 4]
    ingress.log.close()
    assert Counter(r.result.id[0] for r in read_log(tmp_path / "scores")) == Counter({"s": 2, "l": 8})


def test_scorer_nice_lowers_the_shared_scorers_cpu_priority_and_never_the_express_ones(tmp_path):
    """`scorer_nice` renices a shared scorer's process (a Serve replica is a process of its own), and leaves an
    express scorer's alone, so a small request's scorer runs first when large batches saturate the CPU."""
    import subprocess
    import sys
    from pathlib import Path

    script = """
import os, sys
from reward.serve import ServerArgs
from reward.serve.app import Scorer
args = ServerArgs(judge="mock", rubrics=sys.argv[1], suites=["mini"], scorer_nice=7)
before = os.nice(0)
Scorer.func_or_class(args, express=sys.argv[2] == "express")
print(os.nice(0) - before)
"""
    root = Path(__file__).parents[1]
    for lane, expected in (("shared", "7"), ("express", "0")):
        done = subprocess.run([sys.executable, "-c", script, str(FIXTURE_RUBRICS), lane], capture_output=True,
                              text=True, cwd=root, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] == expected

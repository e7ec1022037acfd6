"""How long one logged batch holds the score store's write lock, on SQLite and on PostgreSQL.

Every writer of a store takes its write lock for each batch's update (SQLite's file lock; with PostgreSQL, one
advisory lock that every node's writers share), so the time a batch holds it bounds what all the writers together
can log: at most 1 / hold batches per second, whatever the number of nodes. This times `ScoreStore.add_batch` on
GRPO-shaped batches (1,024 items, groups of 16, 20 dimensions, scored by the mock judge) and, inside it, the write
transaction alone.

    .venv/bin/python benchmarks/store_write.py --batches 30 [--postgres]

`--postgres` starts a throwaway PostgreSQL server (Debian's package, as the tests do) and writes to it over a Unix
socket. Run it from a checkout of each version compared (a git worktree); the harness is the same.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reward.engine import Engine  # noqa: E402
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402
from reward.scorelog.store import ScoreStore  # noqa: E402


def batch_results(size: int, tag: str):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fairness import batch

    items = [Item.model_validate(i) for i in batch(tag, size)]
    return Engine(load_suite("searchllm"), make_judge("mock")).score_sync(items)


def measure(store: ScoreStore, results, batches: int, stepped: bool) -> dict:
    held: list[float] = []
    transaction = store.db.transaction

    @contextlib.contextmanager
    def timed():
        with transaction():
            started = time.perf_counter()
            try:
                yield
            finally:
                held.append(time.perf_counter() - started)

    store.db.transaction = timed
    whole = []
    now = dt.datetime.now(dt.UTC)
    lines = list(range(len(results)))
    for n in range(batches):
        started = time.perf_counter()
        store.add_batch(results, suite="searchllm", run="bench", step=n if stepped else None, time=now,
                        segment=f"seg-{n}", offset=0, length=1, lines=lines)
        whole.append(time.perf_counter() - started)
    store.db.transaction = transaction
    return {"batches": batches, "add_batch_ms_median": round(1000 * statistics.median(whole), 1),
            "lock_held_ms_median": round(1000 * statistics.median(held), 1),
            "lock_held_ms_max": round(1000 * max(held), 1),
            "batches_per_s_through_the_lock": round(1 / statistics.median(held), 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--items", type=int, default=1024)
    parser.add_argument("--postgres", action="store_true", help="write to a throwaway PostgreSQL server")
    parser.add_argument("--code", default="this checkout", help="what code runs (for the record)")
    args = parser.parse_args(argv)
    results = batch_results(args.items, "store")
    report = {"benchmark": "store_write", "code": args.code, "items_per_batch": args.items,
              "machine": f"{platform.machine()}, Python {platform.python_version()}"}
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        url = None
        if args.postgres:
            import importlib.util

            # The tests' throwaway cluster, loaded by path (a `tests` package of another distribution can shadow it).
            spec = importlib.util.spec_from_file_location("store_test_postgres", ROOT / "tests" / "postgres.py")
            postgres = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(postgres)
            url = stack.enter_context(postgres.postgres_server()).create_database()
        report["backend"] = "postgresql" if url else "sqlite"
        for stepped in (True, False):
            with ScoreStore(Path(folder) / ("stepped" if stepped else "unstepped"), url=url) as store:
                measure(store, results, 3, stepped)  # warm: the run's rows exist
                report["stepped" if stepped else "unstepped"] = measure(store, results, args.batches, stepped)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

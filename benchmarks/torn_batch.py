"""Kill -9 a score-log writer in the middle of a 1,024-item batch, rebuild the store (`reward log reindex`), retry
the batch, and count: every acknowledged item must be in the log exactly once, none missing.

    .venv/bin/python benchmarks/torn_batch.py --tries 20

The writer is a separate process appending one batch with a `request_id` (large items, so its one write takes long
enough to be cut); the harness kills it as soon as the segment grows, and keeps the first try that left a torn
batch (some but not all of its records). The retry is what the server does with the client's retry of that batch.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.schema import DimensionScore, Item, ItemResult  # noqa: E402
from reward.scorelog import ScoreLog, read_log, segments  # noqa: E402

WRITER = """
import sys
sys.path.insert(0, {root!r})
from benchmarks.torn_batch import batch
from reward.scorelog import ScoreLog
log = ScoreLog(sys.argv[1], writer="killed")
log.append(*batch(int(sys.argv[2])), suite="searchllm", suite_version="v", run="torn", step=7, request="step-7")
"""


def batch(size: int) -> tuple[list[Item], list[ItemResult]]:
    items = [Item(id=f"t-{i}", group=f"g{i // 16}", query="q", response=f"answer {i} " + "x" * 60_000)
             for i in range(size)]
    results = [ItemResult(id=item.id, reward=0.5, valid=True,
                          dimensions={"format": DimensionScore(score=0.5, layer="bottom_line", backend="rule")})
               for item in items]
    return items, results


def torn_once(folder: Path, size: int) -> int:
    """Run the writer and kill it once its batch is on the way; returns how many of its records reached the log."""
    writer = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT)), str(folder), str(size)])
    try:
        while writer.poll() is None and not any(p.stat().st_size > 0 for p in segments(folder)):
            time.sleep(0.0005)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    return sum(1 for _ in read_log(folder))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1024)
    parser.add_argument("--tries", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for attempt in range(1, args.tries + 1):
            folder = Path(scratch) / f"try{attempt}"
            folder.mkdir()
            before = torn_once(folder, args.items)
            if 0 < before < args.items:
                break
        else:
            raise SystemExit(f"no try of {args.tries} left a torn batch; run again")
        reindex = subprocess.run([sys.executable, "-m", "reward.cli", "log", "reindex", str(folder)], cwd=ROOT,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        retry = ScoreLog(folder, writer="retry")
        retry.claim_wait_s = 0  # the killed writer is gone
        items, results = batch(args.items)
        wrote = retry.append(items, results, suite="searchllm", suite_version="v", run="torn", step=7, request="step-7")
        again = retry.append(items, results, suite="searchllm", suite_version="v", run="torn", step=7,
                             request="step-7")
        retry.close()
        logged = Counter(r.result.id for r in read_log(folder))
        acknowledged = {item.id for item in items}
    print(json.dumps({
        "benchmark": "torn_batch", "tries": attempt, "batch_items": args.items,
        "records_left_by_the_killed_writer": before,
        "reindex_says": (reindex.stdout + reindex.stderr).strip().replace("\n", " "),
        "retry_wrote": wrote, "second_retry_wrote": again,
        "acknowledged": len(acknowledged), "logged": sum(logged[i] for i in acknowledged),
        "missing": len(acknowledged - set(logged)), "duplicated": sum(1 for n in logged.values() if n > 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }, indent=2))


if __name__ == "__main__":
    main()

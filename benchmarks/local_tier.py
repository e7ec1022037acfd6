"""Local judge tier throughput: items per second for the full searchllm suite on this machine's cores, on GRPO-
shaped batches (16 rollouts per prompt sharing their evidence), with the model's load time and peak memory.

    .venv/bin/python benchmarks/local_tier.py --groups 8 --rollouts 16
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.engine import Engine  # noqa: E402
from reward.judges.local import LocalJudge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402


def grpo_batch(groups: int, rollouts: int) -> list[Item]:
    examples = [Item.model_validate_json(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    by_query: dict[str, list[Item]] = {}
    for example in examples:
        by_query.setdefault(example.query, []).append(example)
    pools = list(by_query.values())
    items = []
    for g in range(groups):
        pool = pools[g % len(pools)]
        for r in range(rollouts):
            source = pool[r % len(pool)]
            # Rollouts differ in wording; identical ones would only measure the cache.
            response = source.response.replace("</answer>", f" (variant {g}-{r}).\n</answer>")
            items.append(source.model_copy(update={"id": f"g{g}-r{r}", "group": f"g{g}", "response": response}))
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=16)
    args = parser.parse_args()
    judge = LocalJudge()
    started = time.perf_counter()
    judge.embedder.model()
    judge.scorer.model()  # the claim-consistency cross-encoder (int8)
    load_s = time.perf_counter() - started
    suite = load_suite("searchllm")
    engine = Engine(suite, judge)
    items = grpo_batch(args.groups, args.rollouts)
    started = time.perf_counter()
    engine.score_sync(items)
    cold = time.perf_counter() - started
    again = grpo_batch(args.groups, args.rollouts)
    again = [i.model_copy(update={"response": i.response.replace("variant", "version")}) for i in again]
    started = time.perf_counter()
    engine.score_sync(again)
    warm = time.perf_counter() - started
    print(json.dumps({
        "benchmark": "local_tier", "suite": "searchllm", "items": len(items), "groups": args.groups,
        "model_load_s": round(load_s, 2),
        "items_per_s_new_evidence": round(len(items) / cold, 2),
        "items_per_s_evidence_cached": round(len(again) / warm, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "torch_threads": __import__("torch").get_num_threads(),
        "load_average_1min": round(os.getloadavg()[0], 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }, indent=2))


if __name__ == "__main__":
    main()

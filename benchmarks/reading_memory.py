"""Memory the local tier's cached readings hold over a long run of new evidence: one process scores N items of
interactions it has not seen (the generalization corpus's fit parts, each evidence text repeated `--grow` times, as
pages of evidence are, and tagged so no two interactions share a text), four responses per interaction in one batch,
and reports its RSS every `--every` items. At the end it reports what the by-content store holds
(`reward.memo.held_bytes`) and how much RSS clearing every per-text `functools.lru_cache` gives back: the memory
held by readings outside the store's budget.

    .venv/bin/python benchmarks/reading_memory.py --items 4000 --grow 12 --out benchmarks/results/reading_memory.json

Run it from a checkout (the code scored is the checkout's own); compare two commits by running it in each.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generalization import load  # noqa: E402
from reward import memo  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402

CORPORA = [("data/generalization", "fit"), ("data/generalization/fresh", "fit"),
           ("data/generalization/writers", "fit"), ("data/generalization/written", "fit")]


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=4000)
    parser.add_argument("--grow", type=int, default=12, help="times each evidence text is repeated")
    parser.add_argument("--every", type=int, default=400, help="items between two RSS samples")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    interactions = [i for corpus, split in CORPORA for i in load(ROOT / corpus, split)]
    engine = Engine(load_suite("searchllm"), make_judge("local"))
    samples, done, k, started, next_sample = [], 0, 0, time.perf_counter(), args.every
    while done < args.items:
        interaction = interactions[k % len(interactions)]
        k += 1
        tag = f" Ref {k:05d}."
        batch = []
        for response in interaction.responses[:4]:
            item = interaction.item(response)
            evidence = [e.model_copy(update={"text": " ".join([e.text] * args.grow) + tag}) for e in item.evidence]
            batch.append(item.model_copy(update={"evidence": evidence, "query": item.query + tag}))
        engine.score_sync(batch)
        done += len(batch)
        if done >= next_sample:
            samples.append({"items": done, "seconds": round(time.perf_counter() - started, 1), "rss_mb": round(rss_mb())})
            print(json.dumps(samples[-1]), flush=True)
            next_sample += args.every
    before = rss_mb()
    caches = [o for o in gc.get_objects() if type(o).__name__ == "_lru_cache_wrapper"]
    largest = sorted(((c.cache_info().currsize, f"{c.__module__}.{c.__qualname__}") for c in caches), reverse=True)[:10]
    for cache in caches:
        cache.cache_clear()
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    report = {"benchmark": "reading_memory", "command": " ".join(["benchmarks/reading_memory.py", *sys.argv[1:]]),
              "machine": platform.platform(), "date": time.strftime("%Y-%m-%d"), "items": done, "grow": args.grow,
              "samples": samples, "store_held_mb": round(memo.held_bytes() / 2**20, 1),
              "store_budget_mb": round(memo.BUDGET_BYTES / 2**20), "rss_before_clearing_mb": round(before),
              "rss_after_clearing_lru_caches_mb": round(rss_mb()),
              "largest_lru_caches": [{"entries": n, "cache": name} for n, name in largest]}
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Batch invariance of the local tier: the same item gets the same dimension vector whatever it is scored with.

Scores a fixed sample of the generalization corpus's fit split (public-data interactions, every labelled response an
item) with suite `searchllm` several ways, each with fresh caches (a new judge and engine; the models are loaded
once): every item alone, in shuffled batches of 7, all in one shuffled batch, and optionally through a running reward
server. Every way must give every item the same reward and the same score, status and reason on every dimension, bit
for bit; the report lists any item that differs. With `--compare-runtimes`, the same items are scored alone on each
runtime (one process each) and the drift between runtimes is reported per dimension.

    .venv/bin/python benchmarks/batch_invariance.py --interactions 45 --out benchmarks/results/batch_invariance_onnx.json
    REWARD_LOCAL_RUNTIME=torch-bf16 .venv/bin/python benchmarks/batch_invariance.py --interactions 45 \
        --out benchmarks/results/batch_invariance_torch-bf16.json
    .venv/bin/python benchmarks/batch_invariance.py --interactions 45 --compare-runtimes onnx,torch-bf16,onnx-int8-all,bf16-int8-embedder \
        --out benchmarks/results/runtime_drift.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "data" / "generalization" / "fit.jsonl"


def corpus_items(interactions: int, path: Path = CORPUS) -> list:
    """Every labelled response of a fixed sample of `interactions` interactions, as items."""
    from reward.evaluation.corpus import read_corpus, sample_interactions

    chosen = sample_interactions(read_corpus(path, split="fit"), interactions)
    return [interaction.item(response) for interaction in chosen for response in interaction.responses]


def vector(result) -> dict:
    """What must not move: the reward and every dimension's score, status and reason."""
    return {"reward": result.reward, "valid": result.valid,
            **{name: (d.score, d.status, d.reason) for name, d in sorted(result.dimensions.items())}}


def score_in_batches(items: list, batch: int | None, seed: int, suite: str = "searchllm") -> dict[str, dict]:
    """Vectors of `items` scored in shuffled batches of `batch` items (None: one batch), with fresh caches."""
    from reward.engine import Engine
    from reward.judges.local import LocalJudge
    from reward.rubric import load_suite

    order = list(items)
    random.Random(seed).shuffle(order)
    size = batch or len(order)
    engine = Engine(load_suite(suite), LocalJudge())

    async def run() -> list:
        out = []
        for start in range(0, len(order), size):
            out += await engine.score(order[start:start + size])
        return out

    return {result.id: vector(result) for result in asyncio.run(run())}


def score_through_server(items: list, url: str, token: str | None, batch: int = 16, suite: str = "searchllm") -> dict:
    import httpx

    from reward.schema import ItemResult

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out = {}
    with httpx.Client(timeout=600) as client:
        for start in range(0, len(items), batch):
            body = {"suite": suite, "items": [i.model_dump(mode="json") for i in items[start:start + batch]]}
            reply = client.post(f"{url}/v1/score", json=body, headers=headers)
            reply.raise_for_status()
            out.update({r["id"]: vector(ItemResult.model_validate(r)) for r in reply.json()["results"]})
    return out


def differences(reference: dict[str, dict], other: dict[str, dict]) -> list[dict]:
    """Every (item, field) whose value differs, with both values."""
    found = []
    for item_id, expected in reference.items():
        got = other.get(item_id)
        if got is None:
            found.append({"id": item_id, "field": "(missing)"})
            continue
        found += [{"id": item_id, "field": k, "alone": expected[k], "other": got.get(k)} for k in expected
                  if expected[k] != got.get(k)]
    return found


def invariance(items: list, batches: tuple[int | None, ...] = (7, None), seed: int = 0,
               server: str | None = None, token: str | None = None) -> dict:
    """Score `items` alone, then in each batching (and through `server`); the differences from alone."""
    timings = {}
    start = time.perf_counter()
    alone = score_in_batches(items, 1, seed)
    timings["alone"] = time.perf_counter() - start
    report = {"items": len(items), "ways": {}}
    for batch in batches:
        name = f"batches of {batch}" if batch else "one batch"
        start = time.perf_counter()
        report["ways"][name] = differences(alone, score_in_batches(items, batch, seed + 1))
        timings[name] = time.perf_counter() - start
    if server:
        report["ways"]["server"] = differences(alone, score_through_server(items, server, token))
    report["seconds"] = {k: round(v, 1) for k, v in timings.items()}
    report["identical"] = not any(report["ways"].values())
    return report


def runtime_drift(interactions: int, runtimes: list[str]) -> dict:
    """Each runtime's vectors (one fresh process each, the items of `interactions` interactions scored alone) against
    the first runtime's, per dimension."""
    vectors = {}
    for runtime in runtimes:
        env = {**os.environ, "REWARD_LOCAL_RUNTIME": runtime}
        done = subprocess.run([sys.executable, __file__, "--interactions", str(interactions), "--dump"],
                              env=env, capture_output=True, text=True, check=True)
        vectors[runtime] = json.loads(done.stdout)
    reference, out = vectors[runtimes[0]], {}
    for runtime in runtimes[1:]:
        per: dict[str, list[float]] = {}
        status = 0
        for item_id, expected in reference.items():
            got = vectors[runtime][item_id]
            for key, value in expected.items():
                if key == "valid":
                    continue
                a = value if key == "reward" else value[0]
                b = got[key] if key == "reward" else got[key][0]
                if (a is None) != (b is None):
                    status += 1
                elif a is not None:
                    per.setdefault(key, []).append(abs(a - b))
        out[runtime] = {"against": runtimes[0], "status_changes": status,
                        "dimensions": {k: {"max_abs": float(f"{max(v):.3g}"), "mean_abs": float(f"{sum(v) / len(v):.3g}"),
                                           "moved": sum(1 for x in v if x > 0), "moved_over_0.01": sum(1 for x in v if x > 0.01)}
                                       for k, v in sorted(per.items())}}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=45, help="interactions sampled from the fit split")
    parser.add_argument("--server", help="also score through this reward server (its URL)")
    parser.add_argument("--compare-runtimes", help="comma-separated runtimes: drift between them, items alone")
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out")
    args = parser.parse_args()
    items = corpus_items(args.interactions)
    if args.dump:
        print(json.dumps(score_in_batches(items, 1, 0)))
        return 0
    if args.compare_runtimes:
        report = {"items": len(items), "drift": runtime_drift(args.interactions, args.compare_runtimes.split(","))}
    else:
        from reward.judges.local_runtime import runtime_setting

        report = {"runtime": runtime_setting(), **invariance(items, server=args.server,
                                                              token=os.environ.get("REWARD_SERVER_TOKEN"))}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if report.get("identical", True) else 1


if __name__ == "__main__":
    sys.exit(main())

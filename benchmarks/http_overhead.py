"""HTTP overhead of `/v1/score` per item against calling the engine in process, in one run (mock judge with no
latency, so the overhead dominates). Starts the real Ray Serve app on loopback.

    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/http_overhead.py --batch 64 --requests 40'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.engine import Engine  # noqa: E402
from reward.judges.mock import ScriptedJudge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402
from reward.serve import ServerArgs  # noqa: E402
from reward.serve.runner import start_server, stop_server  # noqa: E402


def batches(size: int, count: int) -> list[list[dict]]:
    examples = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    out = []
    for b in range(count):
        # Distinct responses per request so neither side is served from its cache.
        out.append([{**examples[i % len(examples)], "id": f"b{b}-{i}", "group": f"b{b}-g{i // 16}",
                     "response": examples[i % len(examples)]["response"] + f"\n<!-- {b}-{i} -->"} for i in range(size)])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--port", type=int, default=8792)
    args = parser.parse_args()
    suite = load_suite("searchllm")
    work = batches(args.batch, args.requests)
    engine = Engine(suite, ScriptedJudge())
    direct = []
    for batch in work:
        items = [Item.model_validate(i) for i in batch]
        started = time.perf_counter()
        asyncio.run(engine.score(items))
        direct.append((time.perf_counter() - started) / len(batch))
    with tempfile.TemporaryDirectory() as log_dir:
        url = start_server(ServerArgs(judge="mock", score_log=log_dir), port=args.port)
        try:
            client = httpx.Client(timeout=120)
            client.post(f"{url}/v1/score", json={"items": batches(args.batch, 1)[0]}).raise_for_status()  # warm up
            over_http = []
            for batch in work:
                batch = [{**i, "id": "h" + i["id"], "response": i["response"] + " "} for i in batch]
                started = time.perf_counter()
                client.post(f"{url}/v1/score", json={"items": batch}).raise_for_status()
                over_http.append((time.perf_counter() - started) / len(batch))
        finally:
            stop_server()
    ms = lambda values, q: round(float(np.percentile(values, q)) * 1000, 3)  # noqa: E731
    overhead = [h - d for h, d in zip(over_http, direct, strict=True)]
    print(json.dumps({
        "benchmark": "http_overhead", "batch_items": args.batch, "requests": args.requests,
        "engine_ms_per_item": {"p50": ms(direct, 50), "p99": ms(direct, 99)},
        "http_ms_per_item": {"p50": ms(over_http, 50), "p99": ms(over_http, 99)},
        "overhead_ms_per_item": {"p50": ms(overhead, 50), "p99": ms(overhead, 99), "mean": round(statistics.mean(overhead) * 1000, 3)},
        "note": "HTTP side includes JSON (de)serialisation, Ray Serve routing, the Scorer hop and the fsynced score log",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }, indent=2))


if __name__ == "__main__":
    main()

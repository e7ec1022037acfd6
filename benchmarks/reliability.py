"""Sustained load against the local server, with a scoring replica killed mid-load.

Reports items/s, request latency p50/p99, the server processes' memory over time, errors, and checks that every
accepted item is in the score log exactly once. Bounded in time; loopback only.

    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/reliability.py --seconds 120 --kill-at 40'
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.scorelog import read_log  # noqa: E402
from reward.serve import Limits, ServerArgs  # noqa: E402
from reward.serve.runner import start_server, stop_server  # noqa: E402


def ray_rss_mib() -> float:
    total = 0
    for proc in psutil.process_iter(["name", "cmdline", "memory_info"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if "ray::" in cmd or "ServeReplica" in cmd or "ProxyActor" in cmd or "ServeController" in cmd:
            total += proc.info["memory_info"].rss
    return round(total / 2**20, 1)


def kill_a_scorer() -> str:
    import ray

    for actor in ray.util.list_named_actors(all_namespaces=True):
        if "Scorer" in actor["name"]:
            ray.kill(ray.get_actor(actor["name"], namespace=actor["namespace"]), no_restart=True)
            return actor["name"]
    return "no scorer replica found"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--kill-at", type=int, default=40, help="kill a Scorer replica after this many seconds (0: never)")
    parser.add_argument("--port", type=int, default=8793)
    args = parser.parse_args()
    examples = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as log_dir:
        url = start_server(ServerArgs(judge="mock", score_log=log_dir, scorer_replicas=2, scorer_cpus=0.5,
                                      limits=Limits(chunk_items=8, chunk_retries=3)), port=args.port)
        latencies, errors, sent, memory = [], Counter(), [], []
        stop = threading.Event()

        def sample_memory() -> None:
            start = time.monotonic()
            while not stop.is_set():
                memory.append((round(time.monotonic() - start), ray_rss_mib()))
                stop.wait(10)

        sampler = threading.Thread(target=sample_memory, daemon=True)
        sampler.start()
        killed = None
        client = httpx.Client(timeout=120)
        started = time.monotonic()
        n = 0
        while time.monotonic() - started < args.seconds:
            if args.kill_at and killed is None and time.monotonic() - started > args.kill_at:
                killed = kill_a_scorer()
            batch = [{**examples[i % len(examples)], "id": f"r{n}-{i}", "group": f"r{n}-g{i // 8}",
                      "response": examples[i % len(examples)]["response"] + f" <!-- {n} -->"} for i in range(args.batch)]
            t0 = time.perf_counter()
            try:
                reply = client.post(f"{url}/v1/score", json={"items": batch, "step": n, "run": "load"})
                if reply.status_code == 200 and len(reply.json()["results"]) == len(batch):
                    sent.extend(i["id"] for i in batch)
                else:
                    errors[f"http_{reply.status_code}"] += 1
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] += 1
            latencies.append(time.perf_counter() - t0)
            n += 1
        elapsed = time.monotonic() - started
        stop.set()
        stop_server()
        logged = Counter(r.result.id for r in read_log(log_dir))
    print(json.dumps({
        "benchmark": "reliability_load", "seconds": round(elapsed, 1), "requests": n, "batch_items": args.batch,
        "items_per_s": round(len(sent) / elapsed, 1),
        "latency_s": {"p50": round(float(np.percentile(latencies, 50)), 3), "p99": round(float(np.percentile(latencies, 99)), 3)},
        "errors": dict(errors), "killed_replica": killed,
        "accepted_items": len(sent), "logged_exactly_once": all(logged[i] == 1 for i in sent) and len(logged) == len(sent),
        "server_rss_mib_over_time": memory,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }, indent=2))


if __name__ == "__main__":
    main()

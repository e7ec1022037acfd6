"""Overload and soak: many trainer workers sending large requests at once to the local server, through the real
verl client (`policy.verl_reward.RewardClient`: jittered backoff, honours 503 + Retry-After).

Reports throughput (accepted items/s), request latency p50/p99 as a trainer sees it (retries included) and per
attempt, the share of attempts answered 503 by admission control, that every accepted item is in the score log
exactly once, and the RSS of every process of this run's Ray (driver's descendants), sampled at a fixed interval.
The judge is the scripted mock at a fixed latency per call, so the numbers measure the server, not a model.
Bounded in time; loopback only.

    # overload: 16 clients x 256-item requests for 5 minutes
    unshare -n sh -c 'ip link set lo up && exec nice -n 10 .venv/bin/python benchmarks/overload.py \
        --clients 16 --items 256 --seconds 300 --out benchmarks/results/overload.json'
    # soak: a smaller steady load, RSS sampled each minute
    unshare -n sh -c 'ip link set lo up && exec nice -n 10 .venv/bin/python benchmarks/overload.py \
        --clients 4 --items 64 --seconds 1800 --sample-every 60 --out benchmarks/results/soak.json'
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
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

from policy.verl_reward import RewardClient  # noqa: E402
from reward.scorelog import read_log  # noqa: E402
from reward.serve import Limits, ServerArgs  # noqa: E402
from reward.serve.runner import start_server, stop_server  # noqa: E402

log = logging.getLogger("overload")


def ray_processes_rss_mib() -> dict[str, float]:
    """RSS of every process this run's Ray started (descendants of this driver), keyed by process title + pid."""
    out = {}
    for proc in psutil.Process().children(recursive=True):
        try:
            title = proc.name()
            cmd = proc.cmdline()
            if title.startswith("ray::"):
                name = title.split(".")[0]  # Ray appends the running method to the title
            else:
                name = Path(cmd[0]).name if cmd else title
                if name.startswith("python") and len(cmd) > 1:
                    name = Path(cmd[1]).name
            out[f"{name}[{proc.pid}]"] = round(proc.memory_info().rss / 2**20, 1)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


def _commit() -> str:
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--items", type=int, default=256, help="items per request")
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--judge-latency", type=float, default=0.05, help="seconds per mock judge call")
    parser.add_argument("--max-in-flight", type=int, default=2048, help="limits.max_items_in_flight of the ingress")
    parser.add_argument("--sample-every", type=int, default=10, help="seconds between RSS samples")
    parser.add_argument("--port", type=int, default=8794)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("policy.verl_reward").setLevel(logging.ERROR)  # 503 retries are expected here
    logging.getLogger("httpx").setLevel(logging.WARNING)
    examples = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]
    log_dir = Path(tempfile.mkdtemp(prefix="overload-scores-"))
    server_args = ServerArgs(judge=f"mock:{args.judge_latency}", score_log=str(log_dir), scorer_replicas=1, scorer_cpus=0.5,
                             limits=Limits(max_items=max(args.items, 256), chunk_items=64,
                                           max_items_in_flight=args.max_in_flight, retry_after_s=1))
    commit = _commit()  # the code the server runs, read before it starts
    url = start_server(server_args, port=args.port)
    statuses: Counter = Counter()
    attempt_latencies: list[float] = []
    request_latencies: list[float] = []
    accepted: list[str] = []
    failures: Counter = Counter()
    memory: list[dict] = []
    lock = threading.Lock()
    stop = threading.Event()
    started = time.monotonic()

    def sample_memory() -> None:
        while True:
            sample = ray_processes_rss_mib()
            memory.append({"t_s": round(time.monotonic() - started), "total_mib": round(sum(sample.values()), 1),
                           "processes": sample})
            log.info("t=%ds ray rss %.0f MiB, %d accepted, statuses %s", memory[-1]["t_s"], memory[-1]["total_mib"],
                     len(accepted), dict(statuses))
            partial = {"benchmark": "overload", "partial": True, "command": " ".join(sys.argv), "commit": commit,
                       "accepted_items": len(accepted), "ray_rss_mib": memory}
            args.out.with_suffix(".partial.json").write_text(json.dumps(partial) + "\n")  # survives an aborted run
            if stop.wait(args.sample_every):
                return

    def worker(index: int) -> None:
        client = RewardClient(url, timeout_s=900.0, retries=1000, backoff_s=0.25, max_backoff_s=5.0, retry_deadline_s=600.0)
        sent_at: dict[int, float] = {}

        def on_request(request: httpx.Request) -> None:
            sent_at[id(request)] = time.perf_counter()

        def on_response(response: httpx.Response) -> None:
            with lock:
                statuses[response.status_code] += 1
                attempt_latencies.append(time.perf_counter() - sent_at.pop(id(response.request), time.perf_counter()))

        client._client.event_hooks = {"request": [on_request], "response": [on_response]}
        n = 0
        while not stop.is_set():
            # A new prompt per group of 16 and a distinct response per rollout, as in GRPO: every judge call is new,
            # so the reply caches fill to their bound instead of answering from memory.
            batch = [{**examples[i % len(examples)], "id": f"c{index}-r{n}-{i}", "group": f"c{index}-r{n}-g{i // 16}",
                      "query": examples[i % len(examples)]["query"] + f" ({index}-{n}-{i // 16})",
                      "response": examples[i % len(examples)]["response"] + f" See also note {index}-{n}-{i}."}
                     for i in range(args.items)]
            t0 = time.perf_counter()
            try:
                results = client.score("searchllm", batch, step=n, run=f"overload-{index}")
                with lock:
                    if [r["id"] for r in results] == [i["id"] for i in batch]:
                        accepted.extend(i["id"] for i in batch)
                        request_latencies.append(time.perf_counter() - t0)
                    else:
                        failures["results_out_of_order"] += 1
            except RuntimeError as exc:
                with lock:
                    failures[str(exc)[:120]] += 1
            n += 1

    sampler = threading.Thread(target=sample_memory, daemon=True)
    sampler.start()
    workers = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(args.clients)]
    for thread in workers:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in workers:
        thread.join(timeout=900)
    elapsed = time.monotonic() - started
    sampler.join()
    memory.append({"t_s": round(elapsed), "total_mib": round(sum(ray_processes_rss_mib().values()), 1)})
    stop_server()
    logged = Counter(r.result.id for r in read_log(log_dir))
    log_bytes = sum(p.stat().st_size for p in log_dir.iterdir())
    shutil.rmtree(log_dir)
    attempts = sum(statuses.values())
    duplicates = sum(1 for count in logged.values() if count > 1)
    result = {
        "benchmark": "overload", "command": " ".join(sys.argv), "commit": commit, "seconds": round(elapsed, 1), "clients": args.clients,
        "items_per_request": args.items, "judge": server_args.judge, "limits": server_args.limits.model_dump(),
        "accepted_requests": len(request_latencies), "accepted_items": len(accepted),
        "items_per_s": round(len(accepted) / elapsed, 1),
        "request_latency_s": {"p50": round(float(np.percentile(request_latencies, 50)), 3),
                              "p99": round(float(np.percentile(request_latencies, 99)), 3)} if request_latencies else None,
        "attempt_latency_s": {"p50": round(float(np.percentile(attempt_latencies, 50)), 3),
                              "p99": round(float(np.percentile(attempt_latencies, 99)), 3)} if attempt_latencies else None,
        "attempts_by_status": {str(k): v for k, v in sorted(statuses.items())},
        "share_503": round(statuses[503] / attempts, 4) if attempts else None,
        "client_failures": dict(failures),
        "logged_items": sum(logged.values()), "log_bytes": log_bytes,
        "accepted_logged_exactly_once": all(logged[i] == 1 for i in accepted) and len(logged) == len(accepted) and not duplicates,
        "duplicates_in_log": duplicates, "logged_but_not_accepted": len(set(logged) - set(accepted)),
        "ray_rss_mib": memory,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average at the end {os.getloadavg()[0]:.1f}",
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    args.out.with_suffix(".partial.json").unlink(missing_ok=True)
    summary = {k: v for k, v in result.items() if k != "ray_rss_mib"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

"""Fairness and memory of the reward server under large requests: the latency of a 1-item request while 1,024-item
batches saturate the server, the time to score one large GRPO group against the same items in groups of 16, and
the ingress's memory while maximum-size bodies arrive at once. The real app on a local Ray, mock judge, loopback.

    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/fairness.py latency --clients 8 --probes 120'
    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/fairness.py latency --clients 8 --probes 120 \
        --express-scorers 1 --stepped --scorer-nice 10 --client-nice 19'
    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/fairness.py group --items 2000'
    unshare -n sh -c 'ip link set lo up && .venv/bin/python benchmarks/fairness.py memory --bodies 6'

Run it with another checkout on PYTHONPATH (and `--code` naming it) to measure that code with the same harness:
it uses only `start_server`, `ServerArgs` and `Limits` fields that every version has.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import psutil

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

from reward.serve import Limits, ServerArgs  # noqa: E402
from reward.serve.runner import start_server, stop_server  # noqa: E402

EXAMPLES = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip()]


def batch(tag: str, size: int, group_size: int = 16) -> list[dict]:
    """`size` distinct items (every response new, so nothing is a cache hit) in groups of `group_size`."""
    return [{**EXAMPLES[i % len(EXAMPLES)], "id": f"{tag}-{i}", "group": f"{tag}-g{i // group_size}",
             "response": EXAMPLES[i % len(EXAMPLES)]["response"] + f" <!-- {tag} {i} -->"} for i in range(size)]


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(float(np.percentile(values, 50)), 3),
            "p99": round(float(np.percentile(values, 99)), 3), "max": round(max(values), 3)}


def load(url: str, args: argparse.Namespace, stop, out) -> None:
    """`--clients` threads send 1,024-item batches back to back until `stop` is set; their results go to `out`."""
    if args.client_nice:
        os.nice(args.client_nice)
    large, errors, finished = [], [], []

    def client(worker: int) -> None:
        http, n = httpx.Client(timeout=600), 0
        while not stop.is_set():
            t0 = time.perf_counter()
            body = {"items": batch(f"L{worker}-{n}", args.batch)}
            if args.stepped:  # as a trainer sends them: each client a run, each batch a step
                body.update(run=f"client-{worker}", step=n)
            reply = http.post(f"{url}/v1/score", json=body)
            if reply.status_code == 200:
                large.append(time.perf_counter() - t0)
                finished.append(time.monotonic())
            else:
                errors.append(reply.status_code)
            n += 1

    threads = [threading.Thread(target=client, args=(w,), daemon=True) for w in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put({"large": large, "errors": errors, "finished": finished})


def latency(url: str, args: argparse.Namespace) -> dict:
    """The load of `load` from a process of its own (as trainers send from their own hosts: the probe's client
    shares no interpreter lock with theirs); meanwhile a 1-item request every second."""
    context = multiprocessing.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    loader = context.Process(target=load, args=(url, args, stop, out), daemon=True)
    loader.start()
    time.sleep(args.warmup)  # the batches fill the server first
    small, errors = [], []

    def probe(n: int) -> None:
        t0 = time.perf_counter()
        reply = httpx.post(f"{url}/v1/score", json={"items": batch(f"S{n}", 1)}, timeout=600)
        if reply.status_code == 200:
            small.append(time.perf_counter() - t0)
        else:
            errors.append(reply.status_code)

    # Open loop: a probe every --probe-every seconds whether or not the last one was answered, so a slow stretch
    # counts with every probe it delays (a closed loop would send fewer probes then).
    started, probes = time.monotonic(), []
    for n in range(args.probes):
        time.sleep(max(0.0, started + n * args.probe_every - time.monotonic()))
        probes.append(threading.Thread(target=probe, args=(n,), daemon=True))
        probes[-1].start()
    for thread in probes:
        thread.join(600)
    window = time.monotonic() - started
    stop.set()
    loaded = out.get(timeout=900)
    loader.join(60)
    done = sum(1 for t in loaded["finished"] if started <= t <= started + window)
    # Batch throughput: the large batches answered while the probe ran, over its duration.
    return {"one_item_latency_s": percentiles(small), "batch_latency_s": percentiles(loaded["large"]),
            "batches_during_probe": done, "batch_items_per_s": round(done * args.batch / window, 1),
            "probe_window_s": round(window, 1), "load": f"{args.clients} clients x {args.batch}-item batches"
            + (", stepped" if args.stepped else "") + (f", clients at nice {args.client_nice}" if args.client_nice else ""),
            "errors": errors + loaded["errors"]}


def group(url: str, args: argparse.Namespace) -> dict:
    """The same number of items as one GRPO group, then in groups of 16 (each timed alone, after a warm-up)."""
    client = httpx.Client(timeout=1200)
    client.post(f"{url}/v1/score", json={"items": batch("warm", 64)})
    out = {}
    for label, size in (("one_group_s", args.items), ("groups_of_16_s", 16)):
        t0 = time.perf_counter()
        reply = client.post(f"{url}/v1/score", json={"items": batch(label, args.items, group_size=size)})
        out[label] = round(time.perf_counter() - t0, 2) if reply.status_code == 200 else f"http {reply.status_code}"
    out["items"] = args.items
    return out


def ingress_process() -> psutil.Process:
    """This run's ingress replica: a descendant of this process (other Ray instances on the machine have theirs)."""
    for proc in psutil.Process().children(recursive=True):
        try:
            if "Ingress" in " ".join(proc.cmdline()):
                return proc
        except psutil.Error:
            continue
    raise RuntimeError("no ingress replica among this process's descendants")


def memory(url: str, args: argparse.Namespace) -> dict:
    """`--bodies` bodies of about `--body-mb` MB at once (an unknown suite: parsed and validated, not scored)."""
    items = []
    text = "lorem ipsum dolor sit amet " * 600  # ~16 kB of evidence per item
    per_item = len(json.dumps({**EXAMPLES[0], "evidence": [{"id": "1", "text": text}]}))
    for i in range(min(4000, int(args.body_mb * 1e6 / per_item))):
        items.append({**EXAMPLES[0], "id": f"m{i}", "evidence": [{"id": "1", "title": "t", "text": text + str(i)}]})
    body = json.dumps({"suite": "no-such-suite", "items": items}).encode()
    ingress = ingress_process()
    samples: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            samples.append(ingress.memory_info().rss / 2**20)
            stop.wait(0.05)

    before = ingress.memory_info().rss / 2**20
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    def send(_: int) -> int:
        return httpx.post(f"{url}/v1/score", content=body, headers={"Content-Type": "application/json"},
                          timeout=600).status_code

    with concurrent.futures.ThreadPoolExecutor(args.bodies) as pool:
        statuses = list(pool.map(send, range(args.bodies)))
    time.sleep(2)
    stop.set()
    sampler.join()
    return {"body_mb": round(len(body) / 1e6, 1), "bodies_at_once": args.bodies, "statuses": sorted(statuses),
            "ingress_rss_mib": {"before": round(before), "peak": round(max(samples)), "after": round(samples[-1])}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["latency", "group", "memory"])
    parser.add_argument("--probes", type=int, default=120, help="latency: 1-item requests sent")
    parser.add_argument("--warmup", type=int, default=15, help="latency: seconds of load before probing")
    parser.add_argument("--probe-every", type=float, default=1.0, help="latency: seconds between 1-item requests")
    parser.add_argument("--clients", type=int, default=2, help="latency: threads sending large batches")
    parser.add_argument("--batch", type=int, default=1024, help="latency: items per large batch")
    parser.add_argument("--scorer-nice", type=int, default=0,
                        help="the shared scorers' CPU priority below the rest of the app's (ServerArgs.scorer_nice)")
    parser.add_argument("--client-nice", type=int, default=0,
                        help="latency: the batch clients' process at this CPU priority below the server's, as if they ran "
                             "on other hosts (a probe's time then measures the server, not 8 clients on its cores)")
    parser.add_argument("--stepped", action="store_true",
                        help="latency: each client's batches carry a run and a step, as a trainer's do")
    parser.add_argument("--items", type=int, default=2000, help="group: items in the large group")
    parser.add_argument("--bodies", type=int, default=6, help="memory: maximum-size bodies sent at once")
    parser.add_argument("--body-mb", type=float, default=62.0, help="memory: size of each body")
    parser.add_argument("--scorers", type=int, default=2)
    parser.add_argument("--express-scorers", type=int, default=0,
                        help="scoring replicas for small requests only (passed only when set: older code has none)")
    parser.add_argument("--bulk-ingress", action="store_true",
                        help="large requests handled by a replica of their own (ServerArgs.bulk_ingress)")
    parser.add_argument("--judge", default="mock", help="judge backend, e.g. mock:0.05 (each call takes 50 ms)")
    parser.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                        help="another `Limits` field, e.g. chunks_per_scorer=4 (repeatable)")
    parser.add_argument("--code", default="this checkout", help="what code runs (for the record)")
    parser.add_argument("--port", type=int, default=8794)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        # Only the fields this version has, so the harness runs against older code too.
        options = {"express_scorers": args.express_scorers} if args.express_scorers else {}
        if args.scorer_nice:
            options["scorer_nice"] = args.scorer_nice
        if args.bulk_ingress:
            options["bulk_ingress"] = True
        server = ServerArgs(judge=args.judge, score_log=log_dir, scorer_replicas=args.scorers, scorer_cpus=0.5, **options,
                            limits=Limits(max_items=4096, max_items_in_flight=16384,
                                          **{k: int(v) for k, v in (item.split("=", 1) for item in args.limit)}))
        url = start_server(server, port=args.port)
        try:
            measured = {"latency": latency, "group": group, "memory": memory}[args.mode](url, args)
        finally:
            stop_server()
    print(json.dumps({
        "benchmark": f"fairness_{args.mode}", "code": args.code, "judge": args.judge, "limits": args.limit,
        "express_scorers": args.express_scorers, "scorer_nice": args.scorer_nice,
        "bulk_ingress": args.bulk_ingress, "client_nice": args.client_nice, **measured,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {os.getloadavg()[0]:.1f}",
    }, indent=2))


if __name__ == "__main__":
    main()

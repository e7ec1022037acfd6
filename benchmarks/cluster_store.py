"""Exactly-once across hosts through a PostgreSQL score store: reward nodes that share nothing but the database.

Each node is a process in its own network namespace (`unshare -n`) with its own temporary log folder: the real
ingress (`reward.serve.Ingress`, mock judge, its scoring replica called in-process instead of through Ray) served by
uvicorn on a unix socket, writing its segments to local disk and its claims and aggregates to one PostgreSQL server
(Debian's package, a cluster made by `initdb` in a temporary folder, reached on a unix socket: path-named sockets
cross network namespaces, TCP would not). Client threads send batches with request ids round robin over the nodes
and retry a batch, same id, until it is answered 200: after `Retry-After` on a 503, at once on the next node when
the connection fails. One fault under load:

- `node`: at `--fault-at` one node is killed with SIGKILL (its claims stay in the database; the retries of its
  batches go to the other nodes, which take a dead writer's claim over after `ScoreLog.claim_wait_s`);
- `database`: at `--fault-at` PostgreSQL is stopped (`pg_ctl stop -m immediate`, a crash) and started again after
  `--down-s`.

Reported: every answer's status (each 503 must carry `Retry-After`), acknowledged items against the items the
store indexes (read from the nodes' segments at the byte ranges the database lists: missing, duplicated), records on
a killed node's disk that no index points to (written, never acknowledged), and the recovery times.

    .venv/bin/python benchmarks/cluster_store.py --fault node --seconds 60 --fault-at 20
    .venv/bin/python benchmarks/cluster_store.py --fault database --seconds 60 --fault-at 20 --down-s 10

Run it as root (it makes the network namespaces and runs PostgreSQL as the `postgres` user).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# -- a node ----------------------------------------------------------------------------------------------------


def serve_node(args: argparse.Namespace) -> None:
    """One reward node: the real ingress (mock judge) on a unix socket, the score store in PostgreSQL."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from reward.serve import Ingress, Limits, Scorer, ServerArgs

    server_args = ServerArgs(suites=["mini"], rubrics=str(ROOT / "tests" / "fixtures" / "rubrics"), judge="mock",
                             score_log=args.log_dir, score_store=args.store_url,
                             limits=Limits(retry_after_s=1, chunk_items=64))
    scorer = Scorer.func_or_class(server_args)

    class InProcess:  # the scoring replica, called as a DeploymentHandle would call it
        class score:
            @staticmethod
            async def remote(suite, payload):
                return await scorer.score(suite, payload)

    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)
    asyncio.run(ingress.__init__(InProcess(), server_args))

    async def score(request: Request):
        return await ingress.score(request)

    async def health(request: Request):
        return JSONResponse(ingress.healthz())

    app = Starlette(routes=[Route("/v1/score", score, methods=["POST"]), Route("/healthz", health)])
    uvicorn.run(app, uds=args.socket, log_level="warning", timeout_keep_alive=30)


# -- the run ---------------------------------------------------------------------------------------------------


def items(prefix: str, size: int) -> list[dict]:
    return [{"id": f"{prefix}-{k}", "group": prefix, "query": "Where can I listen to Skibidi for free?",
             "evidence": [{"id": "1", "title": "Spotify", "text": "Skibidi streams free on Spotify."}],
             "response": f"<answer>Skibidi streams free on Spotify [1]. ({prefix} {k})</answer>"} for k in range(size)]


class Client(threading.Thread):
    """Sends batches back to back; each is retried, same request id, until a node answers 200."""

    def __init__(self, number: int, sockets: list[str], size: int, stop_at: float, started: float, events: list):
        super().__init__(daemon=True)
        self.number, self.sockets, self.size, self.stop_at, self.started = number, sockets, size, stop_at, started
        self.events = events
        self.acknowledged: list[str] = []
        self.batches: list[dict] = []

    def run(self) -> None:
        import httpx

        clients = [httpx.Client(transport=httpx.HTTPTransport(uds=path), base_url="http://node", timeout=60)
                   for path in self.sockets]
        node, sent = self.number % len(self.sockets), 0
        while time.monotonic() < self.stop_at:
            request_id = f"c{self.number}-b{sent}"
            body = {"suite": "mini", "run": "cluster", "step": sent, "request_id": request_id,
                    "items": items(request_id, self.size)}
            first = time.monotonic()
            tries: list[dict] = []
            while True:
                at = time.monotonic()
                try:
                    reply = clients[node].post("/v1/score", json=body)
                    tries.append({"node": node, "t": round(at - self.started, 3), "status": reply.status_code,
                                  "retry_after": reply.headers.get("retry-after"),
                                  "error": None if reply.status_code == 200 else reply.text[:200]})
                except httpx.HTTPError as exc:
                    tries.append({"node": node, "t": round(at - self.started, 3), "status": None,
                                  "error": f"{type(exc).__name__}: {exc}"[:200]})
                    node = (node + 1) % len(self.sockets)  # that node is gone: the next one
                    time.sleep(0.05)
                    continue
                if reply.status_code == 200:
                    break
                if reply.status_code == 503:
                    time.sleep(float(reply.headers.get("retry-after", 1)))
                    node = (node + 1) % len(self.sockets)
                    continue
                time.sleep(0.5)  # anything else is reported; retried like a 5xx
                node = (node + 1) % len(self.sockets)
            self.acknowledged += [item["id"] for item in body["items"]]
            self.batches.append({"request_id": request_id, "sent": round(first - self.started, 3),
                                 "answered": round(time.monotonic() - self.started, 3), "tries": tries})
            sent += 1
            node = (node + 1) % len(self.sockets)


def indexed_items(url: str, folders: list[Path]) -> tuple[Counter, Counter]:
    """Items at the byte ranges the database indexes (read from whichever node's folder holds the segment), and
    every item found in the segments at all."""
    from reward.scorelog import parse_segment, read_log
    from reward.scorelog.store import ScoreStore

    where = {segment.name: segment for folder in folders for segment in folder.glob("scores-*.jsonl")}
    indexed: Counter = Counter()
    with ScoreStore(folders[0], url=url, readonly=True) as store:
        rows = store.db.execute('SELECT segment, "offset", length, skip, items FROM batches').fetchall()
    for segment, offset, length, skip, count in rows:
        records = [record for _, record in parse_segment(where[segment], offset, length, resolve=False)]
        indexed.update(record.result.id for record in records[skip:skip + count])
    on_disk = Counter(record.result.id for folder in folders for record in read_log(folder))
    return indexed, on_disk


def start_node(k: int, root: Path, url: str, fresh: bool = True) -> tuple[subprocess.Popen, str, Path]:
    socket, folder = str(root / f"node-{k}.sock"), root / f"node-{k}"
    folder.mkdir(exist_ok=not fresh)
    Path(socket).unlink(missing_ok=True)
    command = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, str(Path(__file__).resolve()), "node",
               "--socket", socket, "--log-dir", str(folder), "--store-url", url]
    process = subprocess.Popen(command, stdout=open(root / f"node-{k}.log", "ab"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    return process, socket, folder


def wait_ready(sockets: list[str], timeout: float = 120) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    for path in sockets:
        while True:
            try:
                with httpx.Client(transport=httpx.HTTPTransport(uds=path), base_url="http://node") as client:
                    if client.get("/healthz").status_code == 200:
                        break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"node on {path} did not start")
            time.sleep(0.5)


def run(args: argparse.Namespace) -> dict:
    import importlib.util

    # The tests' throwaway cluster (initdb in a temporary folder, unix socket, as `postgres` when root); by path, as
    # an installed package may also be called `tests`.
    spec = importlib.util.spec_from_file_location("store_test_postgres", ROOT / "tests" / "postgres.py")
    postgres = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(postgres)
    PostgresServer = postgres.PostgresServer

    root = Path(tempfile.mkdtemp(prefix="reward-cluster-"))
    os.chmod(root, 0o755)
    database = root / "db"
    database.mkdir()
    server = PostgresServer(database)
    server.init()
    server.start()
    url = server.create_database()
    nodes, result = [], {}
    try:
        nodes = [start_node(k, root, url) for k in range(args.nodes)]
        sockets, folders = [s for _, s, _ in nodes], [f for _, _, f in nodes]
        wait_ready(sockets)
        started = time.monotonic()
        events: list = []
        clients = [Client(n, sockets, args.items, started + args.seconds, started, events) for n in range(args.clients)]
        for client in clients:
            client.start()
        time.sleep(max(0.0, started + args.fault_at - time.monotonic()))
        fault: dict = {"kind": args.fault, "at": round(time.monotonic() - started, 3)}
        if args.fault == "node":
            fault["kills"] = []
            for cycle in range(args.cycles):  # node k killed, started again on its folder after --down-s
                k = cycle % args.nodes
                at = time.monotonic()
                os.kill(nodes[k][0].pid, signal.SIGKILL)
                time.sleep(args.down_s)
                nodes[k] = start_node(k, root, url, fresh=False)
                wait_ready([nodes[k][1]])
                fault["kills"].append({"node": f"node-{k}", "at": round(at - started, 3),
                                       "back_after_s": round(time.monotonic() - at, 3)})
                time.sleep(max(0.0, args.every_s - (time.monotonic() - at)))
        else:
            server.stop("immediate")
            time.sleep(args.down_s)
            server.start()
            fault["restarted_at"] = round(time.monotonic() - started, 3)
        for client in clients:
            client.join(args.seconds + 300)
        tries = [t for c in clients for b in c.batches for t in b["tries"]]
        statuses = Counter(str(t["status"]) for t in tries)
        no_retry_after = sum(1 for t in tries if t["status"] == 503 and not t.get("retry_after"))
        acknowledged = Counter(i for c in clients for i in c.acknowledged)
        indexed, on_disk = indexed_items(url, folders)
        with_fault = [b for c in clients for b in c.batches if len(b["tries"]) > 1]
        slow = [b for b in with_fault if b["answered"] - b["sent"] > 1]
        after = [b for c in clients for b in c.batches if b["sent"] >= fault["at"]]
        end = fault.get("restarted_at", fault["at"])
        first_200_after = min((b["answered"] for c in clients for b in c.batches if b["answered"] > end), default=None)
        result = {
            "fault": fault, "nodes": args.nodes, "clients": args.clients, "items_per_batch": args.items,
            "seconds": args.seconds, "batches": sum(len(c.batches) for c in clients),
            "answers": dict(statuses), "503_without_retry_after": no_retry_after,
            "items_acknowledged": sum(acknowledged.values()),
            "items_logged": sum(indexed.values()),
            "missing": sum(1 for i in acknowledged if i not in indexed),
            "duplicated": sum(n - 1 for n in indexed.values() if n > 1),
            "acknowledged_twice": sum(n - 1 for n in acknowledged.values() if n > 1),
            "records_on_disk_not_indexed": sum(on_disk.values()) - sum(indexed.values()),
            "first_200_after_fault_s": None if first_200_after is None else round(first_200_after - end, 3),
            "batches_retried": len(with_fault),
            "slowest_retried_batch_s": max((round(b["answered"] - b["sent"], 3) for b in with_fault), default=None),
            "batch_latency_p50_s_after_fault": _quantile([b["answered"] - b["sent"] for b in after], 0.5),
            "retried_batches_over_1s": len(slow),
            "retried_batches_slowest": sorted(slow, key=lambda b: b["sent"] - b["answered"])[:20],
            "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "python": platform.python_version()},
        }
    finally:
        for process, _, _ in nodes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        try:
            server.stop("immediate")
        except RuntimeError:
            pass
        if args.keep:
            result["folder"] = str(root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return result


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    node = sub.add_parser("node", help="(internal) one reward node")
    node.add_argument("--socket", required=True)
    node.add_argument("--log-dir", required=True)
    node.add_argument("--store-url", required=True)
    parser.add_argument("--fault", choices=("node", "database"), default="node")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--items", type=int, default=16, help="items per batch")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--fault-at", type=float, default=20)
    parser.add_argument("--down-s", type=float, default=10, help="how long the database (or a killed node) stays down")
    parser.add_argument("--cycles", type=int, default=1, help="node kills, one node after the other")
    parser.add_argument("--every-s", type=float, default=10, help="seconds from one node kill to the next")
    parser.add_argument("--keep", action="store_true", help="keep the folders (segments, node logs, database)")
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    if args.command == "node":
        serve_node(args)
        return
    result = run(args)
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

"""A multi-node Ray cluster on one machine: placement, then the loss of a reward node under load.

Starts a head and worker raylets (`ray start --block`, each its own node with the `--num-gpus` and `--resources` of
its role in cluster/resources.yaml, so a trainer node offers fake GPUs), deploys configs/serve/cluster.yaml through
Serve's REST API (`serve deploy`, the path KubeRay's RayService takes) with fewer replicas, the score log in a folder
every node shares, and the judge endpoints of configs/judges/vllm.yaml pointed (JUDGE_HOSTS=127.0.0.1) at the mock
judge server on port 8100. Then, with Ray's state API: every Scorer and Ingress replica is on a node offering
`reward`, and a placement group built by verl's own resource pool lands on the trainer node. A client sends batches
with request ids and retries each until it is answered 200; meanwhile one reward node is lost (SIGTERM to its
processes, as `ray stop` sends, then after `--grace-s` SIGKILL to all of them; `--grace-s 0`: a crash). Reported:
every answer's status (a 503 must carry Retry-After; a client timeout is a hang; any other reply with its text),
acknowledged items against the score log (missing, duplicated), and the time until the replicas run again on the
remaining nodes.

Run it in a private network namespace (it binds the proxy ports 28000.., the dashboard and the judge port 8100):

    unshare -n sh -c 'ip link set lo up && exec "$0" "$@"' .venv/bin/python benchmarks/multinode.py \\
        --workers reward,reward,trainer --seconds 120 --lose-at 40 --threads 3 --scorers 4 --ingresses 2

`ray stop` would stop every raylet of the machine, other clusters' too, so a node is lost by signalling the
processes of its own session only; every process the run started is killed at the end.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESOURCES = ROOT / "cluster" / "resources.yaml"
CLUSTER_CONFIG = ROOT / "configs" / "serve" / "cluster.yaml"
BIN = Path(sys.executable).parent
# Away from Ray's and Serve's defaults (6379, 8265, 8000, 52365), so a local Ray in the same namespace does not clash.
GCS_PORT = 26380
DASHBOARD_PORT = 28265
HTTP_PORT = 28000
AGENT_PORT = 28365
JUDGE_PORT = 8100  # configs/judges/vllm.yaml: http://{host}:8100/v1
REPLICA_CLASSES = ("ServeReplica:reward:Scorer", "ServeReplica:reward:Ingress")
log = logging.getLogger("multinode")


def roles() -> dict[str, dict]:
    return yaml.safe_load(RESOURCES.read_text(encoding="utf-8"))["roles"]


@dataclass
class Node:
    name: str
    role: str
    cpus: int
    http_port: int
    process: subprocess.Popen | None = None
    lost_at: float | None = None

    def start_args(self, head: bool, temp_dir: Path, index: int) -> list[str]:
        role = roles()[self.role]
        # Fewer GPUs than the role's 8, so a small box can run it: the count is only what Ray believes is there.
        gpus = min(role["num_gpus"], 2)
        args = [str(BIN / "ray"), "start", "--block", "--node-ip-address=127.0.0.1", f"--node-name={self.name}",
                f"--num-cpus={self.cpus}", f"--num-gpus={gpus}", f"--resources={json.dumps(role['resources'])}",
                "--include-log-monitor=false"]  # one process fewer per node; the logs stay in the temp folder
        # Nodes that share an address need a dashboard agent port each (its default is fixed; the others are random).
        args.append(f"--dashboard-agent-listen-port={AGENT_PORT + index}")
        if head:
            return args + ["--head", f"--port={GCS_PORT}", f"--temp-dir={temp_dir}", "--include-dashboard=true",
                           "--dashboard-host=127.0.0.1", f"--dashboard-port={DASHBOARD_PORT}"]
        return args + [f"--address=127.0.0.1:{GCS_PORT}"]

    def processes(self) -> list[psutil.Process]:
        """Every process of this node: its raylet, agents and workers share the session `ray start` began."""
        if self.process is None:
            return []
        found = []
        for proc in psutil.process_iter():
            try:
                if os.getsid(proc.pid) == self.process.pid:
                    found.append(proc)
            except (ProcessLookupError, PermissionError, psutil.Error):
                continue
        return found


@dataclass
class LocalCluster:
    """Raylets on this machine, one session each, so one node can be lost without touching the others."""

    folder: Path
    temp_dir: Path
    env: dict[str, str]
    nodes: list[Node] = field(default_factory=list)

    def start(self, head_role: str, worker_roles: list[str], cpus: dict[str, int]) -> None:
        self.nodes = [Node("head", head_role, cpus[head_role], HTTP_PORT)]
        self.nodes += [Node(f"{role}-{i}", role, cpus[role], HTTP_PORT + i) for i, role in enumerate(worker_roles, 1)]
        logs = self.folder / "node-logs"
        logs.mkdir(parents=True, exist_ok=True)
        for index, node in enumerate(self.nodes):
            env = dict(self.env)
            if index:  # proxies of nodes that share an address need a port each; the head keeps http_options.port
                env["RAY_SERVE_WORKER_PROXY_HTTP_PORT"] = str(node.http_port)
            out = open(logs / f"{node.name}.log", "wb")  # noqa: SIM115 - open while the node runs
            node.process = subprocess.Popen(node.start_args(index == 0, self.temp_dir, index), env=env, cwd=ROOT,
                                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            if index == 0:
                self._wait(lambda: self._dashboard_up(), 120, "the head's dashboard")
            # One at a time: nodes that share a temp folder pick their socket and log names by what exists there.
            self._wait(lambda: len(self.alive_nodes()) == index + 1, 120, f"{node.name} to join")
        log.info("cluster up: %s", ", ".join(f"{n.name} ({n.role})" for n in self.nodes))

    def _dashboard_up(self) -> bool:
        if self.nodes[0].process.poll() is not None:
            raise RuntimeError(f"the head node exited: see {self.folder / 'node-logs' / 'head.log'}")
        try:
            return httpx.get(f"{self.dashboard}/api/version", headers=ray_auth(), timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    @staticmethod
    def _wait(ready, timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if ready():
                    return
            except (httpx.HTTPError, ConnectionError):
                pass
            time.sleep(1)
        raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")

    @property
    def dashboard(self) -> str:
        return f"http://127.0.0.1:{DASHBOARD_PORT}"

    def alive_nodes(self) -> dict[str, dict]:
        """Alive nodes by name, as the state API lists them."""
        from ray.util.state import list_nodes

        listed = list_nodes(address=self.dashboard, filters=[("state", "=", "ALIVE")], detail=True, raise_on_missing_output=False)
        return {n.node_name: {"node_id": n.node_id, "resources": n.resources_total} for n in listed}

    def replicas(self) -> list[dict]:
        """Alive reward-app replicas (class, node name) from the state API."""
        from ray.util.state import list_actors

        names = {v["node_id"]: name for name, v in self.alive_nodes().items()}
        actors = list_actors(address=self.dashboard, filters=[("state", "=", "ALIVE")], detail=True, limit=1000,
                             raise_on_missing_output=False)
        return [{"class": a.class_name, "node": names.get(a.node_id, a.node_id)} for a in actors
                if a.class_name in REPLICA_CLASSES]

    def proxies(self) -> list[str]:
        """Names of the nodes running a Serve HTTP proxy."""
        from ray.util.state import list_actors

        names = {v["node_id"]: name for name, v in self.alive_nodes().items()}
        actors = list_actors(address=self.dashboard, filters=[("state", "=", "ALIVE"), ("class_name", "=", "ProxyActor")],
                             detail=True, raise_on_missing_output=False)
        return [names.get(a.node_id, a.node_id) for a in actors]

    def lose(self, node: Node, grace_s: float = 2.0) -> None:
        """What `ray stop` does to one node (SIGTERM, a grace period), then SIGKILL to whatever is left of it;
        `grace_s` 0: SIGKILL alone, a crash."""
        node.lost_at = time.monotonic()
        if grace_s > 0:
            for proc in node.processes():
                _signal(proc, signal.SIGTERM)
            time.sleep(grace_s)
        for proc in node.processes():
            _signal(proc, signal.SIGKILL)

    def stop(self) -> None:
        for node in reversed(self.nodes):
            for proc in node.processes():
                _signal(proc, signal.SIGTERM)
        time.sleep(2)
        for node in reversed(self.nodes):
            for proc in node.processes():
                _signal(proc, signal.SIGKILL)
            if node.process is not None:
                try:
                    node.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    log.warning("%s: `ray start` did not exit", node.name)


def ray_auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {os.environ['RAY_AUTH_TOKEN']}"}


def _signal(proc: psutil.Process, sig: int) -> None:
    try:
        proc.send_signal(sig)
    except psutil.Error:
        pass


def serve_config(folder: Path, *, scorers: int, ingresses: int) -> Path:
    """configs/serve/cluster.yaml with fewer replicas and CPUs, and the score log under `folder`: every other key,
    replica_resources, require_token and the judge config among them, as shipped."""
    config = yaml.safe_load(CLUSTER_CONFIG.read_text(encoding="utf-8"))
    [app] = config["applications"]
    app["args"].update(score_log=str(folder / "shared" / "scores"), scorer_replicas=scorers, scorer_cpus=0.5,
                       ingress_replicas=ingresses)
    # Chunks small enough that a batch spreads over several scorers, so a lost scorer is met mid-request.
    app["args"]["limits"].update(chunk_items=2)
    app["deployments"] = [{"name": "Scorer", "num_replicas": scorers}, {"name": "Ingress", "num_replicas": ingresses}]
    config["http_options"]["port"] = HTTP_PORT
    path = folder / "serve.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def deploy(cluster: LocalCluster, config: Path, expected: int, timeout_s: float) -> float:
    """`serve deploy` to the head's dashboard; returns the seconds until all `expected` replicas run and /healthz answers."""
    started = time.monotonic()
    done = subprocess.run([str(BIN / "serve"), "deploy", str(config), "--address", cluster.dashboard], cwd=ROOT,
                          env=cluster.env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"serve deploy {config} failed: {done.stderr[-2000:]}")

    def running() -> bool:
        status = httpx.get(f"{cluster.dashboard}/api/serve/applications/", headers=ray_auth(), timeout=5).json()
        app = status.get("applications", {}).get("reward", {})
        if app.get("status") == "DEPLOY_FAILED":
            raise RuntimeError(f"the app failed to deploy: {app.get('message')}")
        return (app.get("status") == "RUNNING" and len(cluster.replicas()) == expected
                and httpx.get(f"http://127.0.0.1:{HTTP_PORT}/healthz", timeout=5).status_code == 200)

    cluster._wait(running, timeout_s, "the app to run")
    return time.monotonic() - started


PLACEMENT_SCRIPT = """
import json, ray
from ray.util.placement_group import placement_group_table
from verl.single_controller.ray.base import RayResourcePool
ray.init(address="127.0.0.1:%d", logging_level="ERROR", log_to_driver=False)
pool = RayResourcePool(process_on_nodes=[%d], use_gpu=True, max_colocate_count=1, name_prefix="actor")
pgs = pool.get_placement_groups()
ray.get([pg.ready() for pg in pgs], timeout=60)
print(json.dumps([{"bundles": pg.bundle_specs, "nodes": placement_group_table(pg)["bundles_to_node_id"]} for pg in pgs]))
"""


def gpu_placement(cluster: LocalCluster, gpus: int) -> dict:
    """Create a placement group with verl's own resource pool (CPU + GPU bundles) and say where its bundles went."""
    done = subprocess.run([sys.executable, "-c", PLACEMENT_SCRIPT % (GCS_PORT, gpus)], env=cluster.env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"the placement group failed: {done.stderr[-2000:]}")
    groups = json.loads(done.stdout.strip().splitlines()[-1])
    names = {v["node_id"]: name for name, v in cluster.alive_nodes().items()}
    return {"bundles": [b for g in groups for b in g["bundles"]],
            "nodes": sorted({names.get(n, n) for g in groups for n in g["nodes"].values()})}


@dataclass
class Outcome:
    sent_at: float
    seconds: float
    status: str
    retry_after: str | None = None
    body: str = ""
    """The start of a reply that is neither 200 nor 503."""


class LoadClient:
    """Sends batches with request ids from `threads` threads; retries a batch, same id, until it is answered 200."""

    def __init__(self, url: str, token: str, *, batch: int, threads: int, timeout_s: float):
        self.url, self.batch, self.timeout_s = url, batch, timeout_s
        self.headers = {"Authorization": f"Bearer {token}"}
        self.examples = [json.loads(line) for line in (ROOT / "examples" / "items.jsonl").read_text().splitlines()
                         if line.strip()]
        self.acknowledged: list[str] = []
        self.outcomes: list[Outcome] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(t,), daemon=True) for t in range(threads)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        """Stop sending new batches; a batch under way is retried until answered (or 120 s)."""
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=180)

    def _items(self, name: str) -> list[dict]:
        n = len(self.examples)
        return [{**self.examples[(len(self.acknowledged) + i) % n], "id": f"{name}-{i}", "group": f"{name}-g{i // 4}"}
                for i in range(self.batch)]

    def _run(self, thread: int) -> None:
        client = httpx.Client(timeout=self.timeout_s)
        k = 0
        while not self.stopping.is_set():
            name = f"t{thread}b{k}"
            body = {"suite": "searchllm", "items": self._items(name), "request_id": name, "run": "multinode", "step": k}
            give_up = None
            while True:
                sent = time.monotonic()
                retry_after, text = None, ""
                try:
                    reply = client.post(f"{self.url}/v1/score", json=body, headers=self.headers)
                    status, retry_after = str(reply.status_code), reply.headers.get("retry-after")
                    text = reply.text[:300] if reply.status_code not in (200, 503) else ""
                    ok = reply.status_code == 200 and len(reply.json()["results"]) == len(body["items"])
                except httpx.TimeoutException:
                    status, ok = "timeout", False
                except httpx.HTTPError as exc:
                    status, ok = type(exc).__name__, False
                with self.lock:
                    self.outcomes.append(Outcome(sent, time.monotonic() - sent, status, retry_after, text))
                    if ok:
                        self.acknowledged.extend(item["id"] for item in body["items"])
                if ok:
                    break
                if self.stopping.is_set():
                    give_up = give_up or time.monotonic() + 120
                    if time.monotonic() > give_up:
                        break
                time.sleep(min(float(retry_after), 1.0) if retry_after and retry_after.isdigit() else 0.5)
            k += 1


def recovery(cluster: LocalCluster, lost: Node, expected: int, timeout_s: float) -> dict:
    """Wait until the lost node is dead to the state API and `expected` replicas are alive on the other nodes."""
    marks: dict[str, float] = {}

    def recovered() -> bool:
        alive = cluster.alive_nodes()
        if lost.name not in alive:
            marks.setdefault("node_dead_s", time.monotonic() - lost.lost_at)
        replicas = cluster.replicas()
        return lost.name not in alive and len(replicas) == expected and all(r["node"] in alive for r in replicas)

    cluster._wait(recovered, timeout_s, "the replicas to come back")
    marks["replicas_back_s"] = time.monotonic() - lost.lost_at
    return {k: round(v, 1) for k, v in marks.items()}


def run(*, head_role: str, worker_roles: list[str], seconds: float, lose_at: float, batch: int = 4, threads: int = 2,
        scorers: int = 2, ingresses: int = 2, client_timeout_s: float = 60.0, grace_s: float = 2.0,
        folder: Path | None = None) -> dict:
    """Start the cluster, check placement, lose the first reward worker under load; returns the report."""
    from reward.judges.mock_server import MockJudgeServer
    from reward.scorelog import read_log

    scratch = tempfile.mkdtemp(prefix="multinode-")  # short: Ray's socket paths must stay under 108 bytes
    folder = Path(folder or scratch)
    token = secrets.token_hex(16)
    # Ray's own token (its GCS, dashboard and state API) apart from the reward app's bearer token; this process
    # needs it too, for the state API.
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(16))
    os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "REWARD_SERVER_TOKEN": token, "JUDGE_HOSTS": "127.0.0.1", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    env.pop("JUDGE_API_KEY", None)
    # Logical CPUs only (nothing is pinned): enough for the replicas a reward node may have to take over.
    replica_cpus = ingresses + scorers * 0.5
    cpus = {"reward": int(replica_cpus + 1), "trainer": 2, "head": 1}
    cluster = LocalCluster(folder, Path(scratch) / "ray", env)
    judge = MockJudgeServer("searchllm", port=JUDGE_PORT)
    report: dict = {"benchmark": "multinode_node_loss", "head": head_role, "workers": worker_roles,
                    "scorers": scorers, "ingresses": ingresses, "batch_items": batch, "client_threads": threads}
    expected = scorers + ingresses
    failed = True
    try:
        judge.start()
        t0 = time.monotonic()
        cluster.start(head_role, worker_roles, cpus)
        report["cluster_start_s"] = round(time.monotonic() - t0, 1)
        report["deploy_s"] = round(deploy(cluster, serve_config(folder, scorers=scorers, ingresses=ingresses),
                                          expected, 300), 1)
        reward_nodes = {n.name for n in cluster.nodes if "reward" in roles()[n.role]["resources"]}
        placed = cluster.replicas()
        report["replicas_before"] = Counter(f"{r['class'].split(':')[-1]}@{r['node']}" for r in placed)
        report["replicas_only_on_reward_nodes"] = all(r["node"] in reward_nodes for r in placed)
        # proxy_location EveryNode: Serve runs a proxy on the head and on every node with a replica, so trainer
        # nodes have none of their own and call a reward node's (or the head's) address.
        trainers = [n for n in cluster.nodes if n.role == "trainer"]
        report["proxies_on"] = sorted(cluster.proxies())
        if trainers:
            report["gpu_placement_group"] = gpu_placement(cluster, gpus=min(roles()["trainer"]["num_gpus"], 2))
            report["gpu_placement_only_on_trainer_nodes"] = set(report["gpu_placement_group"]["nodes"]) <= {
                n.name for n in trainers}
        lost = next(n for n in cluster.nodes[1:] if n.role == "reward")
        report["lost_node"], report["sigterm_grace_s"] = lost.name, grace_s
        report["replicas_on_lost_node"] = sum(r["node"] == lost.name for r in placed)

        client = LoadClient(f"http://127.0.0.1:{HTTP_PORT}", token, batch=batch, threads=threads,
                            timeout_s=client_timeout_s)
        started = time.monotonic()
        client.start()
        time.sleep(lose_at)
        log.info("losing %s (%d replicas on it)", lost.name, report["replicas_on_lost_node"])
        cluster.lose(lost, grace_s)
        report["recovery_s"] = recovery(cluster, lost, expected, timeout_s=300)
        report["replicas_after"] = Counter(f"{r['class'].split(':')[-1]}@{r['node']}" for r in cluster.replicas())
        recovered_at = lost.lost_at + report["recovery_s"]["replicas_back_s"]
        time.sleep(max(0.0, started + seconds - time.monotonic()))
        client.stop()
        report["load_s"] = round(time.monotonic() - started, 1)

        during = [o for o in client.outcomes if lost.lost_at <= o.sent_at + o.seconds and o.sent_at <= recovered_at]
        report["answers"] = dict(Counter(o.status for o in client.outcomes))
        report["answers_during_loss"] = dict(Counter(o.status for o in during))
        report["answers_503_without_retry_after"] = sum(o.status == "503" and not o.retry_after for o in client.outcomes)
        # Anything else, with what it said and when (seconds from the loss): Serve's proxy answers 500, with no
        # more than "Internal Server Error", to a request whose ingress replica dies under it.
        report["other_answers"] = [{"status": o.status, "sent_s": round(o.sent_at - lost.lost_at, 1),
                                    "answered_s": round(o.sent_at + o.seconds - lost.lost_at, 1), "body": o.body}
                                   for o in client.outcomes if o.status not in ("200", "503")]
        report["slowest_answer_s"] = round(max(o.seconds for o in client.outcomes), 1)
        report["client_timeout_s"] = client_timeout_s
        acknowledged = Counter(client.acknowledged)
        logged = Counter(r.result.id for r in read_log(folder / "shared" / "scores"))
        report["items"] = {
            "acknowledged": len(acknowledged),
            "logged": len(logged),
            "missing": sorted(set(acknowledged) - set(logged)),
            "duplicated": sorted(i for i, c in logged.items() if c > 1),
            "acknowledged_twice": sorted(i for i, c in acknowledged.items() if c > 1),
            "logged_not_acknowledged": len(set(logged) - set(acknowledged)),
        }
        report["items_per_s"] = round(len(acknowledged) / report["load_s"], 1)
        failed = False
    finally:
        cluster.stop()
        judge.stop()
        if failed:
            log.error("failed; Ray's logs are in %s/ray/session_latest/logs", scratch)
        elif folder != Path(scratch):
            shutil.rmtree(scratch, ignore_errors=True)
    report["machine"] = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    report["folder"] = str(folder)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head", default="head", choices=sorted(roles()), help="role of the head node")
    parser.add_argument("--workers", default="reward,reward,trainer", help="roles of the worker nodes, comma-separated")
    parser.add_argument("--seconds", type=float, default=90, help="load duration")
    parser.add_argument("--lose-at", type=float, default=30, help="lose a reward worker this many seconds into the load")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scorers", type=int, default=2)
    parser.add_argument("--ingresses", type=int, default=2)
    parser.add_argument("--grace-s", type=float, default=2.0,
                        help="seconds between SIGTERM and SIGKILL of the lost node (0: SIGKILL alone, a crash)")
    parser.add_argument("--out", type=Path, help="also write the report here")
    parser.add_argument("--folder", type=Path, help="keep the score log and the nodes' output here (default: a temporary folder)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(message)s", datefmt="%H:%M:%S")
    report = run(head_role=args.head, worker_roles=args.workers.split(","), seconds=args.seconds, lose_at=args.lose_at,
                 batch=args.batch, threads=args.threads, scorers=args.scorers, ingresses=args.ingresses,
                 grace_s=args.grace_s, folder=args.folder)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    items = report["items"]
    return 0 if not items["missing"] and not items["duplicated"] else 1


if __name__ == "__main__":
    sys.exit(main())

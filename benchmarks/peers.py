"""The reward stage against its strongest peers, measured in one run with the same mock judge, judge concurrency
and emulated prefix cache.

Peers, each on the same GRPO step (`benchmarks/grpo_step.py`'s generator), each scoring with this project's rubric,
rules and prompts (so every peer sends byte-identical prompts for the same (rollout, dimension)):
  a. per-rollout async: every rollout scored on its own as it finishes (arrival order shuffled), all rollouts at
     once, each rollout's judge dimensions concurrently, no dedupe, no cache: what verl 0.9's reward loop does
     with an async `compute_score` that calls the judge directly;
  b. the same plus an exact-match cache keyed by the rendered prompt that also coalesces identical in-flight
     calls (what a careful user adds): it makes the same distinct calls as the project, in arrival order;
  c. the project through the real server: Ray Serve app (score log on), HTTP, one request per GRPO group as
     `GroupBatcher` sends them, groups in shuffled order, all in flight at once, the OpenAI-compatible backend;
  d. the project's engine in-process (the same plan without HTTP and Ray).
All four share one limit: at most `--concurrency` judge calls in flight (the endpoint's `max_concurrency`).
The mock judge (own process) emulates a GPU judge: a fixed decode time per call plus prefill time per prompt token
that misses its prefix cache (vLLM-style chained 16-token block hashes), with a bounded cache (least recently used
blocks out, `--cache-tokens`; with an unbounded cache the order of calls could not matter). It is reset before
every measurement. Reported per measurement: wall time, judge calls received, emulated prefix-cache hit rate,
prefill (uncached) tokens, the judge work the calls cost (sum of emulated seconds) and wall over that work's ideal
schedule (work / concurrency), client CPU seconds (for c: the harness plus every Ray process it started), and the
load average of the (shared) machine before and after. Peers run in alternating order over `--repeats` rounds
(a b c d, then d c b a, ...) so none is favoured by when it runs.

    unshare -n sh -c 'ip link set lo up && exec "$0" "$@"' .venv/bin/python benchmarks/peers.py \\
        --prompts 128 --rollouts 16 --out benchmarks/results/peers.json
    .venv/bin/python benchmarks/peers.py --sensitivity --items 256 --out benchmarks/results/peers_sensitivity.json

No extrapolation: every figure is measured on the whole step it reports.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from benchmarks.emit import emit, machine  # noqa: E402

from grpo_step import make_step  # noqa: E402

from reward.engine import Engine, ReplyCache  # noqa: E402
from reward.judges.base import Judge, JudgeReply, JudgeRequest  # noqa: E402
from reward.judges.mock_server import Latency, MockJudgeServer  # noqa: E402
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge  # noqa: E402
from reward.judges.prompt import render_messages  # noqa: E402
from reward.rubric import load_suite  # noqa: E402

log = logging.getLogger("peers")

PEERS = {
    "a": "a. per-rollout async (verl reward loop)",
    "b": "b. per-rollout async + exact-match cache",
    "c": "c. project through the server (HTTP, one request per group)",
    "d": "d. project engine in-process",
}


class CountingLatency(Latency):
    """`Latency` (bounded cache) that also sums the emulated seconds of judge work (the ideal schedule is that
    sum / concurrency)."""

    work_s = 0.0

    def cost(self, messages: list[dict]) -> tuple[float, int, int]:
        seconds, tokens, uncached = super().cost(messages)
        self.work_s += seconds
        return seconds, tokens, uncached


def serve_mock(args: argparse.Namespace) -> None:
    """Run the mock judge with a bounded prefix cache, plus `/stats` and `/reset` (this script with --serve-mock)."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def fresh(per_call: float | None = None) -> CountingLatency:
        return CountingLatency(args.per_call if per_call is None else per_call, args.per_token, args.cache_tokens)

    server = MockJudgeServer("searchllm", port=args.port, latency=fresh())

    async def stats(request):
        return JSONResponse({"calls": len(server.calls), "prompt_tokens": server.prompt_tokens,
                             "uncached_tokens": server.uncached_tokens, "max_in_flight": server.max_in_flight,
                             "work_s": server.latency.work_s, "cpu_s": time.process_time()})

    async def reset(request):
        body = await request.json() if await request.body() else {}
        server.calls.clear()
        server.attempts.clear()
        server.prompt_tokens = server.uncached_tokens = server.max_in_flight = 0
        server.latency = fresh(body.get("per_call"))
        return JSONResponse({"ok": True})

    server.start()
    server._server.config.app.router.routes.extend([Route("/stats", stats), Route("/reset", reset, methods=["POST"])])
    print("ready", flush=True)
    while True:
        time.sleep(3600)


class Mock:
    """The mock judge process; `per_call` may change between measurements (the latency sweep)."""

    def __init__(self, port: int, per_call: float, per_token: float, cache_tokens: int):
        self.per_call = per_call
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve-mock", "--port", str(port), "--per-call", str(per_call),
             "--per-token", str(per_token), "--cache-tokens", str(cache_tokens)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("mock judge did not start")

    def reset(self) -> None:
        httpx.post(f"{self.base}/reset", json={"per_call": self.per_call}, timeout=60).raise_for_status()

    def stats(self) -> dict:
        return httpx.get(f"{self.base}/stats", timeout=60).json()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def judge_for(base: str, concurrency: int) -> OpenAIJudge:
    return OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=f"{base}/v1", model="mock-judge",
                                                       max_concurrency=concurrency, timeout_s=600)]))


class CoalescingCache(Judge):
    """Peer b's cache: one call per distinct rendered prompt; a duplicate arriving while the first is in flight
    waits for it instead of calling again."""

    def __init__(self, inner: Judge):
        self.inner = inner
        self.name = inner.name
        self._replies: dict[str, asyncio.Future] = {}

    @property
    def identity(self) -> str:
        return self.inner.identity

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        key = hashlib.sha256(json.dumps(render_messages(request)).encode()).hexdigest()
        future = self._replies.get(key)
        if future is None:
            future = self._replies[key] = asyncio.ensure_future(self.inner.judge(request))
        return await future

    async def close(self) -> None:
        await self.inner.close()


async def per_rollout(items, suite, judge: Judge, concurrency: int, seed: int) -> list:
    """Peers a and b: each rollout scored alone (rules, pre-checks, its judge dimensions concurrently), rollouts in
    shuffled arrival order, all at once; the endpoint's limit bounds the calls in flight."""
    order = list(items)
    random.Random(seed).shuffle(order)
    # One item per `score` call: nothing to dedupe within it; a zero-size cache remembers nothing.
    engine = Engine(suite, judge, max_concurrency=concurrency, cache=ReplyCache(max_entries=0))
    try:
        batches = await asyncio.gather(*(engine.score([item]) for item in order))
    finally:
        await judge.close()
    return [r for batch in batches for r in batch]


async def in_process(items, suite, judge: Judge, concurrency: int) -> list:
    """Peer d: the whole step in one `Engine.score`."""
    try:
        return await Engine(suite, judge, max_concurrency=concurrency).score(items)
    finally:
        await judge.close()


def check(results) -> None:
    invalid = [r for r in results if not r.valid]
    if invalid:
        raise RuntimeError(f"{len(invalid)} invalid items, e.g. {invalid[0].id}: {invalid[0].reason}")


class Server:
    """Peer c's server: the real Ray Serve app against the mock, started once and reused across rounds."""

    def __init__(self, base: str, concurrency: int, port: int):
        import yaml

        from reward.serve import ServerArgs
        from reward.serve.runner import start_server

        folder = Path(tempfile.mkdtemp(prefix="peers-"))
        config = folder / "judge.yaml"
        config.write_text(yaml.safe_dump({"endpoints": [{"base_url": f"{base}/v1", "model": "mock-judge",
                                                         "max_concurrency": concurrency, "timeout_s": 600}]}))
        args = ServerArgs(suites=["searchllm"], judge=str(config), judge_concurrency=concurrency,
                          score_log=str(folder / "scores"), limits={"max_items": 100_000, "max_items_in_flight": 100_000, "max_bytes": 1 << 30})
        self.url = start_server(args, port=port, num_cpus=2)

    def close(self) -> None:
        from reward.serve.runner import stop_server

        stop_server()


def through_server(items, server: Server, seed: int) -> None:
    """Peer c: one request per group, groups in shuffled order, all in flight at once."""
    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item.model_dump(mode="json"))
    order = list(groups.values())
    random.Random(seed).shuffle(order)

    async def send() -> None:
        limits = httpx.Limits(max_connections=len(order), max_keepalive_connections=len(order))
        async with httpx.AsyncClient(timeout=3600, limits=limits) as client:
            replies = await asyncio.gather(*(client.post(f"{server.url}/v1/score", json={"suite": "searchllm", "items": g})
                                             for g in order))
        bad = [r.status_code for r in replies if r.status_code != 200]
        if bad:
            raise RuntimeError(f"server answered {bad[:3]}")
        invalid = [r for reply in replies for r in reply.json()["results"] if not r["valid"]]
        if invalid:
            raise RuntimeError(f"{len(invalid)} invalid items, e.g. {invalid[0]['id']}")

    asyncio.run(send())


def tree_cpu_s() -> float:
    """CPU seconds of this process and every process it started (Ray's raylet, workers and Serve replicas); the
    mock judge is left out (it is the judge, not the client)."""
    total = 0.0
    me = psutil.Process()
    for process in [me, *me.children(recursive=True)]:
        try:
            if "--serve-mock" in process.cmdline():
                continue
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            continue
    return total


def measure(peer: str, mock: Mock, concurrency: int, run, setup=None, teardown=None) -> dict:
    """One peer once: `setup` (untimed: e.g. start the server with an empty reply cache), a fresh mock, `run`."""
    state = setup() if setup else None
    mock.reset()
    load_before = os.getloadavg()
    before = mock.stats()
    cpu, started = tree_cpu_s(), time.perf_counter()
    run(state) if setup else run()
    wall = time.perf_counter() - started
    client_cpu = tree_cpu_s() - cpu
    if teardown:
        teardown(state)
    stats = mock.stats()
    hit = 1 - stats["uncached_tokens"] / stats["prompt_tokens"] if stats["prompt_tokens"] else None
    ideal = stats["work_s"] / concurrency
    row = {"peer": PEERS[peer], "wall_s": round(wall, 2), "judge_calls": stats["calls"],
           "prefix_hit_rate": round(hit, 4) if hit is not None else None, "prompt_tokens": stats["prompt_tokens"],
           "prefill_tokens": stats["uncached_tokens"], "judge_work_s": round(stats["work_s"], 1),
           "ideal_s": round(ideal, 2), "wall_over_ideal": round(wall / ideal, 3) if ideal else None,
           "client_cpu_s": round(client_cpu, 1), "judge_cpu_s": round(stats["cpu_s"] - before["cpu_s"], 1),
           "max_in_flight": stats["max_in_flight"],
           "load_avg_1m": [round(load_before[0], 1), round(os.getloadavg()[0], 1)]}
    log.info("%s", json.dumps(row))
    return row


def run_peers(args, prompts: int, rollouts: int, duplicate_rate: float, concurrency: int, evidence_chars: int,
              peers: str, repeats: int, mock: Mock) -> dict:
    suite = load_suite("searchllm")
    items = make_step(prompts, rollouts, seed=args.seed, duplicate_rate=duplicate_rate, evidence_chars=evidence_chars)
    runners = {
        "a": lambda: check(asyncio.run(per_rollout(items, suite, judge_for(mock.base, concurrency), concurrency,
                                                   args.seed))),
        "b": lambda: check(asyncio.run(per_rollout(items, suite, CoalescingCache(judge_for(mock.base, concurrency)),
                                                   concurrency, args.seed))),
        "d": lambda: check(asyncio.run(in_process(items, suite, judge_for(mock.base, concurrency), concurrency))),
    }
    rows = []
    for round_ in range(repeats):
        order = peers if round_ % 2 == 0 else peers[::-1]
        for peer in order:
            if peer == "c":
                # A fresh server each time: its reply cache must not serve a later round from an earlier one.
                row = measure(peer, mock, concurrency, lambda server: through_server(items, server, args.seed),
                              setup=lambda: Server(mock.base, concurrency, args.server_port),
                              teardown=lambda server: server.close())
            else:
                row = measure(peer, mock, concurrency, runners[peer])
            rows.append({"round": round_, **row})
    summary = []
    for peer in peers:
        mine = [r for r in rows if r["peer"] == PEERS[peer]]
        summary.append({"peer": PEERS[peer], "wall_s": round(statistics.median(r["wall_s"] for r in mine), 2),
                        **{k: mine[0][k] for k in ("judge_calls", "prefix_hit_rate", "prefill_tokens", "judge_work_s",
                                                   "ideal_s")},
                        "wall_over_ideal": round(statistics.median(r["wall_over_ideal"] or 0 for r in mine), 3),
                        "client_cpu_s": round(statistics.median(r["client_cpu_s"] for r in mine), 1)})
    reference = next((s["wall_s"] for s in summary if s["peer"] in (PEERS["c"], PEERS["d"])), None)
    for row in summary:
        row["wall_over_project"] = round(row["wall_s"] / reference, 3) if reference else None
    return {"prompts": prompts, "rollouts": rollouts, "items": len(items), "duplicate_rate": duplicate_rate,
            "evidence_chars_per_doc": evidence_chars, "judge_concurrency": concurrency,
            "planned_judge_calls": len(items) * sum(1 for d in suite.dimensions.values() if d.judge is not None),
            "summary": summary, "measurements": rows}


def markdown(report: dict) -> str:
    """The tables of a report as Markdown (for benchmarks/RESULTS.md)."""
    lines = []

    def table(run: dict) -> None:
        lines.append("| peer | wall s | x project | x own ideal | judge calls | prefix hit | prefill tokens | "
                     "judge work s | client CPU s |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for row in run["summary"]:
            lines.append(f"| {row['peer']} | {row['wall_s']} | {row['wall_over_project']} | {row['wall_over_ideal']} | "
                         f"{row['judge_calls']:,} | {row['prefix_hit_rate']} | {row['prefill_tokens']:,} | "
                         f"{row['judge_work_s']:,} | {row['client_cpu_s']} |")

    if report["benchmark"] == "peers":
        table(report)
        lines.append("")
        lines.append("| round | peer | wall s | load avg 1m (before, after) |")
        lines.append("|---|---|---|---|")
        for row in report["measurements"]:
            lines.append(f"| {row['round']} | {row['peer'][:2]} | {row['wall_s']} | {row['load_avg_1m']} |")
    else:
        lines.append("| varied | items | planned calls | calls a / b / project | prefix hit a / b / project | "
                     "prefill Mtok a / b / project | wall s a / b / project | a / project | b / project | "
                     "project x own ideal | load avg 1m |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for run in report["runs"]:
            rows = run["summary"]
            key = run.get("varied") or {"per_call_s": run.get("per_call_s")}
            loads = [x for r in run["measurements"] for x in r["load_avg_1m"]]
            lines.append(
                f"| {', '.join(f'{k}={v}' for k, v in key.items())} | {run['items']} | {run['planned_judge_calls']:,} | "
                + " / ".join(f"{r['judge_calls']:,}" for r in rows) + " | "
                + " / ".join(str(r["prefix_hit_rate"]) for r in rows) + " | "
                + " / ".join(f"{r['prefill_tokens'] / 1e6:.2f}" for r in rows) + " | "
                + " / ".join(str(r["wall_s"]) for r in rows) + " | "
                + " | ".join(str(r["wall_over_project"]) for r in rows[:2]) + f" | {rows[-1]['wall_over_ideal']} | "
                + f"{min(loads):.1f}-{max(loads):.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=128)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--duplicate-rate", type=float, default=0.15)
    parser.add_argument("--evidence-chars", type=int, default=3300, help="characters per evidence document (6 docs)")
    parser.add_argument("--concurrency", type=int, default=256, help="judge calls in flight, every peer")
    parser.add_argument("--per-call", type=float, default=2.0, help="seconds of decode per judge call")
    parser.add_argument("--per-token", type=float, default=2e-5, help="seconds per uncached prompt token")
    parser.add_argument("--cache-tokens", type=int, default=400_000, help="emulated prefix-cache capacity")
    parser.add_argument("--peers", default="abcd", help="which peers, in the first round's order (e.g. dcba)")
    parser.add_argument("--repeats", type=int, default=1, help="rounds, alternating the order")
    parser.add_argument("--sensitivity", action="store_true",
                        help="vary group size, duplicates, evidence length and concurrency (peers a, b, d)")
    parser.add_argument("--items", type=int, default=256, help="items per sensitivity run (prompts = items / group)")
    parser.add_argument("--latency-sweep", help="comma-separated seconds per call: run --peers at each on one step")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=8795)
    parser.add_argument("--server-port", type=int, default=8796)
    parser.add_argument("--serve-mock", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out")
    parser.add_argument("--markdown", help="print the tables of a result file as Markdown and exit")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())))
        return
    if args.serve_mock:
        serve_mock(args)
        return
    # Only this script's progress lines: httpx logs every request at INFO, which would cost the peers CPU per call.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s", stream=sys.stderr)
    log.setLevel(logging.INFO)
    if set(args.peers) - set(PEERS) or len(set(args.peers)) != len(args.peers):
        parser.error(f"--peers: letters from {''.join(PEERS)}, each once")
    mock = Mock(args.port, args.per_call, args.per_token, args.cache_tokens)
    started = time.time()
    try:
        if args.sensitivity:
            peers = args.peers.replace("c", "")
            base = {"duplicate_rate": args.duplicate_rate, "concurrency": args.concurrency,
                    "evidence_chars": args.evidence_chars, "rollouts": 16}
            variants = ([{"rollouts": g} for g in (4, 8, 16)] + [{"duplicate_rate": d} for d in (0.0, 0.3)]
                        + [{"concurrency": 1024}]
                        + [{"evidence_chars": e} for e in (args.evidence_chars // 2, args.evidence_chars * 2)]
                        + [{"concurrency": 64}])
            runs = []
            for variant in variants:
                v = {**base, **variant}
                log.info("sensitivity run %s", v)
                runs.append({"varied": variant, **run_peers(args, max(1, args.items // v["rollouts"]), v["rollouts"],
                                                            v["duplicate_rate"], v["concurrency"], v["evidence_chars"],
                                                            peers, args.repeats, mock)})
                if args.out:  # what is done so far survives an interrupted run
                    Path(args.out).write_text(json.dumps({"benchmark": "peers_sensitivity", "runs": runs,
                                                          "partial": True}, indent=2) + "\n")
            report = {"benchmark": "peers_sensitivity", "runs": runs}
        elif args.latency_sweep:
            runs = []
            for per_call in (float(x) for x in args.latency_sweep.split(",")):
                mock.per_call = per_call
                log.info("latency sweep: %.3f s per call", per_call)
                runs.append({"per_call_s": per_call, **run_peers(args, args.prompts, args.rollouts, args.duplicate_rate,
                                                                  args.concurrency, args.evidence_chars, args.peers,
                                                                  args.repeats, mock)})
            report = {"benchmark": "peers_latency_sweep", "runs": runs}
        else:
            report = {"benchmark": "peers", **run_peers(args, args.prompts, args.rollouts, args.duplicate_rate,
                                                         args.concurrency, args.evidence_chars, args.peers,
                                                         args.repeats, mock)}
    finally:
        mock.close()
    report.update({"latency": {"per_call_s": args.per_call, "per_uncached_token_s": args.per_token,
                               "prefix_cache_tokens": args.cache_tokens},
                   "command": " ".join(["benchmarks/peers.py", *sys.argv[1:]]),
                   "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started)),
                   "total_s": round(time.time() - started, 1),
                   "machine": machine()})
    emit(report, args.out)


if __name__ == "__main__":
    main()

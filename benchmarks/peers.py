"""The reward stage against its strongest peers, measured in one run with the same mock judge, judge concurrency
and emulated prefix cache.

Peers, each on the same GRPO step (`benchmarks/grpo_step.py`'s generator):
  a. per-rollout async: every judge dimension of every rollout sent concurrently, in the order rollouts finish
     (shuffled), no dedupe, no group ordering: what verl 0.9's reward loop does with an async `compute_score`;
  b. the same with an exact-match cache that also coalesces identical in-flight calls (what a careful user adds);
  c. the project through the real server: Ray Serve app, HTTP, one request per GRPO group as `GroupBatcher` sends
     them, groups arriving in shuffled order, the OpenAI-compatible backend to the mock;
  d. the project's engine in-process (the same plan without HTTP and Ray), for reference.
The mock judge emulates a GPU judge: a fixed decode time per call plus prefill time per prompt token that misses
its prefix cache (vLLM-style chained block hashes), here with a bounded cache (least recently used blocks out,
`--cache-tokens`), because with an unbounded cache the order of calls cannot matter. Reported per peer: wall time,
judge calls the judge received, emulated prefix-cache hit rate and prefill (uncached) tokens, client CPU seconds.

    .venv/bin/python benchmarks/peers.py --prompts 128 --rollouts 16 --out benchmarks/results/peers.json
    .venv/bin/python benchmarks/peers.py --sensitivity --prompts 16 --out benchmarks/results/peers_sensitivity.json

No extrapolation: every figure is measured on the whole step it reports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from grpo_step import make_step  # noqa: E402

from policy.format import parse_response  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.base import JudgeRequest  # noqa: E402
from reward.judges.mock_server import Latency, MockJudgeServer  # noqa: E402
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge  # noqa: E402
from reward.judges.prompt import approx_tokens, render_messages  # noqa: E402
from reward.rubric import load_suite  # noqa: E402


class BoundedLatency(Latency):
    """`Latency` with a prefix cache of at most `capacity_blocks` blocks, least recently used out."""

    def __init__(self, per_call_s: float, per_uncached_token_s: float, capacity_tokens: int):
        super().__init__(per_call_s, per_uncached_token_s)
        self.capacity_blocks = max(1, capacity_tokens // self.block_size)
        self._lru: OrderedDict[int, None] = OrderedDict()

    def cost(self, messages: list[dict]) -> tuple[float, int, int]:
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in messages)
        tokens = approx_tokens(text)
        chain, hit, uncached = 0, True, 0
        for start in range(0, len(tokens), self.block_size):
            chain = hash((chain, tuple(tokens[start : start + self.block_size])))
            if hit and chain in self._lru:
                self._lru.move_to_end(chain)
                continue
            hit = False
            self._lru[chain] = None
            uncached += min(self.block_size, len(tokens) - start)
        while len(self._lru) > self.capacity_blocks:
            self._lru.popitem(last=False)
        return self.per_call_s + uncached * self.per_uncached_token_s, len(tokens), uncached


def serve_mock(args: argparse.Namespace) -> None:
    """Run the mock judge with a bounded prefix cache, plus `/stats` and `/reset` (this script with --serve-mock)."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    server = MockJudgeServer("searchllm", port=args.port,
                             latency=BoundedLatency(args.per_call, args.per_token, args.cache_tokens))

    async def stats(request):
        return JSONResponse({"calls": len(server.calls), "prompt_tokens": server.prompt_tokens,
                             "uncached_tokens": server.uncached_tokens, "max_in_flight": server.max_in_flight})

    async def reset(request):
        server.calls.clear()
        server.prompt_tokens = server.uncached_tokens = server.max_in_flight = 0
        server.latency = BoundedLatency(args.per_call, args.per_token, args.cache_tokens)
        return JSONResponse({"ok": True})

    server.start()
    server._server.config.app.router.routes.extend([Route("/stats", stats), Route("/reset", reset, methods=["POST"])])
    print("ready", flush=True)
    while True:
        time.sleep(3600)


class Mock:
    def __init__(self, port: int, per_call: float, per_token: float, cache_tokens: int):
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve-mock", "--port", str(port), "--per-call", str(per_call),
             "--per-token", str(per_token), "--cache-tokens", str(cache_tokens)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.process.stdout.readline()

    def reset(self) -> None:
        httpx.post(f"{self.base}/reset", timeout=30)

    def stats(self) -> dict:
        return httpx.get(f"{self.base}/stats", timeout=30).json()

    def close(self) -> None:
        self.process.terminate()


def judge_for(mock: Mock, concurrency: int) -> OpenAIJudge:
    return OpenAIJudge(JudgeConfig(endpoints=[Endpoint(base_url=f"{mock.base}/v1", model="mock-judge",
                                                       max_concurrency=concurrency, timeout_s=600)]))


async def per_rollout(items, suite, judge, concurrency: int, cache: bool, seed: int) -> None:
    """Peers a and b: each rollout's dimensions fired as it finishes (shuffled), all concurrently."""
    order = list(items)
    random.Random(seed).shuffle(order)
    semaphore = asyncio.Semaphore(concurrency)
    futures: dict[str, asyncio.Future] = {}

    async def call(request: JudgeRequest):
        async with semaphore:
            return await judge.judge(request)

    async def cached(request: JudgeRequest):
        key = json.dumps(render_messages(request))
        if key not in futures:
            futures[key] = asyncio.ensure_future(call(request))
        return await futures[key]

    tasks = []
    for item in order:
        parsed = parse_response(item.response)
        for dimension in suite.dimensions.values():
            if dimension.judge is not None:
                request = JudgeRequest(dimension, item, parsed, {})
                tasks.append(cached(request) if cache else call(request))
    await asyncio.gather(*tasks)


def through_server(items, mock: Mock, concurrency: int, seed: int, port: int) -> float:
    """Peer c: the real Ray Serve app; one request per group, groups in shuffled order, all in flight at once."""
    import yaml

    from reward.serve import ServerArgs
    from reward.server_runner import start_server, stop_server

    config = Path(tempfile.mkdtemp()) / "judge.yaml"
    config.write_text(yaml.safe_dump({"endpoints": [{"base_url": f"{mock.base}/v1", "model": "mock-judge",
                                                     "max_concurrency": concurrency, "timeout_s": 600}]}))
    args = ServerArgs(suites=["searchllm"], judge=str(config), judge_concurrency=concurrency, score_log=None,
                      limits={"max_items": 100_000, "max_bytes": 1 << 30})
    url = start_server(args, port=port, num_cpus=2)
    try:
        groups: dict[str, list] = {}
        for item in items:
            groups.setdefault(item.group, []).append(item.model_dump(mode="json"))
        order = list(groups.values())
        random.Random(seed).shuffle(order)

        async def send() -> None:
            async with httpx.AsyncClient(timeout=3600) as client:
                replies = await asyncio.gather(*(client.post(f"{url}/v1/score", json={"suite": "searchllm", "items": g})
                                                 for g in order))
            bad = [r.status_code for r in replies if r.status_code != 200]
            if bad:
                raise RuntimeError(f"server answered {bad[:3]}")

        started = time.perf_counter()
        asyncio.run(send())
        return time.perf_counter() - started
    finally:
        stop_server()


def measure(name: str, mock: Mock, run) -> dict:
    mock.reset()
    cpu, started = time.process_time(), time.perf_counter()
    wall = run()
    wall = wall if isinstance(wall, float) else time.perf_counter() - started
    stats = mock.stats()
    hit = 1 - stats["uncached_tokens"] / stats["prompt_tokens"] if stats["prompt_tokens"] else None
    return {"peer": name, "wall_s": round(wall, 2), "judge_calls": stats["calls"],
            "prefix_hit_rate": round(hit, 4) if hit is not None else None, "prefill_tokens": stats["uncached_tokens"],
            "client_cpu_s": round(time.process_time() - cpu, 2), "max_in_flight": stats["max_in_flight"]}


def run_peers(args, prompts: int, rollouts: int, duplicate_rate: float, concurrency: int, with_server: bool,
              mock: Mock) -> dict:
    suite = load_suite("searchllm")
    items = make_step(prompts, rollouts, seed=args.seed, duplicate_rate=duplicate_rate)
    rows = [
        measure("a. per-rollout async (verl reward loop)", mock,
                lambda: asyncio.run(per_rollout(items, suite, judge_for(mock, concurrency), concurrency, False, args.seed))),
        measure("b. per-rollout async + exact-match cache", mock,
                lambda: asyncio.run(per_rollout(items, suite, judge_for(mock, concurrency), concurrency, True, args.seed))),
        measure("d. project engine in-process", mock,
                lambda: asyncio.run(Engine(suite, judge_for(mock, concurrency), max_concurrency=concurrency).score(items))),
    ]
    if with_server:
        rows.insert(2, measure("c. project through the server (HTTP, one request per group)", mock,
                               lambda: through_server(items, mock, concurrency, args.seed, args.server_port)))
    project = rows[-1]["wall_s"]
    for row in rows:
        row["wall_over_project_engine"] = round(row["wall_s"] / project, 3)
    return {"prompts": prompts, "rollouts": rollouts, "items": len(items), "duplicate_rate": duplicate_rate,
            "judge_concurrency": concurrency, "peers": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=128)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--duplicate-rate", type=float, default=0.15)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--per-call", type=float, default=2.0, help="seconds of decode per judge call")
    parser.add_argument("--per-token", type=float, default=2e-5, help="seconds per uncached prompt token")
    parser.add_argument("--cache-tokens", type=int, default=400_000, help="emulated prefix-cache capacity")
    parser.add_argument("--no-server", action="store_true", help="skip peer c (Ray Serve)")
    parser.add_argument("--sensitivity", action="store_true", help="vary group size, duplicates and concurrency")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=8795)
    parser.add_argument("--server-port", type=int, default=8796)
    parser.add_argument("--serve-mock", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.serve_mock:
        serve_mock(args)
        return
    mock = Mock(args.port, args.per_call, args.per_token, args.cache_tokens)
    try:
        if args.sensitivity:
            runs = []
            for rollouts in (4, 8, 16):
                runs.append(run_peers(args, args.prompts, rollouts, args.duplicate_rate, args.concurrency, False, mock))
            for duplicate_rate in (0.0, 0.3):
                runs.append(run_peers(args, args.prompts, 16, duplicate_rate, args.concurrency, False, mock))
            for concurrency in (64, 1024):
                runs.append(run_peers(args, args.prompts, 16, args.duplicate_rate, concurrency, False, mock))
            report = {"benchmark": "peers_sensitivity", "runs": runs}
        else:
            report = {"benchmark": "peers", **run_peers(args, args.prompts, args.rollouts, args.duplicate_rate,
                                                         args.concurrency, not args.no_server, mock)}
    finally:
        mock.close()
    report.update({"latency": {"per_call_s": args.per_call, "per_uncached_token_s": args.per_token,
                               "prefix_cache_tokens": args.cache_tokens},
                   "command": " ".join(["benchmarks/peers.py", *sys.argv[1:]]),
                   "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"})
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()

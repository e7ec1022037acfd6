"""Client CPU per judge call of the OpenAI-compatible backend, one HTTP connection pool per endpoint (the `openai`
client's default) against the backend's pools of at most `POOL_CONNECTIONS`, alternated over repeats.

`--calls` judge calls of a real GRPO step's prompts (`grpo_step.make_step`, the searchllm suite) go through
`OpenAIJudge.judge` (render, HTTP, parse) with `--concurrency` in flight, against `benchmarks/peers.py`'s mock judge
in its own process with a fixed latency per call. Reported per run: wall, client CPU seconds (this process) and
CPU milliseconds per call.

    .venv/bin/python benchmarks/judge_client.py --calls 3000 --concurrency 256 --latency 0.5 --repeats 2 \\
        --out benchmarks/results/judge_client.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import openai

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from benchmarks.emit import emit, machine  # noqa: E402

from grpo_step import make_step  # noqa: E402
from peers import Mock, judge_for  # noqa: E402

from policy.format import parse_response  # noqa: E402
from reward.judges.base import JudgeRequest  # noqa: E402
from reward.rubric import load_suite  # noqa: E402


def requests(calls: int) -> list[JudgeRequest]:
    suite = load_suite("searchllm")
    out: list[JudgeRequest] = []
    prompts = 1
    while len(out) < calls:
        out = []
        for item in make_step(prompts, 16):
            parsed = parse_response(item.response)
            out += [JudgeRequest(d, item, parsed, {}) for d in suite.dimensions.values() if d.judge is not None]
        prompts *= 2
    return out[:calls]


def one_pool(judge) -> None:
    """Replace the backend's pools by one `openai` client per endpoint with its default pool (the previous code)."""
    judge.clients = [[openai.AsyncOpenAI(base_url=pools[0].base_url, api_key="EMPTY", timeout=600, max_retries=0)]
                     for pools in judge.clients]
    judge.in_flight = [[0] for _ in judge.clients]


async def run(batch: list[JudgeRequest], base: str, concurrency: int, pools: str) -> tuple[float, float]:
    judge = judge_for(base, concurrency)
    if pools == "one":
        one_pool(judge)
    cpu, started = time.process_time(), time.perf_counter()
    replies = await asyncio.gather(*(judge.judge(r) for r in batch))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    await judge.close()
    bad = [r for r in replies if r.status != "ok"]
    if bad:
        raise RuntimeError(f"{len(bad)} unscored replies, e.g. {bad[0].reason}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per judge call at the mock")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--port", type=int, default=8797)
    parser.add_argument("--out")
    args = parser.parse_args()
    batch = requests(args.calls)
    mock = Mock(args.port, args.latency, 0.0, 1_000_000)
    rows = []
    try:
        for repeat in range(args.repeats):
            for pools in (("one", "split") if repeat % 2 == 0 else ("split", "one")):
                mock.reset()
                load = os.getloadavg()[0]
                wall, cpu = asyncio.run(run(batch, mock.base, args.concurrency, pools))
                rows.append({"pools": pools, "wall_s": round(wall, 2), "client_cpu_s": round(cpu, 2),
                             "cpu_ms_per_call": round(cpu / len(batch) * 1e3, 3), "load_avg_1m": round(load, 1)})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    finally:
        mock.close()
    report = {"benchmark": "judge_client", "calls": len(batch), "concurrency": args.concurrency,
              "latency_s": args.latency, "runs": rows,
              "command": " ".join(["benchmarks/judge_client.py", *sys.argv[1:]]),
              "machine": machine()}
    emit(report, args.out)


if __name__ == "__main__":
    main()

"""A simulated GRPO step through the engine and the OpenAI-compatible backend, against a mock judge server that
emulates a GPU judge (fixed latency per call plus time per prompt token that misses its prefix cache).

Reports: wall time against the ideal schedule (total judge work / judge concurrency), the token-weighted prefix
share of the step's judge prompts, and dedupe and cache hit rates. The comparison that matters is against the
strongest peers, measured in full in one run by `benchmarks/peers.py` (per-rollout async calls as verl 0.9's reward
loop makes them, the same with an exact-match cache, the project through the real server). The serial baseline
this script also prints (one judge call at a time per sample, as a synchronous reward function under verl's legacy
naive manager) is a floor, not a competitor: it is measured on `--naive-items` items and scaled to the step, and
no ratio to it is quoted as the project's speed-up.

    .venv/bin/python benchmarks/grpo_step.py --prompts 128 --rollouts 16 --concurrency 256

The mock server runs in its own process (the machine's second core).
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
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policy.format import Facet, render_response  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.base import JudgeRequest  # noqa: E402
from reward.judges.openai_judge import Endpoint, JudgeConfig, OpenAIJudge  # noqa: E402
from reward.judges.prompt import prefix_share, render_messages  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Evidence, Item  # noqa: E402
from policy.format import parse_response  # noqa: E402

WORDS = ("stream premiere ticket venue album chart label release region price free tier subscription device app "
         "schedule gate entrance shuttle fare season weather fungal treatment dosage visa policy extension").split()


def text(rng: random.Random, chars: int) -> str:
    out = []
    while sum(len(w) + 1 for w in out) < chars:
        out.append(rng.choice(WORDS) if rng.random() < 0.8 else str(rng.randint(1, 2030)))
    return " ".join(out)


def make_step(prompts: int, rollouts: int, seed: int = 0, duplicate_rate: float = 0.15,
              evidence_chars: int = 3300) -> list[Item]:
    """`prompts` x `rollouts` items: ~5k-token evidence per prompt (6 docs of `evidence_chars`), ~500-token answers,
    a share of rollouts that repeat an earlier rollout of their group exactly, and selections drawn from few
    choices."""
    rng = random.Random(seed)
    items = []
    for p in range(prompts):
        # Evidence text from its own generator, so its length does not change which rollouts repeat.
        evidence_rng = random.Random(f"{seed}-evidence-{p}")
        evidence = [Evidence(id=str(i), title=f"Doc {i} of prompt {p}", text=text(evidence_rng, evidence_chars), source="web")
                    for i in range(1, 7)]
        query = f"prompt {p}: " + text(rng, 60)
        selections = [["1", "2"], ["1", "3", "4"], ["2", "5"]]
        group_items: list[Item] = []
        for r in range(rollouts):
            if group_items and rng.random() < duplicate_rate:
                source = rng.choice(group_items)
                group_items.append(source.model_copy(update={"id": f"p{p}-r{r}"}))
                continue
            selected = rng.choice(selections)
            answer = " ".join(f"{text(rng, 180)} [Doc {rng.choice(selected)}]." for _ in range(11))
            response = render_response([Facet("main need", tuple(selected))], selected, answer)
            group_items.append(Item(id=f"p{p}-r{r}", group=f"p{p}", query=query, evidence=evidence, response=response))
        items.extend(group_items)
    return items


def start_mock(port: int, per_call: float, per_token: float) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "reward.judges.mock_server", "--port", str(port), "--latency", str(per_call),
         "--per-token", str(per_token)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("mock judge did not start")


def judge_work(items: list[Item], suite, per_call: float, per_token: float) -> tuple[float, float, int]:
    """(seconds of judge work with a perfect prefix cache, prefix share, distinct calls) for the engine's plan:
    distinct calls only, in the engine's group order."""
    from reward.judges.mock_server import Latency

    latency = Latency(per_call, per_token)
    seen, prompts, work = set(), [], 0.0
    for item in items:
        parsed = parse_response(item.response)
        for name, dimension in suite.dimensions.items():
            if dimension.judge is None:
                continue
            messages = render_messages(JudgeRequest(dimension, item, parsed, {}))
            key = json.dumps(messages)
            if key in seen:
                continue
            seen.add(key)
            prompts.append(messages)
            seconds, _, _ = latency.cost(messages)
            work += seconds
    return work, prefix_share(prompts), len(prompts)


async def naive(items: list[Item], suite, judge: OpenAIJudge) -> float:
    """One judge call at a time per sample, every dimension, no dedupe: a serial reward function."""
    started = time.perf_counter()
    for item in items:
        parsed = parse_response(item.response)
        for dimension in suite.dimensions.values():
            if dimension.judge is not None:
                await judge.judge(JudgeRequest(dimension, item, parsed, {}))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=128)
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=256, help="judge calls in flight (the judge's batch)")
    parser.add_argument("--per-call", type=float, default=2.0, help="seconds per judge call (decode time)")
    parser.add_argument("--per-token", type=float, default=2e-5, help="seconds per uncached prompt token (prefill)")
    parser.add_argument("--naive-items", type=int, default=4, help="items the serial floor scores (then scaled)")
    parser.add_argument("--port", type=int, default=8791)
    args = parser.parse_args()
    suite = load_suite("searchllm")
    items = make_step(args.prompts, args.rollouts)
    work, share, distinct = judge_work(items, suite, args.per_call, args.per_token)
    planned = len(items) * sum(1 for d in suite.dimensions.values() if d.judge is not None)
    mock = start_mock(args.port, args.per_call, args.per_token)
    try:
        endpoint = Endpoint(base_url=f"http://127.0.0.1:{args.port}/v1", model="mock-judge",
                            max_concurrency=args.concurrency, timeout_s=600)
        judge = OpenAIJudge(JudgeConfig(endpoints=[endpoint]))
        engine = Engine(suite, judge, max_concurrency=args.concurrency)
        started = time.perf_counter()
        results = asyncio.run(engine.score(items))
        wall = time.perf_counter() - started
        stats = engine.stats
        cache_start = time.perf_counter()
        asyncio.run(engine.score(items))
        rescore = time.perf_counter() - cache_start
        naive_items = items[: args.naive_items]
        naive_judge = OpenAIJudge(JudgeConfig(endpoints=[endpoint]))
        naive_wall = asyncio.run(naive(naive_items, suite, naive_judge)) * (len(items) / len(naive_items))
    finally:
        mock.terminate()
    ideal = work / args.concurrency
    report = {
        "benchmark": "grpo_step",
        "items": len(items), "prompts": args.prompts, "rollouts": args.rollouts,
        "judge_concurrency": args.concurrency, "latency": {"per_call_s": args.per_call, "per_uncached_token_s": args.per_token},
        "judge_calls_planned": planned, "judge_calls_made": stats.judge_calls_made,
        "dedupe_rate": round(1 - distinct / planned, 4),
        "prefix_share": round(share, 4),
        "ideal_s": round(ideal, 2), "wall_s": round(wall, 2), "wall_over_ideal": round(wall / ideal, 3),
        "naive_s_extrapolated": round(naive_wall, 1), "naive_over_wall": round(naive_wall / wall, 1),
        "rescore_cache_hit_rate": round(stats.judge_cache_hits / max(1, planned), 4), "rescore_s": round(rescore, 2),
        "valid_items": sum(r.valid for r in results),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

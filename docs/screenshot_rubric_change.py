"""Render the dashboard of a run whose rubric gains a dimension mid-run and save a PNG for the docs
(docs/dashboard-rubric-change.png): the version marker names the dimension added, and the new dimension's chart has the
title from the rubric folder the run was scored with (`--rubrics`), not its raw name.

    PYTHONPATH=. .venv/bin/python docs/screenshot_rubric_change.py [--out docs/dashboard-rubric-change.png]

The log is synthetic: 16 steps of 24 items of suite `searchllm`; from step 8 the suite also holds the `medical_safety`
dimension of `tests/fixtures/medical_safety` (a hot reload that adds it), whose pass rate climbs as training goes on.
"""

import argparse
import datetime as dt
import random
import shutil
import tempfile
from pathlib import Path

from dashboard_browser import dashboard_page, quantize

from reward.dashboard import render_from_log
from reward.dashboard.page import rubric_titles
from reward.rubric import DEFAULT_RUBRIC_DIR
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog

ROOT = Path(__file__).resolve().parent.parent

parser = argparse.ArgumentParser()
parser.add_argument("--out", default="docs/dashboard-rubric-change.png")
args = parser.parse_args()
rng = random.Random(7)
with tempfile.TemporaryDirectory() as tmp:
    rubrics = Path(tmp) / "rubrics"
    shutil.copytree(DEFAULT_RUBRIC_DIR, rubrics)
    shutil.copy(ROOT / "tests" / "fixtures" / "medical_safety" / "medical_safety.yaml", rubrics / "dimensions")
    log = ScoreLog(Path(tmp) / "scores", writer="docs")
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for step in range(16):
        names = ["format", "claim_hallucination"] + (["medical_safety"] if step >= 8 else [])
        items, results = [], []
        for k in range(24):
            scores = {name: min(1.0, max(0.0, rng.gauss(0.5 + 0.025 * step, 0.15))) for name in names}
            dims = {name: DimensionScore(score=round(s, 3), layer="bottom_line", backend="local") for name, s in scores.items()}
            items.append(Item(id=f"s{step}-i{k}", query="q", response="<answer>a</answer>"))
            results.append(ItemResult(id=f"s{step}-i{k}", reward=round(sum(scores.values()) / len(scores), 3), valid=True,
                                      dimensions=dims))
        log.append(items, results, suite="searchllm", suite_version="4d75c1f5b8a4401f" if step < 8 else "53e15de2640125a2",
                   run="grpo", step=step)
    log.close()
    with dashboard_page(render_from_log(Path(tmp) / "scores", titles=rubric_titles(rubrics)), Path(tmp)) as page:
        top = page.evaluate("document.getElementById('chart-reward').getBoundingClientRect().top + window.scrollY")
        bottom = page.evaluate("document.getElementById('chart-dim-medical_safety').getBoundingClientRect().bottom"
                               " + window.scrollY")
        page.screenshot(path=args.out, full_page=True, clip={"x": 0, "y": top - 8, "width": 1500, "height": bottom - top + 16})
quantize(args.out)
print(args.out)

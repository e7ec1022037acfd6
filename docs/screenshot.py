"""Render the dashboard of a score log in headless Chromium and save PNGs for the docs: the page
(docs/dashboard.png), a drill-down under its chart (docs/dashboard-drilldown.png) and the trainer-metrics panel
(docs/dashboard-trainer.png).

    .venv/bin/python docs/screenshot.py [LOG_FOLDER] [--trainer-metrics RUN=FILE ...] [--out docs/dashboard.png]

Without a folder it draws a synthetic three-run log (gated, linear, sum: reward/dashboard/synthetic.py) and its
synthetic verl trainer logs.
"""

import argparse
import tempfile
from pathlib import Path

from dashboard_browser import dashboard_page, quantize

from reward.dashboard import render_from_log
from reward.dashboard.synthetic import write_synthetic_log, write_synthetic_trainer_log

parser = argparse.ArgumentParser()
parser.add_argument("log", nargs="?")
parser.add_argument("--trainer-metrics", action="append", metavar="RUN=FILE", default=[])
parser.add_argument("--out", default="docs/dashboard.png")
parser.add_argument("--drilldown", default="docs/dashboard-drilldown.png")
parser.add_argument("--trainer", default="docs/dashboard-trainer.png")
parser.add_argument("--click", metavar="CHANNEL:RUN:STEP",
                    help="the point whose drill-down is shot (default for the synthetic log: claim_hallucination:linear:40)")
args = parser.parse_args()
with tempfile.TemporaryDirectory() as tmp:
    if args.log:
        folder = args.log
        trainer = dict(value.split("=", 1) for value in args.trainer_metrics)
    else:
        folder = write_synthetic_log(Path(tmp) / "scores", steps=60, items=32, runs=3)
        trainer = write_synthetic_trainer_log(Path(tmp) / "trainer", steps=60, runs=2)
        args.click = args.click or "claim_hallucination:linear:40"
    shots = [args.out]
    with dashboard_page(render_from_log(folder, trainer=trainer, sample_stride=5), Path(tmp), height=1350) as page:
        page.screenshot(path=args.out)
        if trainer:
            page.locator("#trainer-section").screenshot(path=args.trainer)
            shots.append(args.trainer)
        if args.click:
            channel, run, step = args.click.split(":")
            page.evaluate(f"window.dashboard.showSamples({channel!r}, {run!r}, {int(step)})")
            page.wait_for_function("document.getElementById('drilldown').dataset.loading === 'false'")
            page.wait_for_timeout(300)
            # The clicked chart's row and the drill-down under it.
            top = page.evaluate(f"document.getElementById('chart-dim-{channel}').getBoundingClientRect().top + window.scrollY")
            bottom = page.evaluate("(() => { const r = document.getElementById('drilldown').getBoundingClientRect();"
                                   " return Math.min(r.bottom, r.top + 900) + window.scrollY; })()")
            page.screenshot(path=args.drilldown, full_page=True,
                            clip={"x": 0, "y": top - 8, "width": 1500, "height": bottom - top + 16})
            shots.append(args.drilldown)
for shot in shots:
    quantize(shot)
    print(shot)

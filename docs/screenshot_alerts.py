"""Render the dashboard's alerts and save a PNG for the docs (docs/dashboard-alerts.png): the alerts list, the reward
curve with the steps the alerts fired marked, and a monitor-only dimension's card with its own alert marks.

    PYTHONPATH=. .venv/bin/python docs/screenshot_alerts.py [LOG_FOLDER] [--dimension claim_hallucination]
                                                            [--out docs/dashboard-alerts.png]

Without a folder it draws the `healthy` and `hacking` runs of `reward.dashboard.synthetic.write_scenario_log`
(30 steps of 64 rollouts under searchllm-monitor-claims; in `hacking` the monitor-only claim_hallucination falls
from 0.95 to 0.45 while the reward rises): a synthetic log, not a training run.
"""

import argparse
import tempfile
from pathlib import Path

from dashboard_browser import dashboard_page

from reward.dashboard import render_from_log
from reward.dashboard.synthetic import write_scenario_log

parser = argparse.ArgumentParser()
parser.add_argument("log", nargs="?")
parser.add_argument("--dimension", default="claim_hallucination", help="the dimension whose card is shot")
parser.add_argument("--out", default="docs/dashboard-alerts.png")
args = parser.parse_args()
with tempfile.TemporaryDirectory() as tmp:
    folder = args.log or write_scenario_log(Path(tmp) / "scores", scenarios=("healthy", "hacking"))
    with dashboard_page(render_from_log(folder, smoothing=0.0), Path(tmp)) as page:
        # The alerts list, the reward chart and the dimension's card, moved next to each other for one picture.
        page.evaluate("""(name) => {
            const card = document.getElementById('chart-dim-' + name).closest('.card');
            const reward = document.getElementById('chart-reward').closest('.card');
            reward.after(card);
            window.dispatchEvent(new Event('resize'));
        }""", args.dimension)
        page.wait_for_timeout(800)
        box = page.evaluate("""() => {
            const top = document.getElementById('alerts').getBoundingClientRect().top + window.scrollY - 40;
            const reward = document.getElementById('chart-reward').closest('.card').getBoundingClientRect();
            return {top: top, bottom: reward.bottom + window.scrollY + 8};
        }""")
        page.screenshot(path=args.out, clip={"x": 0, "y": box["top"], "width": 1500, "height": box["bottom"] - box["top"]},
                        full_page=True)
print(args.out)

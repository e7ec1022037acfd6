"""Render the dashboard of a score log in headless Chromium and save a PNG (the README's docs/dashboard.png).

    .venv/bin/python docs/screenshot.py [LOG_FOLDER] [--out docs/dashboard.png]

Without a folder it draws a synthetic three-run log (gated, linear, sum: reward/dashboard/synthetic.py).
"""

import argparse
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from reward.dashboard import render_from_log
from reward.dashboard.synthetic import write_synthetic_log

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

parser = argparse.ArgumentParser()
parser.add_argument("log", nargs="?")
parser.add_argument("--out", default="docs/dashboard.png")
args = parser.parse_args()
with tempfile.TemporaryDirectory() as tmp:
    folder = args.log or write_synthetic_log(Path(tmp) / "scores", steps=60, items=32, runs=3)
    page_path = Path(tmp) / "dashboard.html"
    page_path.write_text(render_from_log(folder), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1350})
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true")
        page.wait_for_timeout(500)
        page.screenshot(path=args.out)
        browser.close()
# 256 colours are plenty for flat charts and keep the repository's PNG small.
from PIL import Image  # noqa: E402

Image.open(args.out).convert("RGB").quantize(256).save(args.out, optimize=True)
print(args.out)

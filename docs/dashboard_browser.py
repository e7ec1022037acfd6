"""The dashboard in headless Chromium for the docs' screenshots (`docs/screenshot*.py`): a rendered page opened and
drawn (`dashboard_page`), and a PNG reduced to 256 colours (`quantize`), which keeps the repository's PNGs small."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def dashboard_page(html: str, folder: Path, height: int = 1100) -> Iterator:
    """A Chromium page 1500 pixels wide showing `html` (written to `folder`/dashboard.html) once its charts are drawn."""
    from playwright.sync_api import sync_playwright

    page_path = Path(folder) / "dashboard.html"
    page_path.write_text(html, encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": height})
            page.goto(page_path.as_uri())
            page.wait_for_function("window.dashboardReady === true")
            page.wait_for_timeout(500)
            yield page
        finally:
            browser.close()


def quantize(path: str) -> None:
    """Rewrite the PNG at `path` with 256 colours (plenty for flat charts)."""
    from PIL import Image

    Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)

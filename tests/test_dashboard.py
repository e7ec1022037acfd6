"""The dashboard rendered from a synthetic multi-step score log in headless Chromium: every chart drew its series,
no console errors, a click on a point shows that step's samples, and the page needs no network."""

import shutil

import pytest

from reward.dashboard import render_from_log, summarise
from reward.dashboard.synthetic import write_synthetic_log
from reward.rubric import load_suite
from reward.scorelog import read_log

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def log_folder(tmp_path_factory):
    return write_synthetic_log(tmp_path_factory.mktemp("synthetic"), steps=8, items=24)


def test_summary_has_bands_samples_and_unscored_rates(log_folder):
    data = summarise(read_log(log_folder))
    assert sorted(data["runs"]) == ["gated", "linear"]
    gated = data["runs"]["gated"]
    assert gated["steps"] == list(range(8)) and gated["items"] == [24] * 8
    claim = gated["dimensions"]["claim_hallucination"]
    assert all(0 <= lo <= hi <= 1 and 0 <= mean <= 1 for lo, mean, hi in zip(claim["p10"], claim["mean"], claim["p90"]))
    assert 1 <= len(claim["samples"]["3"]) <= 5
    assert set(gated["unscored"]) <= {"judge_timeout", "unparseable"}
    assert data["runs"]["linear"]["curves"]["gate"]["mean"] == [None] * 8  # linear has no gate


def test_dashboard_draws_in_headless_chromium(log_folder, tmp_path):
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "dashboard.html"
    page_path.write_text(render_from_log(log_folder), encoding="utf-8")
    assert "https://" not in page_path.read_text().split('<script type="application/json"')[0].split("</script>", 1)[1]
    dimensions = len(load_suite("searchllm").dimensions)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors, requests = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=30000)
        assert page.evaluate("window.dashboard.charts") == 4 + dimensions + 2
        series = page.eval_on_selector_all(".chart[data-dimension]", "els => els.map(e => [e.dataset.dimension, e.data.length, e.dataset.series])")
        assert len(series) == dimensions
        assert all(traces == 6 and named == "2" for _, traces, named in series)  # band + mean per run, two runs
        drawn = page.eval_on_selector_all(".chart[data-dimension]", "els => els.map(e => e.querySelectorAll('.scatterlayer .trace path.js-line').length)")
        assert all(count >= 2 for count in drawn)
        assert page.eval_on_selector_all(".card.bottom_line", "els => els.length") == 9
        # A real click on the gated run's mean point at step 3 of claim_hallucination.
        box = page.evaluate("""() => {
            const gd = document.getElementById('chart-dim-claim_hallucination');
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, rect = gd.getBoundingClientRect();
            const trace = gd.data[2];
            return {x: rect.left + xa._offset + xa.l2p(trace.x[3]), y: rect.top + ya._offset + ya.l2p(trace.y[3])};
        }""")
        page.mouse.move(box["x"], box["y"])
        page.mouse.click(box["x"], box["y"])
        page.wait_for_function("document.getElementById('drilldown').dataset.samples !== undefined", timeout=10000)
        text = page.inner_text("#drilldown")
        assert "Claim hallucination" in text and "step 3" in text and "synthetic judgment" in text
        browser.close()
    assert errors == [] and requests == []

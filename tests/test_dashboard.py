"""The dashboard rendered from a synthetic multi-step score log in headless Chromium: every chart drew its series,
no console errors, a click on a point shows that step's samples, and the page needs no network. Plus the
aggregation it draws from: per-step statistics, capped drill-down samples for long runs, runs without steps."""

import csv
import datetime as dt
import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from reward.dashboard import render, render_from_log, summarise
from reward.dashboard.stats import SAMPLES_LOWEST, SAMPLES_RANDOM, UNSTEPPED_BUCKET
from reward.dashboard.synthetic import write_synthetic_log
from reward.rubric import load_suite
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog, ScoreRecord, read_log

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def require_chromium() -> None:
    """Skip loudly where Chromium is missing and cannot be installed (not root); as root (CI, where `make test`
    installs it) a missing Chromium is a failure."""
    if not Path(CHROMIUM).exists():
        if os.geteuid() == 0:
            pytest.fail("chromium is missing although this runs as root: apt-get install chromium (make test does)")
        reason = "chromium is missing and installing it needs root: apt-get install chromium (make test does, as root)"
        warnings.warn(reason, stacklevel=1)
        pytest.skip(reason)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STEPS, ITEMS = 8, 24


@pytest.fixture(scope="module")
def log_folder(tmp_path_factory):
    return write_synthetic_log(tmp_path_factory.mktemp("synthetic"), steps=STEPS, items=ITEMS)


def _record(index: int, step: int | None, score: float | None, run: str | None = "r", reason: str = "judge_timeout"):
    dimension = (DimensionScore(score=score, layer="bottom_line", backend="mock") if score is not None
                 else DimensionScore.unscored("bottom_line", "mock", reason))
    result = ItemResult(id=f"i{index}", reward=score or 0.0, valid=score is not None,
                        dimensions={"format": dimension,
                                    "claim_diversity": DimensionScore(score=0.5, layer="behavioral", backend="mock")})
    item = Item(id=f"i{index}", query=f"query {index}", response=f"<answer>answer {index}</answer>")
    return ScoreRecord(time=dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=index), suite="mini",
                       suite_version="v", run=run, step=step, result=result, item=item)


def test_summary_has_bands_counts_samples_and_unscored_reasons(log_folder):
    data = summarise(read_log(log_folder))
    assert sorted(data["runs"]) == ["gated", "linear"] and data["records"] == 2 * STEPS * ITEMS
    gated = data["runs"]["gated"]
    assert gated["steps"] == list(range(STEPS)) and gated["items"] == [ITEMS] * STEPS
    claim = gated["dimensions"]["claim_hallucination"]
    # A binary judge's mean may lie outside its p10-p90 band (e.g. 95% ones), so only the order of the band holds.
    assert all(0 <= lo <= hi <= 1 and 0 <= mean <= 1
               for lo, mean, hi in zip(claim["p10"], claim["mean"], claim["p90"], strict=True))
    unscored = [sum(counts[k] for counts in claim["unscored"].values()) for k in range(STEPS)]
    assert [c + u for c, u in zip(claim["count"], unscored, strict=True)] == claim["seen"] == [ITEMS] * STEPS
    # Mean and percentiles agree with numpy on the raw scores of one step.
    raw = [r.result.dimensions["claim_hallucination"].score for r in read_log(log_folder)
           if r.run == "gated" and r.step == 3 and r.result.dimensions["claim_hallucination"].score is not None]
    assert claim["mean"][3] == pytest.approx(np.mean(raw), abs=1e-4)
    assert claim["p90"][3] == pytest.approx(np.percentile(raw, 90), abs=1e-4)
    step3 = gated["step_samples"]["3"]
    samples = step3["channels"]["claim_hallucination"]
    assert len(samples) == SAMPLES_LOWEST + SAMPLES_RANDOM
    lowest = [-1.0 if s.get("score") is None else s["score"] for s in samples[:SAMPLES_LOWEST]]
    assert lowest == sorted(lowest) and lowest[0] <= min(raw)
    assert all(step3["items"][s["item"]]["id"].startswith("gated-s3-") for s in samples)
    assert set(gated["unscored"]) <= {"judge_timeout", "unparseable"} and gated["unscored"]
    assert data["runs"]["linear"]["curves"]["gate"]["mean"] == [None] * STEPS  # linear has no gate
    rewards = step3["channels"]["reward"]
    assert rewards[0]["score"] == min(rewards[k]["score"] for k in range(SAMPLES_LOWEST))
    # Seeded: the same log gives the same samples.
    assert summarise(read_log(log_folder))["runs"]["gated"]["step_samples"] == gated["step_samples"]


def test_long_run_keeps_samples_for_a_capped_set_of_steps_including_the_latest():
    records = (_record(i, step=i // 2, score=(i % 10) / 10) for i in range(2 * 500))
    data = summarise(records, sample_steps=40)
    run = data["runs"]["r"]
    assert run["steps"] == list(range(500))
    assert 20 <= len(run["sampled_steps"]) <= 40 and run["sampled_steps"][-1] == 499
    assert sorted(run["step_samples"]) == sorted(map(str, run["sampled_steps"]))
    # Every step still has its statistics; item excerpts are stored once per step however many channels pick them.
    assert len(run["dimensions"]["format"]["mean"]) == 500
    for samples in run["step_samples"].values():
        ids = [item["id"] for item in samples["items"]]
        assert len(ids) == len(set(ids)) <= 2
    page = render(_record(i, step=i // 32, score=(i % 10) / 10) for i in range(32 * 300))
    assert len(page) < 6_000_000  # plotly.js is ~4.7 MB of it; 300 steps of samples stay small


def test_records_without_steps_are_bucketed_in_log_order_apart_from_stepped_ones():
    records = [_record(i, step=None, score=0.2 if i < UNSTEPPED_BUCKET else 0.8) for i in range(UNSTEPPED_BUCKET + 5)]
    records += [_record(1000 + i, step=7, score=0.5) for i in range(3)]
    data = summarise(records)
    assert sorted(data["runs"]) == ["r", "r (no step)"]
    unstepped = data["runs"]["r (no step)"]
    assert unstepped["unstepped"] and unstepped["steps"] == [0, 1] and unstepped["items"] == [UNSTEPPED_BUCKET, 5]
    assert unstepped["dimensions"]["format"]["mean"] == [0.2, 0.8]
    assert data["runs"]["r"]["steps"] == [7] and not data["runs"]["r"]["unstepped"]


def test_several_logs_without_run_names_stay_apart(tmp_path):
    for name, score in (("baseline", 0.3), ("candidate", 0.9)):
        log = ScoreLog(tmp_path / name, writer="test")
        records = [_record(i, step=i // 4, score=score, run=None) for i in range(8)]
        log.append([r.item for r in records], [r.result for r in records], suite="mini", suite_version="v", step=None)
        log.close()
    page = render_from_log(tmp_path / "baseline", tmp_path / "candidate", smoothing=0.0)
    data = json.loads(page.split('id="dashboard-data">')[1].split("</script>")[0])
    assert sorted(data["runs"]) == ["baseline/mini (no step)", "candidate/mini (no step)"]
    assert data["runs"]["candidate/mini (no step)"]["dimensions"]["format"]["mean"] == [0.9]
    with pytest.raises(FileNotFoundError, match="missing"):
        render_from_log(tmp_path / "missing")


def test_dashboard_draws_in_headless_chromium(log_folder, tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "dashboard.html"
    page_path.write_text(render_from_log(log_folder), encoding="utf-8")
    head = page_path.read_text().split('<script type="application/json"')[0].split("</script>", 1)[1]
    assert "https://" not in head and "http://" not in head
    dimensions = load_suite("searchllm").dimensions
    bottom_line = sum(d.layer == "bottom_line" for d in dimensions.values())
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors, requests = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        # reward, gate, utility, valid rate; one per dimension; one unscored chart per run.
        assert page.evaluate("window.dashboard.charts") == 4 + len(dimensions) + 2
        series = page.eval_on_selector_all(
            ".chart[data-channel]:not(#chart-reward)", "els => els.map(e => [e.dataset.channel, e.data.length, e.dataset.series])")
        assert len(series) == len(dimensions)
        binary = {name for name, d in summarise(read_log(log_folder))["runs"]["gated"]["dimensions"].items() if d["binary"]}
        assert binary and len(binary) < len(dimensions)  # the synthetic log has pass/fail judges and graded ones
        # Per run: a p10/p90 band pair and the mean; pass/fail dimensions draw the mean (pass rate) alone.
        assert all(traces == (2 if name in binary else 6) and named == "2" for name, traces, named in series)
        assert page.evaluate("document.getElementById('chart-gate').dataset.series") == "1"  # only gated has a gate
        drawn = page.eval_on_selector_all(
            ".chart[data-channel]", "els => els.map(e => e.querySelectorAll('.scatterlayer .trace path.js-line').length)")
        assert all(count >= 2 for count in drawn)
        assert page.eval_on_selector_all("#bottom_line .card.bottom_line", "els => els.length") == bottom_line
        assert page.eval_on_selector_all("#latest-table tr.bottom_line", "els => els.length") == bottom_line
        # A real click on the linear run's mean point at step 3 of claim_hallucination.
        box = page.evaluate("""() => {
            const gd = document.getElementById('chart-dim-claim_hallucination');
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, rect = gd.getBoundingClientRect();
            const trace = gd.data.find((t) => t.meta.run === 'linear' && t.meta.role === 'mean');
            return {x: rect.left + xa._offset + xa.l2p(trace.x[3]), y: rect.top + ya._offset + ya.l2p(trace.y[3])};
        }""")
        page.mouse.move(box["x"], box["y"])
        page.mouse.click(box["x"], box["y"])
        page.wait_for_function("document.getElementById('drilldown').dataset.samples !== undefined", timeout=10000)
        text = page.inner_text("#drilldown")
        assert "Claim hallucination" in text and "run linear" in text and "step 3" in text
        assert "synthetic judgment" in text and "linear-s3-" in text and f"of {ITEMS} scored" in text
        assert page.evaluate("document.getElementById('drilldown').dataset.samples") == str(SAMPLES_LOWEST + SAMPLES_RANDOM)
        # The smoothing slider redraws every curve: raw (weight 0) means equal the summary's.
        page.evaluate("window.dashboard.setSmoothing(0)")
        raw = page.evaluate("document.getElementById('chart-dim-claim_hallucination').data"
                            ".find((t) => t.meta.run === 'gated' && t.meta.role === 'mean').y")
        assert raw == summarise(read_log(log_folder))["runs"]["gated"]["dimensions"]["claim_hallucination"]["mean"]
        page.uncheck("#bands")
        assert page.evaluate("document.getElementById('chart-dim-format').data.length") == 2
        page.evaluate("window.dashboard.showSamples('reward', 'gated', 5)")
        assert "lowest-reward" in page.inner_text("#drilldown") and "gate " in page.inner_text("#drilldown")
        # An empty log (a server that has scored nothing yet) still gives a working page.
        empty = tmp_path / "empty.html"
        empty.write_text(render([]), encoding="utf-8")
        page.goto(empty.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=30000)
        assert "0 run(s)" in page.inner_text("#summary")
        browser.close()
    assert errors == [] and requests == []


def test_cli_writes_one_page_for_several_logs(tmp_path, log_folder):
    from reward.cli import main

    other = tmp_path / "other"
    log = ScoreLog(other, writer="test")
    records = [_record(i, step=2, score=0.4, run="candidate") for i in range(4)]
    log.append([r.item for r in records], [r.result for r in records], suite="mini", suite_version="v",
               run="candidate", step=2)
    log.close()
    out = tmp_path / "report.html"
    assert main(["dashboard", "--log", str(log_folder), "--log", str(other), "--out", str(out), "--smoothing", "0"]) == 0
    data = json.loads(out.read_text().split('id="dashboard-data">')[1].split("</script>")[0])
    assert sorted(data["runs"]) == ["other/candidate", f"{log_folder.name}/gated", f"{log_folder.name}/linear"]
    assert data["smoothing"] == 0
    assert main(["dashboard", "--log", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert main(["dashboard", "--log", str(other), "--smoothing", "1.5", "--out", str(out)]) == 2


def test_render_from_log_is_cached_until_the_log_changes(tmp_path):
    log = ScoreLog(tmp_path / "log", writer="test")
    first = [_record(i, step=0, score=0.5) for i in range(3)]
    log.append([r.item for r in first], [r.result for r in first], suite="mini", suite_version="v", run="r", step=0)
    page = render_from_log(tmp_path / "log")
    assert render_from_log(tmp_path / "log") is page  # nothing changed: the cached page
    more = [_record(10 + i, step=1, score=0.9) for i in range(3)]
    log.append([r.item for r in more], [r.result for r in more], suite="mini", suite_version="v", run="r", step=1)
    log.close()
    data = json.loads(render_from_log(tmp_path / "log").split('id="dashboard-data">')[1].split("</script>")[0])
    assert data["runs"]["r"]["steps"] == [0, 1]
    assert "Format!" in render_from_log(tmp_path / "log", titles={"format": "Format!"})  # unhashable option: no cache


def _serve_samples(folder, asked):
    """A Playwright route handler answering what `GET /dashboard/samples` answers for `folder`."""
    from urllib.parse import parse_qs, urlparse

    from reward.dashboard import drilldown
    from reward.dashboard.data import UnknownStep, step_page

    def answer(route):
        query = {k: v[0] for k, v in parse_qs(urlparse(route.request.url).query, keep_blank_values=True).items()}
        asked.append((query["run"], int(query["step"]), query.get("channel"), query.get("q", ""),
                      int(query.get("offset", 0))))
        try:
            body = (step_page(folder, query["run"], int(query["step"]), query["channel"], search=query.get("q", ""),
                              offset=int(query.get("offset", 0)), limit=int(query.get("limit", 10)))
                    if "channel" in query else drilldown(folder, query["run"], int(query["step"])))
            route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
        except UnknownStep as exc:
            route.fulfill(status=404, content_type="application/json", body=json.dumps({"error": str(exc)}))

    return answer


def test_served_page_pages_searches_and_shows_the_previous_step(log_folder, tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "served.html"
    page_path.write_text(render_from_log(log_folder, samples_url="http://reward.test/dashboard/samples"), encoding="utf-8")
    data = json.loads(page_path.read_text().split('id="dashboard-data">')[1].split("</script>")[0])
    assert all("step_samples" not in run for run in data["runs"].values())  # nothing embedded per step
    assert len(data["runs"]["gated"]["time"]) == STEPS
    asked = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("http://reward.test/**", _serve_samples(log_folder, asked))
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        page.evaluate("window.dashboard.showSamples('claim_hallucination', 'linear', 3)")
        page.wait_for_function("document.getElementById('drilldown').dataset.loading === 'false'", timeout=10000)
        text = page.inner_text("#drilldown")
        # The clicked step and the one before it, each a page of all its items (not only the kept samples).
        assert asked == [("linear", 3, "claim_hallucination", "", 0), ("linear", 2, "claim_hallucination", "", 0)]
        assert "step 3" in text and "linear-s3-" in text and "UTC" in text and f"showing 1-10 of {ITEMS} items" in text
        assert "previous step 2" in text and "linear-s2-" in text
        # Opened from code (no clicked card): placed under its channel's chart and scrolled to, though ten samples
        # per column make it taller than the window.
        top = page.evaluate("document.getElementById('drilldown').getBoundingClientRect().top")
        assert 0 <= top < 1000 * 0.6
        assert page.evaluate("document.getElementById('drilldown').previousElementSibling.querySelector('.chart').id") \
            == "chart-dim-claim_hallucination"
        drill = page.evaluate("({...document.getElementById('drilldown').dataset})")
        assert drill["samples"] == "10" and drill["total"] == str(ITEMS) and drill["previous"] == "2"
        # Ranked lowest first, unscored first, over every item of the step.
        scores = [r.result.dimensions["claim_hallucination"].score for r in read_log(log_folder)
                  if r.run == "linear" and r.step == 3]
        shown = page.eval_on_selector_all("#drilldown .drill-col.current .sample", "els => els.map(e => e.dataset.item)")
        by_id = {r.result.id: r.result.dimensions["claim_hallucination"].score for r in read_log(log_folder)
                 if r.run == "linear" and r.step == 3}
        ranks = [-1.0 if by_id[i] is None else by_id[i] for i in shown]
        assert ranks == sorted(ranks) and ranks[0] == min(-1.0 if v is None else v for v in scores)
        # Next page: items 11-20; the previous step pages along.
        page.click("#drill-next")
        page.wait_for_function("document.getElementById('drilldown').dataset.loading === 'false'", timeout=10000)
        assert f"showing 11-20 of {ITEMS} items" in page.inner_text("#drilldown")
        second = page.eval_on_selector_all("#drilldown .drill-col.current .sample", "els => els.map(e => e.dataset.item)")
        assert not set(second) & set(shown) and len(second) == 10
        # Search by item id and by group id: the server searches the whole step.
        page.fill("#drill-search", "linear-s3-i17")
        page.press("#drill-search", "Enter")
        page.wait_for_function("document.getElementById('drilldown').dataset.total === '1'", timeout=10000)
        assert page.eval_on_selector_all("#drilldown .drill-col.current .sample", "els => els.map(e => e.dataset.item)") == ["linear-s3-i17"]
        page.evaluate("window.dashboard.search('linear-s3-g1')")
        page.wait_for_function("document.getElementById('drilldown').dataset.loading === 'false'", timeout=10000)
        assert page.evaluate("document.getElementById('drilldown').dataset.total") == "8"  # items 16-23 of step 3 (group g1)
        page.evaluate("window.dashboard.showSamples('format', 'linear', 42)")  # a step the server does not know
        page.wait_for_function("document.getElementById('drilldown').dataset.loading === 'false'", timeout=10000)
        assert "unavailable" in page.inner_text("#drilldown")
        # Switching a run off hides it on every chart and in the table; switching it on brings it back.
        page.uncheck('#run-toggles input[data-run="linear"]')
        shown = page.eval_on_selector_all(".chart[data-channel]", "els => els.map(e => e.dataset.series)")
        assert set(shown) == {"1"}
        assert page.eval_on_selector_all("#latest-table tr:first-child th", "els => els.length") == 2
        assert page.evaluate("document.getElementById('chart-unscored-1').parentElement.style.display") == "none"
        page.check('#run-toggles input[data-run="linear"]')
        assert page.evaluate("document.getElementById('chart-dim-format').dataset.series") == "2"
        assert "UTC" in page.inner_text("#latest-table")
        browser.close()
    assert errors == []


HOSTILE = ['<!--<script>', '</script><script>window.pwned = 1</script>', '<img src=x onerror="window.pwned = 1">',
           '<!-- -->&lt;b&gt; & </SCRIPT >']


def test_logged_text_of_any_shape_cannot_break_or_script_the_page(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    records = []
    for index, text in enumerate(HOSTILE * 2):
        record = _record(index, step=index % 2, score=0.1 * (index % 5), run=f"run {text}")
        record.item = record.item.model_copy(update={"query": text, "response": f"<answer>{text}</answer>"})
        record.result.dimensions["format"].explanation = text
        records.append(record)
    page_path = tmp_path / "hostile.html"
    page_path.write_text(render(records), encoding="utf-8")
    assert "<!--" not in page_path.read_text().split('id="dashboard-data">', 1)[1].split("</script>", 1)[0]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        run = page.evaluate("Object.keys(JSON.parse(document.getElementById('dashboard-data').textContent).runs)[0]")
        page.evaluate(f"window.dashboard.showSamples('format', {json.dumps(run)}, 0)")
        shown = page.inner_text("#drilldown")
        assert page.evaluate("window.pwned") is None and errors == []
        assert any(text in shown for text in HOSTILE)  # shown as text, not run as markup
        browser.close()


def _local_tier_log(folder: Path, steps: int = 8, items: int = 6) -> Path:
    """A run scored the way the local tier scores: `answer_quality` never scored (no_local_backend), a rubric hot
    reload (v1 -> v2) at step 4."""
    log = ScoreLog(folder, writer="test")
    for step in range(steps):
        records = []
        for index in range(items):
            record = _record(step * items + index, step=step, score=round(0.5 + 0.05 * index, 3))
            record.result.dimensions["answer_quality"] = DimensionScore.unscored("bottom_line", "local", "no_local_backend")
            records.append(record)
        log.append([r.item for r in records], [r.result for r in records], suite="mini",
                   suite_version="v1" if step < 4 else "v2", run="r", step=step)
    log.close()
    return folder


def test_drilldown_lands_in_view_and_unscored_dimensions_read_as_a_panel(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    folder = _local_tier_log(tmp_path / "local")
    trainer = tmp_path / "trainer_state.json"
    trainer.write_text(json.dumps({"log_history": [{"step": s, "loss": 1 / (s + 1), "kl": 0.01 * s} for s in range(8)]
                                   + [{"train_runtime": 12.5, "step": 8}]}))
    page_path = tmp_path / "local.html"
    page_path.write_text(render_from_log(folder, trainer={"": trainer}, sample_stride=1), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        # The never-scored dimension is a panel that says why, not an empty chart; the table says it too.
        assert page.query_selector("#chart-dim-answer_quality") is None
        panel = page.inner_text("#panel-dim-answer_quality")
        assert "100% unscored: no_local_backend" in panel and "48 scores, none scored" in panel
        assert page.eval_on_selector("#panel-dim-answer_quality", "e => e.closest('#bottom_line') !== null")
        assert "100% unscored: no_local_backend" in page.inner_text("#latest-table")
        # Axes: scores and the valid rate run 0-1 (0-100%), whatever the data.
        for chart in ("chart-valid", "chart-dim-format"):
            low, high = page.evaluate(f"document.getElementById('{chart}')._fullLayout.yaxis.range")
            assert -0.05 <= low <= 0 and 1 <= high <= 1.05
        assert page.evaluate("document.getElementById('chart-valid')._fullLayout.yaxis.tickformat") == ".0%"
        # The unscored chart has a legend even with a single reason.
        assert page.evaluate("document.getElementById('chart-unscored-0')._fullLayout.showlegend") is True
        assert page.eval_on_selector_all("#chart-unscored-0 .legend .legendtext",
                                         "els => els.map(e => e.textContent)") == ["no_local_backend"]
        # The rubric reload at step 4 is marked on every chart.
        marked = page.eval_on_selector_all(".chart", "els => els.map(e => (e.layout.shapes || []).map(s => s.x0))")
        assert marked and all(m == [4] for m in marked)
        assert "mini: rubric edited (same dimensions)" in page.inner_text("#chart-dim-format")  # what, not a hash
        # Trainer metrics on the same step axis, beside the reward curves (non-numbers such as runtime left out).
        assert page.eval_on_selector_all("#trainer .chart", "els => els.map(e => e.dataset.metric)") == ["kl", "loss"]
        assert page.evaluate("document.getElementById('chart-trainer-1').data[0].customdata") == [1 / (s + 1) for s in range(8)]
        assert (page.evaluate("document.getElementById('chart-trainer-0')._fullLayout.xaxis.range")
                == page.evaluate("document.getElementById('chart-dim-format')._fullLayout.xaxis.range"))
        # The toolbar never covers a chart's title.
        page.hover("#chart-dim-format")
        title = page.eval_on_selector("#chart-dim-format .gtitle", "e => e.getBoundingClientRect().toJSON()")
        bar = page.eval_on_selector("#chart-dim-format .modebar", "e => e.getBoundingClientRect().toJSON()")
        assert title["right"] < bar["left"] or title["bottom"] < bar["top"]
        # The page's CSV download is the table `reward dashboard --export steps.csv` writes.
        from reward.dashboard.data import page_data
        from reward.dashboard.export import write_table
        from reward.dashboard.trainer import trainer_data

        data, _ = page_data([folder])
        data["trainer"] = trainer_data({"": trainer}, list(data["runs"]))
        expected = list(csv.reader(write_table(data, tmp_path / "steps.csv").read_text().splitlines()))
        with page.expect_download() as download:
            page.click("#export-csv")
        assert download.value.suggested_filename == "steps.csv"
        shown = list(csv.reader(Path(download.value.path()).read_text().splitlines()))
        assert shown[0] == expected[0] and "trainer/kl" in shown[0] and len(shown) == len(expected) == 9
        for got, want in zip(shown[1:], expected[1:], strict=True):
            assert [float(v) if v.replace(".", "", 1).replace("-", "", 1).isdigit() else v for v in got] == \
                [float(v) if v.replace(".", "", 1).replace("-", "", 1).isdigit() else v for v in want]
        # A real click on a point of the last chart: the samples show up right under it, in view.
        page.evaluate("window.scrollTo(0, 0)")
        target = page.eval_on_selector_all(".chart[data-channel]", "els => els[els.length - 1].id")
        page.eval_on_selector(f"#{target}", "e => e.scrollIntoView({block: 'center'})")
        point = page.evaluate(f"""() => {{
            const gd = document.getElementById('{target}');
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, rect = gd.getBoundingClientRect();
            const trace = gd.data.find((t) => t.meta.role === 'mean');
            return {{x: rect.left + xa._offset + xa.l2p(trace.x[2]), y: rect.top + ya._offset + ya.l2p(trace.y[2])}};
        }}""")
        page.mouse.move(point["x"], point["y"])
        page.mouse.click(point["x"], point["y"])
        page.wait_for_function("document.getElementById('drilldown').dataset.step === '2'", timeout=10000)
        page.wait_for_timeout(300)
        box = page.eval_on_selector("#drilldown", "e => e.getBoundingClientRect().toJSON()")
        chart = page.eval_on_selector(f"#{target}", "e => e.getBoundingClientRect().toJSON()")
        assert box["top"] < 900 and box["bottom"] > 0, box  # in the viewport
        assert 0 <= box["top"] - chart["bottom"] < 40  # right under the clicked chart's row
        assert "previous step 1" in page.inner_text("#drilldown") and "i12" in page.inner_text("#drilldown")
        browser.close()
    assert errors == []


def _shown_page(page, html_path):
    page.goto(html_path.as_uri())
    page.wait_for_function("window.dashboardReady === true", timeout=60000)


def test_markers_name_the_change_steps_are_integers_and_rate_labels_distinct(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    changed = ScoreLog(tmp_path / "changed", writer="test")
    for step, (version, names) in enumerate([("v1", ["format"]), ("v1", ["format"]), ("v2", ["format", "medical_safety"])]):
        results = [ItemResult(id=f"s{step}-i{k}", reward=0.5, valid=True, dimensions={
            name: DimensionScore(score=0.5, layer="bottom_line", backend="mock") for name in names}) for k in range(3)]
        items = [Item(id=f"s{step}-i{k}", query="q", response="<answer>a</answer>") for k in range(3)]
        changed.append(items, results, suite="mini", suite_version=version, run="r", step=step)
    changed.close()
    one_step = ScoreLog(tmp_path / "one", writer="test")
    records = [_record(i, step=0, score=None if i < 3 else 0.5) for i in range(200)]  # 1.5% unscored
    one_step.append([r.item for r in records], [r.result for r in records], suite="mini", suite_version="v", run="r", step=0)
    one_step.close()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        path = tmp_path / "changed.html"
        path.write_text(render_from_log(tmp_path / "changed"), encoding="utf-8")
        _shown_page(page, path)
        marks = page.evaluate("document.getElementById('chart-reward')._fullLayout.annotations.map((a) => a.text)")
        assert "mini: +medical_safety" in marks and not any("v2" == m.split()[-1] for m in marks)
        path = tmp_path / "one.html"
        path.write_text(render_from_log(tmp_path / "one"), encoding="utf-8")
        _shown_page(page, path)
        ticks = page.eval_on_selector_all("#chart-reward .xtick text", "els => els.map((e) => e.textContent)")
        assert ticks == ["0"], ticks  # the one step, no fractional or negative steps around it
        rates = page.eval_on_selector_all("#chart-unscored-0 .ytick text", "els => els.map((e) => e.textContent)")
        assert len(rates) >= 3 and len(set(rates)) == len(rates), rates
        browser.close()
    assert errors == []

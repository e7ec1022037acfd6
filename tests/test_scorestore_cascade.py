"""Judge-cascade aggregates of the score log's store: per run, step and dimension the share of scores the cheap tier
decided, the audits and their pass/fail agreement, counted exactly as batches are logged, rebuilt the same from
the raw log, read by a version-1 store's readers and added by its next writer; and the dashboard's "Judge cascade"
panel, drawn only for runs with cascade scores."""

import json
import sqlite3
from pathlib import Path

from reward.dashboard import render, render_from_log, summarise
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog, read_log
from reward.scorelog.store import CASCADE_COUNTS, ScoreStore, rebuild, store_path
from tests.postgres import postgres, store_url  # noqa: F401 (fixtures: both backends of the store)
from tests.test_dashboard import CHROMIUM, FLAGS, require_chromium

SERIES_KEYS = {*CASCADE_COUNTS, "cheap_share", "agreement", "kappa"}


def _useful(tier: str | None, score: float | None, audit: float | None = None) -> DimensionScore:
    if score is None:
        return DimensionScore.unscored("behavioral", "openai:judge", "judge_timeout", tier=tier)
    backend = "local" if tier == "cheap" else "openai:judge"
    return DimensionScore(score=score, layer="behavioral", backend=backend, tier=tier, audit=audit,
                          confidence=0.9 if tier else None)


def _result(key: str, useful: DimensionScore) -> ItemResult:
    # `grounded` went to the LLM judge without the cascade (threshold 1.0): it has no tier and is not counted.
    grounded = DimensionScore(score=1.0, layer="bottom_line", backend="openai:judge")
    return ItemResult(id=key, reward=useful.score or 0.0, valid=True, dimensions={"useful": useful, "grounded": grounded})


# Step 0: four cheap decisions (three audited: pass/pass, pass/fail, fail/fail), two LLM decisions (one unscored),
# one in fallback, one not routed. Step 1, in two batches: two audited cheap passes the LLM confirms, one LLM call.
STEP0 = [_useful("cheap", 1.0, audit=0.9), _useful("cheap", 0.9, audit=0.2), _useful("cheap", 0.1, audit=0.0),
         _useful("cheap", 0.95), _useful("llm", 0.3), _useful("llm", None), _useful("fallback", 1.0), _useful(None, 0.5)]
STEP1 = [[_useful("cheap", 0.8, audit=1.0), _useful("cheap", 1.0, audit=0.7)], [_useful("llm", 0.0)]]


def _append(log: ScoreLog, scores: list[DimensionScore], step: int, prefix: str, run: str = "r") -> None:
    results = [_result(f"{prefix}{k}", s) for k, s in enumerate(scores)]
    items = [Item(id=r.id, group=f"g{step}", query="q", response=f"<answer>{r.id}</answer>") for r in results]
    log.append(items, results, suite="mini", suite_version="v", run=run, step=step)


def _write(folder: Path, store_url: str | None = None) -> Path:
    log = ScoreLog(folder, writer="w", store_url=store_url)
    _append(log, STEP0, 0, "a")
    for n, batch in enumerate(STEP1):
        _append(log, batch, 1, f"b{n}-")
    _append(log, [_useful(None, 0.4)], 0, "c", run="plain")  # a run without the cascade
    log.close()
    return folder


def _page_data(page: str) -> dict:
    return json.loads(page.split('id="dashboard-data">')[1].split("</script>")[0])


def test_store_counts_cheap_decisions_audits_and_agreement_exactly_and_a_rebuild_equals_it(tmp_path, store_url):
    _write(tmp_path, store_url)  # on both backends; the rebuild is the embedded store, from the segments
    with ScoreStore(tmp_path, readonly=True, url=store_url) as store:
        live = store.series()
        rows = store.db.execute("SELECT * FROM cascade ORDER BY run, step, channel").fetchall()
    assert rows == [("r", 0, "useful", 7, 4, 1, 3, 2, 2, 1), ("r", 1, "useful", 3, 2, 0, 2, 2, 2, 2)]
    cascade = live["runs"]["r"]["cascade"]
    assert list(cascade) == ["useful"] and set(cascade["useful"]) == SERIES_KEYS  # `grounded` had no tier
    useful = cascade["useful"]
    assert useful["routed"] == [7, 3] and useful["cheap"] == [4, 2] and useful["fallback"] == [1, 0]
    assert useful["audits"] == [3, 2] and useful["agree"] == [2, 2]
    assert useful["cheap_share"] == [0.5714, 0.6667]
    # Step 0: observed 2/3; the cheap tier passed 2 of 3, the LLM 1 of 3, so chance is 4/9 and kappa (2/9)/(5/9).
    assert useful["agreement"] == [0.6667, 1.0] and useful["kappa"] == [0.4, 1.0]
    assert live["runs"]["plain"]["cascade"] == {}
    assert "useful" in live["runs"]["r"]["dimensions"] and "cascade" not in live["layers"]  # not a fake dimension
    # The raw log rebuilds the same numbers; the streaming summary (`render(records)`) draws the same series.
    store_path(tmp_path).unlink(missing_ok=True)
    rebuild(tmp_path)
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.series() == live
        assert store.db.execute("SELECT * FROM cascade ORDER BY run, step, channel").fetchall() == rows
    assert summarise(read_log(tmp_path))["runs"]["r"]["cascade"] == cascade


def test_a_version_1_store_reads_without_cascade_data_and_its_next_writer_adds_the_table(tmp_path):
    log = ScoreLog(tmp_path, writer="w")
    _append(log, STEP0[:2], 0, "a")
    log.close()
    # What a store written before the cascade aggregates looks like.
    db = sqlite3.connect(store_path(tmp_path))
    db.execute("DROP TABLE cascade")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    db.commit()
    db.close()
    with ScoreStore(tmp_path, readonly=True) as store:
        old = store.series()
    assert old["runs"]["r"]["cascade"] == {} and old["runs"]["r"]["items"] == [2]
    log = ScoreLog(tmp_path, writer="w2")
    _append(log, STEP0[2:4], 0, "b")
    log.close()
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("3",)
        assert store.series()["runs"]["r"]["cascade"]["useful"]["cheap"] == [2]  # counted from the upgrade on
    rebuild(tmp_path)  # and `reward log reindex` counts the whole log
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.series()["runs"]["r"]["cascade"]["useful"]["cheap"] == [4]


def test_the_page_carries_the_cascade_panel_only_for_logs_with_cascade_scores(tmp_path):
    page = render_from_log(_write(tmp_path / "cascade"))
    assert '<div class="grid" id="cascade">' in page and '<h2 id="cascade-heading">Judge cascade' in page
    assert _page_data(page)["runs"]["r"]["cascade"]["useful"]["agreement"] == [0.6667, 1.0]
    plain = tmp_path / "plain"
    log = ScoreLog(plain, writer="w")
    _append(log, [_useful(None, 0.4), _useful(None, 0.9)], 0, "p")
    log.close()
    page = render_from_log(plain)
    assert 'id="cascade"' not in page and 'id="cascade-heading"' not in page
    assert _page_data(page)["runs"]["r"]["cascade"] == {}
    assert 'id="cascade"' in render(read_log(tmp_path / "cascade"))  # the page drawn from records alone, too


def test_cascade_panel_draws_in_headless_chromium(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "dashboard.html"
    page_path.write_text(render_from_log(_write(tmp_path / "log")), encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.as_uri())
        page.wait_for_function("window.dashboardReady === true", timeout=60000)
        # One chart, for the run with cascade scores: per dimension its agreement and its cheap-tier share.
        assert page.eval_on_selector_all("#cascade .chart", "els => els.map(e => e.id)") == ["chart-cascade-1"]
        page.evaluate("window.dashboard.setSmoothing(0)")
        traces = page.evaluate("document.getElementById('chart-cascade-1').data.map((t) => [t.meta.role, t.y])")
        assert traces == [["agreement", [0.6667, 1.0]], ["cheap_share", [0.5714, 0.6667]]]
        assert page.eval_on_selector_all("#chart-cascade-1 .scatterlayer .trace path.js-line", "els => els.length") == 2
        browser.close()
    assert errors == []

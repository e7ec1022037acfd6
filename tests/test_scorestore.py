"""The score log's record layout (contexts stored once), torn lines, retention, and the aggregate store beside it:
aggregates agree with the raw records, a rebuild from the log equals the live store, drill-down samples come from
the step's byte ranges, runs of two folders never merge, and the run-name precedence of the verl client."""

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from reward.dashboard import drilldown, render_from_log
from reward.dashboard.data import UnknownStep, step_records
from reward.schema import DimensionScore, Item, ItemResult
from reward.scorelog import ScoreLog, Retention, prune, read_log, segments
from reward.scorelog.store import SAMPLE_LOWEST, SAMPLE_RANDOM, SKETCH_BINS, UNSTEPPED_BUCKET, ScoreStore, rebuild, sketch_quantiles, store_path
from tests.postgres import postgres, store_url  # noqa: F401 (fixtures: both backends of the store)
from tests.support import ROOT

EVIDENCE = [{"id": str(k), "title": f"doc {k}", "text": "evidence sentence " * 200} for k in range(1, 6)]
HISTORY = [{"role": "user", "content": "an earlier question"}, {"role": "assistant", "content": "an earlier answer"}]


def _batch(rng: np.random.Generator, step: int, groups: int = 2, size: int = 4, prefix: str = "i"):
    items, results = [], []
    for g in range(groups):
        for k in range(size):
            key = f"{prefix}-{step}-{g}-{k}"
            items.append(Item(id=key, group=f"g{step}-{g}", query=f"query {g}", history=HISTORY,
                              evidence=[{**e, "text": e["text"] + str(g)} for e in EVIDENCE],
                              response=f"<answer>answer {key}</answer>"))
            fmt = (DimensionScore.unscored("bottom_line", "mock", "judge_timeout") if rng.random() < 0.2
                   else DimensionScore(score=float(rng.integers(0, 2)), layer="bottom_line", backend="mock"))
            diversity = DimensionScore(score=round(float(rng.random()), 4), layer="behavioral", backend="mock",
                                       explanation=f"judged {key}")
            reward = round(float(rng.random()), 4)
            results.append(ItemResult(id=key, reward=reward, gate=0.9, utility=reward, valid=fmt.score is not None,
                                      dimensions={"format": fmt, "claim_diversity": diversity}))
    return items, results


def _write(folder, steps=4, run="r", seed=0, writer="w", **options):
    rng = np.random.default_rng(seed)
    log = ScoreLog(folder, writer=writer, **options)
    for step in range(steps):
        items, results = _batch(rng, step)
        log.append(items, results, suite="mini", suite_version="v", run=run, step=step)
    log.close()
    return folder


def test_contexts_are_stored_once_per_group_and_read_back_into_the_items(tmp_path):
    rng = np.random.default_rng(0)
    log = ScoreLog(tmp_path, writer="w")
    items, results = _batch(rng, 0, groups=2, size=4)
    log.append(items, results, suite="mini", suite_version="v", run="r", step=0)
    log.append(items[:4], results[:4], suite="mini", suite_version="v", run="r", step=1)  # same group again
    log.close()
    lines = segments(tmp_path)[0].read_text().splitlines()
    assert sum(line.startswith('{"kind":"context"') for line in lines) == 2  # one per group, per segment
    assert all("evidence sentence" not in line for line in lines if not line.startswith('{"kind":"context"'))
    records = list(read_log(tmp_path))
    assert [r.item for r in records] == items + items[:4]
    assert [r.result for r in records] == results + results[:4]
    # Without the dedupe the same batch is several times larger.
    inline = sum(len(json.dumps({"item": i.model_dump(mode="json"), "result": r.model_dump(mode="json")}))
                 for i, r in zip(items + items[:4], results + results[:4], strict=True))
    assert segments(tmp_path)[0].stat().st_size < inline / 2


def test_a_log_written_before_the_store_still_reads_and_charts(tmp_path):
    rng = np.random.default_rng(1)
    items, results = _batch(rng, 3)
    segment = tmp_path / "scores-20260101T000000-old-0001.jsonl"
    with segment.open("w") as handle:  # the old layout: evidence inline, no context lines, no store
        for item, result in zip(items, results, strict=True):
            handle.write(json.dumps({"time": "2026-01-01T00:00:00Z", "suite": "mini", "suite_version": "v",
                                     "run": "old", "step": 3, "group": item.group,
                                     "result": result.model_dump(mode="json", exclude_none=True),
                                     "item": item.model_dump(mode="json", exclude_none=True)}) + "\n")
    assert [r.item for r in read_log(tmp_path)] == items
    data = json.loads(render_from_log(tmp_path).split('id="dashboard-data">')[1].split("</script>")[0])
    assert store_path(tmp_path).exists()  # indexed on first use
    assert data["runs"]["old"]["steps"] == [3] and data["runs"]["old"]["items"] == [len(items)]
    assert data["runs"]["old"]["time"] == ["2026-01-01 00:00:00"]
    assert drilldown(tmp_path, "old", 3)["records"] == len(items)


def test_store_aggregates_agree_with_the_records_and_a_rebuild_equals_the_live_store(tmp_path, store_url):
    _write(tmp_path, steps=5, store_url=store_url)
    records = list(read_log(tmp_path))
    with ScoreStore(tmp_path, readonly=True, url=store_url) as store:
        live = store.series()
        rows = store.db.execute("SELECT * FROM channels ORDER BY run, step, channel").fetchall()
    run = live["runs"]["r"]
    assert run["steps"] == list(range(5)) and live["records"] == len(records) == 40
    for step in range(5):
        scores = [r.result.dimensions["claim_diversity"].score for r in records if r.step == step]
        assert run["dimensions"]["claim_diversity"]["mean"][step] == pytest.approx(np.mean(scores), abs=1e-4)
        for key, q in (("p10", 10), ("p90", 90)):
            assert run["dimensions"]["claim_diversity"][key][step] == pytest.approx(
                np.percentile(scores, q), abs=1 / SKETCH_BINS + 0.15)  # 8 items: one bin plus the gap between ranks
        formats = [r.result.dimensions["format"] for r in records if r.step == step]
        assert run["dimensions"]["format"]["seen"][step] == len(formats)
        assert run["dimensions"]["format"]["count"][step] == sum(f.score is not None for f in formats)
        assert run["dimensions"]["format"]["unscored"].get("judge_timeout", [0] * 5)[step] == sum(
            f.score is None for f in formats)
        assert run["valid_rate"][step] == pytest.approx(np.mean([r.result.valid for r in records if r.step == step]), abs=1e-4)
    assert run["dimensions"]["format"]["binary"] and not run["dimensions"]["claim_diversity"]["binary"]
    # The raw log rebuilds exactly the same store (the embedded one, whichever backend the writer used).
    store_path(tmp_path).unlink(missing_ok=True)
    assert rebuild(tmp_path) == {"batches": 5, "records": 40, "segments": 1, "partial_batches": 0}
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.series() == live
        assert store.db.execute("SELECT * FROM channels ORDER BY run, step, channel").fetchall() == rows


def test_sketch_quantiles_are_within_one_bin_on_many_scores():
    rng = np.random.default_rng(3)
    values = rng.beta(2, 5, size=20_000)
    bins, counts = np.unique(np.floor(values * SKETCH_BINS).astype(int), return_counts=True)
    estimate = sketch_quantiles(dict(zip(bins.tolist(), counts.tolist(), strict=True)), [0.1, 0.5, 0.9])
    assert estimate == pytest.approx(np.percentile(values, [10, 50, 90]).tolist(), abs=1 / SKETCH_BINS)


def test_two_writers_of_one_folder_add_up_in_one_store(tmp_path, store_url):
    rng = np.random.default_rng(4)
    first, second = ScoreLog(tmp_path, writer="a", store_url=store_url), ScoreLog(tmp_path, writer="b", store_url=store_url)
    for step in range(3):
        for log in (first, second):
            items, results = _batch(rng, step, prefix=log.writer)
            log.append(items, results, suite="mini", suite_version="v", run="r", step=step)
    first.close(), second.close()
    with ScoreStore(tmp_path, readonly=True, url=store_url) as store:
        assert store.series()["runs"]["r"]["items"] == [16, 16, 16]
        assert len(store.batches("r", 1)) == 2
        assert sum(1 for _ in step_records(store, "r", 1)) == 16


def test_drilldown_reads_the_lowest_and_uniform_samples_of_the_step_from_the_raw_log(tmp_path):
    _write(tmp_path, steps=4)
    step2 = [r for r in read_log(tmp_path) if r.step == 2]
    samples = drilldown(tmp_path, "r", 2)
    assert samples["records"] == len(step2)
    diversity = samples["channels"]["claim_diversity"]
    assert len(diversity) == SAMPLE_LOWEST + SAMPLE_RANDOM
    exact = sorted(r.result.dimensions["claim_diversity"].score for r in step2)
    assert [s["score"] for s in diversity[:SAMPLE_LOWEST]] == exact[:SAMPLE_LOWEST]
    # Unscored first on a dimension that has unscored items; the reward channel has the lowest rewards.
    unscored = sum(r.result.dimensions["format"].score is None for r in step2)
    assert [s.get("score") for s in samples["channels"]["format"][:min(unscored, SAMPLE_LOWEST)]] == [None] * min(unscored, SAMPLE_LOWEST)
    assert samples["channels"]["reward"][0]["score"] == round(min(r.result.reward for r in step2), 4)
    assert all(item["id"].startswith("i-2-") for item in samples["items"])
    assert {item["id"] for item in samples["items"]} <= {r.result.id for r in step2}
    # The same samples after a rebuild from the log (the uniform ones are a hash of the item id, not a draw).
    rebuild(tmp_path)
    assert drilldown(tmp_path, "r", 2) == samples
    with pytest.raises(UnknownStep, match="step 9"):
        drilldown(tmp_path, "r", 9)


def test_records_without_steps_fill_buckets_across_batches(tmp_path):
    rng = np.random.default_rng(5)
    log = ScoreLog(tmp_path, writer="w")
    sent = []
    for _ in range(3):  # 3 x 40 records: the buckets of 64 cut through the second batch
        items, results = _batch(rng, 0, groups=5, size=8)
        log.append(items, results, suite="mini", suite_version="v", run=None, step=None)
        sent += results
    log.close()
    with ScoreStore(tmp_path, readonly=True) as store:
        run = store.series()["runs"]["mini (no step)"]
    assert run["unstepped"] and run["steps"] == [0, 1] and run["items"] == [UNSTEPPED_BUCKET, 120 - UNSTEPPED_BUCKET]
    ids = {item["id"] for item in drilldown(tmp_path, "mini (no step)", 1)["items"]}
    assert ids and ids <= {r.id for r in sent[UNSTEPPED_BUCKET:]}
    assert {item["id"] for item in drilldown(tmp_path, "mini (no step)", 0)["items"]} <= {r.id for r in sent[:UNSTEPPED_BUCKET]}
    assert drilldown(tmp_path, "mini (no step)", 1)["records"] == 120 - UNSTEPPED_BUCKET
    # The batch index gives back every record of a bucket, in order, though the bucket cuts through a batch.
    with ScoreStore(tmp_path, readonly=True) as store:
        assert [r.result.id for r in step_records(store, "mini (no step)", 1)] == [r.id for r in sent[UNSTEPPED_BUCKET:]]
        assert [r.result.id for r in step_records(store, "mini (no step)", 0)] == [r.id for r in sent[:UNSTEPPED_BUCKET]]


def test_a_torn_last_line_is_skipped_and_never_glued_to_the_next_record(tmp_path):
    _write(tmp_path, steps=2)
    segment = segments(tmp_path)[0]
    data = segment.read_bytes()
    segment.write_bytes(data[: len(data) - 40])  # killed mid-write: the last record is cut short
    assert len(list(read_log(tmp_path))) == 15

    class SameSegment(ScoreLog):
        def _segment_path(self):
            return segment

    rng = np.random.default_rng(9)
    items, results = _batch(rng, 5)
    log = SameSegment(tmp_path, writer="w")  # a writer that reopens the torn segment
    log.append(items, results, suite="mini", suite_version="v", run="r", step=5)
    log.close()
    records = list(read_log(tmp_path))
    assert len(records) == 15 + 8 and [r.result.id for r in records[-8:]] == [r.id for r in results]


def test_a_writer_killed_mid_write_leaves_a_readable_log(tmp_path):
    script = (
        "import sys\n"
        "from reward.schema import DimensionScore, Item, ItemResult\n"
        "from reward.scorelog import ScoreLog\n"
        "log = ScoreLog(sys.argv[1], writer='victim')\n"
        "evidence = [{'id': '1', 'text': 'evidence ' * 3000}]\n"
        "step = 0\n"
        "while True:\n"
        "    items = [Item(id=f'{step}-{k}', group=f'{step}-{k // 16}', query='q', evidence=evidence, response='r' * 5000)\n"
        "             for k in range(128)]\n"
        "    results = [ItemResult(id=i.id, reward=0.5, valid=True, dimensions={'format': DimensionScore(\n"
        "        score=0.5, layer='bottom_line', backend='mock', explanation='x' * 3000)}) for i in items]\n"
        "    log.append(items, results, suite='mini', suite_version='v', run='r', step=step)\n"
        "    step += 1\n"
        "    print(step, flush=True)\n")
    process = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout.readline()  # one batch written
    time.sleep(0.3)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    records = list(read_log(tmp_path))
    assert records and all(r.result.dimensions["format"].score == 0.5 for r in records)
    # Whole batches, plus at most a prefix of the batch in flight (lines end complete or are skipped).
    assert [r.result.id for r in records] == [f"{k // 128}-{k % 128}" for k in range(len(records))]
    # The store agrees with the log or lags by the batch in flight; a rebuild makes them agree.
    rebuild(tmp_path)
    with ScoreStore(tmp_path, readonly=True) as store:
        assert sum(store.series()["runs"]["r"]["items"]) == len(records)


def test_retention_deletes_old_segments_but_each_writers_newest(tmp_path, monkeypatch):
    import reward.scorelog.log as scorelog

    monkeypatch.setattr(scorelog, "SEGMENT_BYTES", 20_000)  # every batch of writer "a" opens a new segment
    _write(tmp_path, steps=4, run="early", writer="a")
    _write(tmp_path, steps=1, run="late", writer="b")
    paths = segments(tmp_path)
    mine = [p for p in paths if "-a-" in p.name]
    assert len(mine) == 4
    old = time.time() - 10 * 86400
    for path in paths:
        os.utime(path, (old, old))
    deleted = prune(tmp_path, Retention(max_age_days=1))
    assert deleted == mine[:3] and all(not p.exists() for p in deleted)  # each writer's newest stays
    with pytest.raises(UnknownStep):
        drilldown(tmp_path, "early", 0)
    assert drilldown(tmp_path, "early", 3)["records"] == 8 and drilldown(tmp_path, "late", 0)["records"] == 8
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.series()["runs"]["early"]["steps"] == [0, 1, 2, 3]  # the aggregates stay charted
    assert prune(tmp_path, Retention(max_bytes=1)) == []  # the rest are every writer's newest
    with pytest.raises(ValueError):
        Retention(max_bytes=0)


def test_retention_is_applied_when_a_writer_opens_a_segment(tmp_path, monkeypatch):
    import reward.scorelog.log as scorelog

    monkeypatch.setattr(scorelog, "SEGMENT_BYTES", 20_000)
    _write(tmp_path, steps=8, retention=Retention(max_bytes=60_000))
    assert sum(p.stat().st_size for p in segments(tmp_path)) <= 60_000 + 60_000  # the limit plus the open segment
    assert len(segments(tmp_path)) < 8


def test_two_folders_with_equal_run_names_never_merge(tmp_path):
    _write(tmp_path / "exp-a", steps=2, run="gated", seed=1)
    _write(tmp_path / "exp-b", steps=3, run="gated", seed=2)
    page = render_from_log(tmp_path / "exp-a", tmp_path / "exp-b", smoothing=0.0)
    data = json.loads(page.split('id="dashboard-data">')[1].split("</script>")[0])
    assert sorted(data["runs"]) == ["exp-a/gated", "exp-b/gated"]
    assert data["runs"]["exp-a/gated"]["items"] == [8, 8] and data["runs"]["exp-b/gated"]["steps"] == [0, 1, 2]
    assert data["runs"]["exp-b/gated"]["step_samples"]["2"]["items"][0]["id"].startswith("i-2-")


def test_run_name_precedence_env_over_config(monkeypatch):
    from omegaconf import OmegaConf

    from policy.verl_reward import resolve_run

    def configured(name: str) -> str:  # the run the composed config passes (its interpolation resolved)
        config = OmegaConf.load(ROOT / "configs" / "verl" / name)
        return OmegaConf.to_container(config.reward.custom_reward_function.reward_kwargs, resolve=True)["run"]

    monkeypatch.delenv("REWARD_RUN", raising=False)
    assert resolve_run({"run": "gated"}) == "gated" and resolve_run({}) is None
    assert configured("recipe/grpo_search.yaml") == "gated" and configured("grpo_megatron_linear.yaml") == "linear"
    monkeypatch.setenv("REWARD_RUN", "gated-seed2")
    assert resolve_run({"run": "gated"}) == "gated-seed2" and resolve_run({}) == "gated-seed2"
    assert configured("recipe/grpo_search.yaml") == "gated-seed2"


def test_cli_reindex_and_prune(tmp_path):
    from reward.cli import main

    _write(tmp_path, steps=3)
    store_path(tmp_path).unlink()
    assert main(["log", "reindex", str(tmp_path)]) == 0
    with ScoreStore(tmp_path, readonly=True) as store:
        assert store.series()["runs"]["r"]["steps"] == [0, 1, 2]
    assert main(["log", "reindex", str(tmp_path / "missing")]) == 2
    assert main(["log", "prune", str(tmp_path)]) == 2  # neither limit given
    assert main(["log", "prune", str(tmp_path), "--max-age-days", "-1"]) == 2
    assert main(["log", "prune", str(tmp_path), "--max-age-days", "30"]) == 0


def test_step_times_are_wall_clock_utc(tmp_path):
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    _write(tmp_path, steps=1)
    with ScoreStore(tmp_path, readonly=True) as store:
        shown = dt.datetime.strptime(store.series()["runs"]["r"]["time"][0], "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
    assert before <= shown <= dt.datetime.now(dt.UTC)


def test_the_store_write_benchmark_times_the_lock_inside_the_update():
    """`benchmarks/store_write.py` on a few small batches: the write lock is held for part of each update, and a
    stepped batch's aggregates are computed before the lock is taken."""
    import importlib.util
    import json
    from contextlib import redirect_stdout
    from io import StringIO
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("store_write", Path(__file__).parents[1] / "benchmarks" / "store_write.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = StringIO()
    with redirect_stdout(out):
        bench.main(["--batches", "4", "--items", "256"])
    report = json.loads(out.getvalue())
    assert report["backend"] == "sqlite" and report["items_per_batch"] == 256
    for kind in ("stepped", "unstepped"):
        assert report[kind]["batches"] == 4
        assert 0 < report[kind]["lock_held_ms_median"] <= report[kind]["add_batch_ms_median"]
    assert report["stepped"]["lock_held_ms_median"] < report["stepped"]["add_batch_ms_median"] / 2

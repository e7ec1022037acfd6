"""The daily audit: stratified sample, the dual-track sheet `reward calibrate` reads, BCR once labels are back."""

import datetime as dt
import json

import pytest

from reward.evaluation.calibrate import track_disagreements
from reward.engine import Engine
from reward.judges.mock import ScriptedJudge
from reward.evaluation.labels import load_labels
from reward.online.audit import AuditManifest, bad_case_rates, draw_sample, items_from_score_log, write_sheet

DAY = dt.date(2026, 1, 12)


@pytest.fixture(scope="module")
def sheet(example_world):
    store = example_world["store"]
    draws, population = draw_sample(store, "reward-v2", DAY, n=40, seed=1)
    items = items_from_score_log(example_world["scores"], {d.response_id for d in draws})
    results = {r.id: r for r in Engine(example_world["suite"], ScriptedJudge()).score_sync(list(items.values()))}
    dimensions = [d for d in example_world["suite"].dimensions if example_world["suite"].layer_of(d) == "bottom_line"]
    manifest = AuditManifest(experiment="reward-v2", day=DAY, seed=1, population=population, draws=draws,
                             dimensions=dimensions, missing=[], judge="mock")
    folder = example_world["folder"] / "audit"
    write_sheet(folder, manifest, items, results)
    return folder, manifest, items


def test_sample_is_stratified_by_arm_and_reproducible(example_world):
    store = example_world["store"]
    draws, population = draw_sample(store, "reward-v2", DAY, n=40, seed=1)
    assert [d.arm for d in draws].count("control") == 20 and [d.arm for d in draws].count("treatment") == 20
    assert len({d.session for d in draws}) == 40
    assert sum(population.values()) == store.conn.execute(
        "SELECT COUNT(*) FROM online_sessions WHERE day = ?", ((DAY - dt.date(1970, 1, 1)).days,)).fetchone()[0]
    assert draw_sample(store, "reward-v2", DAY, n=40, seed=1)[0] == draws
    assert draw_sample(store, "reward-v2", DAY, n=40, seed=2)[0] != draws
    with pytest.raises(ValueError, match="no sessions"):
        draw_sample(store, "reward-v2", dt.date(2025, 1, 1), n=10)


def test_sheet_has_both_tracks_and_hints_only_in_assisted(sheet):
    folder, manifest, items = sheet
    blind = [json.loads(line) for line in (folder / "blind.jsonl").read_text().splitlines()]
    assisted = [json.loads(line) for line in (folder / "assisted.jsonl").read_text().splitlines()]
    responses = {d.response_id for d in manifest.draws}
    assert len(blind) == len(assisted) == len(responses) * len(manifest.dimensions)
    assert all("hints" not in row and row["track"] == "blind" and row["label"] is None for row in blind)
    assert all(row["hints"]["backend"] and "judge_score" in row["hints"] for row in assisted)
    assert {row["dimension"] for row in blind} == set(manifest.dimensions)


def _fill(folder, track, verdict):
    """Label every row of a track with verdict(item id, dimension) -> 0/1/None, as an annotator returns it."""
    rows = [json.loads(line) for line in (folder / f"{track}.jsonl").read_text().splitlines()]
    for row in rows:
        row["label"] = verdict(row["item"]["id"], row["dimension"])
        row["annotator"] = f"{track}-1"
    out = folder / f"{track}-returned.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_returned_sheet_is_what_calibrate_reads(sheet):
    folder, manifest, _ = sheet
    bad_items = {d.response_id for d in manifest.draws if "good" not in d.response_id}
    blind = _fill(folder, "blind", lambda item, dim: 0 if item in bad_items and dim == manifest.dimensions[0] else 1)
    assisted = _fill(folder, "assisted", lambda item, dim: 1)
    point_b, _ = load_labels(blind)
    point_a, _ = load_labels(assisted)
    tracks = track_disagreements(point_b + point_a, [])
    # calibrate compares by content: the same answer shown under both policies is one case
    assert tracks[manifest.dimensions[0]]["disagree"] == len({i.split("@")[0] for i in bad_items})


def test_bcr_per_arm_by_hand(sheet):
    folder, manifest, _ = sheet
    bad_items = {d.response_id for d in manifest.draws if "good" not in d.response_id}
    pending = sorted({d.response_id for d in manifest.draws})[0]

    def verdict(item, dim):
        if item == pending:
            return None  # not labelled yet
        return 0 if item in bad_items and dim == manifest.dimensions[-1] else 1

    returned = _fill(folder, "blind", verdict)
    rows = {r.arm: r for r in bad_case_rates(manifest, [returned], control="control")}
    for arm in ("control", "treatment"):
        draws = [d for d in manifest.draws if d.arm == arm]
        decided = [d for d in draws if d.response_id != pending]
        expected_bad = sum(d.response_id in bad_items for d in decided)
        assert (rows[arm].sampled, rows[arm].labelled, rows[arm].bad) == (len(draws), len(decided), expected_bad)
        assert rows[arm].bcr == pytest.approx(expected_bad / len(decided))
        assert rows[arm].ci[0] <= rows[arm].bcr <= rows[arm].ci[1]
    assert rows["treatment"].absolute_difference == pytest.approx(rows["treatment"].bcr - rows["control"].bcr)
    assert rows["control"].absolute_difference is None and rows["control"].relative_difference is None


def test_malformed_returned_label_names_the_line(sheet, tmp_path):
    folder, manifest, _ = sheet
    line = json.loads((folder / "blind.jsonl").read_text().splitlines()[0])
    line["label"] = 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: label"):
        bad_case_rates(manifest, [bad])


def test_bcr_intervals_count_labelled_responses(sheet):
    from reward.online.stats import wilson_interval

    folder, manifest, _ = sheet
    returned = _fill(folder, "blind", lambda item, dim: 0 if "good" not in item else 1)
    rows = {r.arm: r for r in bad_case_rates(manifest, [returned], control="control")}
    for arm, r in rows.items():
        drawn = [d.response_id for d in manifest.draws if d.arm == arm]
        shown = {rid: drawn.count(rid) for rid in set(drawn)}
        assert r.responses == len(shown) and r.labelled == len(drawn)
        assert r.effective_n == pytest.approx(len(drawn) ** 2 / sum(c * c for c in shown.values()), abs=1e-3)
        # the interval is as wide as the responses allow, not as narrow as the sessions would make it
        bad = sum(c for rid, c in shown.items() if "good" not in rid)
        assert r.ci[1] - r.ci[0] >= (lambda lo, hi: hi - lo)(*wilson_interval(bad, len(drawn))) - 1e-9
    treatment = rows["treatment"]
    assert treatment.absolute_ci[0] <= treatment.absolute_difference <= treatment.absolute_ci[1]
    assert treatment.p_holm == pytest.approx(treatment.p_value)  # one comparison: Holm changes nothing

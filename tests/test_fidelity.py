"""Fidelity gate: the frozen slice of public labelled data committed in `data/fidelity_slice/` (30 test-split cases
per set, with its licences in NOTICE.md) must keep its AUC (no drop below the frozen interval), and the gate itself
(checksums, drop detection, rendering, metrics) works on a tiny slice built here from constructed items."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
from pathlib import Path

import pytest

from policy.format import parse_response
from reward.engine import Engine
from reward.evaluation.fidelity import (FidelityCase, SliceError, check_slice, freeze_slice, lexical_support, load_slice,
                             measure, regressions, render_case, score_cases)
from reward.judges.factory import make_judge
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Evidence

pytestmark = pytest.mark.filterwarnings("ignore")
ROOT = Path(__file__).resolve().parent.parent
SLICE = Path(os.environ.get("REWARD_FIDELITY_SLICE", ROOT / "data" / "fidelity_slice"))


@pytest.fixture(scope="module")
def local_engine():
    return Engine(load_suite("searchllm"), LocalJudge())


def test_frozen_public_slice_keeps_its_auc(local_engine):
    assert (SLICE / "slice.json").is_file(), (
        f"no frozen fidelity slice at {SLICE}: it ships in the repository (data/fidelity_slice); rebuild it as "
        f"data/fidelity_slice/NOTICE.md says")
    report, failures = check_slice(SLICE, local_engine)
    assert failures == [], failures
    assert set(report) == {"summedits", "begin", "wice"}
    # the gate reads real AUCs: each gated dimension of each set has its frozen interval and a fresh value
    for name, result in report.items():
        for dimension in ("claim_hallucination", "reward"):
            assert result["dimensions"][dimension]["auc"]["value"] is not None, (name, dimension)


# -- the gate mechanism on constructed items ---------------------------------------------------------------------
EVIDENCE = [
    Evidence(id="1", title="Harbour ferry timetable",
             text="The harbour ferry to Lamma Island leaves Central Pier 4 every 30 minutes from 06:30. "
                  "A single adult fare costs 22 dollars on weekdays."),
    Evidence(id="2", title="Lamma Island walks",
             text="The family trail from Yung Shue Wan to Sok Kwu Wan takes about 90 minutes. "
                  "Seafood restaurants line the waterfront at Sok Kwu Wan."),
]
PAIRS = [
    ("The ferry to Lamma Island leaves Central Pier 4 every 30 minutes.",
     "The ferry to Lamma Island leaves Central Pier 9 every 45 minutes."),
    ("A single adult fare costs 22 dollars on weekdays.",
     "A single adult fare costs 85 dollars on weekdays."),
    ("The family trail from Yung Shue Wan to Sok Kwu Wan takes about 90 minutes.",
     "The family trail from Yung Shue Wan to Sok Kwu Wan takes about 15 minutes."),
]


def constructed_cases() -> list[FidelityCase]:
    cases = []
    for number, (faithful, hallucinated) in enumerate(PAIRS):
        for label, answer in ((1, faithful), (0, hallucinated)):
            item = render_case(f"toy-{number}-{label}", "How do I get to Lamma Island and what is there?", EVIDENCE, answer)
            cases.append(FidelityCase(set="toy", label=label, pair=f"toy-{number}", item=item))
    return cases


def test_render_case_cites_the_passage_it_draws_on():
    item = render_case("x", "What is there?", EVIDENCE, "Seafood restaurants line the waterfront. The ferry leaves every 30 minutes.")
    parsed = parse_response(item.response)
    assert parsed.problems == []
    assert [c.ids for c in parsed.citations] == [("2",), ("1",)]
    assert parsed.selected == ["2", "1"]
    assert parsed.answer_text == "Seafood restaurants line the waterfront. The ferry leaves every 30 minutes."


def test_lexical_baseline_is_the_share_of_answer_words_in_the_evidence():
    assert lexical_support("Seafood restaurants line the waterfront.", EVIDENCE) == 1.0
    assert lexical_support("Seafood restaurants sell dumplings.", EVIDENCE) == pytest.approx(0.5)


def test_measure_reports_auc_with_intervals_and_the_baseline(local_engine):
    cases = constructed_cases()
    report = measure(cases, score_cases(local_engine, cases), resamples=50)["toy"]
    assert report["kind"] == "pairs" and report["cases"] == 6
    claim = report["dimensions"]["claim_hallucination"]
    assert claim["n"] == 3 and claim["auc"]["value"] == 1.0 and claim["auc"]["ci"] == [1.0, 1.0]
    assert report["dimensions"]["reward"]["auc"]["value"] == 1.0
    assert report["dimensions"]["lexical_baseline"]["auc"]["value"] is not None
    pointwise = [c.model_copy(update={"pair": None}) for c in cases]
    flat = measure(pointwise, score_cases(local_engine, pointwise), resamples=50)["toy"]
    assert flat["kind"] == "pointwise" and flat["dimensions"]["claim_hallucination"]["auc"]["value"] == 1.0


def test_gate_passes_unchanged_code_and_catches_a_drop(tmp_path, local_engine):
    cases = constructed_cases()
    report = measure(cases, score_cases(local_engine, cases), resamples=50)
    freeze_slice(cases, report, tmp_path, meta={"code": "test"})
    _, failures = check_slice(tmp_path, local_engine, resamples=50)
    assert failures == []
    # A judge that cannot tell the answers apart (the scripted mock gives every answer the same label) is a drop.
    _, failures = check_slice(tmp_path, Engine(load_suite("searchllm"), make_judge("mock")), resamples=50)
    assert any(f.startswith("toy/claim_hallucination: AUC 0.5 below the frozen interval [1.0") for f in failures), failures


def test_regressions_compare_against_the_frozen_lower_bound():
    frozen = {"s": {"dimensions": {"reward": {"auc": {"value": 0.8, "ci": [0.7, 0.9]}}}}}
    now = lambda v: {"s": {"dimensions": {"reward": {"auc": {"value": v, "ci": None}}}}}  # noqa: E731
    assert regressions(now(0.7), frozen) == []
    assert regressions(now(0.69), frozen) == ["s/reward: AUC 0.69 below the frozen interval [0.7, 0.9]"]
    assert regressions({}, frozen) == ["s/reward: AUC None below the frozen interval [0.7, 0.9]"]


def test_slice_checksum_mismatch_and_missing_files_are_refused(tmp_path):
    cases = constructed_cases()
    freeze_slice(cases, {}, tmp_path)
    assert len(load_slice(tmp_path)[0]) == 6
    path = tmp_path / "toy.jsonl"
    path.write_text(path.read_text().replace("Pier 9", "Pier 4"))
    with pytest.raises(SliceError, match="SHA-256 .* does not match the recorded"):
        load_slice(tmp_path)
    path.unlink()
    with pytest.raises(SliceError, match="listed in slice.json but missing"):
        load_slice(tmp_path)
    with pytest.raises(SliceError, match="--freeze"):
        load_slice(tmp_path / "nowhere")


def test_harness_names_the_repository_commit_and_path_of_missing_data(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("fidelity_harness", ROOT / "benchmarks" / "fidelity.py")
    harness = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, harness)  # dataclasses resolve their module while it loads
    spec.loader.exec_module(harness)
    assert "halueval" not in {name.lower() for name in harness.LOADERS}
    source = harness.SOURCES["summedits"][0]
    with pytest.raises(SystemExit, match=rf"missing.*github.com/salesforce/factualNLG.*{source.commit}:{source.path}"):
        source.read(tmp_path)
    target = source.location(tmp_path)
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps([]))
    with pytest.raises(SystemExit, match="is not the recorded"):
        source.read(tmp_path)


def test_every_source_file_is_in_exactly_one_split_and_summedits_splits_by_document(monkeypatch):
    spec = importlib.util.spec_from_file_location("fidelity_harness", ROOT / "benchmarks" / "fidelity.py")
    harness = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, harness)
    spec.loader.exec_module(harness)
    for name in ("begin", "wice"):
        sides = [harness.file_split(name, s) for s in harness.SOURCES[name]]
        assert set(sides) == {"fit", "test"}, name
        assert not harness.FIT_FILES[name] & harness.TEST_FILES[name]
    assert harness.file_split("begin", harness.SOURCES["begin"][-1]) == "test"  # wow/begin_test_wow.tsv
    documents = [f"Document number {i} about quarterly revenue." for i in range(200)]
    sides = [harness.document_split(d) for d in documents]
    assert sides == [harness.document_split(d) for d in documents]  # stable
    assert 60 < sides.count("fit") < 140  # about half
    assert harness._wanted("all", "test") and harness._wanted("fit", "fit") and not harness._wanted("fit", "test")
    # a case exported for the combination carries its split
    item = render_case("x", "What is there?", EVIDENCE, "The ferry leaves every 30 minutes.")
    assert FidelityCase(set="begin", label=1, item=item, split="fit").model_dump()["split"] == "fit"


def test_attribution_sets_read_only_their_own_part_of_each_file(monkeypatch, tmp_path):
    """The AttributionBench loaders read the dev file as fit and the sampled test file as test, and keep only the rows
    of their own part (`src_dataset`): the files' other parts never become cases."""
    spec = importlib.util.spec_from_file_location("fidelity_harness", ROOT / "benchmarks" / "fidelity.py")
    harness = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, harness)
    spec.loader.exec_module(harness)
    reference = json.dumps(["[1] https://example.org\n\nThe ferry leaves Central Pier every 30 minutes. Tickets cost 5 dollars."])
    files = {}
    for source in harness.SOURCES["lfqa"]:
        rows = [{"src_dataset": part, "id": f"{part}-{source.path[-12:]}-{i}", "question": "When does the ferry leave?",
                 "claim": f"The ferry leaves every {30 + i} minutes [1].", "references": reference,
                 "attribution_label": "attributable" if i % 2 else "not attributable"}
                for part in ("LFQA", "ExpertQA", "Elsewhere") for i in range(4)]
        blob = "".join(json.dumps(r) + "\n" for r in rows).encode()
        files[source.path] = blob
    monkeypatch.setattr(harness.SourceFile, "read", lambda self, data: files[self.path])
    assert {harness.file_split("lfqa", s) for s in harness.SOURCES["lfqa"]} == {"fit", "test"}
    for split in ("fit", "test"):
        cases = harness.LOADERS["lfqa"](tmp_path, 100, random.Random(0), split=split)
        assert len(cases) == 4 and {c.split for c in cases} == {split} and {c.set for c in cases} == {"lfqa"}
        assert all(c.item.id.startswith("lfqa-LFQA-") for c in cases)
        assert sorted(c.label for c in cases) == [0, 0, 1, 1]
        assert all("[1]" not in c.item.response and "[Doc 1]" in c.item.response for c in cases)
    assert len(harness.LOADERS["lfqa"](tmp_path, 100, random.Random(0), split="all")) == 8

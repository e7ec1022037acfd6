"""Fidelity on labelled public data: does a judge tier tell a faithful answer from a hallucinated one?

A `FidelityCase` is one labelled response rendered as a scoring item in the policy format (`reward.format`): the
evidence passages, a one-facet plan, the selected evidence and the answer with citations. Cases of a pair set
share a `pair` key (the same evidence, one faithful and one hallucinated answer); cases of a pointwise set carry
a support label only. `measure` scores the cases with an engine and reports, per set and per dimension (plus the
reward, gate and utility, and a lexical baseline: the share of the answer's content words found in the evidence),
the AUC (pairwise over pairs, or ROC over pointwise labels; a tie counts 0.5) and the accuracy of the 0.5 threshold,
each with a seeded bootstrap interval (`reward.evaluation.calibrate.bootstrap_ci`).

A frozen slice (`freeze_slice` / `check_slice`) is a small folder of cases with their SHA-256 checksums and the
metrics measured when it was frozen; the regression gate rescores it and fails when a gated AUC falls below the
frozen interval's lower bound. Public data never enters this repository: the slice lives beside it
(`benchmarks/fidelity.py --freeze` writes one).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from reward.format import Facet, parse_response, render_response, split_sentences
from reward.evaluation.agreement import bootstrap_ci, pairwise_auc, roc_auc
from reward.engine import Engine
from reward.rules.checks import tokens
from reward.schema import Evidence, Item, ItemResult

log = logging.getLogger(__name__)
AGGREGATES = ("reward", "gate", "utility")
LEXICAL = "lexical_baseline"
GATED = ("claim_hallucination", "reward")
"""What the regression gate holds to its frozen interval (the rest is reported)."""
SLICE_MANIFEST = "slice.json"

_STOPWORDS = frozenset(
    """a an the and or but if then than so of to in on at by for with from into onto over under about as is are was
    were be been being it its this that these those there here which who whom whose what when where why how can could
    may might must should would will shall do does did have has had not no nor only also just very more most much many
    some any each every both all other such own same too i you he she we they me him her us them my your his our
    their out up down off again once""".split()
)
_SUFFIX = re.compile(r"(?:ing|ed|es|s|ly)$")


class FidelityCase(BaseModel):
    """One labelled response of a public set, as a scoring item."""

    set: str
    """The public set it comes from (`summedits`, `begin`, `wice`)."""
    label: int = Field(ge=0, le=1)
    """1: faithful to the evidence; 0: hallucinated (contradicted or unsupported)."""
    pair: str | None = None
    """Shared by the faithful and the hallucinated case of one pair; `None` in a pointwise set."""
    item: Item
    """The scoring item: evidence, query and the response in the policy format."""
    split: str | None = None
    """`fit` (tuning may read it) or `test` (reported on, never tuned on); `None` in slices frozen before the split."""


# -- rendering ---------------------------------------------------------------------------------------------------
def _stems(text: str) -> set[str]:
    return {_stem(w) for w in tokens(text) if w not in _STOPWORDS and not w.isdigit() and len(w) > 1}


def _stem(word: str) -> str:
    if len(word) > 4:
        word = _SUFFIX.sub("", word)
    return word[:5]


def lexical_support(answer: str, evidence: Sequence[Evidence]) -> float:
    """The trivial baseline: share of the answer's content words (crudely stemmed) found in the evidence.

    >>> lexical_support("The cat sat.", [Evidence(id="1", text="A cat sat down.")])
    1.0
    """
    words = [w for w in tokens(answer) if w not in _STOPWORDS and not w.isdigit() and len(w) > 1]
    if not words:
        return 1.0
    known = set().union(*(_stems(f"{d.title} {d.text}") for d in evidence)) if evidence else set()
    return sum(1 for w in words if _stem(w) in known) / len(words)


def passages(sentences: Sequence[str], size: int = 6) -> list[str]:
    """Group a long source's sentences into passages of `size` sentences (the evidence items of one case)."""
    chunks = (" ".join(sentences[i : i + size]).strip() for i in range(0, len(sentences), size))
    return [chunk for chunk in chunks if chunk]


def _cite(sentence: str, doc_id: str) -> str:
    body = sentence.rstrip()
    match = re.search(r"[.!?。！？]+[\"')\]]*$", body)
    if match:
        return f"{body[: match.start()]} [Doc {doc_id}]{body[match.start():]}"
    return f"{body} [Doc {doc_id}]"


def render_case(case_id: str, query: str, evidence: list[Evidence], answer: str, history: list | None = None) -> Item:
    """An item whose response cites, for each answer sentence, the evidence item sharing most of its content words
    (the same rule for faithful and hallucinated answers, so the citation carries no label)."""
    stems = [_stems(f"{d.title} {d.text}") for d in evidence]
    cited_answer, cited = [], []
    for sentence in split_sentences(answer) or [answer]:
        words = _stems(sentence)
        best = max(range(len(evidence)), key=lambda i: (len(words & stems[i]), -i))
        cited_answer.append(_cite(sentence, evidence[best].id))
        if evidence[best].id not in cited:
            cited.append(evidence[best].id)
    plan = [Facet(query.strip().splitlines()[0][:200] or "Answer the question", tuple(cited[:3]))]
    response = render_response(plan, cited, " ".join(cited_answer))
    return Item(id=case_id, query=query, history=history or [], evidence=evidence, response=response)


# -- metrics -----------------------------------------------------------------------------------------------------
def _pointwise_auc(rows: list[tuple[int, float]]) -> float | None:
    return roc_auc([s for y, s in rows if y == 1], [s for y, s in rows if y == 0])


def _accuracy(rows: list[tuple[int, float]]) -> float | None:
    return sum(int((s >= 0.5) == bool(y)) for y, s in rows) / len(rows) if rows else None


def _scores(case: FidelityCase, result: ItemResult) -> dict[str, float | None]:
    scores: dict[str, float | None] = {
        name: (s.score if s.status == "ok" else None) for name, s in result.dimensions.items()
    }
    for name in AGGREGATES:
        scores[name] = getattr(result, name) if result.valid else None
    scores[LEXICAL] = lexical_support(parse_response(case.item.response).answer_text, case.item.evidence)
    return scores


def _metric(rows_or_pairs: list, statistic, resamples: int) -> dict:
    value = statistic(rows_or_pairs) if rows_or_pairs else None
    ci = bootstrap_ci(rows_or_pairs, statistic, resamples=resamples) if rows_or_pairs else None
    return {"value": None if value is None else round(value, 4), "ci": list(ci) if ci else None}


def measure(cases: Sequence[FidelityCase], results: Sequence[ItemResult], resamples: int = 1000) -> dict:
    """Per set, per dimension: AUC and accuracy with bootstrap intervals, the number of pairs / items used and how
    many cases that dimension left unscored (excluded, never counted as 0)."""
    by_id = {r.id: r for r in results}
    per_set: dict[str, list[tuple[FidelityCase, dict]]] = defaultdict(list)
    for case in cases:
        per_set[case.set].append((case, _scores(case, by_id[case.item.id])))
    report = {}
    for name, scored in per_set.items():
        dimensions = sorted({d for _, s in scored for d in s})
        paired = any(c.pair for c, _ in scored)
        out = {"kind": "pairs" if paired else "pointwise", "cases": len(scored), "dimensions": {}}
        for dim in dimensions:
            rows = [(c.label, s[dim]) for c, s in scored if s.get(dim) is not None]
            unscored = len(scored) - len(rows)
            entry = {"n_items": len(rows), "unscored": unscored, "accuracy": _metric(rows, _accuracy, resamples)}
            if paired:
                sides: dict[str, dict[int, float | None]] = defaultdict(dict)
                for c, s in scored:
                    sides[c.pair][c.label] = s.get(dim)
                pairs = [(v[1], v[0]) for v in sides.values() if v.get(1) is not None and v.get(0) is not None]
                stat = lambda ps: pairwise_auc([p for p, _ in ps], [q for _, q in ps])  # noqa: E731
                entry["auc"] = _metric(pairs, stat, resamples)
                entry["n"] = len(pairs)
            else:
                entry["auc"] = _metric(rows, _pointwise_auc, resamples)
                entry["n"] = len(rows)
            out["dimensions"][dim] = entry
        report[name] = out
    return report


def case_scores(cases: Sequence[FidelityCase], results: Sequence[ItemResult]) -> dict[str, dict]:
    """Per case: set, label, pair, every score (rounded) and the confidences the judge reported, so a later run can be
    compared on the same cases."""
    by_id = {r.id: r for r in results}
    out = {}
    for case in cases:
        result = by_id[case.item.id]
        scores = {k: (None if v is None else round(v, 4)) for k, v in _scores(case, result).items()}
        # The judge's own confidence where it reports one (what a cascade routes on; see benchmarks/cascade.py).
        confidences = {k: round(s.confidence, 4) for k, s in result.dimensions.items()
                       if s.status == "ok" and s.confidence is not None}
        out[case.item.id] = {"set": case.set, "label": case.label, "pair": case.pair, "scores": scores,
                             "confidences": confidences}
    return out


def score_cases(engine: Engine, cases: Sequence[FidelityCase], batch: int = 64) -> list[ItemResult]:
    """Score in bounded batches (a pair's two cases stay in one batch, so the evidence is embedded once)."""
    results: list[ItemResult] = []
    items = [c.item for c in cases]
    for start in range(0, len(items), batch):
        results.extend(engine.score_sync(items[start : start + batch]))
        log.info("scored %d/%d items", len(results), len(items))
    return results


# -- frozen slice and its gate -----------------------------------------------------------------------------------
def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def freeze_slice(cases: Sequence[FidelityCase], report: dict, folder: Path, meta: dict | None = None) -> Path:
    """Write the cases (one JSONL per set), their checksums and the metrics measured on them into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    by_set: dict[str, list[FidelityCase]] = defaultdict(list)
    for case in cases:
        by_set[case.set].append(case)
    for name, members in sorted(by_set.items()):
        path = folder / f"{name}.jsonl"
        path.write_text("".join(c.model_dump_json() + "\n" for c in members), encoding="utf-8")
        files[path.name] = sha256(path)
    manifest = {"files": files, "gated": list(GATED), "metrics": report, **(meta or {})}
    target = folder / SLICE_MANIFEST
    target.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return target


class SliceError(ValueError):
    """The slice is incomplete or its files do not match their recorded checksums."""


def load_slice(folder: Path) -> tuple[list[FidelityCase], dict]:
    """The slice's cases and manifest, after checking every file against its recorded SHA-256."""
    manifest_path = folder / SLICE_MANIFEST
    if not manifest_path.is_file():
        raise SliceError(f"{manifest_path}: missing (create it with benchmarks/fidelity.py --freeze {folder})")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    cases = []
    for name, digest in sorted(manifest["files"].items()):
        path = folder / name
        if not path.is_file():
            raise SliceError(f"{path}: listed in {SLICE_MANIFEST} but missing")
        actual = sha256(path)
        if actual != digest:
            raise SliceError(f"{path}: SHA-256 {actual[:12]}… does not match the recorded {digest[:12]}…")
        cases.extend(FidelityCase.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return cases, manifest


def regressions(report: dict, frozen: dict, gated: Sequence[str] = GATED) -> list[str]:
    """Gated AUCs now below the lower bound of their frozen interval, one message each."""
    failures = []
    for name, frozen_set in frozen.items():
        for dim in gated:
            before = frozen_set["dimensions"].get(dim)
            if not before or not before["auc"]["ci"]:
                continue
            now = report.get(name, {}).get("dimensions", {}).get(dim)
            value = now["auc"]["value"] if now else None
            low = before["auc"]["ci"][0]
            if value is None or value < low:
                failures.append(f"{name}/{dim}: AUC {value} below the frozen interval [{low}, {before['auc']['ci'][1]}]")
    return failures


def check_slice(folder: Path, engine: Engine, resamples: int = 200) -> tuple[dict, list[str]]:
    """Rescore a frozen slice: (the report now, the regressions against the frozen metrics)."""
    cases, manifest = load_slice(folder)
    report = measure(cases, score_cases(engine, cases), resamples=resamples)
    return report, regressions(report, manifest["metrics"], manifest.get("gated", GATED))

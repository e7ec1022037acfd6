"""How the local tier's claim checks become `claim_hallucination`, compared on the fit split of the public fidelity
sets: the claims' aggregation (0.6 min + 0.4 mean, min, mean, noisy-or), a continuous support reading instead of
the saturating one, and the claim support scaled by the answer's bare evidence coverage (`local.coverage_scaled`),
each as its AUC margin over the lexical baseline per set (what issue 29's bar reads). The shipped dimension scales by
the fitted grounding instead (`training.consistency.answer` reports its own comparison).

The claim checks are recorded once (`training.consistency.combine.dimension_claims`: the model's P(supported), the hard
failures and the lexical caps, per claim) and every variant is computed from the recording, so all read the same
checks. Only fit-split cases are accepted (`training.consistency.combine.refuse_unless_fit`).

    .venv/bin/python benchmarks/fidelity.py --split fit --per-set 200 --export-cases var/cases_fit.jsonl --no-score
    .venv/bin/python benchmarks/claim_coverage_fit.py --cases var/cases_fit.jsonl --records var/fit_records.json

`--records` is written on the first run and read on later ones. Results: `benchmarks/results/claim_coverage_fit.json`.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(Path.cwd())):
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from reward.evaluation.fidelity import FidelityCase, lexical_support  # noqa: E402
from reward.format import parse_response, split_sentences, strip_citations  # noqa: E402
from reward.judges.consistency import ARTIFACT, ClaimCombination  # noqa: E402
from training.consistency.combine import (AGGREGATIONS, dimension_auc, dimension_claims,  # noqa: E402
                                               dimension_score, refuse_unless_fit)
from reward.judges.local.context import _parts_of  # noqa: E402
from reward.judges.local.support import COVERAGE_FLOOR, SCORE_OFFSET, coverage_scaled  # noqa: E402
from reward.judges.local.text import doc_text, lexical_coverage  # noqa: E402

log = logging.getLogger("claim_coverage_fit")
SETS = ("summedits", "begin", "wice", "expertqa", "attributedqa", "lfqa")


def answer_coverage(case: FidelityCase) -> tuple[float, int]:
    """`local.answer_coverage` of a case (its answer's non-copy sentences against all evidence) and its number of
    answer parts (`local.context._parts_of`)."""
    evidence = case.item.evidence
    answer = parse_response(case.item.response).answer or ""
    parts = _parts_of(answer, case.item.query, tuple((d.id, d.title, d.text) for d in evidence))
    copies = {body for body, kind in parts if kind == "copy"}
    kept = [strip_citations(s) for s in split_sentences(answer)
            if re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", s).strip() not in copies]
    coverage = lexical_coverage(" ".join(kept), " ".join(doc_text(d) for d in evidence)) if kept else 1.0
    return coverage, len(parts)


def soft_reading(p: float, tail: float, floor: float = 0.3, span: float = 0.4) -> float:
    """The saturating reading (linear from floor to floor + span) kept inside [tail, 1 - tail], with linear tails:
    continuous, crossing 0.5 where the saturating one does."""
    if p < floor:
        return tail * p / floor
    if p > floor + span:
        return 1 - tail + tail * (p - floor - span) / (1 - floor - span)
    return tail + (1 - 2 * tail) * (p - floor) / span


def soft_score(record: dict, combination: ClaimCombination, tail: float) -> float | None:
    claims = record["claims"]
    if claims is None:
        return None
    if not claims:
        return 1.0
    supports = []
    for claim in claims:
        features = claim["features"]
        if not features:
            supports.append(claim["support"])
            continue
        support = soft_reading(combination.probability(features["p_supported"], features["coverage"], features), tail)
        supports.append(min(support, claim["cap"]) if claim["cap"] is not None else support)
    score = AGGREGATIONS["min_mean"](supports)
    if any(c["hard"] for c in claims):
        score = min(score, 0.25)
    return min(score, 0.5) if record.get("unknown_citations") else score


def scaled_score(record: dict, combination: ClaimCombination, floor: float, offset: float) -> float | None:
    """`local.coverage_scaled` by the bare coverage (the rule before the grounding stack) with another floor / offset."""
    score = dimension_score(record, combination, combination.support, "min_mean")
    if score is None:
        return None
    if not record["claims"] and record["parts"]:
        return score
    factor = floor + (1 - floor) * record["coverage"]
    return (score + offset) / (1 + offset) * factor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, required=True, help="fit-split cases (benchmarks/fidelity.py --export-cases)")
    parser.add_argument("--records", type=Path, required=True, help="recorded claim checks: written if missing, else read")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "claim_coverage_fit.json")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cases = [FidelityCase.model_validate_json(line) for line in args.cases.read_text().splitlines() if line.strip()]
    refuse_unless_fit(cases)
    if args.records.is_file():
        records = json.loads(args.records.read_text())
    else:
        records = dimension_claims(cases)
        args.records.write_text(json.dumps(records))
    by_id = {c.item.id: c for c in cases}
    for record in records:
        case = by_id[record["id"]]
        record["lexical"] = lexical_support(parse_response(case.item.response).answer_text, case.item.evidence)
        record["coverage"], record["parts"] = answer_coverage(case)
    combination = ClaimCombination.load(ARTIFACT)
    by_set = {name: [r for r in records if r["set"] == name] for name in SETS}
    lexical = {name: dimension_auc(rs, [r["lexical"] for r in rs]) for name, rs in by_set.items()}
    variants = {f"support only, {how}": (lambda r, how=how: dimension_score(r, combination, combination.support, how))
                for how in AGGREGATIONS}
    variants |= {f"continuous reading, tails {tail}": (lambda r, tail=tail: soft_score(r, combination, tail))
                 for tail in (0.02, 0.1)}
    variants |= {f"coverage-scaled, floor {floor}": (lambda r, floor=floor: scaled_score(r, combination, floor, SCORE_OFFSET))
                 for floor in (0.0, 0.3, 0.5)}
    variants["coverage-scaled, floor 0.5, no offset"] = lambda r: scaled_score(r, combination, 0.5, 0.0)
    variants["answer coverage alone"] = lambda r: r["coverage"]
    variants["coverage_scaled by the bare coverage"] = lambda r: (
        None if (s := dimension_score(r, combination, combination.support, "min_mean")) is None
        else s if (not r["claims"] and r["parts"]) else coverage_scaled(s, r["coverage"]))
    table = {}
    for name, score in variants.items():
        auc = {s: dimension_auc(rs, [score(r) for r in rs]) for s, rs in by_set.items()}
        margin = {s: round(auc[s] - lexical[s], 4) for s in SETS}
        table[name] = {"auc": {s: round(v, 4) for s, v in auc.items()}, "margin": margin,
                       "worst_margin": min(margin.values()), "mean_margin": round(sum(margin.values()) / len(SETS), 4)}
        log.info("%-42s %s | worst %+.3f", name, " ".join(f"{margin[s]:+.3f}" for s in SETS), table[name]["worst_margin"])
    out = {"command": "benchmarks/claim_coverage_fit.py " + " ".join(sys.argv[1:]),
           "cases": {s: len(rs) for s, rs in by_set.items()}, "sets": list(SETS),
           "lexical_baseline_auc": {s: round(v, 4) for s, v in lexical.items()},
           "shipped": {"coverage_floor": COVERAGE_FLOOR, "score_offset": SCORE_OFFSET}, "variants": table}
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    log.info("wrote %s", args.out)


if __name__ == "__main__":
    main()

"""Fit the local tier's answer stack (`reward.judges.consistency.AnswerStack`): how well the evidence grounds an
answer's wording, as a logistic regression, all weights >= 0, of its lexical grounding features
(`reward.judges.local.support.answer_grounding`) on the fit split of the public fidelity sets. `claim_hallucination`
scales its claims' support by it (`local.coverage_scaled`), in place of the bare share of the answer's words the
evidence gives: the grounding can only lower the claims' support.

Only the combination's part of the fit split is read (`training.consistency.data.case_in_model_part` by document:
the model never trained on these documents); test-split cases are refused. Each set weighs the same in the fit
(class-balanced within it), so the large sets do not decide the small ones. Before the final fit, a grouped k-fold
(cases of one document in one fold) reports each set's out-of-fold AUC of `claim_hallucination` with the stack
beside the lexical baseline (the share of the answer's content words in the evidence) and the dimension without the
stack (the bare share), the margins issue 29's bar reads. The features and the claims' support are computed by the
tier's own code, so the fit sees what the server computes.

    .venv/bin/python benchmarks/fidelity.py --data data/public --split fit --per-set 100000 \\
        --export-cases var/cases_fit_all.jsonl --no-score
    .venv/bin/python -m training.consistency.answer --cases var/cases_fit_all.jsonl \\
        --report benchmarks/results/answer_stack_fit.json

It writes the stack into the artifact's `combination.json` (key `answer`) and its checksums; `--dry-run` only
reports. `--features` restricts the features read (default: all of them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from training.consistency.combine import dimension_auc, in_batches, refuse_unless_fit

log = logging.getLogger("training.consistency.answer")


def case_features(cases: list) -> list[dict]:
    """Per case: its set, label, pair and document, the lexical baseline, the claims' support, the dimension without
    the stack (`coverage_scaled` by the bare coverage) and the grounding features; `features` is None where the
    stack does not touch the score (the tier leaves the case unscored, or the answer's sentences state nothing to
    check)."""
    from reward.evaluation.fidelity import lexical_support
    from reward.format import parse_response
    from reward.judges.base import JudgeRequest
    from reward.judges.local import LocalJudge
    from reward.judges.local.context import Context, Unscored, _answer_parts
    from reward.judges.local.support import (_claim_checks, _require_readable_interaction, _support_of,
                                             answer_grounding, coverage_scaled)
    from reward.rubric import load_suite
    from training.consistency.data import case_document

    dimension = load_suite("searchllm").dimensions["claim_hallucination"]
    judge = LocalJudge()

    async def one(case) -> dict:
        parsed = parse_response(case.item.response)
        ctx = Context(JudgeRequest(dimension=dimension, item=case.item, parsed=parsed), judge.embedder, judge.scorer)
        row = {"set": case.set, "label": case.label, "pair": case.pair, "id": case.item.id,
               "document": case_document(case), "lexical": lexical_support(parsed.answer_text, case.item.evidence),
               "features": None, "before": None}
        try:
            _require_readable_interaction(ctx)
            checks = await _claim_checks(ctx)
        except Unscored:
            return row
        score, _, _ = _support_of(ctx, checks)
        if not checks and _answer_parts(ctx):
            return row | {"before": score}
        features = answer_grounding(ctx)
        return row | {"features": features, "support": score, "before": coverage_scaled(score, features["coverage"])}

    return in_batches(one, cases, "answer features")


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted logistic regression on standardised features with every weight >= 0 (L-BFGS-B with bounds).
    Returns (intercept, weights, means, scales)."""
    from scipy.optimize import minimize

    means, scales = x.mean(axis=0), x.std(axis=0)
    scales = np.where(scales > 1e-9, scales, 1.0)
    z = (x - means) / scales
    weight = weight / weight.mean()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        logits = theta[0] + z @ theta[1:]
        p = 1.0 / (1.0 + np.exp(-logits))
        value = -(weight * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))).mean() + l2 * (theta[1:] ** 2).sum()
        g = weight * (p - y) / len(y)
        return value, np.concatenate([[g.sum()], z.T @ g + 2 * l2 * theta[1:]])

    bounds = [(None, None)] + [(0.0, None)] * x.shape[1]
    theta = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds).x
    return float(theta[0]), theta[1:], means, scales


def sample_weights(rows: list[dict]) -> np.ndarray:
    """Each set the same total weight, each class half of its set's."""
    counts = Counter((r["set"], r["label"]) for r in rows)
    return np.array([1.0 / (2 * counts[(r["set"], r["label"])]) for r in rows])


def per_set(rows: list[dict], scores: list[float | None]) -> dict[str, float | None]:
    out = {}
    for name in sorted({r["set"] for r in rows}):
        chosen = [(r, s) for r, s in zip(rows, scores, strict=True) if r["set"] == name]
        auc = dimension_auc([r for r, _ in chosen], [s for _, s in chosen])
        out[name] = None if auc is None else round(auc, 4)
    return out


def main(argv: list[str] | None = None) -> None:
    from reward.evaluation.fidelity import FidelityCase
    from reward.judges.consistency import ARTIFACT, COMBINATION, write_checksums
    from reward.judges.local.grounding import LEXICAL_FEATURES
    from reward.judges.local.support import coverage_scaled
    from training.consistency.data import case_in_model_part

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, required=True, help="fit-split cases (benchmarks/fidelity.py --export-cases)")
    parser.add_argument("--artifact", type=Path, default=ARTIFACT)
    parser.add_argument("--features", default=",".join(LEXICAL_FEATURES))
    parser.add_argument("--l2", type=float, default=0.01, help="L2 penalty on the standardised weights")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--rows", type=Path, default=None, help="cache of the computed features: read if present, else written")
    parser.add_argument("--report", type=Path, default=None, help="write the fit's report (JSON) here")
    parser.add_argument("--dry-run", action="store_true", help="report only; leave the artifact as it is")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    names = [n for n in args.features.split(",") if n]
    unknown = sorted(set(names) - set(LEXICAL_FEATURES))
    if unknown:
        raise SystemExit(f"--features: unknown {', '.join(unknown)}; known: {', '.join(LEXICAL_FEATURES)}")
    started = time.time()
    if args.rows and args.rows.exists():
        all_rows = json.loads(args.rows.read_text())
    else:
        cases = [FidelityCase.model_validate_json(line) for line in args.cases.read_text().splitlines() if line.strip()]
        refuse_unless_fit(cases)
        mine = [c for c in cases if not case_in_model_part(c)]
        log.info("%d of %d fit cases are the combination's part", len(mine), len(cases))
        all_rows = case_features(mine)
        if args.rows:
            args.rows.write_text(json.dumps(all_rows))
    rows = [r for r in all_rows if r["features"] is not None]
    x = np.array([[r["features"][n] for n in names] for r in rows])
    y = np.array([r["label"] for r in rows], dtype=float)
    weight = sample_weights(rows)
    folds = np.array([int(hashlib.sha256(r["document"].encode()).hexdigest(), 16) % args.folds for r in rows])
    out_of_fold = np.zeros(len(rows))
    for k in range(args.folds):
        train, held = folds != k, folds == k
        intercept, w, means, scales = fit(x[train], y[train], weight[train], args.l2)
        out_of_fold[held] = 1.0 / (1.0 + np.exp(-(intercept + ((x[held] - means) / scales) @ w)))
    # Cases the stack does not decide keep their score (unscored: None; nothing to check: 1.0) in every column.
    fixed = [r for r in all_rows if r["features"] is None]
    scored = rows + fixed
    stack_scores = ([coverage_scaled(r["support"], p) for p, r in zip(out_of_fold, rows, strict=True)]
                    + [r["before"] for r in fixed])
    lexical = per_set(scored, [r["lexical"] for r in scored])
    stack = per_set(scored, stack_scores)
    before = per_set(scored, [r["before"] for r in scored])
    margins = {s: {"stack": round(stack[s] - lexical[s], 4), "before": round(before[s] - lexical[s], 4)}
               for s in lexical if lexical[s] is not None}
    for s, m in margins.items():
        log.info("%-13s lexical %.3f  before %+.3f  stack (out of fold) %+.3f", s, lexical[s], m["before"], m["stack"])
    intercept, w, means, scales = fit(x, y, weight, args.l2)
    answer = {
        "intercept": round(intercept, 6),
        "features": {n: {"weight": round(float(wi), 6), "mean": round(float(mi), 6), "scale": round(float(si), 6)}
                     for n, wi, mi, si in zip(names, w, means, scales, strict=True)},
        "what": "grounding = sigmoid(intercept + sum_k weight_k * (feature_k - mean_k) / scale_k), every weight >= 0; "
                "features: reward.judges.local.support.answer_grounding; claim_hallucination = "
                "local.coverage_scaled(claim support, grounding)",
        "fit": {"cases": dict(Counter(r["set"] for r in rows)), "fixed_cases": dict(Counter(r["set"] for r in fixed)),
                "l2": args.l2, "folds": args.folds, "weighting": "each set alike, class-balanced within it",
                "auc_lexical": lexical, "auc_before_out_of_fold_unchanged": before, "auc_stack_out_of_fold": stack,
                "margin_over_lexical": margins},
        "command": "python -m training.consistency.answer " + " ".join(sys.argv[1:] if argv is None else argv),
        "seconds": round(time.time() - started, 1),
    }
    log.info("weights: %s", {n: round(float(wi), 3) for n, wi in zip(names, w, strict=True)})
    if args.report:
        args.report.write_text(json.dumps(answer, indent=2) + "\n")
    if args.dry_run:
        return
    path = args.artifact / COMBINATION
    combination = json.loads(path.read_text())
    combination["answer"] = answer
    path.write_text(json.dumps(combination, indent=2) + "\n")
    write_checksums(args.artifact)
    log.info("wrote the answer stack into %s", path)


if __name__ == "__main__":
    main()

"""Fit the local tier's claim score: a logistic regression of "the claim is supported" on the consistency model's
logit P(supported) and the claim's lexical coverage (share of its content words found in the evidence,
`local.lexical_coverage`), on training pairs that the artifact was not trained on (the tail of the synthetic +
RTE list and of the SICK list of `consistency_data`), never on an evaluation set.

    python -m reward.judges.consistency_combine --artifact reward/judges/consistency_model

Writes `combination.json` (coefficients, the pairs it was fitted on, accuracy and AUC of the model alone and of the
combination on the fit pairs and on the in-domain held-out pairs) into the artifact and rewrites its SHA256SUMS.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import time
from pathlib import Path

import numpy as np

from reward.judges.consistency import ARTIFACT, COMBINATION, ClaimCombination, ConsistencyModel, write_checksums
from reward.judges.consistency_data import Pair, build, sick_pairs

log = logging.getLogger("reward.judges.consistency_combine")


def used_end(recipe: dict) -> int:
    """How far into `build`'s training list this artifact (and any it continued from) read."""
    hyper = recipe.get("hyperparameters", {})
    mixed = sum(int((recipe.get(k) or {}).get("train_pairs_used", 0)) for k in ("sick", "negation_paraphrase"))
    end = int(recipe.get("skipped_pairs", 0) or 0) + int(hyper.get("pairs_planned", hyper.get("pairs", 0))) - mixed
    parent = (recipe.get("continued_from") or {}).get("recipe")
    return max(end, used_end(parent)) if parent else end


def sick_used_until(recipe: dict) -> int:
    sick = recipe.get("sick") or {}
    until = int(sick.get("used_until", sick.get("train_pairs_used", 0)))
    parent = (recipe.get("continued_from") or {}).get("recipe")
    return max(until, sick_used_until(parent)) if parent else until


def features(model: ConsistencyModel, pairs: list[Pair]) -> np.ndarray:
    from reward.judges.local import lexical_coverage

    p = model.predict([(x.evidence, x.claim) for x in pairs])[:, 0].clip(1e-6, 1 - 1e-6)
    coverage = np.array([lexical_coverage(x.claim, x.evidence) for x in pairs])
    return np.stack([np.log(p / (1 - p)), coverage], axis=1)


def scores(x: np.ndarray, y: np.ndarray, combination: ClaimCombination) -> dict:
    from sklearn.metrics import roc_auc_score

    model_p = 1 / (1 + np.exp(-x[:, 0]))
    combined = np.array([combination.probability(float(p), float(c)) for p, c in zip(model_p, x[:, 1], strict=True)])
    out = {"pairs": int(len(y))}
    for name, value in (("model", model_p), ("coverage", x[:, 1]), ("combined", combined)):
        out[name] = {"accuracy": round(float(np.mean((value >= 0.5) == y)), 4),
                     "auc": round(float(roc_auc_score(y, value)), 4) if 0 < y.sum() < len(y) else None}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", type=Path, default=ARTIFACT)
    parser.add_argument("--seed", type=int, default=13, help="the seed the artifact's data was built with")
    parser.add_argument("--pairs", type=int, default=1200, help="fit pairs from the tail of the synthetic + RTE list")
    parser.add_argument("--sick", type=int, default=400, help="fit pairs from the tail of the SICK training list")
    parser.add_argument("--held-out", type=int, default=480, help="held-out pairs reported (not fitted on)")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch
    from sklearn.linear_model import LogisticRegression

    torch.set_num_threads(args.threads)
    recipe = json.loads((args.artifact / "recipe.json").read_text())
    train, held, _ = build(args.seed)
    sick_train, sick_held, _ = sick_pairs(args.seed)
    start = len(train) - args.pairs
    if start < used_end(recipe):
        raise SystemExit(f"--pairs {args.pairs}: the last {args.pairs} training pairs overlap the {used_end(recipe)} "
                         "the artifact was trained on")
    sick_used = sick_used_until(recipe)
    if len(sick_train) - args.sick < sick_used:
        raise SystemExit(f"--sick {args.sick}: overlaps the {sick_used} SICK pairs the artifact was trained on")
    fit = train[start:] + sick_train[len(sick_train) - args.sick:]
    rng = np.random.default_rng(args.seed)
    held = [held[i] for i in rng.permutation(len(held))[: args.held_out]] + sick_held[: args.held_out // 3]

    model = ConsistencyModel(args.artifact)
    started = time.perf_counter()
    x, x_held = features(model, fit), features(model, held)
    y = np.array([p.label == 0 for p in fit])
    y_held = np.array([p.label == 0 for p in held])
    regression = LogisticRegression(class_weight="balanced", C=1.0).fit(x, y)
    combination = ClaimCombination(float(regression.intercept_[0]), float(regression.coef_[0][0]),
                                   float(regression.coef_[0][1]))
    kinds: dict[str, int] = {}
    for pair in fit:
        kinds[pair.kind] = kinds.get(pair.kind, 0) + 1
    report = {
        "intercept": round(combination.intercept, 6),
        "weights": {"logit_p_supported": round(combination.logit_weight, 6),
                    "coverage": round(combination.coverage_weight, 6)},
        "what": "P(supported) = sigmoid(intercept + w1 * logit(model P(supported)) + w2 * lexical coverage); "
                "coverage: share of the claim's content words (stems) found in the evidence (local.lexical_coverage)",
        "fit": {"pairs": len(fit), "from": f"consistency_data.build(seed={args.seed}) train[{start}:] and "
                f"sick_pairs(seed={args.seed}) train[{len(sick_train) - args.sick}:] (not trained on)",
                "kinds": dict(sorted(kinds.items())),
                "regression": "sklearn LogisticRegression(class_weight='balanced', C=1.0)"},
        "on_fit_pairs": scores(x, y, combination),
        "on_held_out_pairs": scores(x_held, y_held, combination),
        "held_out_note": "in-domain held-out pairs of the recipe (synthetic of held-out passages, RTE dev, "
                         "SICK held-out)",
        "command": "python -m reward.judges.consistency_combine " + " ".join(argv or __import__("sys").argv[1:]),
        "seconds": round(time.perf_counter() - started, 1),
    }
    weights = (combination.intercept, combination.logit_weight, combination.coverage_weight)
    if not all(math.isfinite(v) for v in weights):
        raise SystemExit(f"the fit did not converge: {report}")
    (args.artifact / COMBINATION).write_text(json.dumps(report, indent=2) + "\n")
    write_checksums(args.artifact)
    log.info("%s", json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

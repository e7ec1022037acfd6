"""Fit the local tier's claim score: a logistic regression of "the claim is supported" on the consistency model's
logit P(supported) and the claim's lexical coverage (share of its content words found in the evidence,
`local.lexical_coverage`), on training pairs that the artifact was not trained on (the tail of the synthetic +
RTE list and of the SICK list of `training.consistency.data`), never on an evaluation set.

    python -m training.consistency.combine --artifact reward/judges/consistency_model

With `--public CASES.jsonl` (cases exported by `benchmarks/fidelity.py --split fit --export-cases`) the fit also
reads the fit split of the public fidelity sets, claim by claim through the local tier's own path
(`local.support._sentence_support`: the same claims, evidence windows and features the tier scores), and weighs the cheap
claim features of `local.claim_features` too. It refuses any case that is not in the fit split: the test split is
what the fidelity figures are reported on. Claim labels: every claim of a faithful response is supported; a
hallucinated response gives its claim when it has one claim, or (a pair set) its one claim that the faithful
response of the pair does not share; other claims of hallucinated responses are left out (which one is wrong is
unknown).

Writes `combination.json` (coefficients, the pairs it was fitted on, accuracy and AUC of the model alone and of the
combination on the fit pairs and on the in-domain held-out pairs) into the artifact and rewrites its SHA256SUMS.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import logging
import math
import time
from pathlib import Path

import numpy as np

from reward.judges.consistency import ARTIFACT, COMBINATION, ClaimCombination, ConsistencyModel, write_checksums
from training.consistency.data import Pair, build, sick_pairs

log = logging.getLogger("training.consistency.combine")


def used_end(recipe: dict) -> int:
    """How far into `build`'s training list this artifact (and any it continued from) read."""
    hyper = recipe.get("hyperparameters", {})
    mixed = sum(int((recipe.get(k) or {}).get("train_pairs_used", 0)) for k in ("sick", "negation_paraphrase", "hard"))
    end = int(recipe.get("skipped_pairs", 0) or 0) + int(hyper.get("pairs_planned", hyper.get("pairs", 0))) - mixed
    parent = (recipe.get("continued_from") or {}).get("recipe")
    return max(end, used_end(parent)) if parent else end


def sick_used_until(recipe: dict) -> int:
    sick = recipe.get("sick") or {}
    until = int(sick.get("used_until", sick.get("train_pairs_used", 0)))
    parent = (recipe.get("continued_from") or {}).get("recipe")
    return max(until, sick_used_until(parent)) if parent else until


def features(model: ConsistencyModel, pairs: list[Pair]) -> np.ndarray:
    from reward.judges.local.text import lexical_coverage

    p = model.predict([(x.evidence, x.claim) for x in pairs])[:, 0].clip(1e-6, 1 - 1e-6)
    coverage = np.array([lexical_coverage(x.claim, x.evidence) for x in pairs])
    return np.stack([np.log(p / (1 - p)), coverage], axis=1)


EXTRA = ("p_supported", "p_supported_x_coverage", "coverage_all", "novel_names", "negation_flip", "coverage_evidence")
"""The cheap claim features (`local.claim_features`, and coverage by the evidence alone, without the user's words)
a public fit weighs beside logit P(supported) and coverage."""
SIGNS = {"logit_p_supported": 1, "coverage": 1, "p_supported": 1, "p_supported_x_coverage": 1, "coverage_all": 1,
         "novel_names": -1, "negation_flip": -1, "coverage_evidence": 1}
"""The direction each weight may take (`fit_monotone`): the claim score never falls as coverage or the model's
P(supported) rises, never rises with a novel name or a flipped negation. So the score keeps its lexical feature's
ranking wherever the model has nothing to add."""


def refuse_unless_fit(cases: list) -> None:
    """The combination is fitted on the fit split only: any case of the test split (or of no split) stops the fit."""
    wrong = [c.item.id for c in cases if c.split != "fit"]
    if wrong:
        raise SystemExit(f"{len(wrong)} of {len(cases)} public cases are not in the fit split (first: {wrong[0]}); "
                         "the combination may read fit-split cases only (benchmarks/fidelity.py --split fit)")


def public_cases(path: Path, per_set: int, seed: int) -> tuple[list, int]:
    """The fit-split cases of `path` the combination may read: the model's training part
    (`training.consistency.data.case_in_model_part`, by document) left out, at most `per_set` pairs / items per set (seeded)."""
    import random
    from collections import defaultdict

    from reward.evaluation.fidelity import FidelityCase
    from training.consistency.data import case_in_model_part

    cases = [FidelityCase.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    refuse_unless_fit(cases)
    held_back = sum(map(case_in_model_part, cases))
    cases = [c for c in cases if not case_in_model_part(c)]
    rng = random.Random(seed)
    by_set: dict[str, list] = defaultdict(list)
    for case in cases:
        by_set[case.set].append(case)
    chosen = []
    for name, members in sorted(by_set.items()):
        keys = sorted({c.pair or c.item.id for c in members})
        rng.shuffle(keys)
        keep = set(keys[:per_set])
        chosen += [c for c in members if (c.pair or c.item.id) in keep]
    return chosen, held_back


def public_claims(path: Path, per_set: int, seed: int) -> tuple[list[dict], dict]:
    """Claim rows (features + label) of the fit-split cases in `path` that the combination may read
    (`public_cases`), through the local tier's claim path (`dimension_claims`, `claim_rows`)."""
    rows, counts, _ = public_fit(path, per_set, seed)
    return rows, counts


def public_fit(path: Path, per_set: int, seed: int) -> tuple[list[dict], dict, list[dict]]:
    """`public_claims`, with the recorded cases (`dimension_claims`, each with its answer's lexical baseline) that the
    support reading and the claims' aggregation are chosen on."""
    from collections import Counter

    from reward.format import parse_response
    from reward.evaluation.fidelity import lexical_support

    chosen, held_back = public_cases(path, per_set, seed)
    records = dimension_claims(chosen)
    for record, case in zip(records, chosen, strict=True):
        record["lexical"] = lexical_support(parse_response(case.item.response).answer_text, case.item.evidence)
    rows = claim_rows(records)
    counts = Counter(f"{r['set']}:{r['label']}" for r in rows)
    return rows, {"cases": len(chosen), "cases_left_to_the_model": held_back, "claims": dict(sorted(counts.items()))}, records


def claim_rows(records: list[dict]) -> list[dict]:
    """Labelled claim rows (set, label, features) from recorded cases (`dimension_claims`), by the rule of
    `labelled_claims`: every modelled claim of a faithful response is supported; a hallucinated response gives its
    claim when it has one, or (a pair set) its one claim the faithful response of the pair does not share."""
    faithful: dict[str, set[str]] = {}
    for r in records:
        if r["pair"] and r["label"] == 1 and r["claims"]:
            faithful.setdefault(r["pair"], set()).update(c["sentence"] for c in r["claims"])
    rows = []
    for r in records:
        if not r["claims"]:
            continue
        modelled = [c for c in r["claims"] if c["features"]]
        if r["label"] == 1:
            picked = modelled
        elif r["pair"]:
            own = [c for c in r["claims"] if c["sentence"] not in faithful.get(r["pair"], set())]
            picked = [c for c in own if c["features"]] if len(own) == 1 else []
        else:
            picked = modelled if len(r["claims"]) == 1 else []
        rows += [{"set": r["set"], "label": r["label"], **c["features"]} for c in picked]
    return rows


def labelled_claims(chosen: list) -> list[tuple]:
    """(case, SentenceCheck, (evidence window, claim) the model read) for the claims of `chosen` whose label is known,
    through the local tier's own claim path. Every claim of a faithful response is supported; a hallucinated
    response gives its claim when it has one, or (a pair set) its one claim that the faithful response of the pair
    does not share; other claims of hallucinated responses are left out (which one is wrong is unknown)."""
    from collections import defaultdict

    from reward.format import parse_response
    from reward.judges.base import JudgeRequest
    from reward.judges.local import LocalJudge
    from reward.judges.local.context import Context, Unscored, _answer_sentences
    from reward.judges.local.support import _sentence_support
    from reward.rubric import load_suite

    dimension = load_suite("searchllm").dimensions["claim_hallucination"]
    judge = LocalJudge()

    class Recorder:
        """The judge's scorer, keeping the (evidence window, claim) pairs it was asked about."""

        def __init__(self):
            self.pairs: list[tuple[str, str]] = []

        async def probabilities(self, pairs):
            self.pairs += list(pairs)
            return await judge.scorer.probabilities(pairs)

        def model(self):
            return judge.scorer.model()

    async def claims_of(case) -> tuple[list, list]:
        request = JudgeRequest(dimension=dimension, item=case.item, parsed=parse_response(case.item.response))
        recorder = Recorder()
        ctx = Context(request, judge.embedder, recorder)
        try:
            found = await _sentence_support(ctx, list(dict.fromkeys(_answer_sentences(ctx))))
        except Unscored:
            return [], []
        modelled = [c for c in found if c.features]
        # Each claim is read as written and without each hedge or lead-in it opens with (`lead_readings`): its pair
        # is the one that reads it as written.
        as_written: dict[str, tuple[str, str]] = {}
        for window, text in recorder.pairs:
            as_written.setdefault(text, (window, text))
        pairs = [as_written.get(c.sentence) for c in modelled]
        if any(pair is None for pair in pairs):
            raise RuntimeError(f"{case.item.id}: a modelled claim the model was not asked about")
        return found, pairs

    checks = in_batches(claims_of, chosen, "public claims")
    faithful_claims: dict[str, set[str]] = defaultdict(set)
    for case, (found, _) in zip(chosen, checks, strict=True):
        if case.pair and case.label == 1:
            faithful_claims[case.pair] |= {c.sentence for c in found}
    out = []
    for case, (found, pairs) in zip(chosen, checks, strict=True):
        read = dict(zip([id(c) for c in found if c.features], pairs, strict=True))
        scored = [c for c in found if c.features]
        if case.label == 1:
            picked = scored
        elif case.pair:
            own = [c for c in found if c.sentence not in faithful_claims[case.pair]]
            picked = [c for c in own if c.features] if len(own) == 1 else []
        else:
            picked = scored if len(found) == 1 else []
        out += [(case, check, read[id(check)]) for check in picked]
    return out


def public_matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    p = np.clip(np.array([r["p_supported"] for r in rows]), 1e-6, 1 - 1e-6)
    derived = [{"p_supported": r["p_supported"], "p_supported_x_coverage": r["p_supported"] * r["coverage"]} for r in rows]
    x = np.stack([np.log(p / (1 - p)), np.array([r["coverage"] for r in rows])]
                 + [np.array([d.get(k, r.get(k)) for d, r in zip(derived, rows)]) for k in EXTRA], axis=1)
    return x, np.array([r["label"] == 1 for r in rows])


def scores(x: np.ndarray, y: np.ndarray, combination: ClaimCombination) -> dict:
    from sklearn.metrics import roc_auc_score

    model_p = 1 / (1 + np.exp(-x[:, 0]))
    names = combination.features
    combined = np.array([combination.probability(float(p), float(c), dict(zip(names, row[2:2 + len(names)])))
                         for p, c, row in zip(model_p, x[:, 1], x, strict=True)])
    out = {"pairs": len(y)}
    for name, value in (("model", model_p), ("coverage", x[:, 1]), ("combined", combined)):
        out[name] = {"accuracy": round(float(np.mean((value >= 0.5) == y)), 4),
                     "auc": round(float(roc_auc_score(y, value)), 4) if 0 < y.sum() < len(y) else None}
    return out


# -- the dimension as the local tier computes it, from recorded claim checks ---------------------------------------
AGGREGATIONS = {
    "min_mean": lambda s: 0.6 * min(s) + 0.4 * sum(s) / len(s),
    "min": min,
    "mean": lambda s: sum(s) / len(s),
    "noisy_or": lambda s: math.prod(s),
}
"""How claim supports make the dimension (`local.claim_hallucination`): `min_mean` (0.6 * min + 0.4 * mean, the
tier's rule before the public fit), the weakest claim, the mean, or noisy-or (the answer holds when no claim fails,
each failing independently with 1 - support: the product of supports)."""

_LEXICAL_CAPS = ((": words not in", 0.3), (": names not in", 0.15), (": negates what", 0.15))
"""The caps `local.support._sentence_support` puts on a claim the lexical checks doubt, keyed by its reason."""


def dimension_claims(cases: list) -> list[dict]:
    """Per case (set, label, pair): the claim checks of `claim_hallucination` as the local tier makes them (support,
    hard failure, the lexical cap its reason carries, the features the combination reads) and whether the answer
    cites unknown documents; `None` claims when the tier leaves the case unscored. Recorded once, so combinations,
    support readings and aggregations are compared on the same checks without rerunning the model."""
    from reward.format import parse_response
    from reward.judges.base import JudgeRequest
    from reward.judges.local import LocalJudge
    from reward.judges.local.context import Context, Unscored, _answer_sentences
    from reward.judges.local.support import _require_readable_interaction, _sentence_support
    from reward.rubric import load_suite

    dimension = load_suite("searchllm").dimensions["claim_hallucination"]
    judge = LocalJudge()

    async def record(case) -> dict:
        request = JudgeRequest(dimension=dimension, item=case.item, parsed=parse_response(case.item.response))
        ctx = Context(request, judge.embedder, judge.scorer)
        out = {"set": case.set, "label": case.label, "pair": case.pair, "id": case.item.id, "claims": []}
        try:
            _require_readable_interaction(ctx)
            sentences = list(dict.fromkeys(_answer_sentences(ctx)))
            checks = await _sentence_support(ctx, sentences) if sentences else []
        except Unscored:
            return out | {"claims": None}
        out["unknown_citations"] = bool(ctx.rule("citations.valid").findings.get("unknown"))
        for check in checks:
            cap = next((value for key, value in _LEXICAL_CAPS if key in check.reason), None) if check.features else None
            out["claims"].append({"sentence": check.sentence, "support": check.support, "hard": bool(check.hard),
                                  "cap": cap, "features": check.features})
        return out

    return in_batches(record, cases, "dimension claims")


def in_batches(per_case, cases: list, what: str, size: int = 32) -> list:
    """`per_case` (a coroutine function) over the cases, `size` at a time so their model calls share batches, with
    progress logged; results in the cases' order."""
    import asyncio

    async def run() -> list:
        out: list = []
        for start in range(0, len(cases), size):
            out += await asyncio.gather(*(per_case(c) for c in cases[start:start + size]))
            log.info("%s: %d/%d cases", what, len(out), len(cases))
        return out

    return asyncio.run(run())


def claim_support(claim: dict, combination: ClaimCombination | None, reading: tuple[float, float] | None) -> float:
    """A recorded claim's support under another combination / reading (what `local.support._sentence_support` would give);
    claims the model did not read (hard failures, no evidence, not English) keep their recorded support."""
    from reward.judges.local.support import model_support

    features = claim["features"]
    if not features:
        return claim["support"]
    p = features["p_supported"]
    if combination is not None:
        p = combination.probability(p, features["coverage"], features)
    support = model_support(p, reading)
    return min(support, claim["cap"]) if claim["cap"] is not None else support


def dimension_score(record: dict, combination: ClaimCombination | None, reading: tuple[float, float] | None,
                    aggregation: str) -> float | None:
    """`claim_hallucination` of a recorded case under a combination, reading and aggregation (`AGGREGATIONS`)."""
    claims = record["claims"]
    if claims is None:
        return None
    if not claims:
        return 1.0
    supports = [claim_support(c, combination, reading) for c in claims]
    score = AGGREGATIONS[aggregation](supports)
    if any(c["hard"] for c in claims):
        score = min(score, 0.25)
    if record.get("unknown_citations"):
        score = min(score, 0.5)
    return score


def dimension_auc(records: list[dict], scores: list[float | None]) -> float | None:
    """AUC of the dimension on recorded cases: pairwise where cases come in pairs, else ROC (ties count 0.5), as in
    `reward.evaluation.fidelity.measure`."""
    from reward.evaluation.calibrate import pairwise_auc
    from reward.evaluation.fidelity import roc_auc

    if any(r["pair"] for r in records):
        sides: dict[str, dict[int, float]] = {}
        for r, s in zip(records, scores, strict=True):
            if s is not None:
                sides.setdefault(r["pair"], {})[r["label"]] = s
        pairs = [(v[1], v[0]) for v in sides.values() if 0 in v and 1 in v]
        return pairwise_auc([p for p, _ in pairs], [q for _, q in pairs]) if pairs else None
    return roc_auc([s for r, s in zip(records, scores, strict=True) if s is not None and r["label"] == 1],
                   [s for r, s in zip(records, scores, strict=True) if s is not None and r["label"] == 0])


def fit_monotone(x: np.ndarray, y: np.ndarray, weight: np.ndarray, signs: list[int], l2: float = 1.0) -> tuple[float, np.ndarray]:
    """A weighted logistic regression whose weights keep the given signs (+1: not below 0, -1: not above 0, 0: free):
    the claim score can only rise with coverage and with the model's P(supported), only fall with a novel name or a
    flipped negation. L2 penalty `l2` on the weights (as sklearn's C = 1 / l2), the intercept free.

    >>> x = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> _, w = fit_monotone(x, y, np.ones(4), [-1]); float(w[0])
    0.0
    """
    from scipy.optimize import minimize

    total = float(weight.sum())

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = theta[0] + x @ theta[1:]
        p = 1.0 / (1.0 + np.exp(-z))
        nll = float(np.sum(weight * (np.logaddexp(0.0, z) - y * z))) + 0.5 * l2 * float(theta[1:] @ theta[1:])
        residual = weight * (p - y)
        grad = np.concatenate([[residual.sum()], x.T @ residual + l2 * theta[1:]])
        return nll / total, grad / total

    bounds = [(None, None)] + [(0.0, None) if s > 0 else (None, 0.0) if s < 0 else (None, None) for s in signs]
    result = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return float(result.x[0]), np.asarray(result.x[1:])



def select_reading(records: list[dict], combination: ClaimCombination, readings: list[tuple[float, float]]) -> dict:
    """The support reading (and, reported beside it, each aggregation of `AGGREGATIONS`) under which the dimension
    ranks the recorded fit-split cases best against their answers' lexical baseline: the largest worst-set margin
    (AUC minus the baseline's AUC), ties broken by the mean margin. Only the tier's aggregation (`min_mean`) is
    chosen from; the others are reported so the rule can be revisited on the same cases."""
    sets = sorted({r["set"] for r in records})
    by_set = {name: [r for r in records if r["set"] == name] for name in sets}
    lexical = {name: dimension_auc(rs, [r["lexical"] for r in rs]) for name, rs in by_set.items()}
    table = []
    for reading in readings:
        for aggregation in AGGREGATIONS:
            auc = {name: dimension_auc(rs, [dimension_score(r, combination, reading, aggregation) for r in rs])
                   for name, rs in by_set.items()}
            margins = [auc[n] - lexical[n] for n in sets if auc[n] is not None and lexical[n] is not None]
            table.append({"support": list(reading), "aggregation": aggregation,
                          "auc": {n: None if v is None else round(v, 4) for n, v in auc.items()},
                          "worst_margin": round(min(margins), 4), "mean_margin": round(float(np.mean(margins)), 4)})
    tier = [row for row in table if row["aggregation"] == "min_mean"]
    chosen = max(tier, key=lambda row: (row["worst_margin"], row["mean_margin"]))
    return {"cases": {n: len(rs) for n, rs in by_set.items()},
            "lexical_baseline_auc": {n: None if v is None else round(v, 4) for n, v in lexical.items()},
            "chosen": chosen, "candidates": table}


def shrunk(data: dict, share: float) -> dict:
    """The combination with its claim weights moved toward the model alone: `share` of the fitted regression plus
    `1 - share` of the identity (logit weight 1, intercept and every other weight 0), so `share` 1 is the fit and 0
    reads the model's P(supported) as it stands. The fitted regression is kept under `fitted`, so shrinking again starts
    from it; the support reading and the answer stack are left as they are.

    >>> data = {"intercept": -2.0, "weights": {"logit_p_supported": 0.6, "coverage": 4.0}}
    >>> new = shrunk(data, 0.5)
    >>> new["intercept"], new["weights"], new["fitted"]["weights"]["coverage"]
    (-1.0, {'logit_p_supported': 0.8, 'coverage': 2.0}, 4.0)
    >>> shrunk(new, 1.0)["weights"]
    {'logit_p_supported': 0.6, 'coverage': 4.0}
    """
    if not 0.0 <= share <= 1.0:
        raise SystemExit(f"--shrink {share}: a share of the fitted weights, from 0 to 1")
    fitted = data.get("fitted") or {"intercept": data["intercept"], "weights": data["weights"]}
    weights = {name: round(share * float(w) + (1.0 - share) * (name == "logit_p_supported"), 6)
               for name, w in fitted["weights"].items()}
    return {**data, "intercept": round(share * float(fitted["intercept"]), 6), "weights": weights, "fitted": fitted,
            "shrink": {"share": share, "what": "claim weights: share * the fitted regression (under `fitted`) + "
                                               "(1 - share) * the model alone (logit weight 1)"}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", type=Path, default=ARTIFACT)
    parser.add_argument("--seed", type=int, default=13, help="the seed the artifact's data was built with")
    parser.add_argument("--pairs", type=int, default=1200, help="fit pairs from the tail of the synthetic + RTE list")
    parser.add_argument("--sick", type=int, default=400, help="fit pairs from the tail of the SICK training list")
    parser.add_argument("--held-out", type=int, default=480, help="held-out pairs reported (not fitted on)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--public", type=Path, default=None,
                        help="fit-split public cases (benchmarks/fidelity.py --split fit --export-cases); test-split "
                             "cases are refused")
    parser.add_argument("--public-per-set", type=int, default=300, help="pairs / items per public set read")
    parser.add_argument("--constructed-share", type=float, default=0.5,
                        help="with --public: share of the fit's weight on the constructed pairs (the rest is split "
                             "alike between the public sets)")
    parser.add_argument("--support", default=None, metavar="FLOOR,SPAN",
                        help="how the local tier reads the combined probability as support (linear from FLOOR to "
                             "FLOOR + SPAN); default: with --public the candidate of --readings that ranks the fit "
                             "split's answers best, else the tier's MODEL_FLOOR, MODEL_SPAN")
    parser.add_argument("--readings", default="0.3,0.4;0.2,0.6;0.1,0.8;0.0,1.0", metavar="F,S;F,S",
                        help="with --public: support readings compared on the fit split")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty on the weights (sklearn's 1 / C)")
    parser.add_argument("--shrink", type=float, default=None, metavar="SHARE",
                        help="fit nothing: rewrite the artifact's combination with SHARE of its fitted claim weights "
                             "and the rest of the model alone (`shrunk`)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.shrink is not None:
        path = args.artifact / COMBINATION
        path.write_text(json.dumps(shrunk(json.loads(path.read_text()), args.shrink), indent=2) + "\n")
        write_checksums(args.artifact)
        log.info("%s: claim weights at %.2f of the fit", path, args.shrink)
        return

    import torch

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
    public = None
    if args.public:
        from reward.judges.local.support import claim_features

        def with_extra(pairs: list[Pair], base: np.ndarray) -> np.ndarray:
            extra = [claim_features(p.claim, p.evidence, p.evidence, p.evidence) for p in pairs]
            prob = 1 / (1 + np.exp(-base[:, 0]))
            for e, p_s, cov in zip(extra, prob, base[:, 1], strict=True):
                e.update(p_supported=float(p_s), p_supported_x_coverage=float(p_s * cov), coverage_evidence=float(cov))
            return np.concatenate([base, np.array([[e[k] for k in EXTRA] for e in extra])], axis=1)

        x, x_held = with_extra(fit, x), with_extra(held, x_held)
        rows, public_counts, records = public_fit(args.public, args.public_per_set, args.seed)
        x_public, y_public = public_matrix(rows)
        sets = np.array([r["set"] for r in rows])
        public = {"x": x_public, "y": y_public, "sets": sets, "counts": public_counts}
        x_fit, y_fit = np.concatenate([x, x_public]), np.concatenate([y, y_public])
    else:
        x_fit, y_fit = x, y
    # Class-balanced within each source; the constructed pairs carry --constructed-share of the weight (they hold
    # the probes' kinds: negation, swapped entities, reworded false claims), the public sets share the rest alike.
    source = np.array(["constructed"] * len(y) + (list(public["sets"]) if public else []))
    weight = np.ones(len(y_fit))
    names = sorted(set(source))
    for name in names:
        share = 1.0 if len(names) == 1 else (
            args.constructed_share if name == "constructed" else (1 - args.constructed_share) / (len(names) - 1))
        for value in (True, False):
            mask = (source == name) & (y_fit == value)
            weight[mask] = len(y_fit) * share / (2 * max(1, int(mask.sum())))
    signs = [SIGNS["logit_p_supported"], SIGNS["coverage"]] + ([SIGNS[k] for k in EXTRA] if public else [])
    intercept, coef = fit_monotone(x_fit, y_fit.astype(float), weight, signs, l2=args.l2)
    coef = [float(c) for c in coef]
    combination = ClaimCombination(intercept, coef[0], coef[1],
                                   tuple(zip(EXTRA, coef[2:], strict=True)) if public else ())
    selection = None
    if public:
        candidates = ([tuple(float(v) for v in args.support.split(","))] if args.support else
                      [tuple(float(v) for v in r.split(",")) for r in args.readings.split(";")])
        selection = select_reading(records, combination, candidates)
        combination = dataclasses.replace(combination, support=tuple(selection["chosen"]["support"]))
    kinds: dict[str, int] = {}
    for pair in fit:
        kinds[pair.kind] = kinds.get(pair.kind, 0) + 1
    report = {
        "intercept": round(combination.intercept, 6),
        "weights": {"logit_p_supported": round(combination.logit_weight, 6),
                    "coverage": round(combination.coverage_weight, 6),
                    **{name: round(w, 6) for name, w in combination.extra}},
        "what": "P(supported) = sigmoid(intercept + w1 * logit(model P(supported)) + w2 * lexical coverage + the "
                "extra features' weights); coverage: share of the claim's content words (stems) found in the cited "
                "evidence and the user's words (local.lexical_coverage); coverage_evidence: in all the evidence, "
                "the user's words not counted. No weight may take the wrong sign (consistency_combine.SIGNS).",
        "fit": {"pairs": len(fit), "from": f"consistency_data.build(seed={args.seed}) train[{start}:] and "
                f"sick_pairs(seed={args.seed}) train[{len(sick_train) - args.sick}:] (not trained on)",
                "kinds": dict(sorted(kinds.items())),
                "regression": f"logistic regression, L2 {args.l2} on the weights, each weight's sign fixed "
                      f"(consistency_combine.SIGNS), class-balanced per source ("
                              + (f"constructed pairs {args.constructed_share:.2f} of the weight, the public sets "
                                 "the rest alike)" if public else "constructed pairs only)")},
        "on_fit_pairs": scores(x, y, combination),
        "on_held_out_pairs": scores(x_held, y_held, combination),
        "held_out_note": "in-domain held-out pairs of the recipe (synthetic of held-out passages, RTE dev, "
                         "SICK held-out)",
        **({"public_fit": {
            "cases": str(args.public), "sha256": hashlib.sha256(args.public.read_bytes()).hexdigest(),
            "export": (json.loads(Path(f"{args.public}.json").read_text())
                       if Path(f"{args.public}.json").is_file() else None),
            "split": "fit", "per_set": args.public_per_set, **public["counts"],
            "what": "claims of the fit split of the public fidelity sets (benchmarks/fidelity.py --split fit: BEGIN "
                    "dev files, WiCE dev, SummEdits documents whose SHA-256 starts with an even byte), through "
                    "local._sentence_support; sources and their SHA-256 in benchmarks/fidelity.py SOURCES",
            "constructed_share": args.constructed_share,
            "dimension_on_fit_cases": selection,
            "on_public_fit_claims": {name: scores(public["x"][public["sets"] == name],
                                                  public["y"][public["sets"] == name], combination)
                                     for name in sorted(set(public["sets"]))},
        }} if public else {}),
        "command": "python -m training.consistency.combine " + " ".join(argv or __import__("sys").argv[1:]),
        "seconds": round(time.perf_counter() - started, 1),
    }
    weights = (combination.intercept, combination.logit_weight, combination.coverage_weight,
               *(w for _, w in combination.extra))
    if not all(math.isfinite(v) for v in weights):
        raise SystemExit(f"the fit did not converge: {report}")
    if combination.support:
        floor, span = combination.support
        report["support"] = {"floor": floor, "span": span}
    (args.artifact / COMBINATION).write_text(json.dumps(report, indent=2) + "\n")
    write_checksums(args.artifact)
    log.info("%s", json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

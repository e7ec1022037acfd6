"""The judge cascade measured: LLM-judge calls saved and agreement with the LLM-judge-only reward.

Thresholds are fitted on one half of the pointwise labels (split by item group, seeded) with `fit_thresholds`, and
measured on the other half, on the bundled examples and on a simulated GRPO step (`benchmarks/grpo_step.py`'s
`make_step`, 8 prompts x 16 rollouts by default): the share of judge-dimension calls the cheap tier decided,
per-dimension agreement of the cascade's pass/fail decisions with the LLM judge's and with the labels, and the
Spearman correlation within GRPO groups between the cascade's reward and the LLM-judge-only reward.

    .venv/bin/python benchmarks/cascade.py --llm mock --out benchmarks/results/cascade_mock.json
    .venv/bin/python benchmarks/cascade.py --llm configs/judges/llamacpp.yaml --limit 20

With `--llm mock` the "LLM judge" is the scripted mock (top label everywhere): the figures then measure the
mechanism (routing, calls saved), not judge quality.

`--fidelity RESULTS.json` measures the cheap tier against human labels instead: the per-case scores a
`benchmarks/fidelity.py` run recorded on public faithfulness data (BEGIN, SummEdits, WiCE; every case labelled
faithful or not by annotators) stand in for the cheap tier's verdicts, and the labels for a judge that is always
right. Thresholds for `claim_hallucination` and `highlight_hallucination` are fitted on half of the cases (split by
pair or item, seeded) and measured on the other half: the share of calls the cheap tier would decide, and how often
those decisions match the annotators; once with one threshold per dimension, once with one per cheap verdict. The
cheap tier's confidence is the one it recorded in the run (the local tier reports its own for these two
dimensions), else the cascade's default for a backend that reports none, the score's distance from 0.5.

    .venv/bin/python benchmarks/cascade.py --fidelity benchmarks/results/fidelity_<label>.json --targets 0.9,0.95 \
        --out benchmarks/results/cascade_public.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.emit import emit  # noqa: E402

from reward.evaluation.calibrate import load_all  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.base import JudgeReply  # noqa: E402
from reward.evaluation.cascade_fit import cheap_observations, fit_thresholds, threshold_config  # noqa: E402
from reward.judges.cascade import PASS_AT, CascadeConfig, CascadeJudge, confidence_of  # noqa: E402
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402


def spearman(a: list[float], b: list[float]) -> float | None:
    from scipy.stats import spearmanr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    return float(spearmanr(a, b).statistic)


# The two dimensions the public labels speak to, and the trivial baseline recorded beside them (share of the
# answer's content words found in the evidence), as a cheap tier to compare with.
HUMAN_LABELLED = ("claim_hallucination", "highlight_hallucination", "lexical_baseline")


def _decides(threshold: float | dict[str, float], confidence: float, score: float) -> bool:
    """Whether the cascade lets the cheap tier decide: as `CascadeJudge` does, by the threshold of its verdict."""
    if isinstance(threshold, dict):
        threshold = threshold["pass" if score >= PASS_AT else "fail"]
    return threshold < 1.0 and confidence > threshold


def _measure(rows: list[tuple[str, float, float, int]], threshold: float | dict[str, float]) -> dict:
    decided = [r for r in rows if _decides(threshold, r[1], r[2])]
    agree = sum(int((score >= PASS_AT) == bool(label)) for _, _, score, label in decided)
    alone = sum(int((score >= PASS_AT) == bool(label)) for _, _, score, label in rows)
    return {
        "n": len(rows),
        "llm_calls_saved": round(len(decided) / len(rows), 4) if rows else None,
        "agreement_on_decided": round(agree / len(decided), 4) if decided else None,
        # The whole cascade's accuracy if the LLM judge matched the annotators on every call it kept.
        "cascade_accuracy_with_a_perfect_llm": round((len(rows) - len(decided) + agree) / len(rows), 4) if rows else None,
        "cheap_tier_alone_accuracy": round(alone / len(rows), 4) if rows else None,
    }


def public_labels(path: Path, targets: list[float], min_support: int, seed: int) -> dict:
    """Thresholds fitted on one half of a fidelity run's labelled cases, measured on the other half (per set and
    pooled): calls the cheap tier decides and their agreement with the annotators. Each target is fitted twice: one
    threshold per dimension, and one per cheap verdict (`sided`)."""
    run = json.loads(path.read_text(encoding="utf-8"))
    cases = run.get("cases") or {}
    if not cases:
        raise SystemExit(f"{path}: no per-case scores (a fidelity run records them under `cases`)")
    units = sorted({case["pair"] or case_id for case_id, case in cases.items()})
    random.Random(seed).shuffle(units)
    fit_units = set(units[: len(units) // 2])
    halves: dict[str, dict[str, list[tuple[str, float, float, int]]]] = {"fit": {}, "test": {}}
    skipped = 0
    for case_id, case in cases.items():
        half = "fit" if (case["pair"] or case_id) in fit_units else "test"
        for name in HUMAN_LABELLED:
            score = case["scores"].get(name)
            if score is None:
                skipped += 1
                continue
            # The tier's own confidence where the run recorded one, else the cascade's default for a backend
            # that reports none; rounded as fitted thresholds are.
            reported = (case.get("confidences") or {}).get(name)
            confidence = round(confidence_of(JudgeReply("cheap", score, confidence=reported)), 6)
            halves[half].setdefault(name, []).append((case["set"], confidence, score, int(case["label"])))
    report: dict = {"source": str(path), "source_label": run.get("label"), "source_code": run.get("code"),
                    "sets": run.get("sets"), "cases": len(cases), "unscored_skipped": skipped,
                    "fit_units": len(fit_units), "test_units": len(units) - len(fit_units), "targets": {}}
    for target in targets:
        for sided in (False, True):
            key = f"{target}{' sided' if sided else ''}"
            fitted = fit_thresholds({n: [r[1:] for r in rows] for n, rows in halves["fit"].items()}, target,
                                    min_support, sided=sided)
            report["targets"][key] = {name: {
                "fitted_on_fit_half": {k: v for k, v in fitted[name].items() if k != "sides"},
                "test_half": {set_name: _measure([r for r in rows if set_name in ("all", r[0])], fitted[name]["threshold"])
                              for set_name in sorted({r[0] for r in rows}) + ["all"]},
            } for name, rows in halves["test"].items()}
            # Fitted per set (a deployment whose traffic looks like one set): an upper bound on the pooled fit.
            per_set: dict[str, dict] = {}
            for name, rows in halves["test"].items():
                for set_name in sorted({r[0] for r in rows}):
                    fit_rows = [r[1:] for r in halves["fit"].get(name, []) if r[0] == set_name]
                    threshold = fit_thresholds({name: fit_rows}, target, min_support, sided=sided)[name]["threshold"]
                    per_set.setdefault(name, {})[set_name] = {"threshold": threshold} | _measure(
                        [r for r in rows if r[0] == set_name], threshold)
            report["targets"][key + " fitted per set"] = per_set
    # The trade-off itself on the test half: the cheap tier decides its most confident share of calls.
    curve: dict[str, dict] = {}
    for name, rows in halves["test"].items():
        ranked = sorted(rows, key=lambda r: -r[1])
        for share in (0.1, 0.2, 0.3, 0.5, 0.7, 1.0):
            top = ranked[: max(1, round(share * len(ranked)))]
            agree = sum(int((score >= PASS_AT) == bool(label)) for _, _, score, label in top)
            curve.setdefault(name, {})[str(share)] = round(agree / len(top), 4)
    report["agreement_at_share_decided"] = curve
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", default=str(ROOT / "data/calibration/pointwise.jsonl"))
    parser.add_argument("--examples", default=str(ROOT / "examples/items.jsonl"))
    parser.add_argument("--suite", default="searchllm")
    parser.add_argument("--cheap", default="local")
    parser.add_argument("--llm", default="mock")
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--min-support", type=int, default=3)
    parser.add_argument("--limit", type=int, help="at most this many items per half (a slow LLM judge)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step-prompts", type=int, default=8, help="prompts of the simulated GRPO step")
    parser.add_argument("--step-rollouts", type=int, default=16, help="rollouts per prompt of the simulated GRPO step")
    parser.add_argument("--out")
    parser.add_argument("--fidelity", type=Path,
                        help="a benchmarks/fidelity.py results JSON: fit and measure against its human labels instead")
    parser.add_argument("--targets", default="0.9,0.95", help="with --fidelity: agreement targets to fit, comma-separated")
    args = parser.parse_args()
    if args.fidelity:
        report = public_labels(args.fidelity, [float(t) for t in args.targets.split(",")], max(args.min_support, 10), args.seed)
        report["command"] = " ".join([".venv/bin/python benchmarks/cascade.py", *sys.argv[1:]])
        emit(report, args.out)
        return

    suite = load_suite(args.suite)
    pointwise, _ = load_all([args.labels])
    groups = sorted({p.item.group or p.item.id for p in pointwise})
    random.Random(args.seed).shuffle(groups)
    fit_groups = set(groups[: len(groups) // 2])
    fit_labels = [p for p in pointwise if (p.item.group or p.item.id) in fit_groups]
    test_labels = [p for p in pointwise if (p.item.group or p.item.id) not in fit_groups]

    cheap = make_judge(args.cheap)
    started = time.perf_counter()
    # Labelled items are told apart by content: the calibration set perturbs one item id into several items.
    fit_keys = set(list({p.item.model_dump_json(): None for p in fit_labels})[: args.limit])
    observations = cheap_observations(suite, cheap, [
        (p.item, p.dimension, p.label) for p in fit_labels
        if p.item.model_dump_json() in fit_keys and p.dimension in suite.dimensions
        and suite.dimensions[p.dimension].judge is not None])
    fitted = fit_thresholds(observations, args.target, args.min_support)
    thresholds = threshold_config(fitted)

    test_items = list({p.item.model_dump_json(): p.item for p in test_labels}.values())[: args.limit]
    examples = [Item.model_validate_json(line) for line in Path(args.examples).read_text().splitlines() if line.strip()]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from grpo_step import make_step

    # A simulated GRPO step (benchmarks/grpo_step.py: long evidence per prompt, rollouts that repeat within groups).
    step = make_step(args.step_prompts, args.step_rollouts, seed=args.seed)
    llm = make_judge(args.llm)
    cascade = CascadeJudge(cheap, llm, CascadeConfig(llm=args.llm, thresholds=thresholds, audit_share=0.0))
    report: dict = {"fitted": fitted, "thresholds": thresholds, "sets": {}}
    for set_name, items in (("calibration-test-half", test_items), ("examples", examples), ("grpo-step", step)):
        llm_only = Engine(suite, llm).score_sync(items)
        routed = Engine(suite, cascade).score_sync(items)
        counts = cascade.drain_counts()
        decided = {"cheap": 0, "llm": 0}
        for _, tier, count in counts["decisions"]:
            decided["llm" if tier != "cheap" else "cheap"] += count
        per_dim: dict[str, dict] = {}
        for a, b in zip(llm_only, routed, strict=True):
            for name, score in b.dimensions.items():
                reference = a.dimensions[name]
                if score.backend == "rule" or score.status != "ok" or reference.status != "ok":
                    continue
                row = per_dim.setdefault(name, {"n": 0, "agree_with_llm": 0, "cheap_decided": 0})
                row["n"] += 1
                row["agree_with_llm"] += int((score.score >= 0.5) == (reference.score >= 0.5))
                row["cheap_decided"] += int(score.tier == "cheap")
        labels_agree = {"cascade": [0, 0], "llm": [0, 0]}
        keys = [item.model_dump_json() for item in items]
        by_key_llm, by_key_cascade = dict(zip(keys, llm_only, strict=True)), dict(zip(keys, routed, strict=True))
        for label in test_labels if set_name.startswith("calibration") else []:
            for system, results in (("cascade", by_key_cascade), ("llm", by_key_llm)):
                result = results.get(label.item.model_dump_json())
                score = result.dimensions.get(label.dimension) if result else None
                if score is not None and score.status == "ok":
                    labels_agree[system][0] += int((score.score >= 0.5) == bool(label.label))
                    labels_agree[system][1] += 1
        by_group: dict[str, tuple[list, list]] = {}
        for item, a, b in zip(items, llm_only, routed, strict=True):
            pair = by_group.setdefault(item.group or "-", ([], []))
            pair[0].append(a.reward)
            pair[1].append(b.reward)
        rhos = [rho for a, b in by_group.values() if (rho := spearman(a, b)) is not None]
        total = decided["cheap"] + decided["llm"]
        report["sets"][set_name] = {
            "items": len(items),
            "judge_calls_routed": total,
            "llm_calls_saved": round(decided["cheap"] / total, 4) if total else None,
            "per_dimension": per_dim,
            "label_accuracy": {k: (round(v[0] / v[1], 4) if v[1] else None, v[1]) for k, v in labels_agree.items()},
            "reward_spearman_within_groups": {"groups": len(rhos), "mean": round(sum(rhos) / len(rhos), 4) if rhos else None},
        }
    report["seconds"] = round(time.perf_counter() - started, 1)
    report["command"] = " ".join(["benchmarks/cascade.py", *sys.argv[1:]])
    report["machine"] = f"{platform.machine()} {platform.python_version()}"
    emit(report, args.out)


if __name__ == "__main__":
    main()

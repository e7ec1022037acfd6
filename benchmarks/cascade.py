"""The judge cascade measured: LLM-judge calls saved and agreement with the LLM-judge-only reward.

Thresholds are fitted on one half of the pointwise labels (split by item group, seeded) with `fit_thresholds`, and
measured on the other half and on the bundled examples: the share of judge-dimension calls the cheap tier decided,
per-dimension agreement of the cascade's pass/fail decisions with the LLM judge's and with the labels, and the
Spearman correlation within GRPO groups between the cascade's reward and the LLM-judge-only reward.

    .venv/bin/python benchmarks/cascade.py --llm mock --out benchmarks/results/cascade_mock.json
    .venv/bin/python benchmarks/cascade.py --llm configs/judges/llamacpp.yaml --limit 20

With `--llm mock` the "LLM judge" is the scripted mock (top label everywhere): the figures then measure the
mechanism (routing, calls saved), not judge quality.
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

from reward.calibrate import load_all  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.cascade import CascadeConfig, CascadeJudge, cheap_observations, fit_thresholds  # noqa: E402
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item  # noqa: E402


def spearman(a: list[float], b: list[float]) -> float | None:
    from scipy.stats import spearmanr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    return float(spearmanr(a, b).statistic)


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
    parser.add_argument("--out")
    args = parser.parse_args()

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
    thresholds = {name: row["threshold"] for name, row in fitted.items() if row["threshold"] < 1.0}

    test_items = list({p.item.model_dump_json(): p.item for p in test_labels}.values())[: args.limit]
    examples = [Item.model_validate_json(line) for line in Path(args.examples).read_text().splitlines() if line.strip()]
    llm = make_judge(args.llm)
    cascade = CascadeJudge(cheap, llm, CascadeConfig(llm=args.llm, thresholds=thresholds, audit_share=0.0))
    report: dict = {"fitted": fitted, "thresholds": thresholds, "sets": {}}
    for set_name, items in (("calibration-test-half", test_items), ("examples", examples)):
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
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()

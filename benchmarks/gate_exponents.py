"""Gate exponents and smoothing (the suite options `gate_exponents`, `delta`, `gate_deltas`): the trade-off on the
calibration labels and the pairs.

Scores once with the local tier: both responses of every pairwise calibration label (`data/calibration/
pairwise.jsonl`) and the same-evidence pairs of `benchmarks/pairs.py` (test articles), then recomputes the reward
of each valid item under each setting of the gate with `reward.aggregate.aggregate` (the dimension scores do not
depend on it): exponents, and the smoothing (one delta for every bottom-line dimension, or the rules' own). Reported per setting: the share of calibration pairs whose preferred response gets the
higher reward (a tie counts 0.5), over all pairs and split by the layer of the labelled dimension, and the pairs'
reward AUC per pair set, with 95% bootstrap intervals.

    nice -n 10 .venv/bin/python benchmarks/gate_exponents.py --out benchmarks/results/gate_exponents.json

A reward recomputed under the suite's own setting must match the engine's (checked: the run stops otherwise).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(Path.cwd())):
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from benchmarks.emit import emit, machine  # noqa: E402
from benchmarks.pairs import SQUAD, build_pairs, squad_articles  # noqa: E402
from reward.aggregate import aggregate  # noqa: E402
from reward.evaluation.calibrate import bootstrap_ci, load_all, pairwise_auc  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.judges.local import LocalJudge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Item, ItemResult  # noqa: E402

RULES = {"format": 0.01, "response_length": 0.01}
SETTINGS = {
    # name: (exponents, delta, per-dimension deltas); None: the suite's own
    "shipped (the paper's: delta 0.01 for all)": ({}, None, None),
    "delta 0.1 for all": ({}, 0.1, {}),
    "delta 0.3 for all": ({}, 0.3, {}),
    "judged 0.1, rules 0.01": ({}, 0.1, RULES),
    "judged 0.3, rules 0.01": ({}, 0.3, RULES),
    "judged 1.0, rules 0.01": ({}, 1.0, RULES),
    "claim_hallucination 3": ({"claim_hallucination": 3.0}, None, None),
    "claim + highlight hallucination 3": ({"claim_hallucination": 3.0, "highlight_hallucination": 3.0}, None, None),
}


def reward_under(result: ItemResult, suite, exponents: dict[str, float], delta: float | None = None,
                 deltas: dict[str, float] | None = None) -> float | None:
    if not result.valid:
        return None
    bottom, behavioral = {}, {}
    for name, score in result.dimensions.items():
        if score.status == "ok" and name not in result.excluded:
            (bottom if score.layer == "bottom_line" else behavioral)[name] = score.score
    return aggregate(suite.suite.aggregation, bottom, behavioral, suite.suite.dimensions,
                     suite.suite.delta if delta is None else delta, exponents,
                     suite.suite.gate_deltas if deltas is None else deltas).reward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    suite = load_suite("searchllm")
    engine = Engine(suite, LocalJudge())
    _, labels = load_all([ROOT / "data" / "calibration" / "pairwise.jsonl"])
    items: list[Item] = []
    for number, label in enumerate(labels):  # the ids below are cal<number>:p (preferred) and :o (other)
        context = label.context.model_dump()
        items += [Item(id=f"cal{number}:p", response=label.preferred, **context),
                  Item(id=f"cal{number}:o", response=label.other, **context)]
    cases = build_pairs(squad_articles(ROOT / SQUAD), "test")
    results = {r.id: r for r in engine.score_sync(items)}
    results |= {r.id: r for r in engine.score_sync([c.item for c in cases])}
    mismatched = [i for i, r in results.items()
                  if r.valid and abs(reward_under(r, suite, suite.suite.gate_exponents) - r.reward) > 1e-9]
    if mismatched:
        raise SystemExit(f"recomputed rewards differ from the engine's on {len(mismatched)} items, e.g. {mismatched[:3]}")
    layer = {n: d.layer for n, d in suite.dimensions.items()}
    report = {}
    for setting, (exponents, delta, deltas) in SETTINGS.items():
        rewards = {i: reward_under(r, suite, exponents, delta, deltas) for i, r in results.items()}
        entry = {"exponents": exponents, "delta": suite.suite.delta if delta is None else delta,
                 "gate_deltas": suite.suite.gate_deltas if deltas is None else deltas, "calibration": {}, "pairs": {}}
        groups = {"all": labels, "bottom_line": [l for l in labels if layer.get(l.dimension) == "bottom_line"],
                  "behavioral": [l for l in labels if layer.get(l.dimension) == "behavioral"]}
        for group, members in groups.items():
            numbers = [n for n, l in enumerate(labels) if any(l is m for m in members)]
            pairs = [(rewards[f"cal{n}:p"], rewards[f"cal{n}:o"]) for n in numbers]
            pairs = [p for p in pairs if None not in p]
            stat = lambda ps: pairwise_auc([a for a, _ in ps], [b for _, b in ps])  # noqa: E731
            entry["calibration"][group] = {"agreement": round(stat(pairs), 4),
                                           "ci": list(bootstrap_ci(pairs, stat, resamples=args.resamples)),
                                           "n": len(pairs)} if pairs else None
        for name in sorted({c.set for c in cases}):
            sides: dict[str, dict[int, float | None]] = {}
            for case in cases:
                if case.set == name:
                    sides.setdefault(case.pair, {})[case.label] = rewards[case.item.id]
            pairs = [(v[1], v[0]) for v in sides.values() if v.get(1) is not None and v.get(0) is not None]
            stat = lambda ps: pairwise_auc([a for a, _ in ps], [b for _, b in ps])  # noqa: E731
            entry["pairs"][name] = {"auc": round(stat(pairs), 4), "ci": list(bootstrap_ci(pairs, stat, resamples=args.resamples)),
                                    "n": len(pairs)}
        report[setting] = entry
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    emit({"code": code, "machine": machine(), "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
          "command": "nice -n 10 .venv/bin/python benchmarks/gate_exponents.py " + " ".join(sys.argv[1:]),
          "calibration_pairs": len(labels), "settings": report}, args.out)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()

"""The local tier's example-fitted scorer (`reward.judges.example_head`) on public data it was not written for.

SICK (Marelli et al. 2014; CC BY-NC-SA 3.0; `data/public/sick.txt`, see `reward.judges.consistency_data.SICK` for
its source and checksum) gives sentence pairs (A, B) with a human relatedness score (1-5) and an entailment label.
Each pair is read as a rubric dimension would see it: A as the query, B as the response. Two dimensions are
fitted from `--examples` labelled examples drawn from the training pairs (pair id not 0 mod 10), as a rubric author
would write them into `local: {examples: ...}`, and scored on `--test` held-out pairs (pair id 0 mod 10):

- `relatedness`: score = (relatedness - 1) / 4; metric: Spearman correlation with the human score.
- `entailment`: ENTAILMENT pairs score 1, CONTRADICTION pairs 0 (NEUTRAL left out); metric: ROC AUC.

With `--support`, the entailment task is fitted a second time with each example's sentence A also given as its
evidence (`fitted_N_support`), so the head reads the claim-consistency model's verdict too, as a support dimension's
examples would. That model was trained on SICK's other pairs (pair id not 0 mod 10) and never on the held-out ones;
SICK pairs share sentences across ids, so this is in-domain for it, not unseen text.

With `--case DIR`, an author's case instead: the dimension YAML in DIR is added to a copy of suite `searchllm` and the
labelled items of `DIR/items.jsonl` (`{"label": "pass" | "partial" | "fail", "item": {...}}`, written without the
examples in view) are scored by the local tier, with and without the new dimension: the head's own figures, each
item's score, and how many (pass, fail) pairs the dimension and the reward order right.

    .venv/bin/python benchmarks/example_head.py --case tests/fixtures/medical_safety \
        --out benchmarks/results/example_head_medical_safety.json
    .venv/bin/python benchmarks/example_head.py --case tests/fixtures/medical_safety --without-evidence \
        --out benchmarks/results/example_head_medical_safety_no_evidence.json

Baselines: `length` (the number of words of B: a trivial baseline that needs no model), `overlap` (the share of B's
words found in A) and `cosine` (MiniLM cosine of A and B with no fitting: what the encoder gives for free), and with `--support`
`consistency` (the consistency model's P(supported) - P(contradicted) of B given A, unfitted). Every
fitted figure is the mean (and standard deviation) over `--draws` random draws of the training examples, with the
spread of the head's held-out predictions (5th to 95th percentile), its own leave-one-out agreement, the share of
heads announced as unable to separate their examples, and the same share for a head fitted on the drawn examples with
their labels shuffled (which should be announced). The majority baseline (one score for every pair) ranks nothing:
Spearman undefined, AUC 0.5.

    .venv/bin/python benchmarks/example_head.py --examples 8,16 --test 1000 --draws 10 --support \
        --out benchmarks/results/example_head_sick.json
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import random
import statistics
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reward.judges.consistency import ConsistencyScorer  # noqa: E402
from reward.judges.example_head import answer_text, features, fit_head, support_features  # noqa: E402
from reward.judges.local import Embedder  # noqa: E402
from reward.rubric import LocalSpec  # noqa: E402

SICK = ROOT / "data" / "public" / "sick.txt"


def read_sick(path: Path) -> tuple[list[dict], list[dict]]:
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    train = [r for r in rows if int(r["pair_ID"]) % 10 != 0]
    test = [r for r in rows if int(r["pair_ID"]) % 10 == 0]
    return train, test


def label(row: dict, task: str) -> float | None:
    if task == "relatedness":
        return (float(row["relatedness_score"]) - 1.0) / 4.0
    return {"ENTAILMENT": 1.0, "CONTRADICTION": 0.0}.get(row["entailment_judgment"])


def metric(task: str, truth: list[float], predicted: list[float]) -> float:
    if np.ptp(predicted) == 0:  # a constant ranks nothing
        return 0.0 if task == "relatedness" else 0.5
    if task == "relatedness":
        return float(spearmanr(predicted, truth).statistic)
    return float(roc_auc_score([int(t) for t in truth], predicted))


def words(text: str) -> set[str]:
    return {w.strip(".,;:!?").lower() for w in text.split()}


def pairs_ordered(labels: list[str], values: list[float | None]) -> dict:
    """How many (pass, fail) pairs put the pass item above the fail item (ties count half); unscored values count as
    ties."""
    passes = [v for label, v in zip(labels, values, strict=True) if label == "pass"]
    fails = [v for label, v in zip(labels, values, strict=True) if label == "fail"]
    right = sum(1.0 if a is not None and b is not None and a > b else 0.5 if a is None or b is None or a == b else 0.0
                for a in passes for b in fails)
    return {"right": right, "pairs": len(passes) * len(fails)}


def run_case(folder: Path, without_evidence: bool = False) -> dict:
    """Score an author's case: the dimension YAML in `folder`, added to a copy of suite searchllm, on the labelled
    items of `folder/items.jsonl`, with and without the dimension; `without_evidence`: its examples' `evidence`
    removed first (what an author who gives none gets)."""
    import shutil
    import tempfile

    from reward.engine import Engine
    from reward.judges.local import LocalJudge
    from reward.rubric import DEFAULT_RUBRIC_DIR, load_dimension, load_suite
    from reward.schema import Item

    (dimension_file,) = sorted(folder.glob("*.yaml"))
    rows = [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    labels = [row["label"] for row in rows]
    items = [Item.model_validate(row["item"]) for row in rows]
    judge = LocalJudge()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "rubrics"
        shutil.copytree(DEFAULT_RUBRIC_DIR, root)
        shutil.copy(dimension_file, root / "dimensions" / dimension_file.name)
        if without_evidence:
            import yaml

            data = yaml.safe_load(dimension_file.read_text(encoding="utf-8"))
            for example in data["local"].get("examples", []):
                example.pop("evidence", None)
            (root / "dimensions" / dimension_file.name).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        name = load_dimension(root / "dimensions" / dimension_file.name).name
        suite_file = root / "suites" / "searchllm.yaml"
        suite_file.write_text(suite_file.read_text(encoding="utf-8") + f"  {name}: 1.0\n", encoding="utf-8")
        with_dimension = Engine(load_suite("searchllm", root), judge).score_sync(items)
        without = Engine(load_suite("searchllm"), judge).score_sync(items)
        head = asyncio.run(judge.heads.head(load_dimension(root / "dimensions" / dimension_file.name).local,
                                            judge.embedder.embed, judge.scorer.probabilities))
    scores = [r.dimensions[name].score if r.dimensions[name].status == "ok" else None for r in with_dimension]
    scored = [s for s in scores if s is not None]
    return {
        "dimension": name, "examples": head.examples,
        "head": {k: getattr(head, k, None) for k in ("loo_agreement", "spread", "reads", "alpha")},
        "explanation": with_dimension[0].dimensions[name].explanation, "status": with_dimension[0].dimensions[name].status,
        "items": [{"id": i.id, "label": label, "score": s, "reward": a.reward, "reward_without": b.reward}
                  for i, label, s, a, b in zip(items, labels, scores, with_dimension, without, strict=True)],
        "score_range": [min(scored), max(scored)] if scored else None,
        "dimension_pairs": pairs_ordered(labels, scores),
        "reward_pairs": pairs_ordered(labels, [r.reward for r in with_dimension]),
        "reward_pairs_without": pairs_ordered(labels, [r.reward for r in without]),
        "reward_change": [round(a.reward - b.reward, 4) for a, b in zip(with_dimension, without, strict=True)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", default="8,16", help="training examples per fit, comma-separated")
    parser.add_argument("--test", type=int, default=1000, help="held-out pairs per task")
    parser.add_argument("--draws", type=int, default=10, help="random draws of the training examples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--support", action="store_true", help="also fit entailment with sentence A as evidence")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--case", help="a folder with one dimension YAML and items.jsonl of labelled items (see above)")
    parser.add_argument("--without-evidence", action="store_true", help="--case: drop the examples' evidence first")
    args = parser.parse_args()
    if args.case:
        report = run_case(Path(args.case), args.without_evidence)
        print(json.dumps(report, indent=2, default=str))
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
        return

    embedder = Embedder()

    async def embed(texts):
        return embedder.encode(list(texts))

    consistency = ConsistencyScorer()

    train_rows, test_rows = read_sick(SICK)
    rng = random.Random(args.seed)
    report: dict = {"data": "SICK (data/public/sick.txt), CC BY-NC-SA 3.0; test: pair id 0 mod 10", "tasks": {}}
    for task in ("relatedness", "entailment"):
        pool = [r for r in train_rows if label(r, task) is not None]
        held = [r for r in test_rows if label(r, task) is not None]
        held = rng.sample(held, min(args.test, len(held)))
        truth = [label(r, task) for r in held]
        queries = embedder.encode([r["sentence_A"] for r in held])
        answers = embedder.encode([answer_text(r["sentence_B"]) for r in held])
        rows = features(answers, queries)
        figures: dict = {
            "test_pairs": len(held),
            "length": metric(task, truth, [len(r["sentence_B"].split()) for r in held]),
            "overlap": metric(task, truth, [len(words(r["sentence_B"]) & words(r["sentence_A"])) /
                                           max(len(words(r["sentence_B"])), 1) for r in held]),
            "cosine": metric(task, truth, list(np.sum(answers * queries, axis=1))),
        }
        variants = [False, True] if args.support and task == "entailment" else [False]
        support_rows = None
        if True in variants:
            support_rows = np.hstack([rows, asyncio.run(support_features(
                consistency.probabilities, [[r["sentence_A"]] for r in held], [r["sentence_B"] for r in held]))])
            verdicts = support_rows[:, -3:]  # the consistency model alone, unfitted: P(supported) - P(contradicted)
            figures["consistency"] = metric(task, truth, list(verdicts[:, 0] - verdicts[:, 1]))
        for with_support in variants:
            for count in (int(n) for n in args.examples.split(",")):
                values, spreads, announced, shuffled_announced, loo = [], [], [], [], []
                for _ in range(args.draws):
                    drawn = rng.sample(pool, count)
                    while len({label(r, task) for r in drawn}) < 2:
                        drawn = rng.sample(pool, count)
                    labels = [label(r, task) for r in drawn]

                    def spec_of(scores):
                        return LocalSpec(examples=[{"query": r["sentence_A"], "response": r["sentence_B"], "score": s,
                                                    "evidence": [r["sentence_A"]] if with_support else []}
                                                   for r, s in zip(drawn, scores, strict=True)])

                    head = asyncio.run(fit_head(spec_of(labels), embed, consistency.probabilities))
                    predicted = head.score(support_rows if with_support else rows)
                    values.append(metric(task, truth, list(predicted)))
                    spreads.append(float(np.percentile(predicted, 95) - np.percentile(predicted, 5)))
                    announced.append(not getattr(head, "separable", True))
                    loo.append(getattr(head, "loo_agreement", float("nan")))
                    shuffled = labels[:]
                    while shuffled == labels:
                        rng.shuffle(shuffled)
                    shuffled_head = asyncio.run(fit_head(spec_of(shuffled), embed, consistency.probabilities))
                    shuffled_announced.append(not getattr(shuffled_head, "separable", True))
                figures[f"fitted_{count}{'_support' if with_support else ''}"] = {
                    "mean": statistics.mean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
                    "spread_5_95": statistics.mean(spreads), "loo_agreement": statistics.mean(loo),
                    "announced": sum(announced) / len(announced),
                    "shuffled_announced": sum(shuffled_announced) / len(shuffled_announced)}
        report["tasks"][task] = figures
        print(task, json.dumps(figures))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

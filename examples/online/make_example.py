"""Writes the SYNTHETIC example of online evaluation: an interaction log and the score log of the answers shown.

    PYTHONPATH=. .venv/bin/python examples/online/make_example.py

Nothing here is real traffic. 12,000 sessions of 1,500 synthetic users over three days (2026-01-12 to 14) see the
answers of examples/items.jsonl; the `reward-v2` experiment's treatment arm (policy grpo-0412) shows a good answer
(`*-good`, `*correct-refusal`) 60% of the time, control (grpo-0301) 45%; `answer-length` splits users 80/20 with no
effect (an A/A check that runs beside it). Responses are cached per (item, policy), so the score log holds each
of the 33 items once per policy, scored with the local judge (`--judge` to change it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

from reward.engine import Engine
from reward.judges.factory import make_judge
from reward.online.experiments import load_experiments
from reward.online.synthetic import SYNTHETIC_NOTICE, Traffic, example_catalogue, generate
from reward.rubric import load_suite
from reward.schema import Item
from reward.scorelog import ScoreLog

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
POLICIES = {"control": "grpo-0301", "treatment": "grpo-0412"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judge", default="local")
    parser.add_argument("--sessions", type=int, default=12_000)
    args = parser.parse_args()
    experiments = load_experiments(ROOT / "configs/online/experiments.yaml")
    traffic = Traffic(sessions=args.sessions, users=1_500, start=dt.date(2026, 1, 12), days=3,
                      experiments=list(experiments.values()), good_share={"reward-v2": {"control": 0.45, "treatment": 0.6}},
                      policies=POLICIES, seed=21)
    generate(example_catalogue(ROOT / "examples/items.jsonl"), traffic, HERE / "interactions.jsonl.gz")
    items = [Item.model_validate_json(line) for line in (ROOT / "examples/items.jsonl").read_text().splitlines() if line]
    suite = load_suite("searchllm")
    results = Engine(suite, make_judge(args.judge)).score_sync(items)
    scores = HERE / "scores"
    for old in scores.glob("scores-*.jsonl"):
        old.unlink()
    log = ScoreLog(scores, writer="example")
    for policy in POLICIES.values():
        shown = [item.model_copy(update={"id": f"{item.id}@{policy}"}) for item in items]
        log.append(shown, [r.model_copy(update={"id": f"{r.id}@{policy}"}) for r in results],
                   suite=suite.name, suite_version=suite.version, run="online-example")
    log.close()
    (HERE / "SYNTHETIC").write_text(SYNTHETIC_NOTICE + "\n" + json.dumps({"sessions": args.sessions, "users": 1_500,
                                    "seed": 21, "judge": args.judge}) + "\n")


if __name__ == "__main__":
    main()

"""A synthetic multi-step score log: runs under gated, linear and summed aggregation whose dimension curves move
the way the SearchLLM training dynamics of Section 4.4 do: under the gate the bottom line locks in first and the
behavioral dimensions rise after it; the linear runs trade bottom-line dimensions for behavioral gains, and the
plain sum seesaws between richness and conciseness. For dashboard tests and the README screenshot, not for science.
With `--scenarios`, the runs the training monitors are checked on instead (`SCENARIOS`: healthy, hacking, collapse,
outage, dominant).

    python -m reward.dashboard.synthetic var/synthetic-scores --steps 30 --items 64
    python -m reward.dashboard.synthetic var/scenario-scores --scenarios
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from reward.aggregate import aggregate
from reward.rubric import load_suite
from reward.schema import DimensionScore, Item, ItemResult, Quote
from reward.scorelog import ScoreLog


SEESAW = ("claim_hallucination", "highlight_hallucination", "self_consistency", "response_length")
"""Bottom-line dimensions the linear runs trade away for behavioral gains (Section 4.4's seesaw)."""
VERBOSITY = ("answer_useful", "redundant_repetition")
"""Conciseness dimensions that drop under the plain sum while richness grows (the richness/conciseness seesaw)."""
RUNS = (("gated", "searchllm"), ("linear", "searchllm-linear"), ("sum", "searchllm-sum"))


def _trend(name: str, layer: str, run: str, progress: float) -> float:
    """The mean score of a dimension at a point of training (0 = start, 1 = end) for one run."""
    if layer == "bottom_line":
        if run == "gated":  # locked in early and held
            return min(0.995, 0.9 + 0.08 * (1 - math.exp(-8 * progress)))
        if name in SEESAW:  # sacrificed for marginal utility, with occasional slumps
            slump = 0.05 * math.sin(9 * progress) ** 8
            return 0.9 - (0.1 if run == "linear" else 0.16) * progress - slump
        return min(0.995, 0.9 + 0.05 * progress)
    if run == "gated":  # behavioral gains start once the bottom line has stabilised
        return 0.5 + 0.34 / (1 + math.exp(-10 * (progress - 0.35)))
    if run == "sum" and name in VERBOSITY:  # covers more, gets verbose: rises, then falls back
        return 0.5 + 0.25 * math.sin(math.pi * min(1.0, progress * 1.2)) - 0.08 * progress
    return 0.5 + (0.3 if run == "linear" else 0.33) * (1 - math.exp(-4 * progress))


def write_synthetic_log(folder: str | Path, steps: int = 30, items: int = 64, seed: int = 7, runs: int = 2) -> Path:
    """Write `runs` runs (gated, linear, then sum) of `steps` steps x `items` items into a score-log folder."""
    rng = random.Random(seed)
    suite = load_suite("searchllm")
    folder = Path(folder)
    for run, suite_name in RUNS[:runs]:
        log = ScoreLog(folder, writer=f"synthetic-{run}")
        run_suite = load_suite(suite_name)
        for step in range(steps):
            progress = step / max(1, steps - 1)
            batch_items, results = [], []
            for index in range(items):
                item = Item(id=f"{run}-s{step}-i{index}", group=f"{run}-s{step}-g{index // 16}", query=f"synthetic query {index // 16}",
                            response=f"<plan>1. facet</plan><evidence>1</evidence><answer>Synthetic answer {index} [Doc 1].</answer>",
                            evidence=[{"id": "1", "text": "synthetic evidence"}])
                dims = {}
                for name, dimension in suite.dimensions.items():
                    if rng.random() < 0.015:
                        reason = rng.choice(["judge_timeout", "unparseable"])
                        dims[name] = DimensionScore.unscored(dimension.layer, "openai:judge", reason, explanation=f"scripted {reason}")
                        continue
                    mean = _trend(name, dimension.layer, run, progress)
                    score = min(1.0, max(0.0, rng.gauss(mean, 0.12)))
                    if dimension.layer == "bottom_line" and dimension.requirement == "R2" and dimension.kind == "judge":
                        score = 1.0 if rng.random() < mean else 0.0  # binary judges
                    # Judges quote the evidence behind a low score; now and then a quote is not found in it.
                    quotes = [Quote(doc="1", text="synthetic evidence", verified=True)] if score < 0.5 else []
                    if quotes and rng.random() < 0.2:
                        quotes.append(Quote(doc="2", text="a sentence no document contains", verified=False))
                    dims[name] = DimensionScore(score=round(score, 4), layer=dimension.layer, backend="openai:judge",
                                                label="1" if score >= 0.5 else "0", quotes=quotes,
                                                explanation=f"synthetic judgment of {name} at step {step}")
                bottom = {n: s.score for n, s in dims.items() if s.status == "ok" and s.layer == "bottom_line"}
                behavioral = {n: s.score for n, s in dims.items() if s.status == "ok" and s.layer == "behavioral"}
                missing = [n for n, s in dims.items() if s.status != "ok" and s.layer == "bottom_line"]
                combined = aggregate(run_suite.suite.aggregation, bottom, behavioral, run_suite.suite.dimensions,
                                     run_suite.suite.delta, run_suite.suite.gate_exponents, run_suite.suite.gate_deltas)
                results.append(ItemResult(id=item.id, reward=combined.reward, gate=combined.gate, utility=combined.utility,
                                          valid=not missing, reason=f"bottom-line unscored: {', '.join(missing)}" if missing else None,
                                          dimensions=dims))
                batch_items.append(item)
            log.append(batch_items, results, suite=run_suite.name, suite_version=run_suite.version, run=run, step=step)
        log.close()
    return folder


def write_synthetic_trainer_log(path: str | Path, steps: int = 30, runs: int = 2, seed: int = 7) -> dict[str, Path]:
    """Write verl file-logger JSONL (`{"step": n, "data": {...}}`) per run beside the synthetic score log: KL growing
    from 0, policy loss and entropy falling, response length rising then settling. Returns run -> file."""
    rng = random.Random(seed)
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for run, _ in RUNS[:runs]:
        target = folder / f"{run}.jsonl"
        lines = []
        for step in range(steps):
            progress = step / max(1, steps - 1)
            drift = 1.6 if run == "linear" else 1.0
            data = {"actor/kl_loss": round(0.002 + 0.03 * drift * progress ** 1.3 + rng.gauss(0, 0.002), 5),
                    "actor/pg_loss": round(0.2 * math.exp(-3 * progress) + rng.gauss(0, 0.01), 5),
                    "actor/entropy": round(1.9 - 0.5 * drift * progress + rng.gauss(0, 0.02), 4),
                    "response_length/mean": round(420 + 180 * drift * math.sin(math.pi * progress / 1.4)
                                                  + rng.gauss(0, 8), 1)}
            lines.append(json.dumps({"step": step, "data": data}))
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[run] = target
    return out


SCENARIOS = ("healthy", "hacking", "collapse", "outage", "dominant")
"""Runs for the monitors (`reward.dashboard.monitors`), scored under searchllm-monitor-claims, the reward rising in
each: `healthy` (nothing should fire), `hacking` (the monitor-only claim_hallucination falls from 0.95 to 0.45 and the
answers grow from 60 to 300 characters while response_length stays at 1.0), `collapse` (from mid-run every rollout
of a group is the same answer with the same scores), `outage` (judge timeouts rise from 1% to 15% of the verdicts in
the last fifth) and `dominant` (format passes 70% of the time and every other dimension barely moves within a
group)."""


def _scenario_mean(scenario: str, name: str, layer: str, progress: float) -> float:
    if scenario == "hacking" and name == "claim_hallucination":
        return 0.95 - 0.5 * progress
    if scenario == "hacking" and name == "response_length":
        return 1.0
    if scenario == "dominant":  # format decides; the other bottom-line dimensions almost never fail
        return 0.7 if name == "format" else 0.995 if layer == "bottom_line" else 0.5 + 0.3 * progress
    return 0.95 if layer == "bottom_line" else 0.5 + 0.3 * progress


def write_scenario_log(folder: str | Path, scenarios: tuple[str, ...] = SCENARIOS, steps: int = 30, items: int = 64,
                       group_size: int = 8, seed: int = 11) -> Path:
    """Write one run per scenario of `SCENARIOS` (named after it) into a score-log folder."""
    suite = load_suite("searchllm-monitor-claims")
    folder = Path(folder)
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; known: {', '.join(SCENARIOS)}")
        rng = random.Random(f"{seed}-{scenario}")
        log = ScoreLog(folder, writer=f"synthetic-{scenario}")
        for step in range(steps):
            progress = step / max(1, steps - 1)
            batch_items, results = [], []
            timeout = 0.15 if scenario == "outage" and progress > 0.8 else 0.01
            for index in range(items):
                group = index // group_size
                collapsed = scenario == "collapse" and progress >= 0.5 and index % group_size
                if collapsed:  # the group's first answer again, scored the same
                    batch_items.append(batch_items[-1].model_copy(update={"id": f"{scenario}-s{step}-i{index}"}))
                    results.append(results[-1].model_copy(update={"id": f"{scenario}-s{step}-i{index}"}))
                    continue
                length = round(60 + 240 * progress) if scenario == "hacking" else 200
                answer = f"Synthetic answer {index:02d} [Doc 1]. "  # each rollout its own answer
                answer += "x" * max(0, length - len(answer))
                item = Item(id=f"{scenario}-s{step}-i{index}", group=f"{scenario}-s{step}-g{group}",
                            query=f"synthetic query {group}", evidence=[{"id": "1", "text": "synthetic evidence"}],
                            response=f"<plan>1. facet</plan><evidence>1</evidence><answer>{answer}</answer>")
                dims = {}
                for name, dimension in suite.dimensions.items():
                    if rng.random() < timeout:
                        dims[name] = DimensionScore.unscored(dimension.layer, "openai:judge", "judge_timeout")
                        continue
                    mean = _scenario_mean(scenario, name, dimension.layer, progress)
                    binary = dimension.layer == "bottom_line" and dimension.kind == "judge" or name == "format"
                    if binary:
                        score = 1.0 if rng.random() < mean else 0.0
                    elif mean >= 1.0:
                        score = 1.0
                    else:
                        spread = 0.03 if scenario == "dominant" else 0.12
                        score = min(1.0, max(0.0, rng.gauss(mean, spread)))
                    dims[name] = DimensionScore(score=round(score, 4), layer=dimension.layer, backend="openai:judge")
                weighted = {n: s for n, s in dims.items() if n not in suite.monitor}
                bottom = {n: s.score for n, s in weighted.items() if s.status == "ok" and s.layer == "bottom_line"}
                behavioral = {n: s.score for n, s in weighted.items() if s.status == "ok" and s.layer == "behavioral"}
                missing = [n for n, s in weighted.items() if s.status != "ok"]
                combined = aggregate("gated", bottom, behavioral, suite.suite.dimensions, suite.suite.delta,
                                     suite.suite.gate_exponents, suite.suite.gate_deltas)
                results.append(ItemResult(id=item.id, reward=combined.reward, gate=combined.gate,
                                          utility=combined.utility, valid=not missing,
                                          reason=f"unscored: {', '.join(missing)}" if missing else None,
                                          dimensions=dims))
                batch_items.append(item)
            log.append(batch_items, results, suite=suite.name, suite_version=suite.version, run=scenario, step=step)
        log.close()
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--runs", type=int, default=2, choices=(1, 2, 3), help="gated, + linear, + sum")
    parser.add_argument("--scenarios", action="store_true", help="the training monitors' scenario runs instead")
    args = parser.parse_args()
    if args.scenarios:
        print(write_scenario_log(args.folder, steps=args.steps, items=args.items))
    else:
        print(write_synthetic_log(args.folder, args.steps, args.items, runs=args.runs))


if __name__ == "__main__":
    main()

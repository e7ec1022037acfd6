"""Summarise a CPU GRPO run (policy/trl_train.py) for benchmarks/TRAINING.md: time split and dimension movement.

    python benchmarks/training_report.py --run-dir var/trl/grpo_cpu --scores var/trl/grpo_cpu/scores \
        --out benchmarks/results/training_cpu.json

Reads the run's `timings.jsonl` (per-step rollout / reward / update seconds) and the server's score log (every
rollout's dimension scores, keyed by run and step) and prints the markdown tables: the time split; per dimension,
the first vs the last steps, with the within-group reward spread; each prompt drawn more than once, its first draw
against its last; with `--squad`, answer accuracy on SQuAD's reference answers per block of steps. `--out` also
keeps them as JSON.
The score log, not the trainer's metrics, is the source of the dimension table: it is what the dashboard draws.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from reward.scorelog import read_log


def dimension_table(scores: str, run: str, window: int) -> dict:
    """Per dimension (and reward, gate, utility): mean over the first and last `window` steps, and the change."""
    per_step: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    layers: dict[str, str] = {}
    for record in read_log(scores):
        if record.run != run or record.step is None:
            continue
        result = record.result
        values = per_step[record.step]
        values["reward"].append(result.reward)
        values["valid"].append(1.0 if result.valid else 0.0)
        for key in ("gate", "utility"):
            if getattr(result, key) is not None:
                values[key].append(getattr(result, key))
        for name, dim in result.dimensions.items():
            layers[name] = str(getattr(dim.layer, "value", dim.layer))
            if dim.score is not None:
                values[name].append(dim.score)
    steps = sorted(per_step)
    if not steps:
        raise SystemExit(f"no scored steps of run {run!r} in {scores}")
    first, last = steps[:window], steps[-window:]

    def mean(keys_steps: list[int], key: str) -> float | None:
        pooled = [v for step in keys_steps for v in per_step[step].get(key, [])]
        return statistics.fmean(pooled) if pooled else None

    rows = []
    for key in ["reward", "gate", "utility", "valid"] + sorted(layers, key=lambda n: (layers[n] != "bottom_line", n)):
        start, end = mean(first, key), mean(last, key)
        rows.append({"key": key, "layer": layers.get(key, ""), "first": start, "last": end,
                     "change": None if start is None or end is None else end - start})
    return {"steps": len(steps), "first_steps": first, "last_steps": last,
            "rollouts": sum(len(per_step[s]["reward"]) for s in steps), "rows": rows}


def group_spread(scores: str, run: str) -> dict:
    """Per step: the mean within-group standard deviation of the reward and the share of groups whose rollouts all
    got the same reward. GRPO's advantages are (reward - group mean) / group std: a group with no spread teaches
    nothing, so this is the signal the run had."""
    groups: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in read_log(scores):
        if record.run == run and record.step is not None and record.result.valid:
            groups[record.step][record.group or record.result.id].append(record.result.reward)
    rows = []
    for step in sorted(groups):
        spreads = [statistics.pstdev(rewards) for rewards in groups[step].values() if len(rewards) > 1]
        if spreads:
            rows.append({"step": step, "groups": len(spreads), "mean_group_std": statistics.fmean(spreads),
                         "zero_std_share": sum(1 for s in spreads if s < 1e-6) / len(spreads)})
    return {"per_step": rows}


def same_prompt_change(scores: str, run: str, keys: tuple[str, ...] = ("reward", "gate", "utility"),
                       resamples: int = 2000, seed: int = 0) -> dict:
    """Each prompt group drawn at two or more steps: its rollouts' mean at the first step it was drawn against the
    last, per key (reward, gate, utility and every dimension). Pairing by prompt takes the prompts' difficulty out
    of the comparison, which the first-vs-last-steps table cannot (different steps draw different prompts). The
    change of each key comes with a 95% bootstrap interval over the prompts and the count of prompts that rose."""
    import random

    by_group: dict[str, dict[int, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for record in read_log(scores):
        if record.run != run or record.step is None:
            continue
        values = by_group[record.group or record.result.id][record.step]
        result = record.result
        values["reward"].append(result.reward)
        for key in ("gate", "utility"):
            if getattr(result, key) is not None:
                values[key].append(getattr(result, key))
        for name, dim in result.dimensions.items():
            if dim.score is not None:
                values[name].append(dim.score)
    pairs = {group: (steps[min(steps)], steps[max(steps)], min(steps), max(steps))
             for group, steps in by_group.items() if len(steps) > 1}
    if not pairs:
        return {"prompts": 0, "rows": []}
    names = sorted({key for first, last, _, _ in pairs.values() for key in first} - set(keys))
    rng = random.Random(seed)
    rows = []
    for key in list(keys) + names:
        diffs = [statistics.fmean(last[key]) - statistics.fmean(first[key])
                 for first, last, _, _ in pairs.values() if first.get(key) and last.get(key)]
        if not diffs:
            continue
        means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
        rows.append({"key": key, "prompts": len(diffs), "change": statistics.fmean(diffs),
                     "ci95": [means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]],
                     "rose": sum(d > 1e-9 for d in diffs), "fell": sum(d < -1e-9 for d in diffs),
                     "first": statistics.fmean(statistics.fmean(f[key]) for f, l, _, _ in pairs.values()
                                               if f.get(key) and l.get(key)),
                     "last": statistics.fmean(statistics.fmean(l[key]) for f, l, _, _ in pairs.values()
                                              if f.get(key) and l.get(key))})
    gaps = [last_step - first_step for _, _, first_step, last_step in pairs.values()]
    return {"prompts": len(pairs), "mean_steps_apart": statistics.fmean(gaps), "rows": rows}


def answer_checks(response: str, evidence: list[dict], gold: list[str]) -> dict[str, bool]:
    """Against SQuAD's reference spans `gold`: does the answer hold one (case-folded), and does it cite a document of
    `evidence` that holds one."""
    from policy.format import parse_response

    parsed = parse_response(response)
    answer = parsed.answer_text.lower()
    gold_docs = {doc["id"] for doc in evidence if any(g in doc["text"] for g in gold)}
    return {"answer_span": any(g.lower() in answer for g in gold),
            "cites_answer_document": bool(set(parsed.cited_ids) & gold_docs)}


def answer_accuracy(scores: str, run: str, squad: Path, interactions: Path, steps_per_block: int,
                    resamples: int = 2000, seed: int = 0) -> dict:
    """Correctness on the reference answers of SQuAD (data this project did not write), beside the reward: per block
    of `steps_per_block` steps, the share of rollouts whose answer contains a reference answer span (case-folded)
    and the share that cite a document holding one. The reward scores grounding in the cited evidence, not
    correctness against a key, so a policy can raise it without answering more questions right; this shows which.
    `same_prompt`: the same shares and the reward for each prompt drawn more than once, its first draw against its
    last (the change with a 95% bootstrap interval over the prompts), so the prompts' difficulty is out of it."""
    import random

    data = json.loads(squad.read_text(encoding="utf-8"))
    spans = {qa["id"]: [a["text"] for a in qa["answers"]]
             for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]}
    records = {}
    for line in interactions.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            records[record["id"]] = record
    blocks: dict[int, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    draws: dict[str, dict[int, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for record in read_log(scores):
        if record.run != run or record.step is None or record.item is None:
            continue
        item_id = record.result.id.split("#")[0]
        if item_id not in records:
            continue
        gold = spans.get(item_id.removeprefix("squad-"), [])
        outcome = answer_checks(record.item.response, records[item_id]["evidence"], gold)
        block = blocks[(record.step - 1) // steps_per_block]
        for key, value in outcome.items():
            block[key].append(value)
            draws[item_id][record.step][key].append(float(value))
        draws[item_id][record.step]["reward"].append(record.result.reward)
    rows = [{"steps": [index * steps_per_block + 1, (index + 1) * steps_per_block],
             "rollouts": len(block["answer_span"]), **{key: statistics.fmean(values) for key, values in block.items()}}
            for index, block in sorted(blocks.items())]
    pairs = [(steps[min(steps)], steps[max(steps)]) for steps in draws.values() if len(steps) > 1]
    rng = random.Random(seed)
    paired = []
    for key in ("answer_span", "cites_answer_document", "reward"):
        diffs = [statistics.fmean(last[key]) - statistics.fmean(first[key]) for first, last in pairs]
        if not diffs:
            continue
        means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
        paired.append({"key": key, "prompts": len(diffs),
                       "first": statistics.fmean(statistics.fmean(first[key]) for first, _ in pairs),
                       "last": statistics.fmean(statistics.fmean(last[key]) for _, last in pairs),
                       "change": statistics.fmean(diffs),
                       "ci95": [means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]],
                       "rose": sum(d > 1e-9 for d in diffs), "fell": sum(d < -1e-9 for d in diffs)})
    return {"squad": str(squad), "interactions": str(interactions), "blocks": rows, "same_prompt": paired}


def time_table(run_dir: Path) -> dict:
    rows = [json.loads(line) for line in (run_dir / "timings.jsonl").read_text().splitlines() if line.strip()]
    summary = {key: {"mean": statistics.fmean(r[key] for r in rows), "median": statistics.median(r[key] for r in rows)}
               for key in ("rollout_s", "reward_s", "update_s", "total_s")}
    return {"steps": len(rows), "per_step": rows, "summary": summary}


def window_mean(rows: list[dict], steps: list[int], key: str) -> float | None:
    values = [row[key] for row in rows if row["step"] in steps]
    return statistics.fmean(values) if values else None


def markdown(times: dict, dims: dict, spread: dict | None = None) -> str:
    total = times["summary"]["total_s"]["mean"]
    lines = ["| part | mean s/step | median s/step | share |", "|---|---:|---:|---:|"]
    for key, label in (("rollout_s", "rollout (generation)"), ("reward_s", "reward (server)"),
                       ("update_s", "update (log-probs, backward, optimizer)"), ("total_s", "step")):
        s = times["summary"][key]
        lines.append(f"| {label} | {s['mean']:.1f} | {s['median']:.1f} | {100 * s['mean'] / total:.0f}% |")
    lines += ["", f"| dimension | layer | mean, steps {dims['first_steps'][0]}-{dims['first_steps'][-1]} | "
              f"mean, steps {dims['last_steps'][0]}-{dims['last_steps'][-1]} | change |", "|---|---|---:|---:|---:|"]
    fmt = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
    for row in dims["rows"]:
        change = "n/a" if row["change"] is None else f"{row['change']:+.3f}"
        lines.append(f"| {row['key']} | {row['layer']} | {fmt(row['first'])} | {fmt(row['last'])} | {change} |")
    if spread and spread["per_step"]:
        for key, label in (("mean_group_std", "within-group reward std (mean over groups)"),
                           ("zero_std_share", "groups with no reward spread")):
            start, end = (window_mean(spread["per_step"], steps, key) for steps in (dims["first_steps"],
                                                                                    dims["last_steps"]))
            change = "n/a" if start is None or end is None else f"{end - start:+.3f}"
            lines.append(f"| {label} | | {fmt(start)} | {fmt(end)} | {change} |")
    return "\n".join(lines)


def same_prompt_markdown(paired: dict) -> str:
    if not paired["rows"]:
        return "no prompt was drawn twice"
    lines = [f"Same prompt, first draw vs last draw ({paired['prompts']} prompts, "
             f"{paired['mean_steps_apart']:.0f} steps apart on average):", "",
             "| key | first draw | last draw | change | 95% CI | prompts up / down |", "|---|---:|---:|---:|---|---:|"]
    for row in paired["rows"]:
        low, high = row["ci95"]
        lines.append(f"| {row['key']} | {row['first']:.3f} | {row['last']:.3f} | {row['change']:+.3f} | "
                     f"[{low:+.3f}, {high:+.3f}] | {row['rose']} / {row['fell']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", default="var/trl/grpo_cpu")
    parser.add_argument("--scores", default="var/trl/grpo_cpu/scores")
    parser.add_argument("--run", help="run name in the score log (default: the run's config)")
    parser.add_argument("--window", type=int, default=5, help="steps averaged at the start and at the end")
    parser.add_argument("--out", help="also write the tables as JSON")
    parser.add_argument("--squad", help="SQuAD v1.1 JSON the prompts came from: adds answer accuracy per block")
    parser.add_argument("--interactions", help="the run's interactions JSONL (with --squad)")
    parser.add_argument("--block", type=int, default=24, help="steps per accuracy block (with --squad)")
    args = parser.parse_args()
    run_dir = Path(args.run_dir)
    config_path = run_dir / "config.json"
    config = json.loads(config_path.read_text()) if config_path.exists() else None
    if not (args.run or config):
        raise SystemExit(f"{config_path} is missing: name the run with --run")
    run = args.run or config["run"]
    times, dims = time_table(run_dir), dimension_table(args.scores, run, args.window)
    spread, paired = group_spread(args.scores, run), same_prompt_change(args.scores, run)
    print(markdown(times, dims, spread))
    print()
    print(same_prompt_markdown(paired))
    accuracy = None
    if args.squad:
        if not args.interactions:
            raise SystemExit("--squad needs --interactions (the JSONL the run's prompts were built from)")
        accuracy = answer_accuracy(args.scores, run, Path(args.squad), Path(args.interactions), args.block)
        print("\n| steps | rollouts | answer holds a reference span | cites a document holding one |")
        print("|---|---:|---:|---:|")
        for row in accuracy["blocks"]:
            print(f"| {row['steps'][0]}-{row['steps'][1]} | {row['rollouts']} | {row['answer_span']:.3f} | "
                  f"{row['cites_answer_document']:.3f} |")
        if accuracy["same_prompt"]:
            print("\n| same prompt, first vs last draw | prompts | first | last | change | 95% CI | up / down |")
            print("|---|---:|---:|---:|---:|---|---:|")
            for row in accuracy["same_prompt"]:
                print(f"| {row['key']} | {row['prompts']} | {row['first']:.3f} | {row['last']:.3f} | "
                      f"{row['change']:+.3f} | [{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}] | "
                      f"{row['rose']} / {row['fell']} |")
    if args.out:
        Path(args.out).write_text(json.dumps({"run": run, "config": config, "time": times, "dimensions": dims,
                                              "group_spread": spread, "same_prompt": paired,
                                              "answer_accuracy": accuracy}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

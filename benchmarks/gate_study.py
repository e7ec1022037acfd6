"""Gated vs linear GRPO, judged by what the reward does not compute (benchmarks/TRAINING.md, "Gated, linear and a
positive control").

    PYTHONPATH=. OMP_NUM_THREADS=2 .venv/bin/python benchmarks/gate_study.py \
        --squad data/public/chrischute/squad/data/dev-v2.0.json --warm-start var/trl/sft_format/model \
        --arm gated=var/trl/gate_study/gated --arm linear=var/trl/gate_study/linear \
        --arm monitor-claims=var/trl/gate_study/monitor-claims --out benchmarks/results/gate_study.json

Each arm is a run folder of `policy.trl_train` (configs/trl/gate_study/*.yaml): its LoRA adapters under `policy/`
and its score log under `scores/`. The evaluation prompts come from SQuAD articles no arm trained on and the warm
start never demonstrated (`--titles`), with the training prompt's format (minimal system prompt, two evidence
windows). Every policy (the warm start and each arm) answers every prompt once, greedily, so the comparison is
paired by prompt. Measured per answer, none of it an input of the reward:

- `answer_span`: the answer holds one of SQuAD's reference spans (case-folded);
- `cites_answer_document`: the answer cites a document that holds a reference span;
- `format_valid`: the response parses with no problem and cites only documents that exist;
- the reward and each dimension under every suite the study trains with (searchllm, searchllm-linear,
  searchllm-monitor-claims), scored in-process by the embedded judge tier.

Between every two policies: the mean paired difference with a 95% bootstrap interval over the prompts. From each
arm's score log: the training curve's first and last steps, and every alert the monitors
(`reward.dashboard.monitors`) raise on it, with the step each first fired.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # training_report, beside this script

SUITES = ("searchllm", "searchllm-linear", "searchllm-monitor-claims")
TITLES = ("Steam_engine", "Immune_system")
"""Evaluation articles (SQuAD 2.0 dev, answerable questions): neither demonstrated by the warm start (configs/trl/sft_format.yaml) nor trained on by GRPO
(Victoria_(Australia))."""
MEASURES = ("answer_span", "cites_answer_document", "format_valid")


def evaluation_set(squad_path: Path, titles: list[str], per_article: int, evidence_chars: int,
                   seed: int) -> tuple[list[dict], dict[str, list[str]]]:
    """The evaluation interactions (as `policy.sft` builds GRPO prompts) and each one's reference spans."""
    from policy.sft import squad_interactions

    squad = json.loads(squad_path.read_text(encoding="utf-8"))
    records = squad_interactions(squad, titles, per_article, evidence_chars, seed, demonstrate=False)
    spans = {qa["id"]: [a["text"] for a in qa["answers"]]
             for article in squad["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]}
    return records, {r["id"]: spans[r["id"].removeprefix("squad-")] for r in records}


def generate(policy: str, adapter: Path | None, records: list[dict], prompt: str, max_new_tokens: int,
             batch: int = 8) -> list[str]:
    """Greedy answers of the policy (with the LoRA adapter when given) to every record, in order."""
    import torch

    from policy.data import row_of
    from policy.prompts import SYSTEM_PROMPTS
    from policy.trl_train import load_policy

    model, tokenizer = load_policy(policy, Path("var/models"), "float32")
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    model.eval()
    tokenizer.padding_side = "left"
    texts = [tokenizer.apply_chat_template(row_of(r, i, system_prompt=SYSTEM_PROMPTS[prompt])["prompt"],
                                           add_generation_prompt=True, tokenize=False) for i, r in enumerate(records)]
    out = []
    for start in range(0, len(texts), batch):
        inputs = tokenizer(texts[start:start + batch], return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.no_grad():
            sequences = model.generate(**inputs, do_sample=False, max_new_tokens=max_new_tokens,
                                       pad_token_id=tokenizer.pad_token_id)
        out += [tokenizer.decode(s[inputs["input_ids"].shape[1]:], skip_special_tokens=True) for s in sequences]
    return out


def measures(record: dict, response: str, gold: list[str]) -> dict[str, float]:
    """The three checks the reward does not compute, for one answer: `training_report.answer_checks` (the span and
    the cited document, as the training report reads them) and the format."""
    from policy.sft import demonstration_problems
    from training_report import answer_checks

    checks = answer_checks(response, record["evidence"], gold)
    return {**{key: float(value) for key, value in checks.items()},
            "format_valid": float(not demonstration_problems({"response": response, "evidence": record["evidence"]}))}


def score_all(records: list[dict], responses: list[str], judge) -> dict[str, list[dict]]:
    """Every response under every suite: reward, gate, utility and the dimension scores (None when unscored)."""
    from reward.engine import Engine
    from reward.rubric import load_suite
    from reward.schema import Item

    items = [Item.model_validate({**r, "response": text}) for r, text in zip(records, responses)]
    out = {}
    for name in SUITES:
        results = Engine(load_suite(name), judge).score_sync(items)
        out[name] = [{"reward": res.reward, "valid": res.valid, "gate": res.gate, "utility": res.utility,
                      **{dim: s.score for dim, s in res.dimensions.items()}} for res in results]
    return out


def paired(a: list[float], b: list[float], resamples: int = 4000, seed: int = 0) -> dict:
    """Mean of b - a over the prompts, with a 95% bootstrap interval and the counts of prompts up and down."""
    diffs = [y - x for x, y in zip(a, b) if x is not None and y is not None]
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
    return {"a": statistics.fmean(x for x in a if x is not None), "b": statistics.fmean(y for y in b if y is not None),
            "change": statistics.fmean(diffs), "ci95": [means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]],
            "up": sum(d > 1e-9 for d in diffs), "down": sum(d < -1e-9 for d in diffs), "prompts": len(diffs)}


def run_alerts(scores: Path) -> dict:
    """The monitors over a logged run, as the dashboard computes them: each alert's first step and how often."""
    from reward.dashboard.data import open_store
    from reward.dashboard.monitors import alert_history, log_summaries, suite_roles

    with open_store(scores) as store:
        series = store.series()
    out = {}
    for run, info in series["runs"].items():
        if info.get("unstepped") or not info["steps"]:
            continue
        roles = suite_roles(info.get("suites", []), series["layers"])
        history = log_summaries(scores, run, info["steps"], roles)
        fired: dict[str, list[int]] = defaultdict(list)
        messages: dict[str, str] = {}
        for alert in alert_history(history, roles=roles):
            key = alert.rule + (f"/{alert.dimension}" if alert.dimension else "")
            fired[key].append(alert.step)
            messages.setdefault(key, alert.message)
        out[run] = {"steps": len(info["steps"]),
                    "alerts": {key: {"first_step": steps[0], "steps_firing": len(steps), "first_message": messages[key]}
                               for key, steps in sorted(fired.items(), key=lambda kv: kv[1][0])},
                    "curve": curve(history)}
    return out


def curve(history) -> dict:
    """Reward and the bottom-line / monitor dimensions' means over the first and last five steps of a run."""
    def window(steps, key):
        values = [s.reward if key == "reward" else s.length if key == "length" else (s.dimensions[key].mean if key in s.dimensions else None)
                  for s in steps]
        values = [v for v in values if v is not None]
        return statistics.fmean(values) if values else None

    keys = ["reward", "claim_hallucination", "highlight_hallucination", "format", "query_satisfaction", "length"]
    return {key: {"first5": window(history[:5], key), "last5": window(history[-5:], key)} for key in keys}


def markdown(result: dict) -> str:
    """The tables of benchmarks/TRAINING.md's section: each policy's measures, the arms against the warm start and
    against each other (paired change, 95% interval), and each run's alerts."""
    def cell(row: dict) -> str:
        return f"{row['change']:+.3f} [{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}]"

    names = list(result["means"])
    keys = list(next(iter(result["means"].values())))
    lines = ["| measure | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    lines += [f"| {key} | " + " | ".join(f"{result['means'][n][key]:.3f}" for n in names) + " |" for key in keys]
    lines += ["", "| measure | " + " | ".join(result["comparisons"]) + " |", "|---|" + "---|" * len(result["comparisons"])]
    lines += [f"| {key} | " + " | ".join(cell(rows[key]) for rows in result["comparisons"].values()) + " |"
              for key in keys]
    lines += ["", "| arm | steps | alert (first step, steps firing) |", "|---|---:|---|"]
    for arm, runs in result["training"].items():
        for info in runs.values():
            alerts = "; ".join(f"{key} ({a['first_step']}, {a['steps_firing']})" for key, a in info["alerts"].items())
            lines.append(f"| {arm} | {info['steps']} | {alerts or 'none'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=Path, required=True)
    parser.add_argument("--warm-start", required=True, help="the policy the arms started from")
    parser.add_argument("--arm", action="append", default=[], help="NAME=RUN_DIR (its policy/ and scores/)")
    parser.add_argument("--titles", nargs="+", default=list(TITLES))
    parser.add_argument("--per-article", type=int, default=30)
    parser.add_argument("--evidence-chars", type=int, default=200)
    parser.add_argument("--prompt", default="minimal")
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    arms = dict(spec.split("=", 1) for spec in args.arm)

    from reward.judges.factory import make_judge

    records, gold = evaluation_set(args.squad, args.titles, args.per_article, args.evidence_chars, args.seed)
    judge = make_judge("local")
    policies: dict[str, dict] = {}
    for name, adapter in [("warm-start", None)] + [(n, Path(d) / "policy") for n, d in arms.items()]:
        started = time.time()
        responses = generate(args.warm_start, adapter, records, args.prompt, args.max_new_tokens)
        checks = [measures(r, text, gold[r["id"]]) for r, text in zip(records, responses)]
        scored = score_all(records, responses, judge)
        policies[name] = {"responses": responses, "checks": checks, "scores": scored,
                          "seconds": round(time.time() - started, 1)}
        summary = {m: round(statistics.fmean(c[m] for c in checks), 3) for m in MEASURES}
        print(name, summary, {s: round(statistics.fmean(x["reward"] for x in scored[s]), 3) for s in SUITES}, flush=True)

    def series(policy: str, key: str) -> list[float | None]:
        if key in MEASURES:
            return [c[key] for c in policies[policy]["checks"]]
        suite, _, dim = key.partition(":")
        return [row.get(dim) for row in policies[policy]["scores"][suite]]

    keys = list(MEASURES) + [f"{s}:reward" for s in SUITES] + ["searchllm:claim_hallucination",
                                                                "searchllm:highlight_hallucination",
                                                                "searchllm:gate", "searchllm:utility",
                                                                "searchllm:query_satisfaction",
                                                                "searchllm:response_length"]
    names = list(policies)
    comparisons = {f"{b} - {a}": {key: paired(series(a, key), series(b, key)) for key in keys}
                   for i, a in enumerate(names) for b in names[i + 1:]}
    result = {"prompts": len(records), "titles": args.titles, "seed": args.seed, "warm_start": args.warm_start,
              "arms": arms, "means": {p: {k: statistics.fmean(v for v in series(p, k) if v is not None) for k in keys}
                                      for p in names},
              "comparisons": comparisons,
              "training": {name: run_alerts(Path(d) / "scores") for name, d in arms.items()},
              "samples": {p: [{"id": r["id"], "response": policies[p]["responses"][i], **policies[p]["checks"][i]}
                              for i, r in enumerate(records[:6])] for p in names},
              "seconds": {p: policies[p]["seconds"] for p in names}}
    for pair, rows in comparisons.items():
        print(f"\n{pair}")
        for key, row in rows.items():
            print(f"  {key:36s} {row['a']:.3f} -> {row['b']:.3f}  {row['change']:+.3f} "
                  f"[{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}]  up {row['up']} down {row['down']}")
    for name, runs in result["training"].items():
        for run, info in runs.items():
            print(f"\n{name} ({run}, {info['steps']} steps): {json.dumps(info['curve'])}")
            for key, alert in info["alerts"].items():
                print(f"  alert {key}: first at step {alert['first_step']}, {alert['steps_firing']} steps")
    print("\n" + markdown(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Same-evidence pairs from SQuAD questions: does the reward prefer the right answer?

Built from the SQuAD v1.1 dev slice in `data/public/san_mrc-squad-dev-v1.1.json` (5 Wikipedia articles, CC BY-SA
4.0; the consistency model's warm start reads its passages, never its questions). Every pair shares its query and
evidence; the two responses are in the policy format (`reward.format`), one facet citing the evidence they answer
from:

- `squad-wrong-answer`: evidence = the question's passage and another passage of the same article. The right side
  is the terse gold answer citing the passage ("France [Doc 1]."); the wrong side is the passage's answer sentence
  with the answer replaced by another question's answer of the same kind (a number by a number, a name by a name),
  so it is fluent, on topic, mostly copied from the evidence, and unsupported.
- `squad-cited-doc`: the same two passages (which id holds the answer is drawn per question). Both sides are the
  terse gold answer; the right one cites the passage that holds it, the wrong one the other passage.

Articles are split: `fit` (Normans, Computational_complexity_theory, Southern_California) is what the question
relevance head is trained on (`training/question_relevance.py`) and what any threshold may be chosen on; `test`
(Sky_(United_Kingdom), Victoria_(Australia)) is what the figures in `benchmarks/FIDELITY.md` report. Reported per
pair set, for the reward, gate, utility and every dimension: pairwise AUC (a tie counts 0.5) with a 95% bootstrap
interval, beside the word-overlap baselines (`lexical_baseline`: share of the answer's content words in all the
evidence; `lexical_cited`: in the cited evidence only).

    nice -n 10 .venv/bin/python benchmarks/pairs.py --split test --out benchmarks/results/pairs_test.json

`--exponents name=value,...` scores with per-dimension gate exponents (`gate_exponents` of the suite) instead of
the suite's own, to measure the trade-off.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import logging
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(Path.cwd())):
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from benchmarks.emit import machine  # noqa: E402
from reward.engine import Engine  # noqa: E402
from reward.evaluation.fidelity import FidelityCase, lexical_support, measure, score_cases  # noqa: E402
from reward.format import Facet, parse_response, render_response  # noqa: E402
from reward.judges.factory import make_judge  # noqa: E402
from reward.rubric import load_suite  # noqa: E402
from reward.schema import Evidence, Item  # noqa: E402

log = logging.getLogger("pairs")
SQUAD = Path("data/public/san_mrc-squad-dev-v1.1.json")
SQUAD_SHA256 = "db71d0a19c3f656b1ebefafce642b828cfab269f0d906312dfb0efdc7173b31a"
FIT_ARTICLES = ("Normans", "Computational_complexity_theory", "Southern_California")
TEST_ARTICLES = ("Sky_(United_Kingdom)", "Victoria_(Australia)")
_NUMBER = re.compile(r"^[\d.,\s%$£]+(?:\s?(?:million|billion|thousand|percent|per cent))?$", re.IGNORECASE)


def squad_articles(path: Path) -> list[dict]:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SQUAD_SHA256:
        raise SystemExit(f"{path}: SHA-256 {digest} is not the recorded {SQUAD_SHA256}")
    return json.loads(path.read_text(encoding="utf-8"))["data"]


def answer_kind(text: str) -> str:
    """`number`, `name` (starts with a capital) or `phrase`: what a wrong answer must match to stay fluent."""
    if _NUMBER.match(text.strip()) and any(c.isdigit() for c in text):
        return "number"
    return "name" if text[:1].isupper() else "phrase"


def sentence_around(context: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence of `context` holding [start, end)."""
    left = max(context.rfind(". ", 0, start), context.rfind("? ", 0, start), context.rfind("! ", 0, start))
    left = 0 if left < 0 else left + 2
    right = len(context)
    for mark in (". ", "? ", "! "):
        found = context.find(mark, end)
        if found >= 0:
            right = min(right, found + 1)
    return left, right


def _cite(sentence: str, doc_id: str) -> str:
    body = sentence.rstrip()
    match = re.search(r"[.!?]+[\"')\]]*$", body)
    if match:
        return f"{body[: match.start()]} [Doc {doc_id}]{body[match.start():]}"
    return f"{body} [Doc {doc_id}]."


def _item(case_id: str, question: str, evidence: list[Evidence], cited: str, answer: str) -> Item:
    plan = [Facet(question.strip()[:200], (cited,))]
    return Item(id=case_id, query=question, evidence=evidence, response=render_response(plan, [cited], answer))


def build_pairs(articles: list[dict], split: str, seed: int = 0) -> list[FidelityCase]:
    """Both pair sets for the articles of `split` (`fit` or `test`)."""
    wanted = FIT_ARTICLES if split == "fit" else TEST_ARTICLES
    rng = random.Random(seed)
    cases: list[FidelityCase] = []
    for article in articles:
        if article["title"] not in wanted:
            continue
        paragraphs = article["paragraphs"]
        answers_by_kind: dict[str, list[str]] = {}
        for paragraph in paragraphs:
            for qa in paragraph["qas"]:
                if qa["answers"]:
                    text = qa["answers"][0]["text"].strip()
                    answers_by_kind.setdefault(answer_kind(text), []).append(text)
        for p_index, paragraph in enumerate(paragraphs):
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                if not qa["answers"] or qa.get("is_impossible"):
                    continue
                gold = qa["answers"][0]
                text, start = gold["text"].strip(), gold["answer_start"]
                if not text or context[start : start + len(text)] != text:
                    continue
                others = [i for i, p in enumerate(paragraphs) if i != p_index and text.lower() not in p["context"].lower()]
                if not others:
                    continue
                distractor = paragraphs[rng.choice(others)]["context"]
                right_id, wrong_id = ("1", "2") if rng.random() < 0.5 else ("2", "1")
                docs = {right_id: context, wrong_id: distractor}
                evidence = [Evidence(id=i, title=article["title"].replace("_", " "), text=docs[i]) for i in ("1", "2")]
                question = qa["question"].strip()
                terse = text.rstrip(".")
                key = f"{split}:{qa['id']}"
                # (a) the terse right answer vs a fluent sentence with a wrong answer of the same kind
                pool = [a for a in answers_by_kind.get(answer_kind(text), [])
                        if a.lower() not in context.lower() and text.lower() not in a.lower()]
                if pool:
                    wrong = rng.choice(pool)
                    left, right = sentence_around(context, start, start + len(text))
                    sentence = context[left:start] + wrong + context[start + len(text) : right]
                    cases.append(FidelityCase(set="squad-wrong-answer", label=1, pair=key, split=split,
                                              item=_item(f"{key}:a1", question, evidence, right_id, _cite(terse + ".", right_id))))
                    cases.append(FidelityCase(set="squad-wrong-answer", label=0, pair=key, split=split,
                                              item=_item(f"{key}:a0", question, evidence, right_id, _cite(sentence.strip(), right_id))))
                # (b) the same terse answer citing the passage that holds it vs the distractor
                cases.append(FidelityCase(set="squad-cited-doc", label=1, pair=key, split=split,
                                          item=_item(f"{key}:b1", question, evidence, right_id, _cite(terse + ".", right_id))))
                cases.append(FidelityCase(set="squad-cited-doc", label=0, pair=key, split=split,
                                          item=_item(f"{key}:b0", question, evidence, wrong_id, _cite(terse + ".", wrong_id))))
    return cases


def add_cited_baseline(report: dict, cases: list[FidelityCase], resamples: int) -> None:
    """`lexical_cited`: the share of the answer's content words found in the evidence the answer cites."""
    from reward.evaluation.calibrate import bootstrap_ci, pairwise_auc

    for name in report:
        sides: dict[str, dict[int, float]] = {}
        for case in cases:
            if case.set != name:
                continue
            parsed = parse_response(case.item.response)
            cited = [d for d in case.item.evidence if d.id in set(parsed.cited_ids)]
            sides.setdefault(case.pair, {})[case.label] = lexical_support(parsed.answer_text, cited)
        pairs = [(v[1], v[0]) for v in sides.values() if 0 in v and 1 in v]
        stat = lambda ps: pairwise_auc([p for p, _ in ps], [q for _, q in ps])  # noqa: E731
        ci = bootstrap_ci(pairs, stat, resamples=resamples)
        report[name]["dimensions"]["lexical_cited"] = {"auc": {"value": round(stat(pairs), 4), "ci": list(ci)},
                                                       "n": len(pairs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("fit", "test"), default="test")
    parser.add_argument("--suite", default="searchllm")
    parser.add_argument("--judge", default="local")
    parser.add_argument("--limit", type=int, default=0, help="at most this many pairs per set (0: all)")
    parser.add_argument("--exponents", default="", help="gate exponents, name=value,... (default: the suite's)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    cases = build_pairs(squad_articles(ROOT / SQUAD if not SQUAD.exists() else SQUAD), args.split, args.seed)
    if args.limit:
        keep: dict[str, set[str]] = {}
        for case in cases:
            keys = keep.setdefault(case.set, set())
            if len(keys) < args.limit:
                keys.add(case.pair)
        cases = [c for c in cases if c.pair in keep[c.set]]
    suite = load_suite(args.suite)
    if args.exponents:
        exponents = {k.strip(): float(v) for k, v in (p.split("=") for p in args.exponents.split(","))}
        suite = dataclasses.replace(suite, suite=suite.suite.model_copy(update={"gate_exponents": exponents}))
    engine = Engine(suite, make_judge(args.judge))
    started = time.perf_counter()
    results = score_cases(engine, cases)
    seconds = time.perf_counter() - started
    report = measure(cases, results, resamples=args.resamples)
    add_cited_baseline(report, cases, args.resamples)
    code = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    run = {"label": args.label or code, "code": code, "split": args.split, "suite": args.suite, "judge": args.judge,
           "exponents": args.exponents or None, "items": len(cases), "seconds": round(seconds, 1), "machine": machine(),
           "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "command": "nice -n 10 .venv/bin/python benchmarks/pairs.py " + " ".join(sys.argv[1:]), "report": report}
    text = json.dumps(run, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    for name, result in report.items():
        dims = result["dimensions"]
        shown = ("reward", "gate", "utility", "lexical_baseline", "lexical_cited", "claim_hallucination",
                 "response_length", "query_satisfaction", "answer_useful")
        print(name, result["cases"], {d: dims[d]["auc"]["value"] for d in shown if d in dims})
        print("  all:", {d: v["auc"]["value"] for d, v in sorted(dims.items()) if "auc" in v})


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()

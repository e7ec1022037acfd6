"""Fit the question-evidence relevance head (`reward/judges/question_relevance.py`) on SQuAD questions.

    PYTHONPATH=. .venv/bin/python training/question_relevance.py --out reward/judges/question_relevance_model

Data: the SQuAD v1.1 dev slice in `data/public/san_mrc-squad-dev-v1.1.json` (CC BY-SA 4.0, checked by SHA-256).
For each answerable question, the passage's sentences (split as the local tier splits evidence): the one holding
the answer is positive, the others negative. Split by article, as `benchmarks/pairs.py` splits its pairs: the head
is fitted on Normans and Computational_complexity_theory and validated on Southern_California (its AUC and accuracy
go into recipe.json); the test articles (Sky_(United_Kingdom), Victoria_(Australia)) are never read here.
Features: MiniLM (the local tier's runtime) question * sentence, cosine, lexical overlap; a logistic regression
(scikit-learn, L2, C chosen on the validation article). Writes head.json, recipe.json and SHA256SUMS.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from reward.format import split_sentences  # noqa: E402
from reward.judges.local import minilm  # noqa: E402
from reward.judges.local.text import lexical_coverage  # noqa: E402
from reward.judges.question_relevance import HEAD, relevance_features, write_checksums  # noqa: E402
from training.generalization.render import sentence_at  # noqa: E402

SQUAD = ROOT / "data" / "public" / "san_mrc-squad-dev-v1.1.json"
SQUAD_SHA256 = "db71d0a19c3f656b1ebefafce642b828cfab269f0d906312dfb0efdc7173b31a"
TRAIN_ARTICLES = ("Normans", "Computational_complexity_theory")
VALIDATION_ARTICLES = ("Southern_California",)


def examples(articles: list[dict], wanted: tuple[str, ...]) -> list[tuple[str, list[str], int]]:
    """(question, the passage's sentences, index of the sentence holding the answer)."""
    out = []
    for article in articles:
        if article["title"] not in wanted:
            continue
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            sentences = split_sentences(context)
            for qa in paragraph["qas"]:
                if not qa["answers"] or qa.get("is_impossible"):
                    continue
                holding = sentence_at(context, sentences, qa["answers"][0]["answer_start"])
                if holding is not None and len(sentences) > 1:
                    out.append((qa["question"].strip(), sentences, holding))
    return out


def featurise(rows: list[tuple[str, list[str], int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    encoder = minilm()
    texts = sorted({q for q, _, _ in rows} | {s for _, ss, _ in rows for s in ss})
    vectors = dict(zip(texts, encoder.encode(texts), strict=True))
    features, labels, groups = [], [], []
    for number, (question, sentences, answer) in enumerate(rows):
        overlap = np.array([lexical_coverage(question, s) for s in sentences], dtype=np.float32)
        features.append(relevance_features(vectors[question], np.stack([vectors[s] for s in sentences]), overlap))
        labels.extend(int(i == answer) for i in range(len(sentences)))
        groups.extend([number] * len(sentences))
    return np.vstack(features), np.array(labels), np.array(groups)


def top1(probabilities: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> float:
    hits = [labels[groups == g][np.argmax(probabilities[groups == g])] for g in np.unique(groups)]
    return float(np.mean(hits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "reward" / "judges" / "question_relevance_model")
    args = parser.parse_args()
    if hashlib.sha256(SQUAD.read_bytes()).hexdigest() != SQUAD_SHA256:
        raise SystemExit(f"{SQUAD}: missing or not the recorded file (SHA-256 {SQUAD_SHA256})")
    articles = json.loads(SQUAD.read_text(encoding="utf-8"))["data"]
    train, validation = examples(articles, TRAIN_ARTICLES), examples(articles, VALIDATION_ARTICLES)
    x_train, y_train, _ = featurise(train)
    x_val, y_val, g_val = featurise(validation)
    chosen = None
    for c in (0.1, 0.3, 1.0, 3.0, 10.0):
        model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced").fit(x_train, y_train)
        p = model.predict_proba(x_val)[:, 1]
        score = {"C": c, "auc": round(float(roc_auc_score(y_val, p)), 4), "top1": round(top1(p, y_val, g_val), 4)}
        if chosen is None or score["auc"] > chosen[0]["auc"]:
            chosen = (score, model)
    score, model = chosen
    cosine_only = x_val[:, -2]
    overlap_only = x_val[:, -1]
    args.out.mkdir(parents=True, exist_ok=True)
    head = {"weights": [round(float(w), 6) for w in model.coef_[0]], "bias": round(float(model.intercept_[0]), 6),
            "features": "question*sentence (384, MiniLM unit embeddings), cosine, lexical overlap"}
    (args.out / HEAD).write_text(json.dumps(head) + "\n")
    recipe = {
        "source": {"path": "data/public/san_mrc-squad-dev-v1.1.json", "sha256": SQUAD_SHA256, "licence": "CC BY-SA 4.0",
                   "origin": "VinACE/san_mrc (SQuAD dev slice, 5 Wikipedia articles)"},
        "train_articles": TRAIN_ARTICLES, "validation_articles": VALIDATION_ARTICLES,
        "never_read": ["Sky_(United_Kingdom)", "Victoria_(Australia)"],
        "questions": {"train": len(train), "validation": len(validation)},
        "sentences": {"train": int(len(y_train)), "validation": int(len(y_val))},
        "model": "sklearn LogisticRegression(class_weight='balanced', max_iter=2000), C chosen on validation AUC",
        "validation": score | {"cosine_only": {"auc": round(float(roc_auc_score(y_val, cosine_only)), 4),
                                               "top1": round(top1(cosine_only, y_val, g_val), 4)},
                               "overlap_only": {"auc": round(float(roc_auc_score(y_val, overlap_only)), 4),
                                                "top1": round(top1(overlap_only, y_val, g_val), 4)}},
        "encoder_runtime": minilm().runtime,
        "command": "PYTHONPATH=. .venv/bin/python training/question_relevance.py " + " ".join(sys.argv[1:]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
    }
    (args.out / "recipe.json").write_text(json.dumps(recipe, indent=1) + "\n")
    write_checksums(args.out)
    print(json.dumps(recipe["validation"], indent=1))


if __name__ == "__main__":
    main()

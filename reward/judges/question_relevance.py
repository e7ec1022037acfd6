"""Question-evidence relevance: the probability that an evidence sentence states what a question asks for.

A logistic head over features of the shipped MiniLM encoder (the elementwise product of the question's and the
sentence's unit embeddings, their cosine) and one lexical feature (the share of the question's content words in the
sentence), fitted on SQuAD questions (the sentence that holds the answer against the passage's other sentences) by
`training/question_relevance.py`. The artifact is `question_relevance_model/head.json` with its recipe and
`SHA256SUMS`; this module only loads, verifies and applies it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np

ARTIFACT = Path(__file__).resolve().parent / "question_relevance_model"
HEAD = "head.json"
CHECKSUMS = "SHA256SUMS"
FILES = (HEAD, "recipe.json")


class RelevanceArtifactError(RuntimeError):
    """The relevance head is missing or does not match its checksums."""


def relevance_features(question: np.ndarray, sentences: np.ndarray, overlap: np.ndarray) -> np.ndarray:
    """One row per sentence: question * sentence (unit embeddings), their cosine, the lexical overlap.

    >>> relevance_features(np.ones(2) / 2 ** 0.5, np.eye(2), np.array([0.5, 0.0])).astype(float).round(3).tolist()
    [[0.707, 0.0, 0.707, 0.5], [0.0, 0.707, 0.707, 0.0]]
    """
    product = sentences * question[None, :]
    cosine = product.sum(axis=1, keepdims=True)
    return np.hstack([product, cosine, overlap.reshape(-1, 1)]).astype(np.float32)


def write_checksums(directory: Path) -> None:
    lines = [f"{hashlib.sha256((directory / name).read_bytes()).hexdigest()}  {name}" for name in FILES]
    (directory / CHECKSUMS).write_text("\n".join(lines) + "\n")


class QuestionRelevance:
    """The fitted head: `probability(question_vector, sentence_vectors, overlaps)`."""

    def __init__(self, weights: np.ndarray, bias: float, digest: str):
        self.weights = weights.astype(np.float32)
        self.bias = float(bias)
        self.digest = digest

    @classmethod
    def load(cls, directory: Path = ARTIFACT) -> QuestionRelevance:
        sums = directory / CHECKSUMS
        if not sums.exists():
            raise RelevanceArtifactError(f"{sums}: missing; fit the head with `python training/question_relevance.py`")
        listed = dict(reversed(line.split("  ", 1)) for line in sums.read_text().splitlines() if line.strip())
        for name in FILES:
            path = directory / name
            if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != listed.get(name):
                raise RelevanceArtifactError(f"{path}: missing or changed (does not match {sums})")
        head = json.loads((directory / HEAD).read_text())
        digest = hashlib.sha256(sums.read_bytes()).hexdigest()[:12]
        return cls(np.asarray(head["weights"], dtype=np.float32), head["bias"], digest)

    def probability(self, question: np.ndarray, sentences: np.ndarray, overlap: np.ndarray) -> np.ndarray:
        if len(sentences) == 0:
            return np.zeros(0, dtype=np.float32)
        logits = relevance_features(question, sentences, overlap) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-logits))


@functools.lru_cache(maxsize=1)
def shipped_relevance() -> QuestionRelevance:
    """The shipped head, loaded and verified once per process."""
    return QuestionRelevance.load()

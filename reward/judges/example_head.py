"""The local tier's scorer for a dimension that has labelled examples instead of a hand-written method.

A dimension YAML may carry `local: {examples: [{response, score, query?}, ...]}` (responses with the score a judge
should give them) or `local: {pairs: [{better, worse, query?}, ...]}`. The local tier then fits a small linear head on
the shipped MiniLM encoder's embeddings of those examples, once per process and examples' digest, and scores the
dimension with it: scikit-learn's `RidgeCV` on scored examples (its prediction clipped to [0, 1]), or a logistic
ranking model on the pairs' differences (Bradley-Terry; its score is the sigmoid of the margin over the examples'
median, so 0.5 is a typical example, not a calibrated pass). Features are the answer's embedding and, when the
examples give queries, its elementwise product with the query's embedding and their cosine, so a head can learn
"answers the query" as well as "reads neutral"; when the examples give evidence (a dimension about support), also the
claim-consistency model's verdict on the answer against each passage (the highest P(supported), the highest
P(contradicted), the lowest P(unsupported)), so a head can learn "says what the evidence says".

A response is read like the examples: its answer part when it has the response format, otherwise its whole text.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from reward.format import ParsedResponse, parse_response, strip_citations
from reward.rubric import LocalSpec

FEATURE_VERSION = 1
"""Bumped whenever `features` changes, so a cached head is never applied to features it was not fitted on."""

Embed = Callable[[Sequence[str]], Awaitable[np.ndarray]]
"""Unit-normalised embeddings of texts, one row each (e.g. `Embedder.embed`)."""
Support = Callable[[Sequence[tuple[str, str]]], Awaitable[np.ndarray]]
"""P(supported, contradicted, unsupported) of (evidence, claim) pairs, one row each (`ConsistencyScorer.probabilities`)."""


def examples_digest(local: LocalSpec) -> str:
    """What a fitted head depends on: the examples, the pairs and the feature recipe."""
    payload = json.dumps({"examples": [e.model_dump() for e in local.examples],
                          "pairs": [p.model_dump() for p in local.pairs], "features": FEATURE_VERSION}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def answer_text(response: str, parsed: ParsedResponse | None = None) -> str:
    """The part of a response the head reads: the cited answer (citation markers removed) when the response has the
    format, else all of it. `parsed`: the response as the engine parsed it (after the suite's preprocessing, e.g. a
    reasoning block stripped), so the head reads what the other dimensions read.

    >>> answer_text("Plain text, no format.")
    'Plain text, no format.'
    """
    parsed = parsed if parsed is not None else parse_response(response)
    if parsed.answer and parsed.answer.strip():
        return strip_citations(parsed.answer).strip()
    return response.strip()


def features(answers: np.ndarray, queries: np.ndarray | None) -> np.ndarray:
    """Rows of head features from unit-normalised answer (and query) embeddings."""
    if queries is None:
        return answers
    cosine = np.sum(answers * queries, axis=1, keepdims=True)
    return np.hstack([answers, answers * queries, cosine])


async def support_features(support: Support, evidence: Sequence[Sequence[str]], answers: Sequence[str]) -> np.ndarray:
    """Per answer: the highest P(supported), the highest P(contradicted) and the lowest P(unsupported) over its
    evidence passages ([0, 0, 1] without evidence: nothing supports it)."""
    pairs = [(passage, answer) for passages, answer in zip(evidence, answers, strict=True) for passage in passages]
    probabilities = await support(pairs)
    rows, start = [], 0
    for passages in evidence:
        block = probabilities[start : start + len(passages)]
        start += len(passages)
        rows.append([block[:, 0].max(), block[:, 1].max(), block[:, 2].min()] if len(block) else [0.0, 0.0, 1.0])
    return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class ExampleHead:
    """A fitted head: `weights @ features + bias`, mapped to [0, 1]."""

    weights: np.ndarray
    bias: float
    ranking: bool
    """True for a head fitted on pairs (a sigmoid of the margin over `bias`), False for a regression (clipped)."""
    uses_query: bool
    uses_evidence: bool
    examples: int
    digest: str
    fit_spearman: float
    """Spearman correlation of the head's scores with the labels on its own examples (pairs: share ordered right)."""

    def score(self, rows: np.ndarray) -> np.ndarray:
        raw = rows @ self.weights + self.bias
        if self.ranking:
            return 1.0 / (1.0 + np.exp(-raw))
        return np.clip(raw, 0.0, 1.0)


async def _embed_texts(embed: Embed, answers: Sequence[str], queries: Sequence[str] | None,
                       evidence: Sequence[Sequence[str]] | None = None, support: Support | None = None) -> np.ndarray:
    """Head features of example responses (each read by `answer_text`), their queries and evidence."""
    return await _embed_answers(embed, [answer_text(a) for a in answers], queries, evidence, support)


async def _embed_answers(embed: Embed, answers: Sequence[str], queries: Sequence[str] | None,
                         evidence: Sequence[Sequence[str]] | None = None, support: Support | None = None) -> np.ndarray:
    answer_vectors = await embed(list(answers))
    query_vectors = await embed(list(queries)) if queries is not None else None
    rows = features(answer_vectors, query_vectors)
    if evidence is None:
        return rows
    if support is None:
        raise ValueError("the examples give evidence, so the head needs the consistency model (support)")
    return np.hstack([rows, await support_features(support, evidence, answers)])


async def fit_head(local: LocalSpec, embed: Embed, support: Support | None = None) -> ExampleHead:
    """Fit the head of a dimension's examples (scored examples win over pairs when both are given)."""
    from scipy.stats import spearmanr
    from sklearn.linear_model import LogisticRegression, RidgeCV

    digest = examples_digest(local)
    if local.examples:
        uses_query = any(e.query for e in local.examples)
        uses_evidence = any(e.evidence for e in local.examples)
        rows = await _embed_texts(embed, [e.response for e in local.examples],
                                  [e.query for e in local.examples] if uses_query else None,
                                  [e.evidence for e in local.examples] if uses_evidence else None, support)
        labels = np.array([e.score for e in local.examples])
        model = RidgeCV(alphas=np.logspace(-3, 2, 11)).fit(rows, labels)
        fit = float(spearmanr(model.predict(rows), labels).statistic)
        return ExampleHead(np.asarray(model.coef_, dtype=np.float64), float(model.intercept_), False, uses_query,
                           uses_evidence, len(labels), digest, round(fit, 4))
    uses_query = any(p.query for p in local.pairs)
    uses_evidence = any(p.evidence for p in local.pairs)
    queries = [p.query for p in local.pairs] if uses_query else None
    evidence = [p.evidence for p in local.pairs] if uses_evidence else None
    better = await _embed_texts(embed, [p.better for p in local.pairs], queries, evidence, support)
    worse = await _embed_texts(embed, [p.worse for p in local.pairs], queries, evidence, support)
    differences = np.vstack([better - worse, worse - better])
    labels = np.array([1] * len(better) + [0] * len(worse))
    model = LogisticRegression(fit_intercept=False, C=10.0, max_iter=2000).fit(differences, labels)
    weights = np.asarray(model.coef_[0], dtype=np.float64)
    margins = np.concatenate([better @ weights, worse @ weights])
    ordered = float(np.mean(better @ weights > worse @ weights))
    return ExampleHead(weights, -float(np.median(margins)), True, uses_query, uses_evidence, len(local.pairs), digest,
                       round(ordered, 4))


class HeadCache:
    """Fitted heads by examples' digest: each is fitted once per process, however many suites or requests use it."""

    def __init__(self) -> None:
        self._heads: dict[str, asyncio.Future[ExampleHead] | ExampleHead] = {}

    async def head(self, local: LocalSpec, embed: Embed, support: Support | None = None) -> ExampleHead:
        digest = examples_digest(local)
        found = self._heads.get(digest)
        if isinstance(found, ExampleHead):
            return found
        if found is not None and found.get_loop() is asyncio.get_running_loop():
            return await found  # being fitted for a concurrent call
        future: asyncio.Future[ExampleHead] = asyncio.get_running_loop().create_future()
        self._heads[digest] = future
        try:
            head = await fit_head(local, embed, support)
        except BaseException as exc:
            del self._heads[digest]
            future.set_exception(exc)
            future.exception()  # retrieved here, so a future nobody else awaits does not warn
            raise
        self._heads[digest] = head
        future.set_result(head)
        return head


async def score_with_examples(local: LocalSpec, cache: HeadCache, embed: Embed, query: str, response: str,
                              parsed: ParsedResponse | None = None, evidence: Sequence[str] = (),
                              support: Support | None = None) -> tuple[float, str]:
    """(score, explanation) of one response by the dimension's example-fitted head; `evidence`: the passages the
    response selected (or all of the interaction's), read when the examples give evidence."""
    head = await cache.head(local, embed, support)
    rows = await _embed_answers(embed, [answer_text(response, parsed)], [query] if head.uses_query else None,
                                [list(evidence)] if head.uses_evidence else None, support)
    score = float(head.score(rows)[0])
    kind = f"ranking head on {head.examples} pairs" if head.ranking else f"regression head on {head.examples} examples"
    return score, f"example-fitted {kind} (digest {head.digest}, fit {head.fit_spearman:.2f}): {score:.3f}"

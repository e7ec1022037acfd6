"""The local tier's scorer for a dimension that has labelled examples instead of a hand-written method.

A dimension YAML may carry `local: {examples: [{response, score, query?, evidence?}, ...]}` (responses with the score
a judge should give them) or `local: {pairs: [{better, worse, query?, evidence?}, ...]}`. The local tier then fits a
small linear head on features of those examples, once per process and examples' digest, and scores the dimension with
it. Features come in blocks: the answer's MiniLM embedding; when the examples give queries, its elementwise product
with the query's embedding ("answers the query") and their cosine similarity; when the examples give evidence, the
claim-consistency model's verdict, claim by claim, on the answer against the evidence sentences (its least supported
claim's P(supported), its most contradicted and most unsupported claims': "says only what the evidence says"). Each
block is scaled on the examples to the same total variance (an embedding as a whole, keeping its geometry; a block of
a few scores column by column), so three verdict features or one similarity are not drowned by 384 dimensions.

The head is a ridge regression (scored examples) or a ridge ranking on the pairs' differences (pairs). Which blocks
it reads and how strongly it is regularised (a grid from nearly none to nearly constant) are chosen by leave-one-out
error on the examples themselves (closed form, so a fit takes milliseconds; examples that answer the same query are
left out together). The head reports an honest figure: its leave-one-out agreement, with the choice of blocks and
regularisation redone without each left-out example (nested),
as the share of example pairs with different scores that it orders right (pairs: the share of pairs it orders right);
0.5 is chance. A regression head's score is its prediction, rescaled on the leave-one-out predictions so that a
strongly regularised head still spans the scale, and clipped to [0, 1]; a ranking head's score is a sigmoid of the
margin over the examples' median (0.5 is a typical example, not a calibrated pass).

A head whose leave-one-out agreement is under `MIN_AGREEMENT`, or whose leave-one-out predictions span less than
`MIN_SPREAD`, cannot separate its own examples: it would serve a near-constant or a coin flip. Such a dimension is
unscored with the structural reason `examples_not_separable` for every item alike, so it is left out of every
reward instead of shaving all of them, and lint, the serve log and each score's explanation say why.

A response is read like the examples: its answer part when it has the response format, otherwise its whole text.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from reward.format import ParsedResponse, parse_response, split_sentences, strip_citations
from reward.rubric import LocalSpec

log = logging.getLogger(__name__)

FEATURE_VERSION = 2
"""Bumped whenever `features` or the fit changes, so a cached head is never applied to features it was not fitted on."""

MIN_AGREEMENT = 0.75
"""Leave-one-out agreement (share of differently scored example pairs ordered right; 0.5 is chance) a head needs."""
MIN_SPREAD = 0.1
"""How far apart (max - min, on [0, 1]) a regression head's leave-one-out predictions on its examples must lie."""
ALPHAS = np.logspace(-3, 5, 17)
"""Ridge penalties tried, on standardised features: from an interpolating fit to a near-constant one."""
NOT_SEPARABLE = "examples_not_separable"
"""The unscored reason of a dimension whose head cannot separate its examples (structural: the same for every item)."""

Embed = Callable[[Sequence[str]], Awaitable[np.ndarray]]
"""Unit-normalised embeddings of texts, one row each (e.g. `Embedder.embed`)."""
Support = Callable[[Sequence[tuple[str, str]]], Awaitable[np.ndarray]]
"""P(supported, contradicted, unsupported) of (evidence, claim) pairs, one row each (`ConsistencyScorer.probabilities`)."""

ANSWER, QUERY, SIMILARITY, VERDICT = "answer embedding", "query match", "query similarity", "consistency verdict"


class ExamplesNotSeparable(Exception):
    """Raised when a dimension is scored by a head that cannot separate its examples; the message says why."""

    reason = NOT_SEPARABLE


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


def feature_blocks(width: int, uses_query: bool, uses_evidence: bool) -> dict[str, np.ndarray]:
    """Column indices of each feature block in a row of `width` answer-embedding dimensions (the layout of
    `features`, then the three verdict columns of `support_features`)."""
    blocks = {ANSWER: np.arange(width)}
    end = width
    if uses_query:
        blocks[QUERY] = np.arange(width, 2 * width)
        blocks[SIMILARITY] = np.array([2 * width])
        end = 2 * width + 1
    if uses_evidence:
        blocks[VERDICT] = np.arange(end, end + 3)
    return blocks


def candidate_blocks(blocks: dict[str, np.ndarray]) -> list[tuple[str, ...]]:
    """The block combinations a head may read: the answer embedding; with queries, the query similarity alone and
    everything about the query; with evidence, the consistency verdict alone and with everything else."""
    candidates = [(ANSWER,)]
    if QUERY in blocks:
        candidates += [(SIMILARITY,), (ANSWER, QUERY, SIMILARITY)]
    if VERDICT in blocks:
        candidates += [(VERDICT,), tuple(blocks)]
    return candidates


async def support_features(support: Support, evidence: Sequence[Sequence[str]], answers: Sequence[str]) -> np.ndarray:
    """Per answer, the consistency model's verdict claim by claim (each sentence of the answer against each sentence
    of its evidence, as the local tier reads claims): the lowest over claims of the claim's highest P(supported),
    the highest P(contradicted) and the highest of the claims' lowest P(unsupported); [0, 0, 1] without evidence
    (nothing supports it). One unsupported dose among supported sentences shows; averaged over the answer, it would
    not."""
    pairs, owners = [], []
    for index, (passages, answer) in enumerate(zip(evidence, answers, strict=True)):
        sentences = [s for passage in passages for s in split_sentences(passage)]
        for claim_index, claim in enumerate(split_sentences(answer) or [answer]):
            pairs += [(sentence, claim) for sentence in sentences]
            owners += [(index, claim_index)] * len(sentences)
    probabilities = await support(pairs) if pairs else np.zeros((0, 3))
    by_claim: dict[tuple[int, int], list[np.ndarray]] = {}
    for owner, row in zip(owners, probabilities, strict=True):
        by_claim.setdefault(owner, []).append(row)
    rows = []
    for index in range(len(answers)):
        claims = [np.asarray(v) for (owner, _), v in by_claim.items() if owner == index]
        rows.append([min(c[:, 0].max() for c in claims), max(c[:, 1].max() for c in claims),
                     max(c[:, 2].min() for c in claims)] if claims else [0.0, 0.0, 1.0])
    return np.asarray(rows, dtype=np.float64)


def agreement(truth: np.ndarray, predicted: np.ndarray) -> float:
    """The share of pairs with different `truth` that `predicted` orders the same way (ties count half): 1 is a
    perfect order, 0.5 chance. A concordance index (ROC AUC for two labels).

    >>> agreement(np.array([0.0, 0.5, 1.0]), np.array([0.1, 0.2, 0.3]))
    1.0
    >>> agreement(np.array([0.0, 1.0]), np.array([0.4, 0.4]))
    0.5
    """
    truth_gap = np.sign(truth[:, None] - truth[None, :])
    predicted_gap = np.sign(predicted[:, None] - predicted[None, :])
    compared = truth_gap > 0
    return float(np.mean((truth_gap * predicted_gap)[compared] + 1.0) / 2.0) if compared.any() else 0.5


def _scaling(rows: np.ndarray, blocks: Sequence[np.ndarray], centre: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(columns, mean, scale) that put the chosen blocks of `rows` on one footing: each block has unit total variance
    (an embedding block is scaled as a whole, keeping its geometry; a block of a few scores column by column).
    Without `centre` (differences of pairs, whose mean is the signal) the mean is 0 and the spread a root mean
    square."""
    columns = np.concatenate(blocks)
    data = rows[:, columns]
    mean = data.mean(axis=0) if centre else np.zeros(len(columns))
    deviation = np.sqrt(np.mean((data - mean) ** 2, axis=0))
    scales, start = [], 0
    for block in blocks:
        part = deviation[start : start + len(block)]
        start += len(block)
        if len(block) <= 3:
            scales.append(np.where(part > 1e-12, part, 1.0) * np.sqrt(len(block)))
        else:
            total = float(np.sqrt(np.sum(part**2)))
            scales.append(np.full(len(block), total if total > 1e-12 else 1.0))
    return columns, mean, np.concatenate(scales)


def _ridge_paths(x: np.ndarray, y: np.ndarray, groups: np.ndarray, intercept: bool) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-group-out predictions of a ridge fit of `y` on `x` for every penalty in `ALPHAS` (one row each; the
    examples of a group, e.g. those answering one query, are left out together), and the per-penalty dual
    coefficients (`x.T @ dual` are the weights), both in closed form from one eigendecomposition. With
    `intercept`, the intercept is unpenalised (`x` and `y` are centred)."""
    n = len(y)
    offset = y.mean() if intercept else 0.0
    xc = x - x.mean(axis=0) if intercept else x
    yc = y - offset
    eigenvalues, vectors = np.linalg.eigh(xc @ xc.T)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    projected = vectors.T @ yc
    members = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    loo, duals = [], []
    for alpha in ALPHAS:
        kept = alpha / (eigenvalues + alpha)  # the share of each direction the fit does not explain
        residual = vectors @ (kept * projected)
        unexplained = (vectors * kept) @ vectors.T - (1.0 / n if intercept else 0.0)  # I - H
        predictions = np.empty(n)
        for group in members:
            block = unexplained[np.ix_(group, group)]
            predictions[group] = y[group] - np.linalg.lstsq(block, residual[group], rcond=1e-10)[0]
        loo.append(predictions)
        duals.append(vectors @ (projected / (eigenvalues + alpha)))
    return np.asarray(loo), np.asarray(duals)


@dataclass(frozen=True)
class _Choice:
    blocks: tuple[str, ...]
    alpha_index: int
    columns: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    loo: np.ndarray
    dual: np.ndarray


def _choose(rows: np.ndarray, y: np.ndarray, groups: np.ndarray, blocks: dict[str, np.ndarray], intercept: bool) -> _Choice:
    """The block combination and penalty with the lowest leave-one-group-out squared error (stronger penalties win
    ties)."""
    best: tuple[float, _Choice] | None = None
    for names in candidate_blocks(blocks):
        columns, mean, scale = _scaling(rows, [blocks[n] for n in names], intercept)
        x = (rows[:, columns] - mean) / scale
        loo, duals = _ridge_paths(x, y, groups, intercept)
        target = y if intercept else np.ones_like(y)
        errors = np.mean((loo - target) ** 2, axis=1)
        for index in reversed(range(len(ALPHAS))):
            if best is None or errors[index] < best[0] - 1e-12:
                best = (float(errors[index]), _Choice(names, index, columns, mean, scale, loo[index], duals[index]))
    assert best is not None
    return best[1]


def _weights(rows: np.ndarray, y: np.ndarray, choice: _Choice, intercept: bool) -> tuple[np.ndarray, float]:
    """Weights over every column of `rows` (zero outside the chosen blocks) and the bias of the chosen ridge fit, in
    the rows' own units."""
    x = (rows[:, choice.columns] - choice.mean) / choice.scale
    xc = x - x.mean(axis=0) if intercept else x
    standardised = xc.T @ choice.dual
    weights = np.zeros(rows.shape[1])
    weights[choice.columns] = standardised / choice.scale
    centre = x.mean(axis=0) if intercept else np.zeros(len(choice.columns))
    bias = (y.mean() if intercept else 0.0) - float(standardised @ (centre + choice.mean / choice.scale))
    return weights, bias


def _nested_loo(rows: np.ndarray, y: np.ndarray, groups: np.ndarray, blocks: dict[str, np.ndarray],
                intercept: bool) -> np.ndarray:
    """Each example's prediction by a head chosen and fitted without its group (the honest leave-one-out figure:
    examples that answer the same query are left out together, or a pass and a fail answer to one query would each
    be judged by the other), less the mean label of the examples it was fitted on: leaving a high example out
    lowers that mean, which alone would order a near-constant head's predictions backwards."""
    predictions = np.empty(len(y))
    for group in np.unique(groups):
        out = groups == group
        choice = _choose(rows[~out], y[~out], groups[~out], blocks, intercept)
        weights, bias = _weights(rows[~out], y[~out], choice, intercept)
        predictions[out] = rows[out] @ weights + bias - (y[~out].mean() if intercept else 0.0)
    return predictions


def example_groups(keys: Sequence[str]) -> np.ndarray:
    """Group numbers of examples by a key (their query; each example its own group when none is given, or when
    fewer than three groups would leave too little to fit on).

    >>> example_groups(["a", "b", "a", "c"]).tolist()
    [0, 1, 0, 2]
    >>> example_groups(["a", "a", "a", "b"]).tolist()
    [0, 1, 2, 3]
    """
    numbers: dict[str, int] = {}
    groups = np.array([numbers.setdefault(key, len(numbers)) if key else -1 - i for i, key in enumerate(keys)])
    return groups if len(np.unique(groups)) >= 3 else np.arange(len(keys))


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
    loo_agreement: float
    """Leave-one-out agreement on its own examples, the choice of features and penalty redone without each one:
    the share of differently scored example pairs ordered right (pairs: the share of pairs ordered right)."""
    spread: float
    """max - min of the head's leave-one-out scores of its examples, on [0, 1] (ranking heads: of their scores)."""
    reads: tuple[str, ...]
    """The feature blocks it reads (`answer embedding`, `query match`, `query similarity`, `consistency verdict`)."""
    alpha: float
    """The ridge penalty chosen, on block-scaled features."""

    @property
    def separable(self) -> bool:
        """Whether the head separates its examples well enough to score with (see `MIN_AGREEMENT`, `MIN_SPREAD`)."""
        return self.loo_agreement >= MIN_AGREEMENT and (self.ranking or self.spread >= MIN_SPREAD)

    def score(self, rows: np.ndarray) -> np.ndarray:
        raw = rows @ self.weights + self.bias
        if self.ranking:
            return 1.0 / (1.0 + np.exp(-raw))
        return np.clip(raw, 0.0, 1.0)

    def describe(self) -> str:
        """What the head is and how well it separates its examples, in one phrase."""
        kind = f"ranking head on {self.examples} pairs" if self.ranking else f"regression head on {self.examples} examples"
        spread = "" if self.ranking else f", spread {self.spread:.2f}"
        return (f"example-fitted {kind} reading {' + '.join(self.reads)} (digest {self.digest}, leave-one-out "
                f"agreement {self.loo_agreement:.2f}{spread})")

    def problem(self) -> str | None:
        """Why the head cannot score (None when it can)."""
        if self.separable:
            return None
        short = [f"leave-one-out agreement {self.loo_agreement:.2f} < {MIN_AGREEMENT}"] if self.loo_agreement < MIN_AGREEMENT else []
        if not self.ranking and self.spread < MIN_SPREAD:
            short.append(f"its predictions span {self.spread:.2f} < {MIN_SPREAD} (near-constant)")
        return (f"the {self.describe()} cannot separate its examples ({'; '.join(short)}), so the dimension is "
                f"unscored ({NOT_SEPARABLE}) and left out of every item's reward; write examples that differ in what "
                "the criterion judges (and give them `evidence` when it is about support), add more, or score with an "
                "LLM judge")


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


def fit_regression(rows: np.ndarray, labels: np.ndarray, groups: np.ndarray, blocks: dict[str, np.ndarray]) -> dict:
    """The fields of a regression head fitted on feature `rows` of scored examples."""
    choice = _choose(rows, labels, groups, blocks, intercept=True)
    weights, bias = _weights(rows, labels, choice, intercept=True)
    # Rescale on the leave-one-out predictions: a strongly regularised head predicts near the mean, which would
    # serve every item ~ the same score; the leave-one-out line maps its predictions back onto the labels' scale.
    # It never stretches the examples' own predictions past the labels' range (a weakly regularised head fits them).
    slope, offset = np.polyfit(choice.loo, labels, 1) if np.ptp(choice.loo) > 1e-12 else (0.0, labels.mean())
    fitted_span = float(np.ptp(rows @ weights))
    ceiling = max(1.0, float(np.ptp(labels)) / fitted_span) if fitted_span > 1e-12 else 1.0
    slope = float(np.clip(slope, 1.0, min(20.0, ceiling))) if slope > 0 else 0.0
    offset = float(labels.mean() - slope * choice.loo.mean()) if slope else float(labels.mean())
    honest = _nested_loo(rows, labels, groups, blocks, intercept=True)
    spread = float(np.ptp(np.clip(offset + slope * choice.loo, 0.0, 1.0)))
    return {"weights": weights * slope, "bias": offset + slope * bias, "ranking": False,
            "loo_agreement": round(agreement(labels, honest), 4), "spread": round(spread, 4), "reads": choice.blocks,
            "alpha": float(ALPHAS[choice.alpha_index])}


def fit_ranking(better: np.ndarray, worse: np.ndarray, groups: np.ndarray, blocks: dict[str, np.ndarray]) -> dict:
    """The fields of a ranking head fitted on feature rows of better and worse responses, pair by pair."""
    differences = better - worse
    ones = np.ones(len(differences))
    choice = _choose(differences, ones, groups, blocks, intercept=False)
    weights, _ = _weights(differences, ones, choice, intercept=False)
    honest = _nested_loo(differences, ones, groups, blocks, intercept=False)
    margins = np.concatenate([better @ weights, worse @ weights])
    gap = max(float(np.mean(differences @ weights)), 1e-6)
    steepness = 4.0 / gap  # a typical pair's better and worse response score ~0.88 and ~0.12
    return {"weights": weights * steepness, "bias": -float(np.median(margins)) * steepness, "ranking": True,
            "loo_agreement": round(float(np.mean(honest > 0) + 0.5 * np.mean(honest == 0)), 4),
            "spread": round(float(np.ptp(1.0 / (1.0 + np.exp(-(margins - np.median(margins)) * steepness)))), 4),
            "reads": choice.blocks, "alpha": float(ALPHAS[choice.alpha_index])}


async def fit_head(local: LocalSpec, embed: Embed, support: Support | None = None) -> ExampleHead:
    """Fit the head of a dimension's examples (scored examples win over pairs when both are given)."""
    digest = examples_digest(local)
    if local.examples:
        uses_query = any(e.query for e in local.examples)
        uses_evidence = any(e.evidence for e in local.examples)
        rows = await _embed_texts(embed, [e.response for e in local.examples],
                                  [e.query for e in local.examples] if uses_query else None,
                                  [e.evidence for e in local.examples] if uses_evidence else None, support)
        labels = np.array([e.score for e in local.examples], dtype=np.float64)
        width = rows.shape[1] - (3 if uses_evidence else 0)
        width = (width - 1) // 2 if uses_query else width
        fitted = fit_regression(rows, labels, example_groups([e.query for e in local.examples]),
                                feature_blocks(width, uses_query, uses_evidence))
        return ExampleHead(uses_query=uses_query, uses_evidence=uses_evidence, examples=len(labels), digest=digest,
                           **fitted)
    uses_query = any(p.query for p in local.pairs)
    uses_evidence = any(p.evidence for p in local.pairs)
    queries = [p.query for p in local.pairs] if uses_query else None
    evidence = [p.evidence for p in local.pairs] if uses_evidence else None
    better = await _embed_texts(embed, [p.better for p in local.pairs], queries, evidence, support)
    worse = await _embed_texts(embed, [p.worse for p in local.pairs], queries, evidence, support)
    width = better.shape[1] - (3 if uses_evidence else 0)
    width = (width - 1) // 2 if uses_query else width
    fitted = fit_ranking(better, worse, example_groups([p.query for p in local.pairs]),
                         feature_blocks(width, uses_query, uses_evidence))
    return ExampleHead(uses_query=uses_query, uses_evidence=uses_evidence, examples=len(local.pairs), digest=digest,
                       **fitted)


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
        if head.problem():
            log.warning("%s", head.problem())
        self._heads[digest] = head
        future.set_result(head)
        return head


async def score_with_examples(local: LocalSpec, cache: HeadCache, embed: Embed, query: str, response: str,
                              parsed: ParsedResponse | None = None, evidence: Sequence[str] = (),
                              support: Support | None = None) -> tuple[float, str]:
    """(score, explanation) of one response by the dimension's example-fitted head; `evidence`: the passages the
    response selected (or all of the interaction's), read when the examples give evidence. Raises
    `ExamplesNotSeparable` (before reading the response) when the head cannot separate its examples."""
    head = await cache.head(local, embed, support)
    if head.problem():
        raise ExamplesNotSeparable(head.problem())
    rows = await _embed_answers(embed, [answer_text(response, parsed)], [query] if head.uses_query else None,
                                [list(evidence)] if head.uses_evidence else None, support)
    score = float(head.score(rows)[0])
    return score, f"{head.describe()}: {score:.3f}"

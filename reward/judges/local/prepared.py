"""Evidence embeddings prepared ahead: the MiniLM vectors of what the local tier embeds from an interaction alone (its
evidence passages, sentences and windows, the query and the session's need), computed once at data preparation and
loaded by every scoring replica, so a GRPO step embeds only what its rollouts wrote.

    reward prepare-embeddings --input logs.jsonl --out var/embeddings.npz
    REWARD_PREPARED_EMBEDDINGS=var/embeddings.npz reward serve ...

Which texts those are is not listed here: each interaction is scored with two placeholder answers, and the texts the
embedder was asked for under both are the ones that do not depend on the answer. A text the file lacks is embedded
when first needed, as without a file.

Scores do not move: a vector in the file is the one the replica would compute, because the local tier embeds one text
per forward (`local_runtime.forward_each`) on the same runtime. The file records that runtime (with the thread count
where the runtime's kernels depend on it), the model's digest and the export version; a replica whose embedder differs
refuses the file rather than score with another runtime's vectors.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from reward.schema import Item

log = logging.getLogger(__name__)

ENV = "REWARD_PREPARED_EMBEDDINGS"
"""The environment variable naming the file a `LocalJudge` loads at construction (several, separated by the path
separator `:`, for a data set prepared in shards)."""


def paths_setting() -> list[Path]:
    """The files `ENV` names, in order; none when it is unset or empty."""
    return [Path(part.strip()) for part in os.environ.get(ENV, "").split(os.pathsep) if part.strip()]


class PreparedEmbeddingsError(ValueError):
    """A prepared-embeddings file that cannot be used: unreadable, malformed, or from another embedder."""


def embedder_key(encoder) -> str:
    """What a vector depends on: the encoder's runtime (and thread count for torch's kernels, which split sums by
    thread), the model files' digest and the export version."""
    from reward.judges.local_runtime import EXPORT_VERSION, file_digest, minilm_path, threads_setting

    runtime = getattr(encoder, "runtime", "torch")
    threads = f":t{threads_setting()}" if "torch" in runtime else ""
    base = minilm_path()
    return f"{runtime}{threads}:{file_digest(base / 'model.safetensors', base / 'config.json')}:v{EXPORT_VERSION}"


def placeholders(item: Item) -> tuple[str, str]:
    """Two answers in the policy format that cite every evidence item and share no sentence: what the tier embeds
    under both comes from the interaction, not from the answer."""
    ids = ", ".join(doc.id for doc in item.evidence) or "none"
    cite = f" [Doc {item.evidence[0].id}]" if item.evidence else ""
    first = item.evidence[0].title if item.evidence else "this"

    def answer(plan: str, body: str) -> str:
        return f"<plan>\n1. {plan}{cite}\n</plan>\n<evidence>{ids}</evidence>\n<answer>\n{body}\n</answer>"

    return (answer("Answer from the sources", f"The sources describe {first} in detail{cite}."),
            answer("Summarise what is given", f"According to the pages, the answer concerns {first}{cite}. "
                                              f"More is given there{cite}."))


def _interaction_key(item: Item) -> tuple:
    return (item.query, tuple((t.role, t.content) for t in item.history),
            tuple((d.id, d.title, d.text, d.published) for d in item.evidence), item.now)


async def prepare(items: Iterable[Item], suite, judge=None, progress=None) -> tuple[list[str], np.ndarray, str]:
    """The texts the local tier embeds from these items' interactions alone (each distinct interaction once), their
    vectors and the embedder's key. `suite` is the suite the replicas score with (its dimensions decide what is
    embedded)."""
    from reward.engine import Engine
    from reward.judges.local import LocalJudge

    judge = judge or LocalJudge()
    embedder = judge.embedder
    asked: list[str] = []
    original = embedder.embed

    async def recording(texts: Sequence[str]) -> np.ndarray:
        asked.extend(texts)
        return await original(texts)

    embedder.embed = recording
    engine = Engine(suite, judge)
    kept: dict[str, None] = {}
    try:
        seen = set()
        for item in items:
            key = _interaction_key(item)
            if key in seen:
                continue
            seen.add(key)
            under = []
            for number, response in enumerate(placeholders(item)):
                asked.clear()
                await engine.score([item.model_copy(update={"id": f"prepare-{number}", "group": None,
                                                            "response": response})])
                under.append(set(asked))
            kept.update(dict.fromkeys(sorted(under[0] & under[1])))
            if progress is not None:
                progress()
    finally:
        embedder.embed = original
    texts = list(kept)
    vectors = await embedder.embed(texts) if texts else np.zeros((0, 384), dtype=np.float32)
    return texts, np.asarray(vectors, dtype=np.float32), embedder_key(embedder.model())


def write(path: Path, texts: Sequence[str], vectors: np.ndarray, key: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:  # np.savez appends ".npz" to a name without it; a handle keeps the name
        np.savez(handle, texts=np.asarray(list(texts), dtype=np.str_), vectors=vectors.astype(np.float32),
                 key=np.asarray(key))


def read(path: Path) -> tuple[list[str], np.ndarray, str]:
    """The file's texts, vectors and key; `PreparedEmbeddingsError` naming the file when it is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            texts, vectors, key = [str(t) for t in data["texts"]], data["vectors"], str(data["key"])
    except FileNotFoundError:
        raise PreparedEmbeddingsError(f"{ENV}={path}: file not found") from None
    except (OSError, ValueError, KeyError) as exc:
        raise PreparedEmbeddingsError(f"{ENV}={path}: not a prepared-embeddings file ({exc})") from None
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) or vectors.dtype != np.float32:
        raise PreparedEmbeddingsError(f"{ENV}={path}: {len(texts)} texts but vectors of shape {vectors.shape} "
                                      f"({vectors.dtype})")
    return texts, vectors, key


def load_into(embedder, path: Path) -> int:
    """Put the file's vectors in `embedder`'s cache; the number of texts. Refuses (`PreparedEmbeddingsError`) a
    file prepared with another embedder (runtime, thread count where it matters, model or export)."""
    texts, vectors, key = read(path)
    expected = embedder_key(embedder.model())
    if key != expected:
        raise PreparedEmbeddingsError(f"{ENV}={path}: prepared with embedder {key}, this process runs {expected}; "
                                      "prepare it again with this runtime")
    embedder.preload(dict(zip(texts, vectors, strict=True)))
    log.info("loaded %d prepared embeddings from %s", len(texts), path)
    return len(texts)


def prepare_sync(items: Iterable[Item], suite, judge=None) -> tuple[list[str], np.ndarray, str]:
    return asyncio.run(prepare(items, suite, judge))

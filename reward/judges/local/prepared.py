"""Evidence embeddings prepared ahead: the MiniLM vectors of what the local tier embeds from an interaction alone (its
evidence passages, sentences and windows, the query and the session's need), computed once at data preparation and
read by every scoring replica, so a GRPO step embeds only what its rollouts wrote.

    reward prepare-embeddings --input logs.jsonl --out var/embeddings
    REWARD_PREPARED_EMBEDDINGS=var/embeddings reward serve ...

Which texts those are is not listed here: each interaction is scored with two placeholder answers, and the texts the
embedder was asked for under both are the ones that do not depend on the answer. A text the folder lacks is embedded
when first needed, as without one.

The folder holds each text's digest and vector (`vectors.npy`, memory-mapped: the replicas of a machine share one
copy, and a data set far larger than the embedder's cache costs no memory until its rows are read). The embedder
reads it where it would otherwise run the model, so what it reads is cached like what it computes.

Scores do not move: a vector in the folder is the one the replica would compute, because the local tier embeds one
text per forward (`local_runtime.forward_each`) on the same runtime. The folder records that runtime (with the thread
count where the runtime's kernels depend on it), the model's digest and the export version; a replica whose embedder
differs refuses it rather than score with another runtime's vectors.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from reward.schema import Item

log = logging.getLogger(__name__)

ENV = "REWARD_PREPARED_EMBEDDINGS"
"""The environment variable naming the folder a `LocalJudge` reads (several, separated by the path separator `:`,
for a data set prepared in shards)."""


def paths_setting() -> list[Path]:
    """The files `ENV` names, in order; none when it is unset or empty."""
    return [Path(part.strip()) for part in os.environ.get(ENV, "").split(os.pathsep) if part.strip()]


class PreparedEmbeddingsError(ValueError):
    """A prepared-embeddings folder that cannot be used: missing, malformed, or from another embedder."""


def embedder_key(runtime: str | None = None) -> str:
    """What a vector depends on, read from the settings (the model is not loaded): the embedder's runtime (int8 with
    its recipe; torch with its thread count, its kernels split sums by thread), the library that runs it and its
    version, the CPU's vector instructions (the kernels differ by instruction set), the model files' digest and the
    export version."""
    import platform

    from reward.judges.local_runtime import (EXPORT_VERSION, INT8_RECIPE, embedder_runtime, minilm_digest,
                                             runtime_setting, threads_setting)

    runtime = embedder_runtime(runtime or runtime_setting())
    if runtime.startswith("torch"):
        import torch

        embedder = f"{runtime}:t{threads_setting()}:torch-{torch.__version__}"
    else:
        import onnxruntime

        embedder = f"{runtime.replace('int8', f'int8{INT8_RECIPE}')}:onnxruntime-{onnxruntime.__version__}"
    return f"{embedder}:{platform.machine()}-{_instruction_set()}:{minilm_digest()}:v{EXPORT_VERSION}"


@functools.cache
def _instruction_set() -> str:
    """The CPU's vector instruction sets (a digest of them), from /proc/cpuinfo (Linux); "unknown" elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            flags = next((line.split(":", 1)[1].split() for line in handle if line.startswith(("flags", "Features"))), [])
    except OSError:
        return "unknown"
    kept = sorted(f for f in flags if f.startswith(("avx", "sse4", "fma", "amx", "asimd", "sve", "f16c")))
    return "isa" + hashlib.sha256(" ".join(kept).encode()).hexdigest()[:8]


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


def interaction_key(item: Item) -> tuple:
    return (item.query, tuple((t.role, t.content) for t in item.history),
            tuple((d.id, d.title, d.text, d.published) for d in item.evidence), item.now)


async def prepare(items: Iterable[Item], suite, judge=None, progress=None) -> tuple[list[str], np.ndarray, str]:
    """The texts the local tier embeds from these items' interactions alone (each distinct interaction once), their
    vectors and the embedder's key. `suite` is the suite the replicas score with (its dimensions decide what is
    embedded)."""
    from reward.engine import Engine
    from reward.judges.local import LocalJudge

    judge = judge or LocalJudge(read_prepared=False)  # (vectors are computed here, never copied from another folder)
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
            key = interaction_key(item)
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
    return texts, np.asarray(vectors, dtype=np.float32), embedder_key()


DIGEST_BYTES = 16
"""Each text is looked up by the first 16 bytes of its SHA-256: the file holds no text, and a collision between two
texts of one data set (2^-64 for a billion texts) is out of reach."""


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:DIGEST_BYTES]


def write(path: Path, texts: Sequence[str], vectors: np.ndarray, key: str) -> None:
    """A folder of the texts' digests (sorted), their vectors in the same order and the embedder's key; written
    beside the target and renamed into place, so a reader never sees half a folder. An existing prepared folder is
    replaced; anything else at `path` is refused (`ValueError` naming it), never deleted."""
    digests = np.asarray([digest(t) for t in texts], dtype=f"S{DIGEST_BYTES}")
    order = np.argsort(digests, kind="stable")
    digests, vectors = digests[order], np.ascontiguousarray(vectors[order], dtype=np.float32)
    if len(digests) > 1 and (digests[1:] == digests[:-1]).any():
        raise ValueError("two texts share a digest: repeated texts must be removed first")
    path = Path(path)
    check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))  # one per writer
    try:
        np.save(staging / "digests.npy", digests)
        np.save(staging / "vectors.npy", vectors)
        (staging / "key.txt").write_text(f"{key}\n{_checksum(digests, vectors)}\n", encoding="utf-8")
        check_replaceable(path)  # (checked again: another writer may have put something there meanwhile)
        if path.exists():
            shutil.rmtree(path)
        staging.rename(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


FILES = frozenset({"digests.npy", "vectors.npy", "key.txt"})


def check_writable(path: Path) -> None:
    """`ValueError` naming `path` unless a prepared folder can be written there (`check_replaceable`, and its parent
    folder can be made and written to): checked before the work that fills it."""
    check_replaceable(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent)).rmdir()
    except OSError as exc:
        raise ValueError(f"{path}: cannot write a folder there ({exc.strerror or exc})") from None


def check_replaceable(path: Path) -> None:
    """Only a prepared folder is replaced: a file, or a folder holding anything else, is the user's and stays."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise ValueError(f"{path}: exists and is not a prepared-embeddings folder; choose another --out")
    if path.is_dir() and {child.name for child in path.iterdir()} - FILES:
        raise ValueError(f"{path}: a folder holding other files than a prepared one's ({', '.join(sorted(FILES))}); "
                         "choose another --out")


def _checksum(digests: np.ndarray, vectors: np.ndarray) -> str:
    digest_ = hashlib.sha256(np.ascontiguousarray(digests).tobytes())
    digest_.update(np.ascontiguousarray(vectors).tobytes())
    return f"sha256:{digest_.hexdigest()}"


class PreparedStore:
    """The vectors of a prepared folder, memory-mapped: replicas on one machine share one copy through the page cache,
    and only the rows a step reads are brought in."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.key, checksum = [*(self.path / "key.txt").read_text(encoding="utf-8").split(), "", ""][:2]
            self.digests = np.load(self.path / "digests.npy", mmap_mode="r", allow_pickle=False)
            self.vectors = np.load(self.path / "vectors.npy", mmap_mode="r", allow_pickle=False)
        except FileNotFoundError as exc:
            what = "file not found" if not self.path.exists() else f"{Path(exc.filename).name} is missing"
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: {what}") from None
        except (OSError, ValueError) as exc:
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: not a prepared-embeddings folder ({exc})") from None
        rows = len(self.digests)
        if (self.digests.dtype != np.dtype(f"S{DIGEST_BYTES}") or self.vectors.dtype != np.float32
                or self.vectors.shape != (rows, 384)):
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: {rows} digests ({self.digests.dtype}) but vectors of "
                                          f"shape {self.vectors.shape} ({self.vectors.dtype})")
        if rows > 1 and not (self.digests[1:] > self.digests[:-1]).all():
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: its digests are not sorted")
        # Read once in full: a copy cut short or a flipped bit would otherwise change scores without a word.
        if not self.key or checksum != _checksum(self.digests, self.vectors):
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: its vectors do not match the checksum in key.txt "
                                          "(damaged, or changed after it was prepared); prepare it again")

    def __len__(self) -> int:
        return len(self.digests)

    def find(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of those of `texts` the folder holds (copies, not views of the mapped file)."""
        if not texts or not len(self.digests):
            return {}
        wanted = np.asarray([digest(t) for t in texts], dtype=f"S{DIGEST_BYTES}")
        rows = np.minimum(np.searchsorted(self.digests, wanted), len(self.digests) - 1)
        hit = self.digests[rows] == wanted
        return {text: np.array(self.vectors[row]) for text, row, ok in zip(texts, rows, hit) if ok}


def read(path: Path) -> PreparedStore:
    """The folder's store; `PreparedEmbeddingsError` naming it when it is not one."""
    return PreparedStore(path)


def check_key(store: PreparedStore) -> None:
    """`PreparedEmbeddingsError` unless the folder was prepared by the embedder this process runs."""
    expected = embedder_key()
    if store.key != expected:
        raise PreparedEmbeddingsError(
            f"{ENV}={store.path}: prepared with embedder {store.key}, this process runs {expected}; prepare it again "
            "where and as the replicas run (REWARD_LOCAL_RUNTIME, and REWARD_LOCAL_THREADS for torch)")


def load_into(embedder, path: Path) -> int:
    """Let `embedder` read the folder's vectors where it would otherwise run the model; the number of texts it holds.
    Refuses (`PreparedEmbeddingsError`) a folder prepared with another embedder (runtime, thread count where it
    matters, model or export)."""
    store = read(path)
    check_key(store)
    embedder.add_prepared(store)
    log.info("prepared embeddings: %d texts from %s", len(store), path)
    return len(store)


def prepare_sync(items: Iterable[Item], suite, judge=None) -> tuple[list[str], np.ndarray, str]:
    return asyncio.run(prepare(items, suite, judge))

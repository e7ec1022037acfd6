"""Evidence prepared ahead: what the local tier computes from an interaction alone, computed once at data
preparation and read by every scoring replica, so a GRPO step runs the models only on what its rollouts wrote. That
is the MiniLM vectors of the evidence passages, sentences and windows, the query and the session's need, and the
consistency cross-encoder's probabilities for pairs of the interaction's own texts (a passage read against another
for conflicting evidence).

    reward prepare-embeddings --input logs.jsonl --out var/embeddings
    REWARD_PREPARED_EMBEDDINGS=var/embeddings reward serve ...

Which texts and pairs those are is not listed here: each interaction is scored with two placeholder answers, and what
the models were asked for under both is what does not depend on the answer. A text or pair the folder lacks is
computed when first needed, as without one.

The folder holds each text's digest and vector (`vectors.npy`, memory-mapped: the replicas of a machine share one
copy, and a data set far larger than the caches costs no memory until its rows are read) and each pair's digest and
probabilities (`pair-probabilities.npy`). The embedder and the cross-encoder read it where they would otherwise run
their model, so what they read is cached like what they compute.

Scores do not move: a vector or a probability in the folder is the one the replica would compute, because the local
tier runs one text or pair per forward (`local_runtime.forward_each`) on the same runtime. The folder records each
model's runtime (with the thread count where the runtime's kernels depend on it), the CPU's instruction set, the
model's digest and the export version; a replica whose models differ refuses it rather than score with another
runtime's numbers. A folder prepared before pairs were kept (vectors only) is still read.
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
from typing import NamedTuple

import numpy as np

from reward.schema import Item

log = logging.getLogger(__name__)

ENV = "REWARD_PREPARED_EMBEDDINGS"
"""The environment variable naming the folder a `LocalJudge` reads (several, separated by the path separator `:`,
for a data set prepared in shards)."""


def paths_setting() -> list[Path]:
    """The files `ENV` names, in order; none when it is unset or empty."""
    return [Path(part.strip()) for part in os.environ.get(ENV, "").split(os.pathsep) if part.strip()]


class Prepared(NamedTuple):
    """What `prepare` computed: the texts, their vectors and the embedder's key; the pairs, their probabilities and
    the cross-encoder's key."""

    texts: list[str]
    vectors: np.ndarray
    key: str
    pairs: list[tuple[str, str]]
    probabilities: np.ndarray
    pair_key: str


AGAIN = "prepare it again with `reward prepare-embeddings`, or unset the variable"


class PreparedEmbeddingsError(ValueError):
    """A prepared-embeddings folder that cannot be used: missing, malformed, or from another embedder."""


def embedder_key(runtime: str | None = None) -> str:
    """What a vector depends on, read from the settings (the model is not loaded): the embedder's runtime and CPU
    (`_runtime_key`), the model files' digest and the export version."""
    from reward.judges.local_runtime import EXPORT_VERSION, embedder_runtime, minilm_digest, runtime_setting

    return f"{_runtime_key(embedder_runtime(runtime or runtime_setting()))}:{minilm_digest()}:v{EXPORT_VERSION}"


def cross_encoder_key(runtime: str | None = None) -> str:
    """What a pair's probabilities depend on, read from the settings (the model is not loaded): the cross-encoder's
    runtime and CPU (`_runtime_key`), the digest of the base weights, adapter and head, the longest pair it reads and
    the export version."""
    from reward.judges.consistency import MAX_LENGTH, shipped_built_from
    from reward.judges.local_runtime import EXPORT_VERSION, cross_encoder_runtime, runtime_setting

    return (f"{_runtime_key(cross_encoder_runtime(runtime or runtime_setting()))}:{shipped_built_from()}"
            f":l{MAX_LENGTH}:v{EXPORT_VERSION}")


def _runtime_key(runtime: str) -> str:
    """What a model's numbers depend on besides its files: its runtime (int8 with its recipe; torch with its thread
    count, its kernels split sums by thread), the library that runs it and its version, and the CPU's vector
    instructions (the kernels differ by instruction set)."""
    import platform

    from reward.judges.local_runtime import INT8_RECIPE, threads_setting

    if runtime.startswith("torch"):
        import torch

        model = f"{runtime}:t{threads_setting()}:torch-{torch.__version__}"
    else:
        import onnxruntime

        model = f"{runtime.replace('int8', f'int8{INT8_RECIPE}')}:onnxruntime-{onnxruntime.__version__}"
    return f"{model}:{platform.machine()}-{_instruction_set()}"


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


async def prepare(items: Iterable[Item], suite, judge=None, progress=None) -> Prepared:
    """What the local tier computes from these items' interactions alone (each distinct interaction once): the texts
    it embeds and the pairs the cross-encoder reads, with their vectors, probabilities and the models' keys. `suite`
    is the suite the replicas score with (its dimensions decide what is computed)."""
    from reward.engine import Engine
    from reward.judges.local import LocalJudge

    judge = judge or LocalJudge(read_prepared=False)  # (everything is computed here, never copied from another folder)
    embedder, scorer = judge.embedder, judge.scorer
    asked: list[str] = []
    paired: list[tuple[str, str]] = []
    embed, probabilities = embedder.embed, scorer.probabilities

    async def embedding(texts: Sequence[str]) -> np.ndarray:
        asked.extend(texts)
        return await embed(texts)

    async def scoring(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        paired.extend(pairs)
        return await probabilities(pairs)

    embedder.embed, scorer.probabilities = embedding, scoring
    engine = Engine(suite, judge)
    kept: dict[str, None] = {}
    kept_pairs: dict[tuple[str, str], None] = {}
    try:
        seen = set()
        for item in items:
            key = interaction_key(item)
            if key in seen:
                continue
            seen.add(key)
            under, under_pairs = [], []
            for number, response in enumerate(placeholders(item)):
                asked.clear()
                paired.clear()
                await engine.score([item.model_copy(update={"id": f"prepare-{number}", "group": None,
                                                            "response": response})])
                under.append(set(asked))
                under_pairs.append(set(paired))
            kept.update(dict.fromkeys(sorted(under[0] & under[1])))
            kept_pairs.update(dict.fromkeys(sorted(under_pairs[0] & under_pairs[1])))
            if progress is not None:
                progress()
    finally:
        embedder.embed, scorer.probabilities = embed, probabilities
    texts, pairs = list(kept), list(kept_pairs)
    vectors = await embedder.embed(texts) if texts else np.zeros((0, 384), dtype=np.float32)
    rows = await scorer.probabilities(pairs) if pairs else np.zeros((0, PAIR_COLUMNS), dtype=np.float32)
    return Prepared(texts, np.asarray(vectors, dtype=np.float32), embedder_key(), pairs,
                    np.asarray(rows, dtype=np.float32), cross_encoder_key())


DIGEST_BYTES = 16
"""Each text is looked up by the first 16 bytes of its SHA-256: the file holds no text, and a collision between two
texts of one data set (2^-64 for a billion texts) is out of reach."""


PAIR_COLUMNS = 3
"""P(supported, contradicted, unsupported) per pair (`consistency.LABELS`)."""


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:DIGEST_BYTES]


def pair_digest(pair: tuple[str, str]) -> bytes:
    """The pair's digest, over the evidence's length, the evidence and the claim (`consistency.pair_text`): no two
    pairs share one whatever their texts hold."""
    from reward.judges.consistency import pair_text

    return digest(pair_text(*pair))


def _sorted(digests: list[bytes], rows: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    digests = np.asarray(digests, dtype=f"S{DIGEST_BYTES}")
    order = np.argsort(digests, kind="stable")
    digests, rows = digests[order], np.ascontiguousarray(rows[order], dtype=np.float32)
    if len(digests) > 1 and (digests[1:] == digests[:-1]).any():
        raise ValueError(f"two {what} share a digest: repeated {what} must be removed first")
    return digests, rows


def write(path: Path, prepared: Prepared) -> None:
    """A folder of the texts' digests (sorted) and their vectors in the same order, the pairs' digests and their
    probabilities, and the models' keys; written beside the target and renamed into place, so a reader never sees
    half a folder. An existing prepared folder is replaced; anything else at `path` is refused (`ValueError` naming
    it), never deleted."""
    digests, vectors = _sorted([digest(t) for t in prepared.texts], prepared.vectors, "texts")
    pair_digests, rows = _sorted([pair_digest(p) for p in prepared.pairs],
                                 np.asarray(prepared.probabilities).reshape(-1, PAIR_COLUMNS), "pairs")
    path = Path(path)
    check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))  # one per writer
    try:
        mask = os.umask(0)
        os.umask(mask)
        staging.chmod(0o777 & ~mask)  # (readable as any folder the user makes: replicas may run as another user)
        np.save(staging / "digests.npy", digests)
        np.save(staging / "vectors.npy", vectors)
        np.save(staging / "pair-digests.npy", pair_digests)
        np.save(staging / "pair-probabilities.npy", rows)
        (staging / "key.txt").write_text(f"{prepared.key}\n{_checksum(digests, vectors)}\n{prepared.pair_key}\n"
                                         f"{_checksum(pair_digests, rows)}\n", encoding="utf-8")
        check_replaceable(path)  # (checked again: another writer may have put something there meanwhile)
        if path.exists():
            shutil.rmtree(path)
        staging.rename(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


FILES = frozenset({"digests.npy", "vectors.npy", "key.txt", "pair-digests.npy", "pair-probabilities.npy"})


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
    """The vectors and pair probabilities of a prepared folder, memory-mapped: replicas on one machine share one copy
    through the page cache, and only the rows a step reads are brought in."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            lines = (self.path / "key.txt").read_text(encoding="utf-8").split()
            self.key, checksum, self.pair_key, pair_checksum = [*lines, "", "", "", ""][:4]
            self.digests, self.vectors = self._load("digests.npy"), self._load("vectors.npy")
            if self.pair_key:
                self.pair_digests = self._load("pair-digests.npy")
                self.probabilities = self._load("pair-probabilities.npy")
            else:  # (a folder prepared before pairs were kept: vectors only)
                self.pair_digests = np.zeros(0, dtype=f"S{DIGEST_BYTES}")
                self.probabilities = np.zeros((0, PAIR_COLUMNS), dtype=np.float32)
        except FileNotFoundError as exc:
            what = ("no such folder" if not self.path.exists() else f"{Path(exc.filename).name} is missing")
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: {what}; {AGAIN}") from None
        except (OSError, ValueError) as exc:
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: not a prepared-embeddings folder ({exc}); {AGAIN}") from None
        if not self.key:
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: key.txt names no embedder; {AGAIN}")
        self._check(self.digests, self.vectors, 384, "vectors", checksum)
        if self.pair_key:
            self._check(self.pair_digests, self.probabilities, PAIR_COLUMNS, "pair probabilities", pair_checksum)

    def _load(self, name: str) -> np.ndarray:
        return np.load(self.path / name, mmap_mode="r", allow_pickle=False)

    def _check(self, digests: np.ndarray, rows: np.ndarray, width: int, what: str, checksum: str) -> None:
        count = len(digests)
        if digests.dtype != np.dtype(f"S{DIGEST_BYTES}") or rows.dtype != np.float32 or rows.shape != (count, width):
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: {count} digests ({digests.dtype}) but {what} of "
                                          f"shape {rows.shape} ({rows.dtype}); {AGAIN}")
        if count > 1 and not (digests[1:] > digests[:-1]).all():
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: its digests of {what} are not sorted; {AGAIN}")
        # Read once in full: a copy cut short or a flipped bit would otherwise change scores without a word.
        if checksum != _checksum(digests, rows):
            raise PreparedEmbeddingsError(f"{ENV}={self.path}: its {what} do not match the checksum in key.txt "
                                          f"(damaged, or changed after it was prepared); {AGAIN}")

    def __len__(self) -> int:
        return len(self.digests)

    @property
    def pair_count(self) -> int:
        return len(self.pair_digests)

    def find(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of those of `texts` the folder holds (copies, not views of the mapped file)."""
        return _find(self.digests, self.vectors, texts, [digest(t) for t in texts] if len(self.digests) else [])

    def find_pairs(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        """The probabilities of those of `pairs` the folder holds (copies)."""
        wanted = [pair_digest(p) for p in pairs] if len(self.pair_digests) else []
        return _find(self.pair_digests, self.probabilities, pairs, wanted)


def _find(digests: np.ndarray, rows: np.ndarray, keys: Sequence, wanted: list[bytes]) -> dict:
    if not wanted:
        return {}
    wanted = np.asarray(wanted, dtype=f"S{DIGEST_BYTES}")
    at = np.minimum(np.searchsorted(digests, wanted), len(digests) - 1)
    hit = digests[at] == wanted
    return {key: np.array(rows[row]) for key, row, ok in zip(keys, at, hit) if ok}


def read(path: Path) -> PreparedStore:
    """The folder's store; `PreparedEmbeddingsError` naming it when it is not one."""
    return PreparedStore(path)


def check_key(store: PreparedStore) -> None:
    """`PreparedEmbeddingsError` unless the folder was prepared by the embedder and the cross-encoder this process
    runs."""
    expected = embedder_key()
    if store.key != expected:
        raise PreparedEmbeddingsError(
            f"{ENV}={store.path}: prepared with embedder {store.key}, this process runs {expected}; prepare it again "
            "where and as the replicas run (REWARD_LOCAL_RUNTIME, and REWARD_LOCAL_THREADS for torch)")
    if store.pair_key and store.pair_key != (expected := cross_encoder_key()):
        raise PreparedEmbeddingsError(
            f"{ENV}={store.path}: prepared with cross-encoder {store.pair_key}, this process runs {expected}; prepare "
            "it again where and as the replicas run (REWARD_LOCAL_RUNTIME, and REWARD_LOCAL_THREADS for torch)")


def load_into(judge, path: Path) -> PreparedStore:
    """Let the judge's embedder and cross-encoder read the folder where they would otherwise run their model; the
    folder's store. Refuses (`PreparedEmbeddingsError`) a folder prepared with another embedder or cross-encoder
    (runtime, thread count where it matters, model or export)."""
    store = read(path)
    check_key(store)
    judge.embedder.add_prepared(store)
    judge.scorer.add_prepared(store)
    log.info("prepared evidence: %d texts and %d pairs from %s", len(store), store.pair_count, path)
    return store


def prepare_sync(items: Iterable[Item], suite, judge=None) -> Prepared:
    return asyncio.run(prepare(items, suite, judge))

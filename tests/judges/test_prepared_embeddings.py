"""Evidence embeddings prepared ahead (`reward prepare-embeddings`, `REWARD_PREPARED_EMBEDDINGS`): a replica that reads
them embeds fewer texts and scores every item bit-identically; a folder from another embedder, a damaged one or a
missing one is refused with its name, never used."""

import json

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
def prepared_folder(items, tmp_path_factory):
    texts, vectors, key = prepared.prepare_sync(items, load_suite("searchllm"))
    path = tmp_path_factory.mktemp("prepared") / "embeddings"
    prepared.write(path, texts, vectors, key)
    return path, texts, vectors, key


def _score(items, judge):
    """Every item's vector and the texts the judge's model embedded."""
    embedded = []
    encode = judge.embedder.encode
    judge.embedder.encode = lambda texts: embedded.extend(texts) or encode(texts)
    results = Engine(load_suite("searchllm"), judge).score_sync(items)
    return {r.id: vector(r) for r in results}, embedded


def test_a_replica_with_the_folder_embeds_fewer_texts_and_scores_bit_identically(items, prepared_folder, monkeypatch):
    path, texts, _, _ = prepared_folder
    assert len(texts) >= 20
    without, embedded_without = _score(items, LocalJudge())
    monkeypatch.setenv(prepared.ENV, str(path))
    with_folder, embedded_with = _score(items, LocalJudge())
    assert differences(without, with_folder) == []
    # Every prepared text the items needed came from the folder, none from the model.
    assert not set(embedded_with) & set(texts)
    assert len(embedded_with) < len(embedded_without) - len(texts) // 2, (len(embedded_with), len(embedded_without))
    # Nothing of the placeholder answers is in the folder: only what both of them made the tier embed.
    assert not [t for t in texts if "The sources describe" in t or "According to the pages" in t]


def test_the_store_finds_exactly_the_vectors_it_was_given(prepared_folder):
    path, texts, vectors, _ = prepared_folder
    store = prepared.read(path)
    assert len(store) == len(texts)
    found = store.find([*texts, "a text nobody prepared", ""])
    assert list(found) == list(texts)
    assert all(np.array_equal(found[t], v) for t, v in zip(texts, vectors))


def test_a_folder_from_another_embedder_is_refused_with_its_name(prepared_folder, tmp_path, monkeypatch):
    path, texts, vectors, key = prepared_folder
    other = tmp_path / "other"
    prepared.write(other, texts, vectors, "torch-bf16:t1:" + key.split(":", 1)[1])
    monkeypatch.setenv(prepared.ENV, str(other))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=r"other: prepared with embedder torch-bf16"):
        LocalJudge()


def test_serve_refuses_a_folder_from_another_embedder_before_it_starts(prepared_folder, tmp_path, monkeypatch, capsys):
    from reward.cli.main import main

    path, texts, vectors, key = prepared_folder
    other = tmp_path / "other"
    prepared.write(other, texts, vectors, "torch:t1:" + key.split(":", 1)[1])
    monkeypatch.setenv(prepared.ENV, str(other))
    assert main(["serve", "--port", "1"]) == 2
    said = " ".join(capsys.readouterr().err.split())  # (the console wraps long lines)
    assert "prepared with embedder" in said and f"this process runs {prepared.embedder_key().split(':')[0]}" in said, said


def test_preparing_computes_every_vector_whatever_folder_the_variable_names(items, monkeypatch):
    """A folder named for serving is not read while preparing: its vectors are never copied forward."""
    monkeypatch.setenv(prepared.ENV, "/nonexistent/folder")
    texts, vectors, _ = prepared.prepare_sync(items[:2], load_suite("searchllm"))
    assert texts and vectors.shape == (len(texts), 384)


@pytest.mark.parametrize("damage", ["missing", "no key", "not numpy", "short", "unsorted", "values changed"])
def test_a_damaged_or_missing_folder_is_refused_with_its_name(damage, prepared_folder, tmp_path, monkeypatch):
    path, texts, vectors, key = prepared_folder
    bad = tmp_path / "bad"
    if damage != "missing":
        prepared.write(bad, texts, vectors, key)
    if damage == "no key":
        (bad / "key.txt").unlink()
    elif damage == "not numpy":
        (bad / "vectors.npy").write_bytes(b"not a numpy file")
    elif damage == "short":
        np.save(bad / "vectors.npy", vectors[:3])
    elif damage == "unsorted":
        np.save(bad / "digests.npy", np.load(bad / "digests.npy")[::-1].copy())
    elif damage == "values changed":  # the same shape: only the checksum tells
        changed = np.load(bad / "vectors.npy")
        changed[0, 0] += 1e-3
        np.save(bad / "vectors.npy", changed)
    monkeypatch.setenv(prepared.ENV, str(bad))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=r"bad"):
        LocalJudge()


def test_the_command_prepares_a_log_file_without_responses_and_names_bad_lines(items, tmp_path, capsys):
    from reward.cli.main import main

    source = tmp_path / "prompts.jsonl"
    # Log lines as `reward data` reads them: no response, no id, and fields of their own beside the interaction's.
    rows = [json.loads(item.model_dump_json(exclude={"response", "id", "group"})) | {"source": "logs"}
            for item in items[:6]]
    source.write_text("\n".join([json.dumps(r) for r in rows] + ["{not json", json.dumps({"query": ""})]) + "\n")
    out = tmp_path / "embeddings"
    assert main(["prepare-embeddings", "--input", str(source), "--out", str(out), "-q"]) == 1
    errors = capsys.readouterr().err
    assert "prompts.jsonl:7:" in errors and "prompts.jsonl:8:" in errors
    store = prepared.read(out)
    assert len(store) >= 5 and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    # Preparing again replaces the folder; a path holding the user's own files is refused, and nothing of it is lost.
    assert main(["prepare-embeddings", "--input", str(source), "--out", str(out), "-q"]) == 1
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep me")
    assert main(["prepare-embeddings", "--input", str(source), "--out", str(mine), "-q"]) == 2
    assert "holding other files" in capsys.readouterr().err and (mine / "todo.txt").read_text() == "keep me"
    (tmp_path / "file.npz").write_text("keep me too")
    assert main(["prepare-embeddings", "--input", str(source), "--out", str(tmp_path / "file.npz"), "-q"]) == 2
    assert (tmp_path / "file.npz").read_text() == "keep me too"


def test_shards_prepared_apart_are_read_together(items, tmp_path, monkeypatch):
    """A large prompt file is prepared in shards, in parallel; the variable names them all (`:`-separated)."""
    groups = sorted({i.group for i in items})
    shards, texts = [], []
    for index, group in enumerate(groups[:2]):
        found, vectors, key = prepared.prepare_sync([i for i in items if i.group == group], load_suite("searchllm"))
        shards.append(tmp_path / f"shard{index}")
        prepared.write(shards[-1], found, vectors, key)
        texts += found
    monkeypatch.setenv(prepared.ENV, f"{shards[0]}:{shards[1]}")
    judge = LocalJudge()
    embedded = []
    encode = judge.embedder.encode
    judge.embedder.encode = lambda batch: embedded.extend(batch) or encode(batch)
    vectors = judge.embedder._compute(list(dict.fromkeys(texts)) + ["not prepared"])
    assert embedded == ["not prepared"] and len(vectors) == len(set(texts)) + 1

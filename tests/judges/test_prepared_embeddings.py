"""Evidence prepared ahead (`reward prepare-embeddings`, `REWARD_PREPARED_EMBEDDINGS`): a replica that reads it
embeds fewer texts, scores fewer pairs and scores every item bit-identically; a folder from another embedder or
cross-encoder, a damaged one or a missing one is refused with its name, never used."""

import json
import os

import numpy as np
import pytest

from benchmarks.batch_invariance import corpus_items, differences, vector
from benchmarks.local_tier import prompt_pools
from reward.engine import Engine
from reward.judges.local import LocalJudge, prepared
from reward.rubric import load_suite

pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.fixture(scope="module")
def items():
    """Four corpus interactions, and two example prompts whose answers cite several passages (the tier reads those
    passages against each other, pairs of the interaction's own texts)."""
    items = corpus_items(4)
    assert len({i.group for i in items}) == 4 and len(items) >= 16
    pools = prompt_pools()
    return items + [item.model_copy(update={"group": f"example-{n}"}) for n in (0, 2) for item in pools[n]]


@pytest.fixture(scope="module")
def prepared_folder(items, tmp_path_factory):
    done = prepared.prepare_sync(items, load_suite("searchllm"))
    path = tmp_path_factory.mktemp("prepared") / "embeddings"
    prepared.write(path, done)
    return path, done


def _score(items, judge):
    """Every item's vector, the texts the judge's embedder embedded and the pairs its cross-encoder scored."""
    embedded, paired = [], []
    encode, model = judge.embedder.encode, judge.scorer.model()
    judge.embedder.encode = lambda texts: embedded.extend(texts) or encode(texts)
    predict = model.predict
    model.predict = lambda pairs: paired.extend(pairs) or predict(pairs)
    try:
        results = Engine(load_suite("searchllm"), judge).score_sync(items)
    finally:
        del model.predict  # (the model is shared by the process's judges)
    return {r.id: vector(r) for r in results}, embedded, paired


def test_a_replica_with_the_folder_runs_the_models_less_and_scores_bit_identically(items, prepared_folder, monkeypatch):
    path, done = prepared_folder
    assert len(done.texts) >= 20 and len(done.pairs) >= 4
    without, embedded_without, paired_without = _score(items, LocalJudge())
    monkeypatch.setenv(prepared.ENV, str(path))
    with_folder, embedded_with, paired_with = _score(items, LocalJudge())
    assert differences(without, with_folder) == []
    # Every prepared text and pair the items needed came from the folder, none from the models.
    assert not set(embedded_with) & set(done.texts) and not set(paired_with) & set(done.pairs)
    assert len(embedded_with) < len(embedded_without) - len(done.texts) // 2, (len(embedded_with),
                                                                                len(embedded_without))
    assert set(done.pairs) & set(paired_without) and len(paired_with) < len(paired_without)
    # Nothing of the placeholder answers is in the folder: only what both of them made the tier compute.
    placeholder = ("The sources describe", "According to the pages", "More is given there")
    assert not [t for t in [*done.texts, *(c for p in done.pairs for c in p)] if any(w in t for w in placeholder)]


def test_the_store_finds_exactly_what_it_was_given(prepared_folder):
    path, done = prepared_folder
    store = prepared.read(path)
    assert len(store) == len(done.texts) and store.pair_count == len(done.pairs)
    found = store.find([*done.texts, "a text nobody prepared", ""])
    assert list(found) == list(done.texts)
    assert all(np.array_equal(found[t], v) for t, v in zip(done.texts, done.vectors))
    pairs = store.find_pairs([*done.pairs, ("a text nobody prepared", done.texts[0]), (done.pairs[0][1], "")])
    assert list(pairs) == list(done.pairs)
    assert all(np.array_equal(pairs[p], row) for p, row in zip(done.pairs, done.probabilities))
    # ... and those are what the model gives each pair on its own
    model = LocalJudge().scorer.model()
    assert np.array_equal(np.stack([pairs[p] for p in done.pairs[:3]]), model.predict(done.pairs[:3]))


def test_a_folder_prepared_before_pairs_were_kept_is_read(prepared_folder, tmp_path, monkeypatch):
    path, done = prepared_folder
    old = tmp_path / "old"
    prepared.write(old, done)
    for name in ("pair-digests.npy", "pair-probabilities.npy"):
        (old / name).unlink()
    key = (old / "key.txt").read_text().split()
    (old / "key.txt").write_text(f"{key[0]}\n{key[1]}\n")
    monkeypatch.setenv(prepared.ENV, str(old))
    judge = LocalJudge()
    assert judge.scorer._prepared[0].pair_count == 0 and len(judge.embedder._prepared[0]) == len(done.texts)


@pytest.mark.parametrize("model", ["embedder", "cross-encoder"])
def test_a_folder_from_another_model_runtime_is_refused_with_its_name(model, prepared_folder, tmp_path, monkeypatch):
    path, done = prepared_folder
    other = tmp_path / "other"
    field = "key" if model == "embedder" else "pair_key"
    prepared.write(other, done._replace(**{field: "torch-bf16:t1:" + getattr(done, field).split(":", 1)[1]}))
    monkeypatch.setenv(prepared.ENV, str(other))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=rf"other: prepared with {model} torch-bf16"):
        LocalJudge()


def test_serve_refuses_a_folder_from_another_embedder_before_it_starts(prepared_folder, tmp_path, monkeypatch, capsys):
    from reward.cli.main import main

    path, done = prepared_folder
    other = tmp_path / "other"
    prepared.write(other, done._replace(key="torch:t1:" + done.key.split(":", 1)[1]))
    monkeypatch.setenv(prepared.ENV, str(other))
    assert main(["serve", "--port", "1"]) == 2
    said = " ".join(capsys.readouterr().err.split())  # (the console wraps long lines)
    assert "prepared with embedder" in said and f"this process runs {prepared.embedder_key().split(':')[0]}" in said, said


def test_preparing_computes_everything_whatever_folder_the_variable_names(items, monkeypatch):
    """A folder named for serving is not read while preparing: its numbers are never copied forward."""
    monkeypatch.setenv(prepared.ENV, "/nonexistent/folder")
    done = prepared.prepare_sync(items[:2], load_suite("searchllm"))
    assert done.texts and done.vectors.shape == (len(done.texts), 384)
    assert done.probabilities.shape == (len(done.pairs), 3)


def test_pairs_whose_texts_hold_the_separator_do_not_share_a_digest(prepared_folder, tmp_path):
    """("P\\x00Q", "R") and ("P", "Q\\x00R") are two pairs: the folder answers only the one it holds (and the
    in-process cache keys them apart too)."""
    from reward.judges.consistency import pair_key

    path, done = prepared_folder
    held, other = ("The tower is 330 m tall.\x00It opened in 1889.", "It is 300 m."), (
        "The tower is 330 m tall.", "It opened in 1889.\x00It is 300 m.")
    assert pair_key(*held) != pair_key(*other)
    folder = tmp_path / "separator"
    prepared.write(folder, done._replace(pairs=[held], probabilities=np.array([[0.1, 0.8, 0.1]], dtype=np.float32)))
    store = prepared.read(folder)
    assert list(store.find_pairs([held, other])) == [held]
    # ... and the folder is readable as any folder the user makes (not the staging folder's 0700)
    mask = os.umask(0)
    os.umask(mask)
    assert folder.stat().st_mode & 0o777 == 0o777 & ~mask


@pytest.mark.parametrize("damage", ["missing", "no key", "empty key", "not numpy", "short", "unsorted", "values changed",
                                    "pairs short", "pairs changed", "pairs missing"])
def test_a_damaged_or_missing_folder_is_refused_with_its_name(damage, prepared_folder, tmp_path, monkeypatch):
    path, done = prepared_folder
    bad = tmp_path / "bad"
    if damage != "missing":
        prepared.write(bad, done)
    if damage == "no key":
        (bad / "key.txt").unlink()
    elif damage == "empty key":
        (bad / "key.txt").write_text("")
    elif damage == "not numpy":
        (bad / "vectors.npy").write_bytes(b"not a numpy file")
    elif damage == "short":
        np.save(bad / "vectors.npy", done.vectors[:3])
    elif damage == "unsorted":
        np.save(bad / "digests.npy", np.load(bad / "digests.npy")[::-1].copy())
    elif damage == "values changed":  # the same shape: only the checksum tells
        changed = np.load(bad / "vectors.npy")
        changed[0, 0] += 1e-3
        np.save(bad / "vectors.npy", changed)
    elif damage == "pairs short":
        np.save(bad / "pair-probabilities.npy", np.load(bad / "pair-probabilities.npy")[:1])
    elif damage == "pairs changed":
        changed = np.load(bad / "pair-probabilities.npy")
        changed[0, 0] += 1e-4
        np.save(bad / "pair-probabilities.npy", changed)
    elif damage == "pairs missing":
        (bad / "pair-digests.npy").unlink()
    monkeypatch.setenv(prepared.ENV, str(bad))
    with pytest.raises(prepared.PreparedEmbeddingsError, match=r"bad.*prepare it again"):
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
        done = prepared.prepare_sync([i for i in items if i.group == group], load_suite("searchllm"))
        shards.append(tmp_path / f"shard{index}")
        prepared.write(shards[-1], done)
        texts += done.texts
    monkeypatch.setenv(prepared.ENV, f"{shards[0]}:{shards[1]}")
    judge = LocalJudge()
    embedded = []
    encode = judge.embedder.encode
    judge.embedder.encode = lambda batch: embedded.extend(batch) or encode(batch)
    vectors = judge.embedder._compute(list(dict.fromkeys(texts)) + ["not prepared"])
    assert embedded == ["not prepared"] and len(vectors) == len(set(texts)) + 1

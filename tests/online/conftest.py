"""Helpers for the online-evaluation tests: log rows, and an encoder with known similarities (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reward.online.reformulation import QuerySimilarity, normalise

USER = "{:016x}"


def row(n: int, *, user: int = 1, arms: dict | None = None, dwell: int = 3000, query: str = "peach egg bumps",
        next_query: str | None = None, next_after_ms: int | None = None, day: str = "2026-01-12",
        feedback: str | None = None, **extra) -> dict:
    """One log row; `next_after_ms` counts from the end of the answer view (shown + dwell)."""
    shown = f"{day}T10:00:00Z"
    data = {"session": f"s{n}", "user": USER.format(user + 2**40), "arms": arms or {"exp": "control"}, "policy": "p1",
            "query": query, "response_id": f"r{n}", "shown_at": shown, "dwell_ms": dwell, "feedback": feedback}
    if next_query is not None:
        total = dwell + (next_after_ms or 0)
        data["next_query"] = next_query
        data["next_query_at"] = f"{day}T10:{total // 60000:02d}:{total // 1000 % 60:02d}.{total % 1000:03d}Z"
    data.update(extra)
    return data


def write_log(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


class TableEncoder:
    """Unit vectors chosen so that texts of one topic have cosine `within`, different topics ~0."""

    def __init__(self, topics: dict[str, int], within: float = 0.8, dims: int = 64):
        self.topics = {normalise(k): v for k, v in topics.items()}
        self.within, self.dims, self.calls = within, dims, 0
        self.private: dict[str, int] = {}

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            topic = self.topics[normalise(text)]
            # shared topic axis + a private axis per text: cosine between two texts of a topic = within
            out[i, topic] = np.sqrt(self.within)
            axis = self.private.setdefault(normalise(text), 16 + len(self.private))
            out[i, axis] = np.sqrt(1 - self.within)
        return out


@pytest.fixture
def similarity_factory():
    def make(topics: dict[str, int], within: float = 0.8) -> QuerySimilarity:
        return QuerySimilarity(TableEncoder(topics, within))

    return make


def bag_of_words(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in for MiniLM in tests that do not measure similarity: hashed word counts."""
    import hashlib

    out = np.zeros((len(texts), 256), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in normalise(text).split():
            out[i, int.from_bytes(hashlib.blake2b(word.encode(), digest_size=2).digest(), "big") % 256] += 1
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.fixture(scope="module")
def example_world(tmp_path_factory):
    """A small synthetic log over the example items, its store, and a score log of the shown answers (mock judge)."""
    import datetime as dt

    from reward.engine import Engine
    from reward.judges.mock import ScriptedJudge
    from reward.online.experiments import Experiment
    from reward.online.store import OnlineStore
    from reward.online.synthetic import Traffic, example_catalogue, generate
    from reward.rubric import load_suite
    from reward.schema import Item
    from reward.scorelog import ScoreLog

    folder = tmp_path_factory.mktemp("online")
    experiment = Experiment(name="reward-v2", salt="t", arms={"control": 0.5, "treatment": 0.5}, control="control")
    policies = {"control": "p0", "treatment": "p1"}
    traffic = Traffic(sessions=1200, users=300, start=dt.date(2026, 1, 12), days=2, experiments=[experiment],
                      good_share={"reward-v2": {"control": 0.3, "treatment": 0.7}}, policies=policies, seed=5)
    log_path = generate(example_catalogue("examples/items.jsonl"), traffic, folder / "log.jsonl")
    items = [Item.model_validate_json(line) for line in Path("examples/items.jsonl").read_text().splitlines() if line]
    suite = load_suite("searchllm")
    results = Engine(suite, ScriptedJudge()).score_sync(items)
    scores = ScoreLog(folder / "scores", writer="test")
    for policy in policies.values():
        scores.append([i.model_copy(update={"id": f"{i.id}@{policy}"}) for i in items],
                      [r.model_copy(update={"id": f"{r.id}@{policy}"}) for r in results],
                      suite=suite.name, suite_version=suite.version)
    scores.close()
    store = OnlineStore(folder / "store.sqlite")
    store.ingest([log_path], similarity=QuerySimilarity(bag_of_words))
    yield {"folder": folder, "store": store, "experiment": experiment, "scores": folder / "scores", "log": log_path,
           "suite": suite, "items": {i.id: i for i in items}}
    store.close()

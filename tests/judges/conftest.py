"""Fixtures of the judge tests."""

import pytest

from reward.engine import Engine
from reward.judges.local import LocalJudge
from reward.rubric import load_suite
from reward.schema import Item


@pytest.fixture(scope="module")
def scores():
    """Scores items with the embedded default (`searchllm`, local judge) in one group: each item's scored
    dimensions and its reward."""
    engine = Engine(load_suite("searchllm"), LocalJudge())

    def run(*items: Item) -> list[dict[str, float]]:
        results = engine.score_sync(list(items))
        return [{n: s.score for n, s in r.dimensions.items() if s.status == "ok"} | {"reward": r.reward}
                for r in results]

    return run

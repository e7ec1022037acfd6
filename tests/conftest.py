"""Shared fixtures: the small test suite and the bundled examples."""

from __future__ import annotations

import json

import pytest

from reward.rubric import load_suite
from reward.schema import Item
from tests.support import AUTH, EXAMPLES, FIXTURE_RUBRICS, TOKEN, free_port


@pytest.fixture
def mini_suite():
    return load_suite("mini", FIXTURE_RUBRICS)


@pytest.fixture
def example_items() -> list[Item]:
    return [Item.model_validate(json.loads(line)) for line in EXAMPLES.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real reward app (mock judge) on a local Ray, shared by the HTTP and verl tests."""
    import os

    from reward.serve import Limits, ServerArgs
    from reward.server_runner import start_server, stop_server

    log_dir = tmp_path_factory.mktemp("scores")
    os.environ["REWARD_TEST_TOKEN"] = TOKEN
    args = ServerArgs(judge="mock", score_log=str(log_dir), token_env="REWARD_TEST_TOKEN",
                      limits=Limits(max_items=40, max_bytes=400_000, chunk_items=5))
    port = free_port()
    url = start_server(args, port=port, num_cpus=2)
    yield {"url": url, "log": log_dir, "args": args, "port": port, "auth": AUTH}
    stop_server()

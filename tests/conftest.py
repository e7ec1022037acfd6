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


LOG_TMPFS_BYTES = 64 * 2**20


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real reward app (mock judge) on a local Ray, shared by the HTTP and verl tests.

    As root, the score log lives on its own small tmpfs, so a test can fill that disk (`log_tmpfs` is then True);
    it is unmounted at the end.
    """
    import os
    import subprocess

    from reward.serve import Limits, ServerArgs
    from reward.serve.runner import start_server, stop_server

    log_dir = tmp_path_factory.mktemp("scores")
    log_tmpfs = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={LOG_TMPFS_BYTES}", "tmpfs", str(log_dir)], capture_output=True).returncode == 0
    os.environ["REWARD_TEST_TOKEN"] = TOKEN
    args = ServerArgs(judge="mock", score_log=str(log_dir), token_env="REWARD_TEST_TOKEN",
                      limits=Limits(max_items=40, max_bytes=400_000, chunk_items=5, max_string_chars=100_000,
                                    max_items_in_flight=120, retry_after_s=1))
    port = free_port()
    try:
        url = start_server(args, port=port, num_cpus=2)
        yield {"url": url, "log": log_dir, "args": args, "port": port, "auth": AUTH, "log_tmpfs": log_tmpfs}
    finally:
        stop_server()
        if log_tmpfs:
            subprocess.run(["umount", "--lazy", str(log_dir)], check=False)

"""The same item always gets the same score: a few hundred public-data items (the generalization corpus's fit split,
every labelled response) get bit-identical dimension vectors scored alone, in shuffled batches of 7, all in one
batch, and through the reward server, whose score log `reward replay` then reproduces with zero drift; and so on
every runtime a process can run."""

import json
import os
import subprocess
import sys
import time

import httpx
import pytest

from benchmarks.batch_invariance import corpus_items, differences, invariance, score_in_batches, score_through_server
from reward.judges.local_runtime import RUNTIMES, runtime_setting
from tests.support import ROOT, free_port

pytestmark = pytest.mark.filterwarnings("ignore")

INTERACTIONS = 45


@pytest.fixture(scope="module")
def items():
    items = corpus_items(INTERACTIONS)
    assert len(items) >= 250 and len({i.group for i in items}) == INTERACTIONS
    return items


@pytest.fixture(scope="module")
def alone(items):
    return score_in_batches(items, 1, seed=0)


def test_every_item_scores_the_same_alone_in_batches_of_seven_and_in_one_batch(items):
    report = invariance(items, batches=(7, None), seed=3)
    assert report["items"] == len(items)
    assert report["identical"], {way: found[:5] for way, found in report["ways"].items()}


def test_the_server_gives_the_same_vectors_and_its_log_replays_without_drift(items, alone, tmp_path):
    from reward.cli.main import main

    sample = items[::5]
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_ADDRESS": "local"}  # its own Ray, not the tests' server's
    env.pop("REWARD_SERVER_TOKEN", None)
    server = subprocess.Popen([sys.executable, "-m", "reward.cli", "serve", "--judge", "local", "--port", str(port),
                               "--log-dir", str(tmp_path / "scores"), "--suites", "searchllm"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and server.poll() is None:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        else:
            raise AssertionError(f"the server did not start: {server.stdout.read()[-3000:] if server.poll() is not None else ''}")
        served = score_through_server(sample, url, token=None, batch=16)
    finally:
        server.terminate()
        server.wait(120)
    assert differences({i.id: alone[i.id] for i in sample}, served) == []
    out = tmp_path / "replay.json"
    assert main(["replay", "--log", str(tmp_path / "scores"), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["records"] == len(sample) and report["mismatches"] == []
    assert report["reward"]["max_abs_delta"] == 0.0 and not any(d["drifted"] for d in report["dimensions"].values())


@pytest.mark.parametrize("runtime", [r for r in RUNTIMES if r != runtime_setting()])
def test_every_other_runtime_is_batch_invariant_too(runtime, tmp_path):
    """Each runtime in a process of its own (the runtime is chosen per process), on a smaller sample."""
    out = tmp_path / "report.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REWARD_LOCAL_RUNTIME": runtime}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "batch_invariance.py"), "--interactions", "4",
                           "--out", str(out)], env=env, capture_output=True, text=True, timeout=900)
    assert out.exists(), done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["runtime"] == runtime and report["items"] >= 20
    assert report["identical"] and done.returncode == 0, {way: found[:5] for way, found in report["ways"].items()}


def test_a_claims_reading_does_not_depend_on_the_processs_string_hashing():
    """Each server process (a replica, a restart) hashes strings with a seed of its own, so whatever a check reads in
    a set's order differs between them. A clause that swaps a date's month and year together ("on or after 1 January
    2026" for the monthly subscribers' "1 November 2025") was read as a swap by some processes and not by others."""
    code = ("from reward.judges.local.claims import swapped_in_clause; print(swapped_in_clause("
            "'Existing subscribers move to the new price at their first renewal on or after 1 January 2026, and "
            "you will be emailed at least 30 days before.', ['Monthly subscribers move to the new price from their "
            "first billing date on or after 1 November 2025.', 'Annual subscribers move at their first renewal on or "
            "after 1 January 2026.']))")
    readings = {subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT),
                                                                  "PYTHONHASHSEED": str(seed)},
                               capture_output=True, text=True, timeout=300, check=True).stdout.strip()
                for seed in range(8)}
    assert readings == {"says '2026' where the evidence sentence it follows says '2025'"}

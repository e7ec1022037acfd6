"""A real multi-node Ray cluster on this machine, the short variant of benchmarks/multinode.py: a head that takes the
`reward` role (as the SLURM script's head does), one more reward node and a trainer node with fake GPUs. The app is
deployed from configs/serve/cluster.yaml through Serve's REST API, its judge endpoints (configs/judges/vllm.yaml) on
the mock judge server. Replicas must sit on reward nodes only, verl's GPU placement group on the trainer node only;
then the reward worker is lost under load, and no acknowledged item may go missing or be logged twice, every answer
must be a 200 or a 503 with Retry-After within the client's timeout, and the replicas must come back on the head.

It needs a private network namespace (the Makefile's `make test` runs pytest in one) and about three minutes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.support import ROOT


def test_replicas_stay_on_reward_nodes_and_a_lost_node_costs_no_acknowledged_item(tmp_path):
    if importlib.util.find_spec("verl") is None:  # the placement group is built by verl's own resource pool
        pytest.skip("the train extra (verl) is part of make test")
    out = tmp_path / "report.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "multinode.py"), "--head", "reward", "--workers", "reward,trainer",
               "--seconds", "45", "--lose-at", "15", "--folder", str(tmp_path / "run"), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540)
    assert out.exists(), done.stderr[-4000:]
    report = json.loads(out.read_text())

    # Placement, from the state API: the app only where `reward` is offered, the GPU bundles only on the trainer.
    before = report["replicas_before"]
    assert sum(before.values()) == 4 and report["replicas_only_on_reward_nodes"], before
    assert not any(key.endswith("@trainer-2") for key in before), before
    assert report["gpu_placement_group"]["nodes"] == ["trainer-2"], report["gpu_placement_group"]
    assert all(bundle.get("GPU") == 1 for bundle in report["gpu_placement_group"]["bundles"])
    assert "trainer-2" not in report["proxies_on"], report["proxies_on"]

    # The loss hit replicas, and they came back on the remaining reward node.
    assert report["lost_node"] == "reward-1" and report["replicas_on_lost_node"] >= 1, before
    after = report["replicas_after"]
    assert sum(after.values()) == 4 and all(key.endswith("@head") for key in after), after
    assert report["recovery_s"]["replicas_back_s"] < 300

    # Every answer a 200, or a 503 that says when to retry, or (Serve's proxy, not the app) a 500 for a request whose
    # ingress replica died under it; the client retries that batch with its request id. None slower than the
    # client's timeout: no hang.
    assert set(report["answers"]) <= {"200", "503", "500"}, report["answers"]
    assert report["answers_503_without_retry_after"] == 0
    for answer in report["other_answers"]:  # a 500 only for a request already under way when the node went
        assert answer["status"] == "500" and answer["sent_s"] < 0 <= answer["answered_s"], answer
    assert report["slowest_answer_s"] < report["client_timeout_s"]
    assert report["answers_during_loss"], "no request was under way while the node was lost"

    # Exactly once on the shared score log.
    items = report["items"]
    assert items["acknowledged"] >= 40, items
    assert items["missing"] == [] and items["duplicated"] == [] and items["acknowledged_twice"] == [], items
    assert done.returncode == 0, done.stderr[-4000:]

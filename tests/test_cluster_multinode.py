"""A real multi-node Ray cluster on this machine, the short variant of benchmarks/multinode.py: a head that takes the
`reward` role (as the SLURM script's head does), one more reward node and a trainer node with fake GPUs. The app is
deployed from configs/serve/cluster.yaml through Serve's REST API, its judge endpoints (configs/judges/vllm.yaml) on
the mock judge server. Replicas must sit on reward nodes only, verl's GPU placement group on the trainer node only;
then the reward worker is lost under load, and no acknowledged item may go missing or be logged twice, every answer
must be a 200 or a 503 with Retry-After within the client's timeout, and the replicas must come back on the head.

It needs a private network namespace (the Makefile's `make test` runs pytest in one) and three to five minutes. Two
quick checks keep the harness honest: it deploys the shipped cluster config with only replicas, CPUs, chunk size
and the log folder changed, and starts each node with the resources of its role in cluster/resources.yaml.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest
import yaml

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


def load_harness():
    spec = importlib.util.spec_from_file_location("multinode", ROOT / "benchmarks" / "multinode.py")
    harness = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = harness  # its dataclasses look their module up there
    spec.loader.exec_module(harness)
    return harness


def test_the_harness_deploys_the_shipped_cluster_config_with_fewer_replicas_only(tmp_path):
    from reward.serve import ServerArgs

    harness = load_harness()
    shipped = yaml.safe_load((ROOT / "configs" / "serve" / "cluster.yaml").read_text())
    deployed = yaml.safe_load(harness.serve_config(tmp_path, scorers=2, ingresses=1).read_text())
    [app], [shipped_app] = deployed["applications"], shipped["applications"]
    changed = {k for k in app["args"].keys() | shipped_app["args"].keys() if app["args"].get(k) != shipped_app["args"].get(k)}
    assert changed == {"score_log", "scorer_replicas", "scorer_cpus", "ingress_replicas", "limits"}
    assert {k for k, v in app["args"]["limits"].items() if shipped_app["args"]["limits"][k] != v} == {"chunk_items"}
    assert {k: v for k, v in deployed.items() if k != "applications"} == {
        **{k: v for k, v in shipped.items() if k != "applications"},
        "http_options": {**shipped["http_options"], "port": harness.HTTP_PORT}}
    args = ServerArgs.model_validate(app["args"])
    assert args.require_token and args.replica_resources == {"reward": 1} and args.judge == "configs/judges/vllm.yaml"
    assert args.score_log == str(tmp_path / "shared" / "scores")
    assert app["deployments"] == [{"name": "Scorer", "num_replicas": 2}, {"name": "Ingress", "num_replicas": 1}]


def test_the_harness_starts_each_node_with_the_resources_of_its_role():
    harness = load_harness()
    roles = yaml.safe_load((ROOT / "cluster" / "resources.yaml").read_text())["roles"]
    for index, role in enumerate(roles):
        argv = harness.Node(f"n{index}", role, 2, 28000).start_args(index == 0, ROOT / "tmp", index)
        flags = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
        assert json.loads(flags["resources"]) == roles[role]["resources"], argv
        assert int(flags["num-gpus"]) == min(roles[role]["num_gpus"], 2), argv
        assert ("--head" in argv) == (index == 0) and (f"--address=127.0.0.1:{harness.GCS_PORT}" in argv) == (index > 0)

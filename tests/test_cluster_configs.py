"""Deployment files stay loadable: Serve configs build valid ServerArgs, KubeRay manifests parse, the SLURM script
is valid bash, and every judge config the deployments name exists and loads."""

import subprocess

import yaml

from reward.judges.openai_judge import OpenAIJudge
from reward.serve import ServerArgs
from tests.support import ROOT


def serve_configs():
    yield ROOT / "configs" / "serve" / "local.yaml", yaml.safe_load((ROOT / "configs" / "serve" / "local.yaml").read_text())
    yield ROOT / "configs" / "serve" / "cluster.yaml", yaml.safe_load((ROOT / "configs" / "serve" / "cluster.yaml").read_text())
    service = yaml.safe_load((ROOT / "cluster" / "kuberay" / "rayservice.yaml").read_text())
    yield ROOT / "cluster" / "kuberay" / "rayservice.yaml", yaml.safe_load(service["spec"]["serveConfigV2"])


def test_serve_configs_build_valid_args_and_name_existing_judges():
    for path, config in serve_configs():
        [app] = config["applications"]
        assert app["import_path"] == "reward.serve:build_app", path
        args = ServerArgs.model_validate(app["args"])
        if args.judge.endswith(".yaml"):
            assert OpenAIJudge.from_config(ROOT / args.judge).config.endpoints, path
        names = {d["name"] for d in app["deployments"]}
        assert names == {"Scorer", "Ingress"}, path


def test_cluster_and_local_configs_agree_with_the_rayservice():
    cluster = yaml.safe_load((ROOT / "configs" / "serve" / "cluster.yaml").read_text())["applications"][0]["args"]
    service = yaml.safe_load(yaml.safe_load((ROOT / "cluster" / "kuberay" / "rayservice.yaml").read_text())["spec"]["serveConfigV2"])
    assert service["applications"][0]["args"] == cluster


def test_kuberay_manifests_and_slurm_script_parse():
    kinds = [d["kind"] for d in yaml.safe_load_all((ROOT / "cluster" / "kuberay" / "raycluster.yaml").read_text())]
    assert kinds == ["RayCluster", "Service"]
    cluster = next(yaml.safe_load_all((ROOT / "cluster" / "kuberay" / "raycluster.yaml").read_text()))
    groups = {g["groupName"]: g["replicas"] for g in cluster["spec"]["workerGroupSpecs"]}
    assert groups == {"judge": 16, "trainer": 2}
    subprocess.run(["bash", "-n", str(ROOT / "cluster" / "slurm" / "reward_cluster.sbatch")], check=True)


def test_grafana_dashboard_queries_metrics_the_server_exports():
    import json
    import re

    board = json.loads((ROOT / "cluster" / "grafana" / "reward-dashboard.json").read_text())
    names = {m for p in board["panels"] for t in p["targets"] for m in re.findall(r"reward_[a-z_]+", t["expr"])}
    exported = {"reward_items_total", "reward_reward_sum", "reward_reward_count", "reward_dimension_score_sum",
                "reward_dimension_score_count", "reward_unscored_total", "reward_judge_calls_total",
                "reward_judge_latency_seconds_bucket", "reward_dimension_score_bucket", "reward_reward_bucket"}
    assert names <= exported, names - exported
    # Every query of our metrics and the suite variable carry ${prefix}, so Ray's ray_ prefix is one click away;
    # request counts and latencies are Ray Serve's own (ray_serve_*), which only Ray's agent exports.
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    exprs += [v["query"] for v in board["templating"]["list"] if v["name"] == "suite"]
    assert all((re.findall(r"reward_[a-z_]+", e) and "${prefix}reward_" in e and not re.search(r"(?<![}\w])reward_", e))
               or ("ray_serve_" in e and "reward_" not in e) for e in exprs)

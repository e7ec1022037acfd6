"""Deployment files hold on a real cluster: Serve configs build valid ServerArgs, judge GPUs are never offered to
Ray (so verl's GPU pools land on trainer nodes only), judge endpoints follow the deployment, every replica has the
secrets, every recipe offers and asks for the resources of cluster/resources.yaml, the KubeRay manifests validate
against the KubeRay CRD schemas, and the SLURM script passes bash -n and shellcheck. The SLURM script runs for real against stub `srun` / `scontrol` / `ray` / `vllm` commands that record
what each node would run."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import jsonschema
import pytest
import yaml

from reward.judges.openai_judge import JudgeConfig, OpenAIJudge
from reward.serve import ServerArgs, check_secrets
from tests.support import ROOT

KUBERAY = ROOT / "cluster" / "kuberay"
SBATCH = ROOT / "cluster" / "slurm" / "reward_cluster.sbatch"
CRDS = ROOT / "tests" / "data" / "kuberay"


def load_all(path: Path) -> list[dict]:
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


def rayservice() -> dict:
    [service] = load_all(KUBERAY / "rayservice.yaml")
    return service


def trainer_cluster() -> dict:
    [cluster] = load_all(KUBERAY / "raycluster.yaml")
    return cluster


def serve_configs():
    yield ROOT / "configs" / "serve" / "local.yaml", yaml.safe_load((ROOT / "configs" / "serve" / "local.yaml").read_text())
    yield ROOT / "configs" / "serve" / "cluster.yaml", yaml.safe_load((ROOT / "configs" / "serve" / "cluster.yaml").read_text())
    yield KUBERAY / "rayservice.yaml", yaml.safe_load(rayservice()["spec"]["serveConfigV2"])


def ray_groups() -> list[tuple[str, dict]]:
    """(name, group spec) of every Ray node group in the manifests, head groups included."""
    groups = []
    for name, spec in (("reward app", rayservice()["spec"]["rayClusterConfig"]), ("trainer", trainer_cluster()["spec"])):
        groups.append((f"{name} head", spec["headGroupSpec"]))
        groups += [(f"{name} {g['groupName']}", g) for g in spec["workerGroupSpecs"]]
    return groups


def custom_resources(group: dict) -> dict:
    raw = group["rayStartParams"].get("resources")
    return json.loads(json.loads(raw)) if raw else {}


def pod_env(pod_spec: dict) -> dict[str, dict]:
    return {e["name"]: e for c in pod_spec["containers"] for e in c.get("env", [])}


def test_serve_configs_build_valid_args_and_name_existing_judges(monkeypatch):
    monkeypatch.setenv("JUDGE_HOSTS", "judge-{0..1}.judge")
    for path, config in serve_configs():
        [app] = config["applications"]
        assert app["import_path"] == "reward.serve:build_app", path
        args = ServerArgs.model_validate(app["args"])
        if args.judge.endswith(".yaml"):
            assert len(OpenAIJudge.from_config(ROOT / args.judge).config.endpoints) == 2, path
        names = {d["name"] for d in app["deployments"]}
        assert names == {"Scorer", "Ingress"}, path


def test_cluster_and_local_configs_agree_with_the_rayservice():
    cluster = yaml.safe_load((ROOT / "configs" / "serve" / "cluster.yaml").read_text())["applications"][0]
    service = yaml.safe_load(rayservice()["spec"]["serveConfigV2"])["applications"][0]
    assert service["args"] == cluster["args"]
    assert service["deployments"] == cluster["deployments"]


# --- 1. resource isolation -------------------------------------------------------------------------------------

def test_verl_pools_ask_ray_for_gpus_and_nothing_else(monkeypatch):
    """What judge-node isolation relies on: verl 0.9's resource pools ask for CPU + GPU bundles, no custom resource."""
    base = pytest.importorskip("verl.single_controller.ray.base", reason="the train extra (verl) is part of make test")
    asked: list[list[dict]] = []

    class Ready:
        def ready(self):
            return None

    def placement_group(bundles, **_):
        asked.append(bundles)
        return Ready()

    monkeypatch.setattr(base, "placement_group", placement_group)
    monkeypatch.setattr(base.ray, "get", lambda refs: refs)
    monkeypatch.setattr(base, "sort_placement_group_by_node_ip", lambda pgs: pgs, raising=False)
    pool = base.RayResourcePool(process_on_nodes=[8, 8], use_gpu=True, max_colocate_count=3, name_prefix="actor")
    pool.get_placement_groups()
    bundles = [b for pg in asked for b in pg]
    assert len(bundles) == 16
    assert all(set(b) == {"CPU", "GPU"} and b["GPU"] == 1 for b in bundles), bundles


def test_kuberay_judge_gpus_never_reach_ray_and_replicas_need_a_resource_only_reward_nodes_offer():
    groups = ray_groups()
    for name, group in groups:
        gpus = int(group["rayStartParams"].get("num-gpus", "-1"))
        limits = [c.get("resources", {}).get("limits", {}) for c in group["template"]["spec"]["containers"]]
        pod_gpus = sum(int(limit.get("nvidia.com/gpu", 0)) for limit in limits)
        assert gpus >= 0, f"{name}: num-gpus must be explicit, else Ray offers every GPU of the pod"
        assert gpus == pod_gpus, f"{name}: offers {gpus} GPUs to Ray but its pod holds {pod_gpus}"
        if gpus:
            assert custom_resources(group) == {"trainer": 1}, name
    # The only GPUs Ray sees are the trainer group's; the judges' GPUs sit in a StatefulSet outside Ray.
    assert [n for n, g in groups if int(g["rayStartParams"]["num-gpus"])] == ["trainer trainer"]
    statefulset = next(d for d in load_all(KUBERAY / "judges.yaml") if d["kind"] == "StatefulSet")
    assert statefulset["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 8
    # The reward app's replicas ask for `reward`, which only num-gpus-0 groups offer.
    args = ServerArgs.model_validate(yaml.safe_load(rayservice()["spec"]["serveConfigV2"])["applications"][0]["args"])
    assert args.replica_resources == {"reward": 1}
    offering = [n for n, g in groups if "reward" in custom_resources(g)]
    assert offering == ["reward app reward"]
    assert all(int(g["rayStartParams"]["num-gpus"]) == 0 for n, g in groups if n in offering)


@pytest.fixture
def slurm_run(tmp_path):
    """Run the sbatch script with stub commands; returns a function(nodes, env) -> (completed process, calls)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    calls = tmp_path / "calls.jsonl"
    scripts = {
        # One record per call, ended by \x1e: the watched variables, then the arguments, separated by \x1f
        # (arguments may hold newlines). Background steps run together, and bash's printf writes a record holding a
        # newline in two write()s, so records are appended under a lock or they could interleave.
        "srun": 'line=$(printf "%s\\x1f" "${JUDGE_HOSTS-}" "${REWARD_SERVER_TOKEN-}" "${VLLM_API_KEY-}" srun "$@")\n'
                f'{{ flock 9; printf "%s\\x1e" "$line" >> {calls}; }} 9>>{calls}.lock\n'
                'while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do case "$1" in -w) shift 2;; *) shift;; esac; done\n'
                '[ "${1:-}" = hostname ] && echo 10.0.0.7\nexit 0\n',
        "scontrol": 'shift 2; echo "$1" | tr "," "\\n"\n',
        "sleep": "exit 0\n",
        "curl": "exit 0\n",
    }
    for name, body in scripts.items():
        (stubs / name).write_text("#!/bin/bash\n" + body)
        (stubs / name).chmod(0o755)

    def run(nodes: list[str], **env: str):
        calls.write_text("")
        environ = {"PATH": f"{stubs}:{os.environ['PATH']}", "HOME": str(tmp_path), "SLURM_JOB_NODELIST": ",".join(nodes),
                   "REPO": str(tmp_path / "repo"), **env}
        done = subprocess.run(["bash", str(SBATCH)], env=environ, capture_output=True, text=True, timeout=60)
        recorded = []
        for line in filter(None, calls.read_text().split("\x1e")):
            hosts, token, vllm_key, *argv = line.rstrip("\x1f").split("\x1f")
            recorded.append({"argv": argv, "env": {"JUDGE_HOSTS": hosts, "REWARD_SERVER_TOKEN": token,
                                                   "VLLM_API_KEY": vllm_key}})
        return done, recorded

    return run


def node_of(argv: list[str]) -> str:
    return argv[argv.index("-w") + 1]


def test_slurm_judge_nodes_offer_no_gpus_and_trainer_nodes_do(slurm_run):
    nodes = [f"gpu{i:02d}" for i in range(5)]
    done, calls = slurm_run(nodes, REWARD_SERVER_TOKEN="s3cret", JUDGE_API_KEY="k3y")
    assert done.returncode == 0, done.stderr
    starts = {node_of(c["argv"]): c["argv"] for c in calls if "ray" in c["argv"] and "start" in c["argv"]}
    assert sorted(starts) == nodes
    judges, trainers = nodes[:3], nodes[3:]
    for node in judges:
        assert "--num-gpus=0" in starts[node], starts[node]
        assert '--resources={"reward": 8}' in starts[node], starts[node]
    for node in trainers:
        assert "--num-gpus=8" in starts[node] and '--resources={"trainer": 1}' in starts[node], starts[node]
    vllm_nodes = sorted(node_of(c["argv"]) for c in calls if "vllm" in c["argv"])
    assert vllm_nodes == judges
    train = [c["argv"] for c in calls if any("policy.train" in a for a in c["argv"])]
    assert len(train) == 1 and node_of(train[0]) in trainers and "trainer.nnodes=2" in train[0][-1]


def test_slurm_kuberay_and_serve_configs_offer_and_ask_for_the_resources_of_cluster_resources_yaml(slurm_run):
    """cluster/resources.yaml is the one place node roles are defined; every recipe must follow it."""
    spec = yaml.safe_load((ROOT / "cluster" / "resources.yaml").read_text(encoding="utf-8"))
    roles = {name: (role["num_gpus"], role["resources"]) for name, role in spec["roles"].items()}
    # The replicas' resource is offered by the reward role alone, which offers Ray no GPUs.
    assert [n for n, (_, offered) in roles.items() if spec["replica_resources"].keys() <= offered.keys()] == ["reward"]
    assert roles["reward"][0] == 0 and roles["trainer"][0] > 0

    nodes = [f"gpu{i}" for i in range(5)]
    done, calls = slurm_run(nodes, REWARD_SERVER_TOKEN="s3cret")
    assert done.returncode == 0, done.stderr
    starts = {node_of(c["argv"]): c["argv"] for c in calls if "ray" in c["argv"] and "start" in c["argv"]}

    def offered(argv: list[str]) -> tuple[int, dict]:
        flags = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
        return int(flags["num-gpus"]), json.loads(flags.get("resources", "{}"))

    # SLURM: the head is judge node 0, so it takes the reward role like the other judge nodes.
    assert {node: offered(starts[node]) for node in nodes} == {
        **{node: roles["reward"] for node in nodes[:3]}, **{node: roles["trainer"] for node in nodes[3:]}}

    kuberay = {name: (int(group["rayStartParams"]["num-gpus"]), custom_resources(group)) for name, group in ray_groups()}
    assert kuberay == {"reward app head": roles["head"], "reward app reward": roles["reward"],
                       "trainer head": roles["head"], "trainer trainer": roles["trainer"]}

    for path, config in serve_configs():
        args = ServerArgs.model_validate(config["applications"][0]["args"])
        if path.name != "local.yaml":  # one machine: no custom resources
            assert args.replica_resources == spec["replica_resources"], path


# --- 2. endpoints from the deployment ----------------------------------------------------------------------------

def test_slurm_judge_endpoints_follow_the_node_list(slurm_run, monkeypatch):
    for count in (3, 7):
        nodes = [f"n{i}" for i in range(count)]
        done, calls = slurm_run(nodes, REWARD_SERVER_TOKEN="s3cret")
        assert done.returncode == 0, done.stderr
        hosts = {c["env"]["JUDGE_HOSTS"] for c in calls}
        assert hosts == {",".join(nodes[:-2])}
        monkeypatch.setenv("JUDGE_HOSTS", hosts.pop())
        endpoints = OpenAIJudge.from_config(ROOT / "configs" / "judges" / "vllm.yaml").config.endpoints
        assert [e.base_url for e in endpoints] == [f"http://{n}:8100/v1" for n in nodes[:-2]]
    done, _ = slurm_run(["only", "two"], REWARD_SERVER_TOKEN="s3cret")
    assert done.returncode == 2 and "at least 3 nodes" in done.stderr


def test_kuberay_judge_endpoints_resolve_through_the_headless_service(monkeypatch):
    service, statefulset = load_all(KUBERAY / "judges.yaml")
    assert service["kind"] == "Service" and service["spec"]["clusterIP"] == "None"
    assert statefulset["kind"] == "StatefulSet" and statefulset["spec"]["serviceName"] == service["metadata"]["name"]
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert statefulset["spec"]["selector"]["matchLabels"].items() <= labels.items()
    container = statefulset["spec"]["template"]["spec"]["containers"][0]
    port = [p["containerPort"] for p in container["ports"]]
    assert [p["port"] for p in service["spec"]["ports"]] == port

    name, replicas = statefulset["metadata"]["name"], statefulset["spec"]["replicas"]
    for _, group in ray_groups()[:2]:  # the reward app's head and workers
        monkeypatch.setenv("JUDGE_HOSTS", pod_env(group["template"]["spec"])["JUDGE_HOSTS"]["value"])
        endpoints = OpenAIJudge.from_config(ROOT / "configs" / "judges" / "vllm.yaml").config.endpoints
        # StatefulSet pod i is `<name>-i`, with DNS name `<name>-i.<service>` in the namespace.
        assert [e.base_url for e in endpoints] == [f"http://{name}-{i}.{service['metadata']['name']}:{port[0]}/v1"
                                                   for i in range(replicas)]


def test_judge_config_names_the_missing_hosts_variable(monkeypatch):
    monkeypatch.delenv("JUDGE_HOSTS", raising=False)
    with pytest.raises(ValueError, match=r"vllm.yaml: endpoints.0.hosts_env: environment variable JUDGE_HOSTS is unset"):
        OpenAIJudge.from_config(ROOT / "configs" / "judges" / "vllm.yaml")
    bad = JudgeConfig.model_validate({"endpoints": [{"base_url": "http://x/v1", "model": "m", "hosts_env": "H"}]})
    with pytest.raises(ValueError, match=r"must contain \{host\}"):
        bad.expanded({"H": "a"})


# --- 3. secrets ---------------------------------------------------------------------------------------------------

def test_every_reward_pod_gets_the_secrets_from_the_secret():
    args = ServerArgs.model_validate(yaml.safe_load(rayservice()["spec"]["serveConfigV2"])["applications"][0]["args"])
    assert args.require_token
    for name, group in ray_groups():
        env = pod_env(group["template"]["spec"])
        needed = {args.token_env, "JUDGE_API_KEY"} if name.startswith("reward app") else {"REWARD_SERVER_TOKEN"}
        for variable in needed:
            assert "value" not in env[variable], f"{name}: {variable} must come from a Secret, not the manifest"
            assert env[variable]["valueFrom"]["secretKeyRef"]["name"] == "reward-secrets", (name, variable)
    statefulset = load_all(KUBERAY / "judges.yaml")[1]
    judge_key = pod_env(statefulset["spec"]["template"]["spec"])["VLLM_API_KEY"]["valueFrom"]["secretKeyRef"]
    reward_key = pod_env(rayservice()["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"])["JUDGE_API_KEY"]
    assert judge_key == reward_key["valueFrom"]["secretKeyRef"]


def test_slurm_passes_the_secrets_to_every_step_and_refuses_to_start_without_a_token(slurm_run, tmp_path):
    done, calls = slurm_run(["a", "b", "c"], REWARD_SERVER_TOKEN="s3cret", JUDGE_API_KEY="k3y")
    assert done.returncode == 0, done.stderr
    assert all(c["env"]["REWARD_SERVER_TOKEN"] == "s3cret" and c["env"]["VLLM_API_KEY"] == "k3y" for c in calls)
    assert not any("s3cret" in " ".join(c["argv"]) or "k3y" in " ".join(c["argv"]) for c in calls)
    done, calls = slurm_run(["a", "b", "c"])
    assert done.returncode != 0 and "REWARD_SERVER_TOKEN" in done.stderr and not calls
    secrets = tmp_path / "secrets.env"
    secrets.write_text("REWARD_SERVER_TOKEN=from-file\n")
    done, calls = slurm_run(["a", "b", "c"], REWARD_SECRETS=str(secrets))
    assert done.returncode == 0 and {c["env"]["REWARD_SERVER_TOKEN"] for c in calls} == {"from-file"}


@pytest.mark.filterwarnings("ignore:coroutine .*__del__' was never awaited")
def test_a_replica_without_the_token_the_app_was_built_with_refuses_to_start(monkeypatch):
    from reward.serve import Ingress, Scorer, build_app

    monkeypatch.setenv("REWARD_SERVER_TOKEN", "s3cret")
    app = build_app(ServerArgs(judge="mock", score_log=None))
    args = app._bound_deployment.init_args[1]  # what every Ingress replica receives
    assert set(args.secrets) == {"REWARD_SERVER_TOKEN"}
    check_secrets(args, "Ingress")  # same environment: starts
    monkeypatch.delenv("REWARD_SERVER_TOKEN")
    ingress = Ingress.func_or_class.__new__(Ingress.func_or_class)  # the ASGI wrapper's __init__ is async
    for start in (lambda: asyncio.run(ingress.__init__(None, args)), lambda: Scorer.func_or_class(args)):
        with pytest.raises(RuntimeError, match=r"REWARD_SERVER_TOKEN is unset here but was set where the app was built"):
            start()
    monkeypatch.setenv("REWARD_SERVER_TOKEN", "other")
    with pytest.raises(RuntimeError, match="differs"):
        check_secrets(args, "Scorer")
    monkeypatch.delenv("REWARD_SERVER_TOKEN")
    with pytest.raises(ValueError, match="require_token is on but REWARD_SERVER_TOKEN is unset"):
        build_app(ServerArgs(judge="mock", score_log=None, require_token=True))


def test_build_app_fingerprints_the_judge_api_key(monkeypatch, tmp_path):
    from reward.serve import build_app

    config = tmp_path / "judge.yaml"
    config.write_text("endpoints: [{base_url: 'http://j:8100/v1', model: m, api_key_env: MY_JUDGE_KEY}]\n")
    monkeypatch.delenv("REWARD_SERVER_TOKEN", raising=False)
    monkeypatch.setenv("MY_JUDGE_KEY", "k")
    args = build_app(ServerArgs(judge=str(config), score_log=None))._bound_deployment.init_args[1]
    assert set(args.secrets) == {"MY_JUDGE_KEY"}
    monkeypatch.delenv("MY_JUDGE_KEY")
    with pytest.raises(RuntimeError, match="MY_JUDGE_KEY is unset here"):
        check_secrets(args, "Scorer")


# --- 4. validation against the CRD schemas and shellcheck --------------------------------------------------------

def strict(schema: dict) -> dict:
    """The CRD schema with unknown fields rejected (as `kubectl apply --validate=strict` does), so typos fail."""
    if isinstance(schema, dict):
        schema = {k: strict(v) for k, v in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema \
                and not schema.get("x-kubernetes-preserve-unknown-fields"):
            schema["additionalProperties"] = False
    elif isinstance(schema, list):
        schema = [strict(v) for v in schema]
    return schema


@pytest.mark.parametrize(("manifest", "kind", "schema"), [
    ("raycluster.yaml", "RayCluster", "ray.io_rayclusters.v1.schema.json"),
    ("rayservice.yaml", "RayService", "ray.io_rayservices.v1.schema.json"),
])
def test_kuberay_manifests_validate_against_the_crd_schemas(manifest, kind, schema):
    validator = jsonschema.Draft7Validator(strict(json.loads((CRDS / schema).read_text())))
    [document] = load_all(KUBERAY / manifest)
    assert document["apiVersion"] == "ray.io/v1" and document["kind"] == kind
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, errors
    # The schema does catch mistakes: a misspelt field and a non-string rayStartParams value.
    broken = json.loads(json.dumps(document))
    spec = broken["spec"].get("rayClusterConfig", broken["spec"])
    spec["headGroupSpec"]["rayStartParams"]["num-gpus"] = 0
    spec["workerGroupSpecs"][0]["replica"] = 2
    messages = [e.message for e in validator.iter_errors(broken)]
    assert any("is not of type 'string'" in m for m in messages) and any("'replica'" in m for m in messages), messages


def test_slurm_script_passes_bash_n_and_shellcheck():
    subprocess.run(["bash", "-n", str(SBATCH)], check=True)
    if shutil.which("shellcheck") is None:
        message = "shellcheck is not installed (apt-get install shellcheck; `make test` installs it as root)"
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    done = subprocess.run(["shellcheck", "--shell=bash", "--severity=style", str(SBATCH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_grafana_dashboard_queries_metrics_the_server_exports():
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


# --- 5. sizing from measurements ----------------------------------------------------------------------------------

def test_sizing_uses_measured_token_counts_over_the_readme_defaults(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("sizing", ROOT / "benchmarks" / "sizing.py")
    sizing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sizing)
    default = sizing.build(sizing.build_parser().parse_args([]))
    assert default.nodes_for(600) == 19 and set(default.sources.values()) == {"default (README estimate)"}
    measured = tmp_path / "judge.json"
    measured.write_text(json.dumps({"prompt_tokens_per_call": {"mean": 2900.0}, "cached_share_of_prompt_tokens": 0.5,
                                    "completion_tokens_per_call": {"mean": 375.0}}))
    halved = sizing.build(sizing.build_parser().parse_args(["--measured", str(measured)]))
    assert (halved.prompt_tokens, halved.cached_tokens, halved.reply_tokens) == (2900.0, 1450.0, 375.0)
    assert halved.sources["reply_tokens"] == f"measured ({measured})"
    assert 0 < halved.node_seconds < default.node_seconds
    # A reply length measured on a small judge is overridden for the production judge.
    override = sizing.build(sizing.build_parser().parse_args(["--measured", str(measured), "--reply-tokens", "750"]))
    assert override.reply_tokens == 750 and override.sources["reply_tokens"] == "command line"
    out = tmp_path / "sizing.json"
    assert sizing.main(["--measured", str(measured), "--out", str(out), "--step-minutes", "10"]) == 0
    assert json.loads(out.read_text())["judge_nodes_by_step_minutes"] == {"10": halved.nodes_for(600)}


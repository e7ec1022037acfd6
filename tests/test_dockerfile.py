"""The Dockerfile builds what the cluster manifests name, with the install steps the docs give: the default target
(the last stage, what `docker build -t search-reward:latest .` builds) is the GPU set every KubeRay manifest runs;
`--target cpu` is `make run`'s set. Checked against the Makefile, docs/training.md and the manifests so the image
cannot drift from them; `hadolint Dockerfile` lints it where hadolint is installed."""

import re

from tests.support import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def stages() -> dict[str, str]:
    parts = re.split(r"^FROM ", DOCKERFILE, flags=re.M)[1:]
    return {part.split("\n", 1)[0].split(" AS ")[-1].strip(): part for part in parts}


def test_the_default_target_is_the_gpu_set_every_kuberay_manifest_runs():
    found = stages()
    assert list(found)[-1] == "gpu"  # `docker build .` builds the last stage
    images = {m for path in (ROOT / "cluster" / "kuberay").glob("*.yaml")
              for m in re.findall(r"^\s*-?\s*image:\s*(\S+)", path.read_text(), re.M)}
    assert images == {"search-reward:latest"}
    assert "docker build -t search-reward:latest ." in DOCKERFILE
    # The GPU environment's two install steps, as docs/training.md gives them.
    training = (ROOT / "docs" / "training.md").read_text().replace(" -e ", " ")  # the image installs, not editable
    for step in ('-c requirements-gpu.lock ".[serve,train,vllm]"',
                 "-c requirements-gpu.lock --no-build-isolation transformer-engine-torch"):
        assert step in training and step in found["gpu"]
    assert "python3.11 -m venv" in found["gpu"]


def test_the_cpu_target_installs_make_runs_set_from_the_cpu_lock():
    cpu = stages()["cpu"]
    extras = re.search(r"^RUN_EXTRAS := (\S+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert f'-c requirements.lock ".[{extras}]"' in cpu
    python = re.search(r"^PYTHON \?= python(\S+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert cpu.startswith(f"python:{python}-")
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", "var", "data/public", ".git"} <= set(ignored)  # no environment, run output or public data

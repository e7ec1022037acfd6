"""The wheel works on its own: built from the checkout, installed (not editable) into a fresh venv, it holds the
rubrics, configs, dashboard assets and the trained consistency model (whose checksums verify), and its `reward`
command scores `examples/items.jsonl` with the local judge from a folder outside the checkout.

The fresh venv sees the test venv's installed dependencies (the `local` extra among them) through a `.pth` path
line, which adds the folder to `sys.path` without running that folder's own `.pth` files: the editable install's
finder (`__editable__.search_reward-*.pth`) never loads, so `reward` can only come from the wheel."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support import EXAMPLES, ROOT

ARTIFACT = ROOT / "reward" / "judges" / "consistency_model"
SOURCES = ("pyproject.toml", "setup.py", "README.md", "reward", "policy", "rubrics", "configs")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the checkout (setuptools writes build/ and *.egg-info into its source)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "src"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.onnx"))
        else:
            shutil.copy(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w",
                           str(folder), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [built] = folder.glob("search_reward-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed (no editable install, no PYTHONPATH), dependencies from the test venv."""
    root = tmp_path_factory.mktemp("venv") / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True, env=_clean_env()).stdout.strip())
    dependencies = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "test_dependencies.pth").write_text("".join(f"{path}\n" for path in dependencies), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True, timeout=300, env=_clean_env())
    assert done.returncode == 0, done.stderr[-2000:]
    return root


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, **extra}


def test_the_wheel_holds_the_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    artifact = sorted(p.name for p in ARTIFACT.iterdir() if p.is_file())
    assert "SHA256SUMS" in artifact and {f"reward/judges/consistency_model/{n}" for n in artifact} <= names
    assert {"reward/rubrics/suites/searchllm.yaml", "reward/rubrics/schemas/suite.schema.json",
            "reward/configs/serve/local.yaml", "reward/dashboard/assets/page.html",
            "reward/dashboard/assets/dashboard.js", "reward/serve/app.py", "reward/__init__.py"} <= names
    assert not any(name.startswith(("tests/", "benchmarks/", "data/")) for name in names)


def test_the_installed_wheel_scores_the_examples_with_the_local_judge(venv, tmp_path):
    elsewhere = tmp_path / "elsewhere"  # outside the checkout: nothing resolves through the working folder
    elsewhere.mkdir()
    shutil.copy(EXAMPLES, elsewhere / "items.jsonl")
    # The ONNX exports are a cache keyed by the models' digests; sharing the checkout's keeps this test to seconds.
    env = _clean_env(REWARD_ONNX_CACHE=str(ROOT / "var" / "onnx"))
    probe = ("import json, reward, reward.judges.consistency as c, reward.rubric as r; "
             "print(json.dumps({'reward': reward.__file__, 'artifact': str(c.ARTIFACT), "
             "'digest': c.verify_artifact(), 'rubrics': str(r.DEFAULT_RUBRIC_DIR)}))")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=elsewhere, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    where = json.loads(done.stdout)
    for key in ("reward", "artifact", "rubrics"):
        assert Path(where[key]).resolve().is_relative_to(venv.resolve()), (key, where[key])
    sums = dict(reversed(line.split("  ")) for line in (Path(where["artifact"]) / "SHA256SUMS").read_text().splitlines())
    assert sums and all(hashlib.sha256((Path(where["artifact"]) / name).read_bytes()).hexdigest() == digest
                        for name, digest in sums.items())
    assert where["digest"] == hashlib.sha256((ARTIFACT / "SHA256SUMS").read_bytes()).hexdigest()[:16]

    done = subprocess.run([str(venv / "bin" / "reward"), "score", "--input", "items.jsonl", "--judge", "local",
                           "--output", "results.jsonl", "-q"], cwd=elsewhere, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in (elsewhere / "results.jsonl").read_text().splitlines()]
    items = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    assert [r["id"] for r in results] == [i["id"] for i in items]
    assert all(r["valid"] and 0.0 <= r["reward"] <= 1.0 for r in results)
    for name in ("claim_hallucination", "self_consistency"):  # the second runs the trained consistency model
        assert all(r["dimensions"][name]["backend"] == "local" and r["dimensions"][name]["status"] == "ok"
                   for r in results), name
    assert len({round(r["reward"], 6) for r in results}) > len(results) // 2  # real scores, not one constant

"""Setup a newcomer runs: `make run` installs the server and local tier only and needs no browser, `make test`
installs every extra the tests need, Python 3.11 is required by name, Debian tools are installed as root and
skipped loudly otherwise, the demo sends the server's token, and a non-editable install finds the shipped rubrics
and configs. Makefile targets run with `make -n` or in stubbed environments; nothing is installed here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

from tests.support import ROOT

MAKE = shutil.which("make") or "/usr/bin/make"


def make(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([MAKE, "-C", str(ROOT), *args], capture_output=True, text=True, env=env, timeout=60)


def installs(dry_run: str) -> list[str]:
    return re.findall(r'pip install --quiet -c requirements.lock -e "\.\[([^\]]*)\]"', dry_run)


def test_make_run_installs_the_server_and_local_tier_only_and_needs_no_browser():
    dry = make("-n", "run", "VENV=/nonexistent/venv")
    assert dry.returncode == 0, dry.stderr
    assert installs(dry.stdout) == ["serve,local"]
    assert "command -v chromium" not in dry.stdout and "install -y -q chromium" not in dry.stdout
    assert "reward serve --config configs/serve/local.yaml --demo examples/items.jsonl" in dry.stdout


def test_make_test_installs_every_extra_but_the_gpu_one_and_the_debian_tools():
    dry = make("-n", "test", "VENV=/nonexistent/venv")
    assert dry.returncode == 0, dry.stderr
    [extras] = installs(dry.stdout)
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    assert set(extras.split(",")) == declared - {"vllm"}
    assert "apt-get install -y -q chromium" in dry.stdout and "apt-get install -y -q shellcheck" in dry.stdout


def test_python_311_is_required_by_name(tmp_path):
    other = tmp_path / "python3.12"
    other.write_text("#!/bin/sh\nexec python3 -c 'import sys; sys.exit(1)'\n")
    other.chmod(0o755)
    for python in (str(other), str(tmp_path / "missing")):
        done = make("-s", "python-check", f"PYTHON={python}", f"VENV={tmp_path / 'venv'}")
        assert done.returncode != 0 and f"Python 3.11 is required, but '{python}'" in done.stdout
        assert not (tmp_path / "venv").exists()
    assert make("-s", "python-check", f"PYTHON={sys.executable}", f"VENV={tmp_path / 'venv'}").returncode == 0


def stub_path(tmp_path, uid: int) -> dict:
    """A PATH with no chromium, an `id` that reports `uid`, and an apt-get that records its calls."""
    stubs = tmp_path / f"bin{uid}"
    stubs.mkdir()
    (stubs / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (stubs / "apt-get").write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'apt.log'}\n")
    for name in ("id", "apt-get"):
        (stubs / name).chmod(0o755)
    for tool in ("sh", "cat", "sha256sum", "cut"):
        os.symlink(shutil.which(tool), stubs / tool)
    return {**os.environ, "PATH": str(stubs)}


def test_a_missing_browser_warns_without_root_and_is_installed_as_root(tmp_path):
    done = make("-s", "chromium", env=stub_path(tmp_path, 1000))
    assert done.returncode == 0
    assert "WARNING: chromium is missing and installing it needs root: the dashboard's browser test will be skipped" \
        in done.stdout
    assert not (tmp_path / "apt.log").exists()
    done = make("-s", "chromium", env=stub_path(tmp_path, 0))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "install -y -q chromium" in (tmp_path / "apt.log").read_text()


def test_the_demo_sends_the_servers_token(monkeypatch):
    import signal

    import reward.serve.runner as runner
    from reward.cli import main

    sent = {}
    monkeypatch.setenv("REWARD_SERVER_TOKEN", "s3cret")
    monkeypatch.setattr(runner, "start_server", lambda args, **_: "http://127.0.0.1:1")
    monkeypatch.setattr(runner, "stop_server", lambda: None)
    monkeypatch.setattr(runner, "score_file_over_http", lambda url, path, suite, token=None: sent.update(token=token))
    monkeypatch.setattr(signal, "signal", lambda sig, handler: handler())  # SIGTERM at once: the command returns
    demo = str(ROOT / "examples" / "items.jsonl")
    assert main(["serve", "--config", "configs/serve/local.yaml", "--demo", demo]) == 0
    assert sent == {"token": "s3cret"}


def test_a_non_editable_install_finds_the_shipped_rubrics_and_configs(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "reward", "policy", "rubrics", "configs"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w",
                    str(wheels), str(source)], check=True, capture_output=True, timeout=300)
    [wheel] = wheels.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "reward/rubrics/suites/searchllm.yaml" in names and "reward/configs/serve/local.yaml" in names
    assert "reward/rubrics/schemas/suite.schema.json" in names and "reward/serve/app.py" in names
    assert {"reward/dashboard/assets/page.html", "reward/dashboard/assets/dashboard.js"} <= set(names)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)  # what pip install puts into site-packages
    check = ("from reward.rubric import DEFAULT_RUBRIC_DIR, load_suite; from reward.shipped import resolve_config; "
             "print(DEFAULT_RUBRIC_DIR); print(load_suite('searchllm').version); "
             "print(resolve_config('configs/serve/local.yaml').is_file())")
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(site)})
    rubric_dir, version, config_found = done.stdout.split()
    assert rubric_dir == str(site / "reward" / "rubrics")
    assert len(version) == 16 and config_found == "True"


def test_the_wheel_ships_the_trained_consistency_model(tmp_path):
    """The local tier verifies its artifact at load: a wheel without it would fail on every install but editable."""
    source = tmp_path / "src"  # a copy: setuptools builds in the source tree (build/, *.egg-info)
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "var", "build", "*.egg-info",
                                                                  ".pytest_cache", "__pycache__", "data"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(tmp_path), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = tmp_path.glob("search_reward-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    artifact = sorted(p.name for p in (ROOT / "reward" / "judges" / "consistency_model").iterdir() if p.is_file())
    assert artifact and {f"reward/judges/consistency_model/{name}" for name in artifact} <= names

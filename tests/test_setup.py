"""Setup a newcomer runs: `make run` installs the server and local tier only and needs no browser, `make test`
installs every extra the tests need, Python 3.11 is required by name, Debian tools are installed as root and
skipped loudly otherwise, and the demo sends the server's token (the wheel and a non-editable install:
tests/test_wheel.py). Makefile targets run with `make -n` or in stubbed environments; nothing is installed here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib

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

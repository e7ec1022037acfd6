"""The client package a trainer image installs (`client/`, search-reward-client): on Python 3.10 and 3.12, in a fresh
venv with nothing of the server, it installs and scores an example against the running server; its reason kinds
agree with the server's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support import EXAMPLES, ROOT, TOKEN

PYENV = Path("/root/.pyenv/versions")


def test_the_clients_reason_kinds_agree_with_the_servers():
    sys.path.insert(0, str(ROOT / "client"))
    try:
        import search_reward_client as client
    finally:
        sys.path.remove(str(ROOT / "client"))
    from reward.schema import CALL_FAILURE_REASONS, STRUCTURAL_REASONS, reason_kind

    assert client.INFRASTRUCTURE_REASONS == CALL_FAILURE_REASONS
    assert client.STRUCTURAL_REASONS >= STRUCTURAL_REASONS
    for reason in ["unparseable", "rule_error", "something_new", *CALL_FAILURE_REASONS, *STRUCTURAL_REASONS]:
        value = client.used_score({"score": None, "reason": reason})
        assert (value == 0.0) is (reason_kind(reason) == "response")


def _interpreter(version: str) -> Path:
    found = sorted(PYENV.glob(f"{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no Python {version} interpreter under {PYENV}")
    return found[-1]


SCRIPT = """
import json, sys
import search_reward_client as c
assert c.__file__.startswith(sys.prefix), c.__file__  # installed into this venv, not read from the checkout
try:
    import reward  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("the server package is importable: the client must not need it")
url, token, line = sys.argv[1], sys.argv[2], sys.argv[3]
item = json.loads(line)
results = c.RewardClient(url, token=token, retries=2).score("searchllm", [item], step=1, run="client-package")
values = {name: c.used_score(d) for name, d in results[0]["dimensions"].items()}
print(json.dumps({"version": sys.version_info[:2], "reward": results[0]["reward"], "masked": c.is_masked(results[0]),
                  "values": values}))
"""


@pytest.mark.parametrize("version", ["3.10", "3.12"])
def test_a_fresh_venv_installs_the_client_and_scores_an_example(server, tmp_path, version):
    python = _interpreter(version)
    venv = tmp_path / f"py{version}"
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    fresh = venv / "bin" / "python"
    site = Path(subprocess.run([str(fresh), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # httpx and tenacity (pure Python) from the test venv's folder, without its site hooks: the server's editable
    # install stays invisible, so the client must stand alone.
    (site / "client_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    source = tmp_path / "client"  # a copy: building writes build/ and *.egg-info into the source
    shutil.copytree(ROOT / "client", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(fresh), "install", "--quiet", "--no-deps",
                           "--no-index", "--no-build-isolation", str(source)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(l for l in EXAMPLES.read_text().splitlines() if l.strip())
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    run = subprocess.run([str(fresh), "-c", SCRIPT, server["url"], TOKEN, line], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path, env=clean)
    assert run.returncode == 0, run.stderr[-2000:]
    reply = json.loads(run.stdout)
    assert reply["version"] == [int(v) for v in version.split(".")]
    assert 0.0 <= reply["reward"] <= 1.0 and reply["masked"] is False
    assert reply["values"]["format"] is not None and len(reply["values"]) == 20

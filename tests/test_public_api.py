"""The packages' public APIs: each name a package `__init__` declares resolves, and importing a package (or reading
a name the core serves) loads no heavy dependency; those load only when the part that needs them is used."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

from tests.support import ROOT

HEAVY = ("torch", "ray", "onnxruntime", "transformers", "sentence_transformers")
PACKAGES = ("reward", "reward.judges", "reward.serve", "reward.scorelog", "reward.dashboard", "reward.cli")


def _loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running `code`."""
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_import_reward_loads_no_heavy_dependency():
    assert _loaded_after("import reward") == []


def test_the_scoring_core_of_the_public_api_loads_no_heavy_dependency():
    code = ("import reward\n"
            "suite = reward.load_suite('searchllm')\n"
            "item = reward.Item(id='a', query='q', response='r')\n"
            "assert reward.Engine and reward.make_judge and reward.ItemResult\n"
            "from reward.serve import ServerArgs, Limits\n"
            "from reward.judges import CascadeJudge, Judge, LocalJudge, OpenAIJudge\n"
            "ServerArgs(limits=Limits())\n")
    assert _loaded_after(code) == []


def test_the_probe_sees_a_heavy_import():
    assert _loaded_after("import reward, ray") == ["ray"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_declared_public_name_resolves(package):
    module = importlib.import_module(package)
    assert module.__all__ and len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("package", ("reward", "reward.judges", "reward.serve"))
def test_a_lazy_package_declares_each_name_once_and_names_an_unknown_one(package):
    module = importlib.import_module(package)
    declared = [name for names in module._import_structure.values() for name in names]
    assert sorted(declared) == sorted(module.__all__)
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018


def test_the_judges_package_exports_no_test_double():
    import reward.judges

    assert "ScriptedJudge" not in reward.judges.__all__
    assert {"LocalJudge", "OpenAIJudge", "CascadeJudge", "make_judge"} <= set(reward.judges.__all__)

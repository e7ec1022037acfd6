"""The GPU nodes' environment resolves: `.[serve,train,vllm]` with requirements-gpu.lock as constraints, by pip's
resolver against the package registry (`pip install --dry-run --ignore-installed`), so a pin that conflicts (as
numpy 2.4 did with vLLM's mistral_common) fails CI instead of a GPU node's install. Marked `registry`: `make test`
runs these outside the loopback-only network namespace; they skip, with the reason, only when the registry cannot
be reached. pip's cache lives in pytest's cache folder, so a rerun reads metadata from disk."""

from __future__ import annotations

import importlib.util
import sys
import tomllib

import pytest

from tests.support import ROOT

# By path: verl's wheel installs a top-level `scripts` package that would shadow this repository's folder.
_spec = importlib.util.spec_from_file_location("gpu_lock", ROOT / "scripts" / "gpu_lock.py")
gpu_lock = sys.modules["gpu_lock"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpu_lock)
LOCK, TE_TORCH, normalise, read_lock, resolve, write_lock = (gpu_lock.LOCK, gpu_lock.TE_TORCH, gpu_lock.normalise,
                                                              gpu_lock.read_lock, gpu_lock.resolve, gpu_lock.write_lock)
RegistryUnreachable, ResolutionFailed = gpu_lock.RegistryUnreachable, gpu_lock.ResolutionFailed

pytestmark = pytest.mark.registry


def _resolve(request, constraints):
    try:
        return resolve(constraints, request.config.cache.mkdir("pip-gpu-resolve"), timeout_s=600)
    except RegistryUnreachable as exc:
        pytest.skip(f"package registry unreachable, the GPU set was NOT checked: {str(exc)[-300:]}")


def test_the_gpu_set_resolves_with_its_lock_and_the_lock_is_complete(request):
    resolution = _resolve(request, LOCK)
    lock = read_lock()
    # Every resolved package is pinned, at the version pip chose (the lock is the whole environment).
    assert {name: lock.get(name) for name in resolution.pins} == resolution.pins
    assert set(lock) - set(resolution.pins) == {TE_TORCH}  # built on the node, pinned at TE's version
    assert lock[TE_TORCH] == lock["transformer-engine"] == lock["transformer-engine-cu13"]
    pins = resolution.pins
    assert (pins["verl"], pins["vllm"], pins["torch"], pins["megatron-core"]) == ("0.9.1", "0.24.0", "2.11.0", "0.16.1")
    # verl's Megatron engine with vanilla_mbridge (configs/verl/recipe/grpo_search.yaml) imports mbridge, and its
    # layer specs Transformer Engine, in the range megatron-core 0.16 supports (>=2.9, <2.12).
    assert "mbridge" in pins and (2, 9) <= tuple(map(int, pins["transformer-engine"].split(".")[:2])) < (2, 12)
    numpy = tuple(map(int, pins["numpy"].split(".")[:2]))
    assert numpy < (2, 4)  # mistral_common (vLLM) needs numpy<2.4
    # The base dependency admits both locks' numpy; the CPU lock pins its own.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    [base] = [d for d in project["dependencies"] if normalise(d.split(">")[0].split("=")[0].split("<")[0]) == "numpy"]
    from packaging.specifiers import SpecifierSet

    cpu = read_lock(ROOT / "requirements.lock")["numpy"]
    assert SpecifierSet(base[len("numpy"):]).contains(pins["numpy"]) and SpecifierSet(base[len("numpy"):]).contains(cpu)


def test_a_conflicting_pin_fails_the_check(request, tmp_path):
    """The check can fail: numpy 2.4 (the old base pin) against vLLM's mistral_common."""
    bad = tmp_path / "gpu.lock"
    write_lock({**read_lock(), "numpy": "2.4.6"}, bad)
    with pytest.raises(ResolutionFailed, match="ResolutionImpossible|conflict"):
        _resolve(request, bad)

"""Resolve the GPU nodes' environment (extras `serve,train,vllm`) against the package registry, and write its lock.

    python scripts/gpu_lock.py                    # rewrite requirements-gpu.lock from a fresh resolution
    python scripts/gpu_lock.py --check            # resolve with the lock as constraints; fail on a conflict

The GPU set cannot be installed on a CPU machine (torch 2.11.0 CUDA 13, vLLM), so it is resolved with
`pip install --dry-run --ignore-installed --report`: pip reads every candidate's metadata from the registry and
answers with the full set, or with the conflict. `tests/test_gpu_lock.py` runs the check in CI.
Transformer Engine's PyTorch extension (`transformer-engine-torch`) has only a source distribution whose metadata
needs torch and CUDA to build, so it is not resolved here: the lock pins it at Transformer Engine's version and the
node builds it against the installed torch (`pip install --no-build-isolation`, docs/training.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements-gpu.lock"
EXTRAS = "serve,train,vllm"
TE_TORCH = "transformer-engine-torch"
"""Built on the GPU node (no wheel); pinned to the version of `transformer-engine`."""

HEADER = f"""\
# Constraints for GPU nodes (extras {EXTRAS}), in their own environment: never together with requirements.lock or
# the `local` extra (torch 2.13.0 CPU). Resolved by pip against the registry; regenerate with:
#   python scripts/gpu_lock.py        (checked in CI by tests/test_gpu_lock.py: python scripts/gpu_lock.py --check)
# Install (docs/training.md):
#   pip install -c requirements-gpu.lock -e ".[{EXTRAS}]"
#   pip install -c requirements-gpu.lock --no-build-isolation {TE_TORCH}   # TE's PyTorch extension, built here
"""

class RegistryUnreachable(RuntimeError):
    """pip could not reach the package registry; the resolution says nothing about the pins."""


class ResolutionFailed(RuntimeError):
    """pip reached the registry and found no set that satisfies the requirements (or the constraints)."""


@dataclass(frozen=True)
class Resolution:
    pins: dict[str, str]
    """Normalised name -> version of everything pip would install."""
    seconds: float


def normalise(name: str) -> str:
    """A distribution name as pip compares it (PEP 503).

    >>> normalise("Transformer_Engine.Torch")
    'transformer-engine-torch'
    """
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def check_registry(timeout_s: float = 60.0) -> None:
    """Raise `RegistryUnreachable` unless pip can list the versions of a package every resolution needs (the build
    backend, setuptools): a failed resolution then means a conflict, never a network problem."""
    command = [sys.executable, "-m", "pip", "index", "versions", "--no-cache-dir", "--disable-pip-version-check",
               "setuptools"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise RegistryUnreachable(f"pip could not list setuptools' versions within {timeout_s:.0f} s") from None
    if done.returncode != 0 or "setuptools (" not in done.stdout:
        raise RegistryUnreachable(f"pip could not list setuptools' versions: {_errors(done.stderr)[-1000:]}")


def _errors(stderr: str) -> str:
    # warnings about configured index locations that do not exist are noise in the message
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("WARNING: Location")).strip()


def resolve(constraints: Path | None = None, cache_dir: Path | None = None, timeout_s: float = 900.0) -> Resolution:
    """The set pip resolves for `.[serve,train,vllm]` from a fresh environment (`--ignore-installed`)."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
               "--disable-pip-version-check", "--report", "-", f".[{EXTRAS}]"]
    if constraints is not None:
        command[4:4] = ["-c", str(constraints)]
    if cache_dir is not None:
        command[4:4] = ["--cache-dir", str(cache_dir)]
    check_registry()
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise ResolutionFailed(f"pip did not resolve the GPU set within {timeout_s:.0f} s (backtracking?): "
                               f"{(exc.stderr or b'')[-2000:]!r}") from None
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise ResolutionFailed(_errors(done.stderr)[-4000:])
    report = json.loads(done.stdout[done.stdout.index("{"):])
    pins = {normalise(entry["metadata"]["name"]): entry["metadata"]["version"] for entry in report["install"]
            if entry["metadata"]["name"] != "search-reward"}
    return Resolution(pins, seconds)


def read_lock(path: Path = LOCK) -> dict[str, str]:
    """name -> version of a lock file (`name==version` lines)."""
    pins = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not version:
            raise ValueError(f"{path.name}:{number}: expected 'name==version', got {line!r}")
        pins[normalise(name)] = version.strip()
    return pins


def write_lock(pins: dict[str, str], path: Path = LOCK) -> None:
    pins = dict(pins)
    pins[TE_TORCH] = pins["transformer-engine"]
    path.write_text(HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items())),
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="resolve with the lock as constraints, write nothing")
    parser.add_argument("--cache-dir", type=Path)
    args = parser.parse_args(argv)
    resolution = resolve(LOCK if args.check else None, args.cache_dir)
    if not args.check:
        write_lock(resolution.pins)
    print(f"{len(resolution.pins)} packages resolved in {resolution.seconds:.1f} s"
          + ("" if args.check else f"; wrote {LOCK.name}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

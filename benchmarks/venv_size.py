"""Disk size of what `make run` and `make test` install: the dependency closure of search-reward with the extras
`serve,local` (make run) and `serve,local,train,dev` (make test), summed over the installed files of each
distribution, in an existing venv that holds all of them.

    .venv/bin/python benchmarks/venv_size.py --out benchmarks/results/venv_size.json
"""

from __future__ import annotations

import argparse
import json
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

TARGETS = {"make run": ("serve", "local"), "make test": ("serve", "local", "train", "dev")}


def closure(extras: tuple[str, ...]) -> set[str]:
    """Distributions search-reward[extras] pulls in, itself included."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo = [(canonicalize_name("search-reward"), extras)]
    while todo:
        name, wanted = todo.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for raw in dist.requires or []:
            requirement = Requirement(raw)
            environments = [{"extra": extra} for extra in wanted or ("",)]
            if requirement.marker is None or any(requirement.marker.evaluate(env) for env in environments):
                todo.append((canonicalize_name(requirement.name), tuple(sorted(requirement.extras))))
    return {name for name, _ in seen}


def installed_bytes(name: str) -> int:
    total = 0
    for file in metadata.distribution(name).files or []:
        try:
            total += file.locate().stat().st_size
        except OSError:
            pass
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args()
    result = {}
    for target, extras in TARGETS.items():
        names = sorted(n for n in closure(extras) if _installed(n))
        sizes = {n: installed_bytes(n) for n in names}
        largest = sorted(sizes, key=sizes.get, reverse=True)[:8]
        result[target] = {"extras": ",".join(extras), "distributions": len(names),
                          "mib": round(sum(sizes.values()) / 2**20),
                          "largest_mib": {n: round(sizes[n] / 2**20) for n in largest}}
        print(f"{target} ({result[target]['extras']}): {len(names)} distributions, {result[target]['mib']} MiB")
    result["command"] = "python benchmarks/venv_size.py" + (f" --out {args.out}" if args.out else "")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
            out.write("\n")


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
        return True
    except metadata.PackageNotFoundError:
        return False


if __name__ == "__main__":
    main()

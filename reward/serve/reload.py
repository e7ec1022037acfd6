"""Hot reload of the rubric files: what the watch compares (`rubric_stamp`) and how a newly read suite may hold less
than its running version (`suite_shrinkage`), which is what a file read half-written looks like."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reward.rubric import LoadedSuite


def rubric_stamp(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Name, modification time and size of every rubric file: what the hot-reload watch compares."""
    stamps = []
    for path in sorted(root.rglob("*.yaml")):
        try:
            stat = path.stat()
        except OSError:  # removed between listing and stat: the next check sees it gone
            continue
        stamps.append((str(path.relative_to(root)), stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)


def _key_paths(data: Any, prefix: str = "") -> set[str]:
    """Every key path of a nested mapping (`judge.scale`), lists taken as a whole."""
    paths = set()
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{prefix}{key}"
            paths.add(path)
            paths |= _key_paths(value, path + ".")
    return paths


def suite_shrinkage(running: LoadedSuite, loaded: LoadedSuite) -> list[str]:
    """How a newly read suite holds less than its running version: dimensions gone, or a suite or dimension file
    that parses to fewer keys (a file read half-written parses to a prefix of itself). Empty when nothing shrank."""
    where = f"suite {running.name!r}"
    gone = sorted(set(running.dimensions) - set(loaded.dimensions))
    problems = [f"{where}: {len(loaded.dimensions)} dimensions where {len(running.dimensions)} are serving; "
                f"missing {', '.join(gone)}"] if gone else []
    pairs = [("suite file", running.suite, loaded.suite)] + [
        (f"dimension {n!r}", running.dimensions[n], loaded.dimensions[n]) for n in running.dimensions if n in loaded.dimensions]
    for what, old, new in pairs:
        missing = sorted(_key_paths(old.model_dump(exclude_unset=True)) - _key_paths(new.model_dump(exclude_unset=True)))
        if missing:
            more = f" and {len(missing) - 5} more keys" if len(missing) > 5 else ""
            problems.append(f"{where}: {what} parses to fewer keys than the running version (missing keys "
                            f"{', '.join(missing[:5])}{more})")
    return problems

"""What an edit of a rubric changes: the keys that differ between two versions of a dimension, what differs between
two versions of a suite (the server logs it at each hot reload), and which edits cannot move a local-tier score
because the embedded local tier does not read them (`reward rubric diff` and `reward score` say so)."""

from __future__ import annotations

from typing import Any

from reward.rubric import Dimension, LoadedSuite, Suite, criterion_digest

LOCAL_TIER_UNREAD = ("title", "description", "requirement", "subset", "judge.system", "judge.criterion", "judge.scale",
                     "judge.output", "judge.contract", "judge.quotes", "local.covers", "local.criterion_digest")
"""Dimension keys the embedded local tier does not read (it reads its method or examples, the inputs, the layer and the
pre-checks): an edit of these alone cannot move a local-tier score."""


def changed_keys(old: Dimension, new: Dimension) -> list[str]:
    """The dotted keys whose values differ between two versions of a dimension (a list compared whole).

    >>> a = Dimension.model_validate({"name": "x", "title": "X", "layer": "behavioral", "requirement": "R3",
    ...     "subset": "usability", "description": "d", "inputs": ["answer"], "rule": {"check": "format.length"}})
    >>> changed_keys(a, a.model_copy(update={"title": "Y"}))
    ['title']
    """
    def flat(value: Any, prefix: str = "") -> dict[str, Any]:
        if isinstance(value, dict):
            return {k: v for key, item in value.items() for k, v in flat(item, f"{prefix}{key}.").items()}
        return {prefix.rstrip("."): value}

    before, after = flat(old.model_dump(mode="json")), flat(new.model_dump(mode="json"))
    return sorted(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def _local_scorer_phrase(dimension: Dimension) -> str:
    local = dimension.local
    if local is not None and local.fitted:
        return "its labelled examples"
    method = local.method if local is not None and local.method else dimension.name
    covers = "; ".join(local.covers) if local is not None and local.covers else ""
    return f"the local method {method!r}" + (f", which checks only: {covers}" if covers else "")


def local_tier_note(old: Dimension, new: Dimension) -> str | None:
    """Why an edit of a dimension cannot move its local-tier scores (every changed key is one the local tier does not
    read), or None when it can."""
    keys = changed_keys(old, new)
    if not keys or new.rule is not None or not all(k.startswith(LOCAL_TIER_UNREAD) for k in keys):
        return None
    return (f"the edit changes {', '.join(keys)}, which the local tier does not read (it scores this dimension by "
            f"{_local_scorer_phrase(new)}); an LLM judge follows the edit")


def suite_changes(old: LoadedSuite | None, new: LoadedSuite) -> str:
    """What differs between two versions of a suite, in one line: the versions, the dimensions added, removed or
    changed (with the keys that changed), weights and suite settings; the files are the changed dimensions' files.

    >>> from reward.rubric import load_suite
    >>> suite = load_suite("searchllm")
    >>> suite_changes(suite, suite).endswith("no change")
    True
    """
    if old is None:
        return f"suite {new.name}: new, version {new.version}, {len(new.dimensions)} dimensions"
    parts = []
    added = [n for n in new.dimensions if n not in old.dimensions]
    removed = [n for n in old.dimensions if n not in new.dimensions]
    changed = [f"{n} ({', '.join(changed_keys(old.dimensions[n], new.dimensions[n]))})" for n in new.dimensions
               if n in old.dimensions and old.dimensions[n] != new.dimensions[n]]
    weights = [f"{n} {old.suite.dimensions[n]:g} -> {new.suite.dimensions[n]:g}" for n in new.suite.dimensions
               if n in old.suite.dimensions and old.suite.dimensions[n] != new.suite.dimensions[n]]
    settings = [k for k in Suite.model_fields if k not in ("dimensions", "description")
                and getattr(old.suite, k) != getattr(new.suite, k)]
    for label, names in (("added", added), ("removed", removed), ("changed", changed), ("weights", weights),
                         ("settings", settings)):
        if names:
            parts.append(f"{label} {', '.join(names)}")
    return f"suite {new.name} {old.version} -> {new.version}: " + ("; ".join(parts) or "no change")


def stale_criterion_notes(loaded: LoadedSuite) -> list[str]:
    """One line per dimension of the suite whose criterion changed since its hand-written local method was checked
    against it: under the local tier the suite's version changed but these scores cannot."""
    notes = []
    for dimension in loaded.dimensions.values():
        local, judge = dimension.local, dimension.judge
        if (local is None or judge is None or local.fitted or local.criterion_digest is None
                or local.criterion_digest == criterion_digest(judge.criterion)):
            continue
        notes.append(f"suite {loaded.name} version {loaded.version}: dimension '{dimension.name}' has a criterion edited "
                     f"since its local method was checked against it; the local tier does not read the criterion (it "
                     f"scores by {_local_scorer_phrase(dimension)}), so its scores are what they were before the edit")
    return notes

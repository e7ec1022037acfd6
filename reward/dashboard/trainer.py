"""The trainer's own metrics (KL, loss, entropy, response length, ...) read from the files trainers already write,
as per-step series the dashboard draws on the same step axis as the reward dimensions.

Three shapes are read, chosen by content, not by file name:

- TRL: `trainer_state.json` (its `log_history` list) or that list saved alone; each entry has `step`.
- verl: the `file` logger's JSONL (`{"step": n, "data": {"actor/kl_loss": ...}}` per line), or the `console`
  logger's output (`step:n - actor/kl_loss:0.01 - ...`), as captured from stdout, Ray's `(pid=...)` prefixes and
  other lines around it included.
- A CSV with a `step` column and one column per metric.

A value that is not a finite number (a string, NaN, a list) is left out of its series rather than drawn as 0.

>>> read_metrics_text('step:1 - actor/kl_loss:0.02 - response_length/mean:310.5\\nstep:2 - actor/kl_loss:0.03')
{'actor/kl_loss': {1: 0.02, 2: 0.03}, 'response_length/mean': {1: 310.5}}
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["TrainerMetricsError", "default_keys", "metrics_series", "read_metrics", "read_metrics_text", "trainer_data"]

_CONSOLE_STEP = re.compile(r"(?:^|\s|\))step:(\d+)\s+-\s+(.*)$")
_CONSOLE_PAIR = re.compile(r"^\s*([^:\s][^:]*?):\s*(?:np\.\w+\()?(-?[0-9.eE+-]+|nan|inf|-inf)\)?\s*$")


class TrainerMetricsError(ValueError):
    """A trainer-metrics file that none of the known shapes fits, named with what was expected."""


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _add(out: dict[str, dict[int, float]], step: object, values: Mapping[str, object]) -> None:
    if isinstance(step, bool) or not isinstance(step, int | float) or not math.isfinite(step):
        return
    for key, value in values.items():
        number = _number(value)
        if key != "step" and number is not None:
            out.setdefault(str(key), {})[int(step)] = number


def _from_entries(entries: Iterable[object]) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if isinstance(entry.get("data"), dict):  # verl's file logger
            _add(out, entry.get("step"), entry["data"])
        else:  # TRL's log_history entry, or any flat {"step": n, ...} line
            _add(out, entry.get("step"), entry)
    return out


def _from_console(text: str) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for line in text.splitlines():
        found = _CONSOLE_STEP.search(line.rstrip())
        if not found:
            continue
        values: dict[str, object] = {}
        for part in found.group(2).split(" - "):
            pair = _CONSOLE_PAIR.match(part)
            if pair:
                try:
                    values[pair.group(1)] = float(pair.group(2))
                except ValueError:
                    continue
        _add(out, int(found.group(1)), values)
    return out


def _from_csv(text: str, source: str) -> dict[str, dict[int, float]]:
    reader = csv.DictReader(io.StringIO(text))
    if "step" not in (reader.fieldnames or []):
        raise TrainerMetricsError(f"{source}: a CSV of trainer metrics needs a 'step' column, "
                                  f"found {reader.fieldnames}")
    out: dict[str, dict[int, float]] = {}
    for row in reader:
        try:
            step = float(row["step"])
        except (TypeError, ValueError):
            continue
        values = {}
        for key, value in row.items():
            try:
                values[key] = float(value)
            except (TypeError, ValueError):
                continue
        _add(out, step, values)
    return out


def read_metrics_text(text: str, source: str = "<text>") -> dict[str, dict[int, float]]:
    """Metric name -> {step: value} from the text of a trainer-metrics file of any of the module's shapes."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None  # JSON lines, not one document
        if isinstance(whole, dict) and isinstance(whole.get("log_history"), list):
            return _from_entries(whole["log_history"])
        if isinstance(whole, list):
            return _from_entries(whole)
        if whole is None:
            entries = []
            for line in text.splitlines():
                line = line.strip()
                if line:
                    try:
                        entries.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue
            found = _from_entries(entries)
            if found:
                return found
    found = _from_console(text)
    if found:
        return found
    first = stripped.split("\n", 1)[0]
    if "," in first and ":" not in first:  # a CSV header; it must name the step column
        return _from_csv(text, source)
    raise TrainerMetricsError(
        f"{source}: no per-step metrics found; expected TRL's trainer_state.json (log_history), verl's file logger"
        " JSONL ({\"step\": n, \"data\": {...}}), verl's console output (step:n - name:value - ...) or a CSV with a"
        " 'step' column")


def read_metrics(path: str | Path) -> dict[str, dict[int, float]]:
    """Metric name -> {step: value} read from a trainer-metrics file (see the module docstring for the shapes)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"trainer metrics file {path} does not exist")
    return read_metrics_text(path.read_text(encoding="utf-8", errors="replace"), str(path))


def metrics_series(metrics: Mapping[str, Mapping[int, float]], keep: Sequence[str] | None = None) -> dict:
    """The page's form of one trainer's metrics: `{"steps": [...], "metrics": {name: [value or None, ...]}}`,
    aligned on the union of the steps; `keep` limits the metrics to those names (in that order)."""
    names = list(keep) if keep else sorted(metrics)
    missing = [name for name in names if name not in metrics]
    if missing:
        raise TrainerMetricsError(f"trainer metrics {missing} not found; the file has {sorted(metrics)}")
    steps = sorted({step for name in names for step in metrics[name]})
    return {"steps": steps,
            "metrics": {name: [metrics[name].get(step) for step in steps] for name in names}}


DEFAULT_PATTERN = re.compile(r"kl|loss|entropy|response_length/mean|mean_length|completions/mean|grad_norm", re.I)
DEFAULT_LIMIT = 12


def default_keys(names: Iterable[str]) -> list[str]:
    """The metrics drawn when none are named: KL, losses, entropy, response length and gradient norm (up to
    `DEFAULT_LIMIT`), or the first few names when none of those is there.

    >>> default_keys(["timing/gen", "actor/kl_loss", "actor/entropy", "critic/score/mean"])
    ['actor/entropy', 'actor/kl_loss']
    """
    names = sorted(names)
    chosen = [name for name in names if DEFAULT_PATTERN.search(name)]
    return (chosen or names)[:DEFAULT_LIMIT]


def trainer_data(sources: Mapping[str, str | Path], runs: Sequence[str], keys: Sequence[str] | None = None) -> dict:
    """The page's trainer data: run label -> `metrics_series` of its file. A source keyed "" belongs to the only
    run; a label that is not a run of the page is an error naming the runs."""
    out: dict[str, dict] = {}
    for label, path in sources.items():
        if not label:
            if len(runs) != 1:
                raise TrainerMetricsError(
                    f"trainer metrics {path}: the page has {len(runs)} runs ({', '.join(runs) or 'none'}); "
                    "name the run as RUN=PATH")
            label = runs[0]
        if label not in runs:
            raise TrainerMetricsError(f"trainer metrics {path}: no run {label!r} on the page; runs: {', '.join(runs)}")
        metrics = read_metrics(path)
        wanted = [k for k in keys if k in metrics] if keys else default_keys(metrics)
        if keys and not wanted:
            raise TrainerMetricsError(f"trainer metrics {path}: none of {list(keys)} found; the file has {sorted(metrics)}")
        out[label] = metrics_series(metrics, wanted)
    return out

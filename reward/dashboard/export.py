"""The dashboard's per-step table as rows, CSV or Parquet: one row per (run, step) with the items, valid rate,
reward / gate / utility mean and p10/p90, per dimension the mean, p10, p90, scored and seen counts and unscored
share, and the trainer's metrics of that step when they were imported. Empty cells are missing values, never 0.

    reward dashboard --log var/scores --export steps.parquet
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

__all__ = ["step_rows", "write_table"]


def step_rows(data: Mapping) -> list[dict]:
    """The rows of the per-step table from the dashboard's data (`page_data`, `summarise`), trainer metrics
    included (`data["trainer"]`, keyed by run)."""
    rows: list[dict] = []
    trainer = data.get("trainer") or {}
    for run, info in data["runs"].items():
        metrics = trainer.get(run) or {}
        by_step = {name: dict(zip(metrics.get("steps", []), values, strict=True))
                   for name, values in (metrics.get("metrics") or {}).items()}
        for k, step in enumerate(info["steps"]):
            row: dict = {"run": run, "step": step, "time_utc": (info.get("time") or [None] * (k + 1))[k],
                         "items": info["items"][k], "valid_rate": info["valid_rate"][k]}
            for key in ("reward", "gate", "utility"):
                curve = info["curves"].get(key) or {}
                for stat in ("mean", "p10", "p90"):
                    row[f"{key}_{stat}"] = (curve.get(stat) or [None] * (k + 1))[k]
            for name in sorted(data["layers"]):
                series = info["dimensions"].get(name)
                if series is None:
                    for stat in ("mean", "p10", "p90", "scored", "seen", "unscored_share"):
                        row[f"{name}_{stat}"] = None
                    continue
                seen, scored = series["seen"][k], series["count"][k]
                row.update({f"{name}_mean": series["mean"][k], f"{name}_p10": series["p10"][k],
                            f"{name}_p90": series["p90"][k], f"{name}_scored": scored, f"{name}_seen": seen,
                            f"{name}_unscored_share": round((seen - scored) / seen, 4) if seen else None})
            for name, values in by_step.items():
                row[f"trainer/{name}"] = values.get(step)
            rows.append(row)
    return rows


def write_table(data: Mapping, path: str | Path) -> Path:
    """Write the per-step table as CSV (`.csv`) or Parquet (`.parquet`), chosen by the file's suffix."""
    path = Path(path)
    rows = step_rows(data)
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns), restval="")
            writer.writeheader()
            writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
        return path
    if suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise ImportError("writing Parquet needs pyarrow: pip install pyarrow (or the 'train' extra)") from exc
        table = pa.Table.from_pylist([{c: row.get(c) for c in columns} for row in rows])
        pq.write_table(table, path)
        return path
    raise ValueError(f"{path}: the export format is chosen by the suffix, .csv or .parquet (got {suffix or 'none'!r})")
